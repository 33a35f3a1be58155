"""The gate runner and the post-merge job over real git repositories with the recorded
stand-in (D-4 steps 0-9, D-5, D-12, D-19, D-29, D-34; rulings 2, 4, 5, 6, 7)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pygit2
import pytest
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network import signing
from network.errors import CATALOG
from network.forge.types import precheck_from_body
from network.gate import attestation as A
from network.gate.lean.toolchain import MissingToolchain, ToolchainInfo
from network.gate.postmerge.postmerge import postmerge_files
from network.gate.run import GateOutcome, run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.record import derive
from network.record import models as m
from network.record.read.loader import load_graph

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import ND, T, precheck_raw, record_all, scenarios
from standin import FIXTURES, RecordedToolchain

from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID

KEY = BUILDER_GATE_KEY  # published under keys/ by GraphBuilder.base() (ruling 14)


def gate(tmp_path: Path, name: str, *, toolchain: Any = RecordedToolchain, raw: Any = "auto",
         **kw: Any) -> tuple[GateOutcome, Path, str, str]:
    sc = scenarios()[name]
    b, base, head = sc.build(tmp_path / name)
    if raw == "auto":
        raw = precheck_raw(b.root, base, head)
    kw.setdefault("review", sc.review)
    out = run_gate(b.root, base, head, toolchain=toolchain, sandbox=Sandbox(),
                   precheck_raw=raw, submitter=sc.submitter, **kw)
    return out, b.root, base, head


def first_failing(out: GateOutcome) -> tuple[int | None, str | None]:
    ff = out.runs[0].first_failing
    return (ff.step, ff.code) if ff else (None, None)


@pytest.mark.parametrize(("name", "step", "code"), [
    ("statement-edit", 2, "statement-changed"),
    ("outside-node", 2, "path-not-permitted"),
    ("merged-proof-modified", 2, "merged-proof-modified"),
    ("lakefile", 1, "toolchain-pin-file"),
    ("sorry", 5, "sorry-used"),
    ("extra-axiom", 2, "axiom-declared"),
    ("native", 5, "native-code-used"),
    ("undeclared", 8, "undeclared-dependency"),
    ("unused-use", 8, "unused-use"),
    ("missing-witness", 7, "witness-failed"),
    ("restates-ancestor", 4, "offload-restates-ancestor"),
    ("unlabelled-partial", 4, "partial-unlabelled"),
    ("skeleton-annex-missing", 2, "annex-not-found"),
    ("counterexample-restates", 4, "statement-mismatch"),
    ("variant-resolves-bad", 4, "statement-mismatch"),
])
def test_each_step_refuses_its_fixture(tmp_path: Path, name: str, step: int, code: str) -> None:
    out, *_ = gate(tmp_path, name)
    assert out.verdict == "fail" and out.exit_code == 1
    assert first_failing(out) == (step, code)
    assert code in CATALOG
    att = out.attestations[0]
    assert att.verdict == "fail" and att.first_failing_step == step
    if name in ("statement-edit", "merged-proof-modified"):  # no artifact could be placed
        assert att.artifact_kind == "unplaced" and [s.step for s in att.steps] == [2]
    else:
        # step 2 runs first (issue 9), then 0 and 1, then the build's steps
        assert [s.step for s in att.steps] == [2, 0, 1, *range(3, step + 1)]


@pytest.mark.parametrize("name", ["proof-ok", "partial-ok", "skeleton-ok", "close-p",
                                  "postmortem", "counterexample-ok", "vacuity-ok",
                                  "variant-resolves", "variant-refutes"])
def test_clean_submissions_pass(tmp_path: Path, name: str) -> None:
    out, *_ = gate(tmp_path, name)
    assert (out.verdict, out.exit_code) == ("pass", 0), out.to_dict()
    att = out.attestations[0]
    if name == "postmortem":  # record-only: step 2 alone, no Lean, no precheck (ruling 6)
        assert [s.step for s in att.steps] == [2] and att.precheck is None
    else:
        assert [s.step for s in att.steps] == [2, 0, 1, *range(3, 10)]  # step 2 first
        assert att.step9 is not None and att.step9.basis == "intermediate"
        assert att.precheck is not None and att.precheck.signature_kind == "none"


def test_a_record_only_kind_needs_no_toolchain(tmp_path: Path) -> None:
    out, *_ = gate(tmp_path, "postmortem", toolchain=MissingToolchain, raw=None)
    assert out.verdict == "pass"


def test_missing_toolchain_is_toolchain_missing_never_a_pass(tmp_path: Path) -> None:
    out, *_ = gate(tmp_path, "proof-ok", toolchain=MissingToolchain)
    assert out.verdict == "fail" and first_failing(out) == (1, "toolchain-missing")
    pre, *_ = gate(tmp_path / "pre", "proof-ok", toolchain=MissingToolchain, mode="precheck")
    # neither a pass nor a judgment: its own verdict in a precheck-attestation/v2 (issue 35)
    assert pre.verdict == "fail" and pre.precheck_attestations[0].verdict == \
        "precheck-toolchain-missing"
    assert pre.precheck_attestations[0].schema_ == "precheck-attestation/v2"


def test_unknown_bytes_never_pass(tmp_path: Path) -> None:
    """The stand-in answers toolchain-missing for bytes it has no recording of."""
    sc = scenarios()["proof-ok"]
    b, base, _ = sc.build(tmp_path / "x")
    b.write(f"{ND}/mid/Proof.lean", "theorem Demo.mid : True := trivial -- unrecorded\n")
    from tests.graphs import git_commit
    head = git_commit(b.root, "other bytes")
    out = run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   precheck_raw=precheck_raw(b.root, base, head), submitter="alice")
    assert out.verdict == "fail" and first_failing(out) == (3, "toolchain-missing")


def test_a_toolchain_for_another_pin_is_a_mismatch(tmp_path: Path) -> None:
    class Wrong(RecordedToolchain):
        def describe(self) -> ToolchainInfo:
            return ToolchainInfo(False, "toolchain-mismatch", self.spec.lean_toolchain,
                                 "4.9.0", detail="installed 4.9.0")
    out, *_ = gate(tmp_path, "proof-ok", toolchain=Wrong)
    assert first_failing(out) == (1, "toolchain-mismatch")
    other = RecordedToolchain(m.GateSpec(lean_toolchain="leanprover/lean4:v4.35.0"))
    out2, *_ = gate(tmp_path / "b", "proof-ok", toolchain=other)
    assert first_failing(out2) == (1, "toolchain-mismatch")


def test_a_settling_proof_of_an_unvouched_root_is_held(tmp_path: Path) -> None:
    out, *_ = gate(tmp_path, "root-proof")
    assert (out.verdict, out.exit_code) == ("held", 2)
    att = out.attestations[0]
    assert att.verdict == "held" and att.step9 == m.Step9(basis="awaiting-review")
    ok, *_ = gate(tmp_path / "r", "root-proof-reviewed")
    assert ok.verdict == "pass" and ok.attestations[0].step9 == m.Step9(basis="review",
                                                                         reviewer="rita")


def test_the_authors_own_review_does_not_count(tmp_path: Path) -> None:
    from network.gate.run import Review
    out, *_ = gate(tmp_path, "root-proof", review=Review("alice"))
    assert out.verdict == "held"


def test_a_vouched_root_records_its_certificate(tmp_path: Path) -> None:
    sc = scenarios()["root-proof"]
    sc.base = {"fidelity": {"grade": "screened-and-signed"}}
    b, base, head = sc.build(tmp_path / "v")
    out = run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   precheck_raw=precheck_raw(b.root, base, head), submitter="alice")
    assert out.verdict == "pass"
    assert out.attestations[0].step9 is not None
    assert out.attestations[0].step9.basis == "certificate"


def test_native_decide_with_waiver_and_sign_off_is_flagged(tmp_path: Path) -> None:
    out, *_ = gate(tmp_path, "native-waived")
    assert out.verdict == "pass" and out.attestations[0].waivers == ["native_decide"]
    out2, *_ = gate(tmp_path / "n", "native-waived", review=None)
    assert first_failing(out2) == (5, "native-code-used")



def test_an_alternate_carries_its_waiver(tmp_path: Path) -> None:
    """D-4: the waiver rides with an alternate as with a proof: one artifact, flagged."""
    out, *_ = gate(tmp_path, "alternate-native-waived")
    assert out.verdict == "pass", out.to_dict()
    [att] = out.attestations
    assert att.artifact_kind == "alternate" and att.waivers == ["native_decide"]
    assert sorted(a.path.rsplit("/", 1)[-1] for a in att.artifacts) == [
        "20260301T000000Z-alice-alternate.lean", "native_decide.yaml"]
    out2, *_ = gate(tmp_path / "n", "alternate-native-waived", review=None)
    assert first_failing(out2) == (5, "native-code-used")

# --- step 0 -------------------------------------------------------------------------------


def test_no_precheck_is_bounced_before_any_build(tmp_path: Path) -> None:
    out, *_ = gate(tmp_path, "proof-ok", raw=None)
    assert (out.verdict, out.exit_code) == ("bounced", 1)
    assert first_failing(out) == (0, "precheck-missing")
    assert [s.step for s in out.attestations[0].steps] == [2, 0]  # step 2 first (issue 9)


def test_a_stale_precheck_is_bounced(tmp_path: Path) -> None:
    sc = scenarios()["proof-ok"]
    b, base, head = sc.build(tmp_path / "s")
    raw = precheck_raw(b.root, base, head, date="2026-08-01T00:00:00Z")
    out = run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   precheck_raw=raw, submitter="alice")
    assert first_failing(out) == (0, "precheck-stale") and out.verdict == "bounced"


def test_an_unsigned_precheck_is_bounced_where_signatures_are_required(tmp_path: Path) -> None:
    sc = scenarios()["proof-ok"]
    sc.base = {"precheck": {"accepted_signature_kinds": ["service", "ssh"],
                            "max_age_s": 3600}}
    b, base, head = sc.build(tmp_path / "u")
    out = run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   precheck_raw=precheck_raw(b.root, base, head), submitter="alice")
    assert first_failing(out) == (0, "precheck-kind-refused")


def test_a_precheck_signed_by_an_unknown_key_is_bounced(tmp_path: Path) -> None:
    sc = scenarios()["proof-ok"]
    b, base, head = sc.build(tmp_path / "k")
    raw = precheck_raw(b.root, base, head)
    assert raw is not None
    att = m.PrecheckAttestation.model_validate_json(raw)
    forged = att.model_copy(update={"signature": signing.sign(att, KEY, "service", "svc", "svc")})
    out = run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   precheck_raw=json.dumps(forged.model_dump(by_alias=True, exclude_none=True)),
                   submitter="alice")
    assert first_failing(out) == (0, "precheck-unsigned")


def test_the_precheck_run_emits_the_attestation_the_gate_consumes(tmp_path: Path) -> None:
    sc = scenarios()["proof-ok"]
    b, base, head = sc.build(tmp_path / "p")
    pre = run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   mode="precheck", submitter="alice")
    assert pre.verdict == "pass" and not pre.attestations
    patt = pre.precheck_attestations[0]
    assert patt.verdict == "precheck-pass" and [s.step for s in patt.steps] == [2, 1, *range(3, 9)]
    raw = precheck_from_body(A.precheck_block(patt))
    out = run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   precheck_raw=raw, submitter="alice")
    assert out.verdict == "pass"


# --- attestations (D-5, D-34) ------------------------------------------------------------


def test_attestations_are_reproducible_once_masked(tmp_path: Path) -> None:
    sc = scenarios()["proof-ok"]
    b, base, head = sc.build(tmp_path / "r")
    raw = precheck_raw(b.root, base, head)
    one = run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   precheck_raw=raw, submitter="alice", gate_key=KEY, key_id=BUILDER_GATE_KEY_ID,
                   runner="local")
    two = run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   precheck_raw=raw, submitter="alice", gate_key=Ed25519PrivateKey.generate(),
                   key_id="gate-2", runner="hosted")
    a, c = one.attestations[0], two.attestations[0]
    assert a.signature != c.signature and a.runner != c.runner
    assert A.masked(a) == A.masked(c)
    assert A.attestation_id(a) == A.attestation_id(c)
    keys = {BUILDER_GATE_KEY_ID: signing.public_key_record(KEY, BUILDER_GATE_KEY_ID, "gate", "2026-01-01")}
    assert a.signature is not None
    signing.verify(a, a.signature, keys, a.timestamp)
    # the timestamp is the head commit's committer date (ruling 2), never the clock
    assert a.timestamp == "2026-09-21T14:13:20Z"


def test_recordings_are_current(tmp_path: Path) -> None:
    """make_recordings.py's output equals the committed recordings (regenerate on drift)."""
    store = record_all(tmp_path)
    for key, rec in store.items():
        path = FIXTURES / f"{key}.json"
        assert path.is_file(), f"missing recording {key}: run make_recordings.py"
        assert json.loads(path.read_text("utf-8")) == json.loads(
            json.dumps(rec, ensure_ascii=False, sort_keys=True)), key


# --- the post-merge job --------------------------------------------------------------------


def merged(tmp_path: Path, name: str, **kw: Any) -> tuple[Any, Path, str]:
    out, root, _base, head = gate(tmp_path, name)
    assert out.verdict == "pass", out.to_dict()
    repo = pygit2.Repository(str(root))
    repo.references["refs/heads/main"].set_target(pygit2.Oid(hex=head))
    kw.setdefault("toolchain", RecordedToolchain)
    pm = postmerge_files(root, head, out.attestations, pull_request="local/9",
                         submitter="alice", sandbox=Sandbox(), gate_key=KEY, key_id=BUILDER_GATE_KEY_ID,
                         **kw)
    return pm, root, head


def apply(root: Path, files: dict[str, bytes]) -> Any:
    for p, data in files.items():
        (root / p).parent.mkdir(parents=True, exist_ok=True)
        (root / p).write_bytes(data)
    return load_graph(root)


def test_a_partials_holes_become_child_nodes(tmp_path: Path) -> None:
    pm, root, _ = merged(tmp_path, "partial-ok")
    assert pm.holes == ["mid--h1"] and pm.lemma_edges == [("mid", "aux")], pm.notes
    h = f"{ND}/mid--h1"
    meta = yaml.safe_load(pm.files[f"{h}/META.yaml"])
    assert meta["hole"] == {"parent": "mid", "route": f"{ND}/mid/attempts/"
                            "20260301T000000Z-alice-partial.lean", "k": 1, "name": "h₁"}
    assert meta["origin"] == "compiler-derived" and meta["declaration"] == "Demo.mid.h1"
    assert b"theorem Demo.mid.h1 : \xe2\x88\x80 (n : Nat), n + 0 = 0 + n" in pm.files[
        f"{h}/Statement.lean"]
    assert pm.files[f"{h}/Witness.lean"].startswith(b"theorem Demo.mid.h1.witness")
    gloss_path = next(p for p in pm.files if p.startswith(f"{h}/gloss/"))
    gloss = yaml.safe_load(pm.files[gloss_path])
    assert gloss["label"] == "drop one zero" and gloss["author"] == "alice"
    assert gloss["sections"][0]["text"].startswith("$$n + 0 = n$$")
    mid_meta = yaml.safe_load(pm.files[f"{ND}/mid/META.yaml"])
    assert mid_meta["lemmas"] == ["aux"] and mid_meta["statement_hash"]
    assert b"theorem Demo.aux" in pm.files[f"{ND}/mid/Context.lean"]
    g = apply(root, pm.files)
    assert derive.node_status(g, T, "mid--h1") == "open"  # carried witness: not blocked
    route = f"{ND}/mid/attempts/20260301T000000Z-alice-partial.lean"
    assert set(derive.route_holes(g, T, route)) == {"mid--h1", "aux"}
    assert "mid--h1" in json.loads(pm.files["frontier.json"])["nodes"].__repr__()


def test_a_skeletons_holes_are_skeleton_holes(tmp_path: Path) -> None:
    """D-31 v3.12: a route citing an annex on its node writes holes of origin skeleton-hole;
    the same route without the citation writes compiler-derived ones (above)."""
    pm, root, _ = merged(tmp_path, "skeleton-ok")
    assert pm.holes == ["mid--h1"], pm.notes
    meta = yaml.safe_load(pm.files[f"{ND}/mid--h1/META.yaml"])
    assert meta["origin"] == "skeleton-hole" and meta["hole"]["k"] == 1
    g = apply(root, pm.files)
    assert g.node(T, "mid--h1").meta.origin == "skeleton-hole"


def test_hole_numbers_continue_after_earlier_routes(tmp_path: Path) -> None:
    sc = scenarios()["partial-ok"]
    assert sc  # root already has root--h1, root--h2: a route on mid starts at mid--h1
    pm, *_ = merged(tmp_path, "partial-ok")
    assert all(h.startswith("mid--h") for h in pm.holes)


def test_without_a_toolchain_the_job_writes_no_holes_and_says_so(tmp_path: Path) -> None:
    pm, *_ = merged(tmp_path, "partial-ok", toolchain=MissingToolchain)
    assert pm.holes == [] and not any("--h" in p for p in pm.files)
    assert any("toolchain-missing" in n for n in pm.notes)
    assert "log/merges/000005.json" in pm.files  # the merge itself is still recorded


def test_merge_record_ledger_and_signatures(tmp_path: Path) -> None:
    pm, root, head = merged(tmp_path, "proof-ok")
    rec = m.MergeRecord.model_validate_json(pm.files["log/merges/000005.json"])
    assert rec.seq == 5 and rec.merge_commit == head and rec.date == "2026-09-21T14:13:20Z"
    assert rec.pull_request == "local/9" and f"{ND}/mid/Proof.lean" in rec.artifacts
    keys = {BUILDER_GATE_KEY_ID: signing.public_key_record(KEY, BUILDER_GATE_KEY_ID, "gate", "2026-01-01")}
    assert rec.signature is not None
    signing.verify(rec, rec.signature, keys, rec.date)
    line = m.LedgerLine.model_validate_json(pm.files["ledger/000005-1.json"])
    assert (line.line, line.identity, line.node) == ("proof", "alice", "mid")
    att_path = next(p for p in pm.files if p.startswith("attestations/"))
    att = m.attestation_from_json(pm.files[att_path])
    assert att.merge_commit == head
    g = apply(root, pm.files)
    assert derive.node_status(g, T, "mid") == "proved"
    assert not any(n["node"] == "mid" for n in json.loads(pm.files["frontier.json"])["nodes"])


@pytest.mark.parametrize(("name", "lines"), [
    ("postmortem", [("attempts", "alice")]),
    ("root-proof-reviewed", [("proof", "alice"), ("review", "rita")]),
    ("native-waived", [("proof", "alice"), ]),
])
def test_ledger_lines(tmp_path: Path, name: str, lines: list[tuple[str, str]]) -> None:
    pm, *_ = merged(tmp_path, name)
    got = [m.LedgerLine.model_validate_json(v) for p, v in sorted(pm.files.items())
           if p.startswith("ledger/")]
    assert [(x.line, x.identity) for x in got] == lines


def test_closure_closes_the_parent_when_its_hole_is_proved(tmp_path: Path) -> None:
    pm, root, _ = merged(tmp_path, "close-p")
    assert pm.closed == [(T, "p")], pm.notes
    path = f"{ND}/p/closure/route-1.json"
    rec = m.Closure.model_validate_json(pm.files[path])
    assert rec.route == f"{ND}/p/attempts/20260101T000000Z-carol-partial.lean"
    assert [(i.node, i.proof) for i in rec.inputs] == [("p--h1", f"{ND}/p--h1/Proof.lean")]
    assert rec.signature is not None and rec.merge_seq == 5
    g = apply(root, pm.files)
    assert derive.node_status(g, T, "p") == "proved"
    assert derive.node_flags(g, T, "p").proved_by_closure


def test_without_a_toolchain_nothing_is_closed(tmp_path: Path) -> None:
    pm, *_ = merged(tmp_path, "close-p", toolchain=MissingToolchain)
    assert pm.closed == [] and any("closure of p" in n for n in pm.notes)


# --- counterexamples, vacuity certificates, relations (D-12 #2/#3, D-30) -------------------


def test_a_counterexample_is_checked_against_the_negated_statement(tmp_path: Path) -> None:
    out, *_ = gate(tmp_path, "counterexample-ok")
    assert out.verdict == "pass" and out.attestations[0].artifact_kind == "counterexample"
    bad, *_ = gate(tmp_path / "b", "counterexample-restates")
    diag = bad.runs[0].first_failing.diagnostics[0]  # type: ignore[union-attr]
    assert diag.code == "statement-mismatch" and diag.path == f"{ND}/mid/Refutation.lean"


def test_a_vacuity_certificate_asks_no_witness(tmp_path: Path) -> None:
    out, *_ = gate(tmp_path, "vacuity-ok")
    assert out.verdict == "pass"
    step7 = next(s for s in out.runs[0].steps if s.step == 7)
    assert [d.code for d in step7.diagnostics] == ["witness-not-applicable"]
    assert "witness-not-applicable" in CATALOG


def test_a_root_counterexample_settles_and_waits_on_step_9(tmp_path: Path) -> None:
    out, *_ = gate(tmp_path, "root-counterexample")
    assert out.verdict == "held"
    assert out.attestations[0].step9 == m.Step9(basis="awaiting-review")


def test_a_bad_relation_names_relation_lean(tmp_path: Path) -> None:
    out, *_ = gate(tmp_path, "variant-resolves-bad")
    diag = out.runs[0].first_failing.diagnostics[0]  # type: ignore[union-attr]
    assert diag.path == f"{ND}/weak/Relation.lean"


def test_relations_fail_closed_without_a_toolchain(tmp_path: Path) -> None:
    for name in ("counterexample-ok", "vacuity-ok", "variant-resolves"):
        out, *_ = gate(tmp_path / name, name, toolchain=MissingToolchain)
        assert out.verdict == "fail" and first_failing(out) == (1, "toolchain-missing")


def test_an_unrecorded_relation_never_passes(tmp_path: Path) -> None:
    """Other bytes for Relation.lean: the stand-in has no answer, so nothing passes."""
    sc = scenarios()["variant-resolves"]
    b, base, _ = sc.build(tmp_path / "x")
    b.write(f"{ND}/weak/Relation.lean", "theorem Demo.weak.relation : True := trivial\n")
    from tests.graphs import git_commit
    head = git_commit(b.root, "other relation")
    out = run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   precheck_raw=precheck_raw(b.root, base, head), submitter="alice")
    assert out.verdict == "fail" and first_failing(out) == (3, "toolchain-missing")


@pytest.mark.parametrize(("name", "link", "verdict", "variant"), [
    ("close-root-resolves", "resolves", "proved", "strong"),
    ("close-root-refutes", "refutes", "refuted", "counter"),
])
def test_a_proved_variant_closes_the_vouched_root(tmp_path: Path, name: str, link: str,
                                                  verdict: str, variant: str) -> None:
    pm, root, _ = merged(tmp_path, name)
    assert pm.closed == [(T, "root")], pm.notes
    path = f"{ND}/root/closure/{link}.json"
    rec = m.Closure.model_validate_json(pm.files[path])
    assert (rec.link, rec.verdict, rec.route) == (link, verdict, None)
    assert [(i.node, i.proof) for i in rec.inputs] == [(variant, f"{ND}/{variant}/Proof.lean")]
    assert rec.signature is not None and rec.merge_seq == 7
    keys = {BUILDER_GATE_KEY_ID: signing.public_key_record(KEY, BUILDER_GATE_KEY_ID, "gate", "2026-01-01")}
    signing.verify(rec, rec.signature, keys, "2026-09-21T14:13:20Z")
    g = apply(root, pm.files)
    assert derive.node_status(g, T, "root") == verdict
    assert derive.node_status(g, T, variant) == "proved"


def test_variant_closure_needs_a_toolchain(tmp_path: Path) -> None:
    pm, *_ = merged(tmp_path, "close-root-resolves", toolchain=MissingToolchain)
    assert pm.closed == [] and not any("/closure/" in p and p.startswith("targets/")
                                       for p in pm.files)
    assert any("closure of root via strong" in n for n in pm.notes)
