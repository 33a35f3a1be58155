"""Gate steps 1-2 on real git repositories: each refusal with its catalog code (D-3, D-4)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from network.gate.artifacts import Kind, partial_label_findings, statement_command_findings
from network.gate.diff import diff_commits
from network.gate.steps.step2 import run_steps_1_2
from network.record.read.loader import load_graph
from tests.graphs import GraphBuilder, git_commit, sha256_hex

T = "demo"
ND = f"targets/{T}/nodes"


@pytest.fixture()
def repo(tmp_path: Path) -> tuple[GraphBuilder, str]:
    b = GraphBuilder(tmp_path / "g")
    b.base()
    b.target(T)
    b.node(T, "root")
    b.node(T, "lemma", proof="theorem stmt_lemma : True := trivial\n")
    b.merge([f"{ND}/lemma/Proof.lean"])
    b.target("tut", cls="tutorial", steward=None)
    b.node("tut", "tutorial", tutorial=True, proof="-- rehearsal 1\n")
    b.merge(["targets/tut/nodes/tutorial/Proof.lean"])
    base = git_commit(b.root, "base")
    return b, base


def judge(b: GraphBuilder, base: str, submitter: str | None = "alice"):
    head = git_commit(b.root, "head")
    diff = diff_commits(b.root, base, head)
    return run_steps_1_2(diff, load_graph(b.root, commit=base), submitter)


def codes(result) -> list[str]:
    return [d.code for d in result.diagnostics]


def test_a_proof_of_an_open_node_passes(repo):
    b, base = repo
    b.proof(T, "root", "theorem stmt_root : True := trivial\n")
    r = judge(b, base)
    assert r.step1.ok and r.step2.ok, codes(r.step2)
    assert [(a.kind, a.node) for a in r.artifacts] == [(Kind.PROOF, "root")]


def test_an_edited_statement_is_refused(repo):
    b, base = repo
    b.write(f"{ND}/root/Statement.lean", "theorem stmt_root : False := sorry\n")
    r = judge(b, base)
    assert r.step2.code == "statement-changed"


def test_a_file_outside_the_node_layout_is_refused(repo):
    b, base = repo
    b.write(f"{ND}/root/notes.txt", "hello\n")
    b.write("README-extra.md", "x\n")
    r = judge(b, base)
    assert sorted(codes(r.step2)) == ["path-not-permitted", "path-not-permitted"]


def test_a_modified_merged_proof_is_refused(repo):
    b, base = repo
    b.write(f"{ND}/lemma/Proof.lean", "theorem stmt_lemma : True := by trivial\n")
    r = judge(b, base)
    assert r.step2.code == "merged-proof-modified"


def test_the_tutorial_proof_may_be_rewritten(repo):
    b, base = repo
    b.write("targets/tut/nodes/tutorial/Proof.lean", "-- rehearsal 2\n")
    r = judge(b, base)
    assert r.step2.ok, codes(r.step2)


def test_a_lakefile_or_manifest_is_refused_at_step_1(repo):
    b, base = repo
    b.write(f"{ND}/root/lakefile.lean", "-- evil\n")
    b.write("lake-manifest.json", "{}\n")
    r = judge(b, base)
    assert not r.step1.ok
    assert codes(r.step1) == ["toolchain-pin-file", "toolchain-pin-file"]


def test_a_byte_identical_alternate_is_refused(repo):
    b, base = repo
    b.partial(T, "lemma", "20260105T000000Z", "alice",
              "theorem stmt_lemma : True := trivial\n", kind="alternate")
    r = judge(b, base)
    assert r.step2.code == "copy-of-merged-proof"


def test_a_different_alternate_passes(repo):
    b, base = repo
    b.partial(T, "lemma", "20260105T000000Z", "alice",
              "theorem stmt_lemma : True := by exact trivial\n", kind="alternate")
    r = judge(b, base)
    assert r.step2.ok and r.artifacts[0].kind is Kind.ALTERNATE


def test_a_second_proof_is_told_to_be_an_alternate(repo):
    b, base = repo
    b.remove(f"{ND}/lemma/Proof.lean")
    base2 = git_commit(b.root, "drop")  # not a legal history; only exercises classification
    b.proof(T, "lemma", "theorem stmt_lemma : True := by trivial\n")
    git_commit(b.root, "re-add")
    r = judge(b, base2)
    assert r.step2.ok  # at base2 the node had no proof, so this is a first proof
    del base


def test_gate_only_paths_are_refused(repo):
    b, base = repo
    b.write(f"{ND}/root/Context.lean", "-- ctx\n")
    b.write("ledger/000009-1.json", "{}\n")
    b.write("frontier.json", "{}\n")
    b.write(f"{ND}/root--h1/Statement.lean", "theorem x : True := sorry\n")
    r = judge(b, base)
    assert codes(r.step2) == ["gate-only-path"] * 4


def test_meta_changes_are_refused(repo):
    b, base = repo
    meta = yaml.safe_load(b.read(f"{ND}/root/META.yaml"))
    meta["deps"] = ["lemma"]
    b.write_yaml(f"{ND}/root/META.yaml", meta)
    r = judge(b, base)
    assert r.step2.code == "meta-changed"


def test_skip_kernel_option_is_refused(repo):
    b, base = repo
    b.proof(T, "root", "set_option debug.skipKernelTC true\ntheorem stmt_root : True := trivial\n")
    r = judge(b, base)
    assert r.step2.code == "forbidden-option"


def test_an_axiom_of_ones_own_is_refused_whatever_its_name(repo):
    b, base = repo
    for text in ("axiom propext : False\ntheorem stmt_root : True := trivial\n",
                 "private axiom Demo._native.x : True\ntheorem stmt_root : True := trivial\n",
                 "@[simp] axiom w : True\ntheorem stmt_root : True := trivial\n"):
        b.proof(T, "root", text)
        r = judge(b, base)
        assert codes(r.step2) == ["axiom-declared"], text
    b.proof(T, "root", "/- axiom a : False -/ theorem stmt_root : True := trivial -- \"axiom\"\n")
    assert judge(b, base).step2.ok


def test_a_use_line_must_name_a_usable_module(repo):
    b, base = repo
    b.proof(T, "root", "import Lemmata.demo.root.Nope\ntheorem stmt_root : True := trivial\n")
    r = judge(b, base)
    assert r.step2.code == "use-unusable"
    b.proof(T, "root", "import Lemmata.demo.«lemma».Proof\ntheorem stmt_root : True := trivial\n")
    r = judge(b, base)
    assert r.step2.ok, codes(r.step2)


def test_a_partial_without_its_lines_is_refused(repo):
    b, base = repo
    b.partial(T, "root", "20260105T000000Z", "alice", "theorem stmt_root : True := by\n  sorry\n")
    r = judge(b, base)
    assert codes(r.step2) == ["partial-unlabelled", "partial-unlabelled"]


def test_partial_labels_per_hole():
    text = (
        "-- approach: split into cases\n-- licence: CC-BY-4.0\n"
        "theorem t : True := by\n"
        "  -- label: the first case\n  -- claim: $1 = 1$\n  have h1 : True := sorry\n"
        "  have h2 : True := sorry\n  trivial\n"
    )
    found = partial_label_findings(text, "p.lean", hole_lines=[6, 7])
    assert [(d.code, d.line) for d in found] == [
        ("partial-unlabelled", 7), ("partial-unlabelled", 7)]


def test_statement_commands_are_allowlisted():
    ok = "import Mathlib\nopen Nat\n/-- doc -/\ntheorem t (n : ℕ) : n = n := sorry\n"
    assert statement_command_findings(ok, "S.lean") == []
    bad = ok + "#eval IO.println \"hi\"\nrun_cmd pure ()\n"
    assert [d.line for d in statement_command_findings(bad, "S.lean")] == [5, 6]


def test_a_variant_proposal(repo):
    b, base = repo
    stmt = b"theorem weaker : True := sorry\n"
    d = f"{ND}/variant-weak"
    b.write(f"{d}/Statement.lean", stmt)
    b.write(f"{d}/Witness.lean", "example : True := trivial\n")
    b.write_yaml(f"{d}/META.yaml", {
        "schema": "meta/v1", "id": "variant-weak", "target": T, "declaration": "weaker",
        "statement_hash": sha256_hex(stmt), "origin": "variant",
        "variant": {"of": "root", "relation": "partial"}})
    r = judge(b, base)
    assert codes(r.step2) == ["missing-file"]  # a partial variant carries Relation.lean
    b.write(f"{d}/Relation.lean", "-- root → variant\n")
    r = judge(b, base)
    assert r.step2.ok, codes(r.step2)
    assert r.artifacts[0].kind is Kind.VARIANT


def test_a_shelving_needs_a_steward_or_curator(repo):
    b, base = repo
    b.shelving(T, "lemma", "20260105T000000Z", "alice")
    r = judge(b, base, submitter="alice")
    assert r.step2.code == "role-not-permitted"
    b.remove(f"{ND}/lemma/shelving/20260105T000000Z-alice.yaml")
    b.shelving(T, "lemma", "20260105T000000Z", "steve")  # his own act, signed (ruling 14)
    r = judge(b, base, submitter="steve")
    assert r.step2.ok, codes(r.step2)


def test_a_malformed_postmortem_is_refused(repo):
    b, base = repo
    b.write(f"{ND}/root/attempts/20260105T000000Z-alice-postmortem.yaml",
            "schema: d13/v1\nnode: demo/root\noutcome: maybe\n")
    r = judge(b, base)
    assert set(codes(r.step2)) == {"invalid-record"}


def test_a_symlink_is_refused(repo, tmp_path):
    b, base = repo
    (b.root / ND / "root" / "Proof.lean").symlink_to("/etc/passwd")
    r = judge(b, base)
    assert r.step2.code == "symlink-in-submission"


# --- annexes (D-31) ------------------------------------------------------------------------

ANNEX_TEXT = b"An informal argument.\n"
ANNEX_SHA = sha256_hex(ANNEX_TEXT)


def _annex_meta(sha: str = ANNEX_SHA, **over) -> dict:
    return {"schema": "annex/v1", "sha256": sha, "author": "alice", "licence": "CC-BY-4.0",
            "title": "An argument", "date": "2026-01-05", **over}


def test_an_annex_with_its_metadata_passes(repo):
    b, base = repo
    b.annex(T, "root", ANNEX_TEXT.decode())
    r = judge(b, base)
    assert r.step2.ok, codes(r.step2)
    assert [a.kind for a in r.artifacts] == [Kind.ANNEX]


def test_an_annex_not_named_after_its_hash_is_refused(repo):
    b, base = repo
    wrong = "0" * 64
    b.write(f"{ND}/root/annex/{wrong}.md", ANNEX_TEXT)
    b.write_yaml(f"{ND}/root/annex/{wrong}.yaml", _annex_meta(wrong))
    r = judge(b, base)
    assert codes(r.step2) == ["annex-hash-mismatch"]
    assert r.step2.diagnostics[0].path == f"{ND}/root/annex/{wrong}.md"


def test_annex_metadata_naming_another_hash_is_refused(repo):
    b, base = repo
    b.write(f"{ND}/root/annex/{ANNEX_SHA}.md", ANNEX_TEXT)
    b.write_yaml(f"{ND}/root/annex/{ANNEX_SHA}.yaml", _annex_meta("1" * 64))
    r = judge(b, base)
    assert codes(r.step2) == ["annex-hash-mismatch"]
    assert r.step2.diagnostics[0].path.endswith(".yaml")


def test_an_annex_without_metadata_is_refused(repo):
    b, base = repo
    b.write(f"{ND}/root/annex/{ANNEX_SHA}.md", ANNEX_TEXT)
    r = judge(b, base)
    assert codes(r.step2) == ["annex-metadata-missing"]


def test_annex_metadata_must_validate_and_describe_an_annex(repo):
    b, base = repo
    b.write(f"{ND}/root/annex/{ANNEX_SHA}.md", ANNEX_TEXT)
    b.write_yaml(f"{ND}/root/annex/{ANNEX_SHA}.yaml", _annex_meta(title=None))
    r = judge(b, base)
    assert set(codes(r.step2)) == {"invalid-record"}
    b.remove(f"{ND}/root/annex/{ANNEX_SHA}.md")
    b.write_yaml(f"{ND}/root/annex/{ANNEX_SHA}.yaml", _annex_meta())
    r = judge(b, base)
    assert codes(r.step2) == ["missing-file"]


def test_annex_holds_only_hash_named_files(repo):
    b, base = repo
    b.write(f"{ND}/root/annex/notes.md", ANNEX_TEXT)
    r = judge(b, base)
    assert codes(r.step2) == ["path-not-permitted"]


SKELETON = ("-- annex: {sha}\n-- approach: split in two\n-- licence: CC-BY-4.0\n"
            "theorem stmt_root : True := by\n  -- label: one\n  -- claim: $1$\n"
            "  have h : True := sorry\n  exact h\n")


def test_a_skeleton_citing_an_annex_of_its_node_passes(repo):
    b, base = repo
    b.annex(T, "root", ANNEX_TEXT.decode())
    base2 = git_commit(b.root, "annex on root")
    b.partial(T, "root", "20260105T000000Z", "alice", SKELETON.format(sha=ANNEX_SHA))
    r = judge(b, base2)
    assert r.step2.ok, codes(r.step2)
    del base


def test_a_skeleton_may_bring_its_annex_along(repo):
    b, base = repo
    b.annex(T, "root", ANNEX_TEXT.decode())
    b.partial(T, "root", "20260105T000000Z", "alice", SKELETON.format(sha=ANNEX_SHA))
    r = judge(b, base)
    assert r.step2.ok, codes(r.step2)
    assert sorted(a.kind for a in r.artifacts) == [Kind.ANNEX, Kind.PARTIAL]


@pytest.mark.parametrize("cited", [ANNEX_SHA, "not-a-hash", ""])
def test_a_skeleton_citing_a_missing_annex_is_refused(repo, cited):
    b, base = repo
    b.annex(T, "lemma", ANNEX_TEXT.decode())  # on another node: not this skeleton's
    base2 = git_commit(b.root, "annex on lemma")
    path = b.partial(T, "root", "20260105T000000Z", "alice", SKELETON.format(sha=cited))
    r = judge(b, base2)
    assert codes(r.step2) == ["annex-not-found"]
    assert (r.step2.diagnostics[0].path, r.step2.diagnostics[0].line) == (path, 1)
    del base


def test_a_reduction_citing_a_missing_annex_is_refused(repo):
    b, base = repo
    b.partial(T, "root", "20260105T000000Z", "alice",
              f"-- annex: {ANNEX_SHA}\ntheorem stmt_root : True := sorry\n", kind="reduction")
    r = judge(b, base)
    assert codes(r.step2) == ["annex-not-found"]


WAIVER = {"schema": "waiver/v1", "kind": "native_decide", "justification": "a big computation",
          "author": "alice", "date": "2026-01-05"}


def test_a_waiver_rides_with_an_alternate(repo):
    b, base = repo
    alt = b.partial(T, "lemma", "20260105T000000Z", "alice",
                    "theorem stmt_lemma : True := by native_decide\n", kind="alternate")
    waiver = b.write_yaml(f"{ND}/lemma/waivers/native_decide.yaml", WAIVER)
    r = judge(b, base)
    assert r.step2.ok, codes(r.step2)
    [art] = r.artifacts
    assert art.kind is Kind.ALTERNATE and art.main == alt and art.paths == sorted([alt, waiver])


def test_a_waiver_alone_or_beside_a_partial_is_refused(repo):
    b, base = repo
    b.write_yaml(f"{ND}/root/waivers/native_decide.yaml", WAIVER)
    r = judge(b, base)
    assert codes(r.step2) == ["path-not-permitted"]
    b.partial(T, "root", "20260105T000000Z", "alice",
              "-- approach: a\n-- licence: CC-BY-4.0\ntheorem stmt_root : True := sorry\n")
    r = judge(b, base)
    assert codes(r.step2) == ["path-not-permitted"]


def _service_bundle(b: GraphBuilder, base: str, artifact_type: str) -> dict[str, str]:
    """The graph files the service writes for a route carrying a witness for hole 1
    (network/api/precheck.build_bundle, files ``{"h1.witness.lean": …}``)."""
    from network.api.submit.precheck import build_bundle

    bundle = build_bundle(load_graph(b.root, commit=base), target=T, node="root",
                          artifact_type=artifact_type,
                          text="-- approach: a\n-- licence: CC-BY-4.0\n"
                               "theorem stmt_root : True := sorry\n",
                          files={"h1.witness.lean": "theorem w : True := trivial\n"},
                          pseudonym="alice", now=1_790_000_000)
    for path, text in bundle.files.items():
        b.write(path, text)
    return bundle.files


def test_a_partials_carried_witness_has_the_services_name(repo):
    b, base = repo
    files = _service_bundle(b, base, "partial")
    r = judge(b, base)
    assert r.step2.ok, codes(r.step2)
    [art] = r.artifacts
    assert art.kind is Kind.PARTIAL and art.paths == sorted(files)


def test_a_reductions_carried_witness_follows_the_record_layout(repo):
    """The service names a reduction's carried witness ``…-reduction.h<k>.witness.lean``,
    the one name docs/record.md gives and the record's layout admits, so it rides with its
    reduction at step 2 and a merge never leaves main holding a file the loader refuses."""
    from network.record.read import loader

    b, base = repo
    files = _service_bundle(b, base, "reduction")
    witness = next(p for p in files if p.endswith(".witness.lean"))
    assert witness.endswith("-reduction.h1.witness.lean")
    assert loader.ATTEMPT_RE.fullmatch(witness.rsplit("/", 1)[-1]) is not None
    r = judge(b, base)
    assert r.step2.ok, codes(r.step2)
    [art] = r.artifacts
    assert art.kind is Kind.REDUCTION and art.paths == sorted(files)
    assert art.main == next(p for p in files if p.endswith("-reduction.lean"))
