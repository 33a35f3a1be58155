"""The six credit lines the post-merge job writes (D-19 and its amendments) and credit
corrections applied by revoke-and-rewrite (D-19 v3.27), each over a real git repository
(GraphBuilder + git_commit) through :func:`network.gate.postmerge.postmerge.postmerge_files`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from network.gate.lean.toolchain import MissingToolchain
from network.gate.postmerge.postmerge import PostMerge, postmerge_files
from network.gate.sandbox.sandbox import Sandbox
from network.record import derive
from network.record import models as m
from network.record.read.loader import load_graph
from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID, GraphBuilder, git_commit

T = "t1"
ROOT = f"targets/{T}/nodes/root"


@pytest.fixture()
def b(tmp_path: Path) -> GraphBuilder:
    """A graph whose first commit holds the policy, curators (``curator`` on every target)
    and keys, then target t1 (steward steve) with its root merged by an earlier merge."""
    g = GraphBuilder(tmp_path / "g").base()
    git_commit(g.root, "seed")
    return g


def _target(b: GraphBuilder) -> None:
    b.target(T)
    b.node(T, "root")


def _job(b: GraphBuilder, message: str, atts: list[str] | None = None,
         submitter: str | None = "alice") -> PostMerge:
    head = git_commit(b.root, message)
    recs = [m.attestation_from_json(b.read(p)) for p in atts or []]
    return postmerge_files(b.root, head, recs, pull_request="local/1", submitter=submitter,
                           toolchain=MissingToolchain, sandbox=Sandbox(),
                           gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)


def _apply(b: GraphBuilder, pm: PostMerge) -> None:
    for path, data in pm.files.items():
        b.write(path, data)


def _entries(pm: PostMerge) -> list[m.LedgerLine | m.Revocation]:
    out: list[m.LedgerLine | m.Revocation] = []
    for path, data in sorted(pm.files.items()):
        if path.startswith("ledger/"):
            obj = json.loads(data)
            model = m.Revocation if obj["schema"] == "revocation/v1" else m.LedgerLine
            out.append(model.model_validate(obj))
    return out


def _lines(pm: PostMerge) -> list[tuple[str, str, str]]:
    return [(e.line, e.identity, e.artifact) for e in _entries(pm)
            if isinstance(e, m.LedgerLine)]


def _intake(b: GraphBuilder) -> PostMerge:
    """Target t1 reaches main by a curator's intake merge (no attestation) and is recorded."""
    _target(b)
    pm = _job(b, "intake t1", submitter="curator")
    _apply(b, pm)
    git_commit(b.root, "post-merge 1")
    return pm


# --- statement ---------------------------------------------------------------------------


def test_an_imported_root_and_its_defs_earn_the_statement_line_to_the_submitter(
        b: GraphBuilder) -> None:
    _target(b)
    b.write(f"targets/{T}/defs/Basic.lean", "def twice (n : Nat) : Nat := 2 * n\n")
    pm = _job(b, "import t1", submitter="curator")
    assert _lines(pm) == [("statement", "curator", f"targets/{T}/defs/Basic.lean"),
                          ("statement", "curator", f"{ROOT}/Statement.lean")]
    line = next(e for e in _entries(pm) if isinstance(e, m.LedgerLine) and e.node == "root")
    assert line.artifact_sha256 == b.sha(f"{ROOT}/Statement.lean") and line.signature
    rec = m.MergeRecord.model_validate_json(pm.files["log/merges/000001.json"])
    assert rec.attestation is None and f"{ROOT}/Statement.lean" in rec.artifacts


def test_a_root_without_a_submitter_or_on_the_tutorial_target_earns_nothing(
        b: GraphBuilder) -> None:
    _target(b)
    assert _lines(_job(b, "seeded by the operator", submitter=None)) == []
    b.target("tut", cls="tutorial")
    b.node("tut", "root")
    assert _lines(_job(b, "tutorial", submitter="curator")) == []


def test_gate_written_holes_and_a_same_hash_root_revision_earn_no_statement_line(
        b: GraphBuilder) -> None:
    _intake(b)
    route = f"{ROOT}/attempts/20260101T000000Z-alice-partial.lean"
    b.partial(T, "root", "20260101T000000Z", "alice")
    b.hole(T, "root", 1, route)  # as the post-merge job writes it: no attestation
    b.node(T, "root@v2", supersedes="root",
           statement=b.read(f"{ROOT}/Statement.lean"))
    assert _lines(_job(b, "holes and a revision", submitter="curator")) == []


def test_a_root_revision_with_a_new_statement_earns_the_line(b: GraphBuilder) -> None:
    _intake(b)
    b.node(T, "root@v2", supersedes="root",
           statement="theorem stmt_root_v2 : 1 = 1 := sorry\n")
    assert _lines(_job(b, "revision", submitter="curator")) == [
        ("statement", "curator", f"targets/{T}/nodes/root@v2/Statement.lean")]


def test_a_variant_earns_its_statement_line_once_not_twice(b: GraphBuilder) -> None:
    _intake(b)
    b.node(T, "weak", origin="variant", variant={"of": "root", "relation": "related"})
    d = f"targets/{T}/nodes/weak"
    att = b.attest([f"{d}/META.yaml", f"{d}/Statement.lean", f"{d}/Witness.lean"],
                   artifact_kind="variant")
    assert _lines(_job(b, "variant", [att])) == [("statement", "alice", f"{d}/Statement.lean")]


# --- review: a confirmed defect (D-15) ---------------------------------------------------


def _defect(b: GraphBuilder) -> str:
    _intake(b)
    path = b.defect(T, "root", "20260201T000000Z", "dora")
    b.merge([path], date="2026-02-01T00:00:00Z")
    git_commit(b.root, "defect claim merged")
    return path


def test_a_confirmed_defect_earns_the_review_line_to_its_filer(b: GraphBuilder) -> None:
    defect = _defect(b)
    dispute = b.dispute(T, "root", "20260202T000000Z", "curator", defect)
    att = b.attest([dispute], artifact_kind="dispute")
    pm = _job(b, "dispute", [att], submitter="curator")
    assert _lines(pm) == [("review", "dora", defect)]
    line = next(e for e in _entries(pm) if isinstance(e, m.LedgerLine))
    assert line.annotation is not None and dispute in line.annotation
    _apply(b, pm)
    git_commit(b.root, "post-merge")
    again = b.dispute(T, "root", "20260203T000000Z", "curator", defect)
    att2 = b.attest([again], artifact_kind="dispute")
    assert _lines(_job(b, "second dispute", [att2], submitter="curator")) == []


@pytest.mark.parametrize("how", ["unsigned", "not-a-curator", "withdrawn-claim"])
def test_an_unconfirmed_defect_earns_nothing(b: GraphBuilder, how: str) -> None:
    defect = _defect(b)
    if how == "withdrawn-claim":
        w = b.withdrawal(T, "root", "20260202T000000Z", "curator", defect)
        b.merge([w], date="2026-02-02T00:00:00Z", artifact_kind="withdrawal")
    who = "steve" if how == "not-a-curator" else "curator"
    dispute = b.dispute(T, "root", "20260203T000000Z", who, defect,
                        signed=how != "unsigned")
    att = b.attest([dispute], artifact_kind="dispute")
    assert _lines(_job(b, "dispute", [att], submitter=who)) == []


# --- upstream: a registration (D-10 v3.37, D-19 v3.37) -----------------------------------


def _registration(b: GraphBuilder, n: int, *, by: str = "curator", state: str = "registered",
                  signed: bool = True, registry_id: str = "PALOMAR-2026-03-01-000001") -> str:
    rec: dict[str, Any] = {
        "schema": "registration/v1", "registry": "Palomar", "registry_id": registry_id,
        "graph_commit": "1" * 40, "state": state, "by": by, "date": "2026-03-01"}
    if signed:
        rec = b.signed(m.Registration, rec, by)
    return b.write_yaml(f"targets/{T}/registrations/2026-03-01-{n}.yaml", rec)


def test_a_registration_is_credited_on_the_upstream_line_to_its_curator(
        b: GraphBuilder) -> None:
    _intake(b)
    reg = _registration(b, 1)
    pm = _job(b, "registered", submitter="curator")
    assert _lines(pm) == [("upstream", "curator", reg)]
    _apply(b, pm)
    git_commit(b.root, "post-merge")
    _registration(b, 2)  # the same registry id again: nothing more
    assert _lines(_job(b, "again", submitter="curator")) == []


@pytest.mark.parametrize("kw", [{"state": "submitted"}, {"signed": False}, {"by": "steve"}])
def test_a_registration_not_registered_or_not_a_curators_earns_nothing(
        b: GraphBuilder, kw: dict[str, Any]) -> None:
    _intake(b)
    _registration(b, 1, **kw)
    assert _lines(_job(b, "registration", submitter="curator")) == []


# --- write-up (D-3 v3.31, v3.33) ---------------------------------------------------------


@pytest.mark.parametrize(("author", "approvers", "earns"), [
    ("steve", ["steve"], True),     # a steward's own version, self-signed (v3.33)
    ("alice", ["steve"], True),     # a steward approves a contributor's version (v3.31)
    ("alice", ["alice"], False),    # a contributor's signature on their own version
    ("alice", ["mallory"], False),  # a signer who holds no role
    ("alice", [], False),           # unsigned
])
def test_the_writeup_line(b: GraphBuilder, author: str, approvers: list[str],
                          earns: bool) -> None:
    _intake(b)
    g = b.gloss(T, "root", "20260301T000000Z", author, approved_by=approvers)
    att = b.attest([g], artifact_kind="gloss")
    got = _lines(_job(b, "gloss", [att], submitter=author))
    assert got == ([("writeup", author, g)] if earns else [])


# --- corrections (D-19 v3.27) ------------------------------------------------------------


def _credited(b: GraphBuilder) -> str:
    """Merge 2 credits alice's postmortem; returns the ledger line's path."""
    _intake(b)
    pmm = b.postmortem(T, "root", "20260301T000000Z", "alice")
    att = b.attest([pmm], artifact_kind="postmortem")
    pm = _job(b, "postmortem", [att])
    _apply(b, pm)
    git_commit(b.root, "post-merge 2")
    (path,) = [p for p in pm.files if p.startswith("ledger/")]
    return path


def _correction(b: GraphBuilder, path: str, corrects: str, *, credited: str = "alice",
                should_be: str | None = "bob", by: str = "curator",
                signed: bool = True) -> str:
    seq, k = path.removeprefix("ledger/").removesuffix(".json").split("-")
    rec: dict[str, Any] = {"schema": "correction/v1", "merge_seq": int(seq), "k": int(k),
                           "corrects": corrects, "credited": credited, "reason": "bob ran it",
                           "by": by}
    if should_be is not None:
        rec["should_be"] = should_be
    if signed:
        rec = b.signed(m.Correction, rec, by)
    return b.write_json(path, rec)


def test_a_correction_revokes_the_line_and_writes_the_corrected_one_once(
        b: GraphBuilder) -> None:
    line = _credited(b)
    corr = _correction(b, "ledger/000002-9.json", line)
    pm = _job(b, "correction filed", submitter="curator")
    rev, new = _entries(pm)
    assert isinstance(rev, m.Revocation) and rev.revokes == line and rev.by == "curator"
    assert rev.reason.startswith(derive.correction_marker(corr)) and rev.signature
    old = m.LedgerLine.model_validate_json(b.read(line))
    assert isinstance(new, m.LedgerLine) and new.identity == "bob" and new.line == old.line
    assert (new.artifact, new.artifact_sha256) == (old.artifact, old.artifact_sha256)
    assert new.annotation is not None and corr in new.annotation
    rerun = _job(b, "the same merge, rerun after a crash", submitter="curator")
    assert {p: v for p, v in rerun.files.items() if p.startswith("ledger/")} == {
        p: v for p, v in pm.files.items() if p.startswith("ledger/")}
    _apply(b, pm)
    git_commit(b.root, "post-merge 3")
    views = derive.ledger_views(load_graph(b.root))
    assert [(v["path"], v["revoked"]) for v in views["alice"]] == [(line, True)]
    assert [v["line"] for v in views["bob"]] == ["attempts"]
    later = _job(b, "a later merge", submitter="curator")  # applied: nothing more
    assert _entries(later) == []


def test_a_correction_to_nobody_only_revokes(b: GraphBuilder) -> None:
    line = _credited(b)
    _correction(b, "ledger/000002-9.json", line, should_be=None)
    got = _entries(_job(b, "correction filed", submitter="curator"))
    assert [type(e).__name__ for e in got] == ["Revocation"]


@pytest.mark.parametrize("kw", [
    {"credited": "carol"},  # names an identity the line does not credit
    {"signed": False},
    {"by": "steve"},        # a steward, not a listed curator
    {"should_be": "alice"},  # no change
])
def test_a_correction_that_does_not_hold_changes_nothing(b: GraphBuilder,
                                                         kw: dict[str, Any]) -> None:
    line = _credited(b)
    _correction(b, "ledger/000002-9.json", line, **kw)
    assert _entries(_job(b, "correction filed", submitter="curator")) == []


def test_a_correction_naming_no_line_changes_nothing(b: GraphBuilder) -> None:
    _credited(b)
    merge = "log/merges/000001.json"
    _correction(b, "ledger/000002-9.json", merge)
    assert _entries(_job(b, "correction filed", submitter="curator")) == []


def test_the_job_never_overwrites_a_ledger_file_already_there(b: GraphBuilder) -> None:
    line = _credited(b)
    corr = _correction(b, "ledger/000003-1.json", line)  # where merge 3's k=1 would go
    pm = _job(b, "correction filed", submitter="curator")
    assert corr not in pm.files
    assert sorted(p for p in pm.files if p.startswith("ledger/")) == [
        "ledger/000003-2.json", "ledger/000003-3.json"]


def test_an_import_merged_on_a_forge_credits_its_roots_and_defs_to_the_curator(
        tmp_path: Path) -> None:
    """The real Formal Conjectures fixture imported as one pull request on LocalForge,
    merged by the curator, then the post-merge job over it (no attestation: an intake)."""
    from sqlalchemy.orm import sessionmaker

    from network.api.db import Base, make_engine
    from network.forge.local import LocalForge
    from network.gate.postmerge.postmerge import run_postmerge
    from network.importers import forge_source, import_as_pull_request
    from network.importers.formal_conjectures import plan_formal_conjectures_import
    from tests.importfixtures import fc_checkout, graph_copy

    co, _ = fc_checkout(tmp_path)
    LocalForge.seed(tmp_path / "forge.git", graph_copy(tmp_path), when=1_790_000_000)
    engine = make_engine(f"sqlite:///{tmp_path / 'state.db'}")
    Base.metadata.create_all(engine)
    forge = LocalForge(tmp_path / "forge.git", sessionmaker(engine), clock=lambda: 1_790_000_100)
    before = forge.main_sha()
    plan = plan_formal_conjectures_import(co, forge_source(forge))
    pr = import_as_pull_request(forge, plan.files, "curator", title="Import FC")
    assert pr is not None
    merged = forge.merge(pr.number)
    assert merged.merge_sha is not None
    pm = run_postmerge(forge, forge.path, merged.merge_sha, [], pull_request=f"local/{pr.number}",
                       submitter="curator", toolchain=MissingToolchain, sandbox=Sandbox(),
                       base=before)
    got = _lines(pm)
    roots = sorted(p for p in plan.files if p.endswith("/nodes/root/Statement.lean"))
    defs = sorted(p for p in plan.files if "/defs/" in p and p.endswith(".lean"))
    assert roots and {a for _, _, a in got} == set(roots) | set(defs)
    assert {(line, who) for line, who, _ in got} == {("statement", "curator")}
    variants = [p for p in plan.files if p.endswith("/Statement.lean") and "/root/" not in p]
    assert variants and not set(variants) & {a for _, _, a in got}  # only roots and defs/
