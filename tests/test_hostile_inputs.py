"""Hostile inputs (STYLE.md rule 11): each refused with its catalog code and path, all of
them reported at once by ``lemmata validate`` with a count and exit status 1."""

from __future__ import annotations

import os
from pathlib import Path

import pygit2
import pytest
from click.testing import CliRunner

from network.cli import main
from network.errors import CATALOG, Problem, ValidationFailed
from network.record.read.loader import load_graph
from network.record.read.source import CommitSource
from network.record.validate import validate_graph
from tests.graphs import FIXED_EMAIL, FIXED_NAME, FIXED_TIME, GraphBuilder, git_commit

T = "demo"
ROOT = f"targets/{T}/nodes/root"
LOOKALIKE = "r\u043e\u043et"  # "root" with two Cyrillic o's


def codes(problems: list[Problem]) -> set[tuple[str, str | None]]:
    return {(p.code, p.path) for p in problems}


@pytest.fixture()
def b(one_route_graph: GraphBuilder) -> GraphBuilder:
    """The shared small valid graph (tests/conftest.py ``one_route_graph``)."""
    return one_route_graph


def test_the_fixture_is_valid(b: GraphBuilder) -> None:
    assert validate_graph(b.root) == []


def test_symlink_in_a_node(b: GraphBuilder) -> None:
    os.symlink("/etc/passwd", b.root / ROOT / "Proof.lean")
    os.symlink(b.root / ROOT, b.root / f"targets/{T}/nodes/root--h1/attempts")
    assert codes(validate_graph(b.root)) == {
        ("symlink-refused", f"{ROOT}/Proof.lean"),
        ("symlink-refused", f"targets/{T}/nodes/root--h1/attempts"),
    }


def test_malformed_yaml(b: GraphBuilder) -> None:
    b.write(f"{ROOT}/META.yaml", "schema: meta/v1\nid: [root\n")
    problems = validate_graph(b.root)
    assert codes(problems) == {("malformed-yaml", f"{ROOT}/META.yaml")}
    assert "line" in problems[0].detail


def test_a_yaml_alias_bomb_on_main_is_refused_not_expanded(b: GraphBuilder) -> None:
    lines = ["schema: meta/v1", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    b.write(f"{ROOT}/META.yaml", "\n".join(lines) + "\n")  # 10**9 scalars if expanded
    problems = validate_graph(b.root)
    assert codes(problems) == {("invalid-record", f"{ROOT}/META.yaml")}
    assert "aliases expand" in problems[0].detail


def test_malformed_json(b: GraphBuilder) -> None:
    b.write("log/merges/000001.json", '{"schema": "merge/v1",')
    assert ("malformed-json", "log/merges/000001.json") in codes(validate_graph(b.root))


def test_fifty_megabyte_file(b: GraphBuilder) -> None:
    with open(b.root / ROOT / "Proof.lean", "wb") as fh:
        fh.truncate(50 * 1024 * 1024)
    problems = validate_graph(b.root)
    assert codes(problems) == {("file-too-large", f"{ROOT}/Proof.lean")}
    assert "52428800 bytes" in problems[0].detail


def test_non_utf8_lean_file(b: GraphBuilder) -> None:
    b.write(f"{ROOT}/Proof.lean", b"theorem x : True := trivial -- \xff\xfe caf\xe9\n")
    problems = validate_graph(b.root)
    assert codes(problems) == {("not-utf8", f"{ROOT}/Proof.lean")}


def test_statement_hash_mismatch(b: GraphBuilder) -> None:
    b.write(f"{ROOT}/Statement.lean", b.read(f"{ROOT}/Statement.lean") + b" ")
    problems = validate_graph(b.root)
    assert [(p.code, p.path, p.field) for p in problems] == [
        ("statement-hash-mismatch", f"{ROOT}/META.yaml", "statement_hash")]


def test_unknown_file(b: GraphBuilder) -> None:
    b.write(f"{ROOT}/notes.txt", "hello")
    b.write("secrets.yaml", "a: 1\n")
    assert codes(validate_graph(b.root)) == {
        ("unknown-file", f"{ROOT}/notes.txt"), ("unknown-file", "secrets.yaml")}


def test_wrong_schema_field(b: GraphBuilder) -> None:
    meta = b.read(f"{ROOT}/META.yaml").decode().replace("schema: meta/v1", "schema: meta/v2")
    b.write(f"{ROOT}/META.yaml", meta)
    pm = f"targets/{T}/nodes/root--h1/attempts/20260103T000000Z-bob-postmortem.yaml"
    b.postmortem(T, "root--h1", "20260103T000000Z", "bob")
    b.write(pm, b.read(pm).decode().replace("schema: d13/v1", "schema: approach/v1"))
    problems = validate_graph(b.root)
    assert {(p.code, p.path, p.field) for p in problems} == {
        ("unknown-schema", f"{ROOT}/META.yaml", "schema"),
        ("invalid-record", pm, "schema"),
    }


def test_a_schema_that_is_not_a_string(b: GraphBuilder) -> None:
    """A list or mapping as ``schema`` is an unknown schema, not a crash (unhashable)."""
    meta = b.read(f"{ROOT}/META.yaml").decode().replace("schema: meta/v1", "schema: [meta/v1]")
    b.write(f"{ROOT}/META.yaml", meta)
    b.write_json("ledger/000001-1.json", {"schema": {"kind": "revocation/v1"}})
    assert {(p.code, p.path) for p in validate_graph(b.root)} == {
        ("unknown-schema", f"{ROOT}/META.yaml"),
        ("unknown-schema", "ledger/000001-1.json"),
    }


def test_schema_errors_name_file_and_field(b: GraphBuilder) -> None:
    b.write(f"targets/{T}/nodes/root--h1/META.yaml",
            b.read(f"targets/{T}/nodes/root--h1/META.yaml").decode()
            .replace("k: 1", "k: 0").replace("origin: compiler-derived", "origin: guessed"))
    problems = validate_graph(b.root)
    fields = {(p.code, p.path, p.field) for p in problems}
    meta = f"targets/{T}/nodes/root--h1/META.yaml"
    assert ("invalid-record", meta, "hole.k") in fields
    assert ("invalid-record", meta, "origin") in fields
    assert len(problems) == 2  # loader and JSON Schema agree; each error reported once


def test_string_where_schema_wants_integer_is_caught_by_json_schema(b: GraphBuilder) -> None:
    """pydantic's lax mode accepts "1" for an int; the published schema does not."""
    meta = f"targets/{T}/nodes/root--h1/META.yaml"
    b.write(meta, b.read(meta).decode().replace("k: 1", "k: '1'"))
    assert load_graph(b.root)  # the model alone lets it through
    assert [(p.code, p.path, p.field) for p in validate_graph(b.root)] == [
        ("invalid-record", meta, "hole.k")]


def test_lookalike_and_bad_names_in_the_work_tree(b: GraphBuilder) -> None:
    b.write(f"targets/{T}/nodes/{LOOKALIKE}/META.yaml", "schema: meta/v1\n")
    b.write(f"{ROOT}/attempts/has space.lean", "x")
    problems = validate_graph(b.root)
    assert {p.code for p in problems} == {"hostile-path"}
    assert len(problems) == 2
    assert any(LOOKALIKE[1] in (p.path or "") or "\\u043e" in (p.path or "")
               for p in problems)


# --- hostile names only a git tree can hold ----------------------------------------------


def _raw_tree(repo: pygit2.Repository, entries: list[tuple[int, bytes, pygit2.Oid]]) -> pygit2.Oid:
    """Write a tree object byte for byte, bypassing every name check libgit2 makes."""
    data = b"".join(b"%o " % mode + name + b"\0" + oid.raw
                    for mode, name, oid in sorted(entries, key=lambda e: e[1]))
    return repo.odb.write(pygit2.enums.ObjectType.TREE, data)


def _hostile_commit(b: GraphBuilder) -> tuple[str, str]:
    """(valid base, a commit on it whose tree holds every hostile name class)."""
    head = git_commit(b.root, "valid")
    repo = pygit2.Repository(str(b.root))
    base = repo.get(head).tree
    blob = repo.create_blob(b"x")
    evil_dir = _raw_tree(repo, [(0o100644, b"policy.json", blob)])
    nodes_tree = repo.get(base[f"targets/{T}/nodes"].id)
    new_nodes = _raw_tree(repo, [(e.filemode, e.name.encode(), e.id) for e in nodes_tree] + [
        (0o40000, LOOKALIKE.encode(), evil_dir),
    ])
    target_tree = repo.get(base[f"targets/{T}"].id)
    new_target = _raw_tree(repo, [(e.filemode, e.name.encode(), e.id) for e in target_tree
                                  if e.name != "nodes"] + [(0o40000, b"nodes", new_nodes)])
    targets = _raw_tree(repo, [(0o40000, T.encode(), new_target)])
    link = repo.create_blob(b"/etc/passwd")
    top = _raw_tree(repo, [(e.filemode, e.name.encode(), e.id) for e in base
                           if e.name != "targets"] + [
        (0o40000, b"targets", targets),
        (0o100644, b"..", blob),
        (0o40000, b"..x", evil_dir),
        (0o100644, b"a\nb", blob),
        (0o120000, b"lnk", link),
    ])
    sig = pygit2.Signature(FIXED_NAME, FIXED_EMAIL, FIXED_TIME, 0)
    evil = str(repo.create_commit(None, sig, sig, "hostile", top, [repo.head.target]))
    return head, evil


def test_hostile_names_in_a_git_tree(b: GraphBuilder) -> None:
    _, evil = _hostile_commit(b)
    problems = validate_graph(b.root, evil)
    assert {p.code for p in problems} == {"hostile-path", "symlink-refused"}
    paths = {p.path for p in problems}
    assert {"..", "a\\nb", "lnk", "..x/policy.json"} <= paths
    assert any(p.path and p.path.startswith(f"targets/{T}/nodes/r") and "policy.json" in p.path
               for p in problems if p.code == "hostile-path")
    assert len(problems) == 5
    # the work tree is untouched and still valid
    assert validate_graph(b.root) == []


def test_the_gate_refuses_hostile_names_at_step_2_with_an_attestation(b: GraphBuilder) -> None:
    """The same tree as a pull request: no exception (exit 3), but a step-2 refusal per
    class with its own code, exit 1 and an attestation whose paths are printable (issue 9);
    the base still validates."""
    from network.gate.lean.toolchain import MissingToolchain
    from network.gate.run import run_gate
    from network.gate.sandbox.sandbox import Sandbox

    base, evil = _hostile_commit(b)
    out = run_gate(b.root, base, evil, toolchain=MissingToolchain, sandbox=Sandbox(),
                   submitter="alice")
    assert out.verdict == "fail" and out.exit_code == 1
    [att] = out.attestations
    assert att.first_failing_step == 2 and [s.step for s in att.steps] == [2]
    found = {(d["code"], d["path"]) for s in att.steps for d in s.diagnostics}
    assert {("path-dot-segment", ".."), ("path-not-portable", "..x"),
            ("path-control-character", "a\\nb"), ("symlink-in-submission", "lnk")} <= found
    assert any(code == "path-not-portable" and path.startswith(f"targets/{T}/nodes/r")
               for code, path in found), found
    assert all(path.isprintable() for _, path in found)
    assert validate_graph(b.root, base) == []


# --- everything at once, through the CLI -----------------------------------------------


def test_cli_reports_every_problem_with_a_count(b: GraphBuilder) -> None:
    b.write(f"{ROOT}/META.yaml", "schema: meta/v1\nid: [root\n")                 # malformed
    b.write(f"targets/{T}/nodes/root--h1/Proof.lean", b"\xff\xfe")              # not UTF-8
    b.write(f"targets/{T}/nodes/root--h1/junk.txt", "?")                        # unknown
    os.symlink("/etc/passwd", b.root / ROOT / "Vacuity.lean")                   # symlink
    expected = {
        ("malformed-yaml", f"{ROOT}/META.yaml"),
        ("not-utf8", f"targets/{T}/nodes/root--h1/Proof.lean"),
        ("unknown-file", f"targets/{T}/nodes/root--h1/junk.txt"),
        ("symlink-refused", f"{ROOT}/Vacuity.lean"),
    }
    problems = validate_graph(b.root)
    assert codes(problems) == expected
    assert all(p.code in CATALOG for p in problems)

    result = CliRunner().invoke(main, ["validate", str(b.root)])
    assert result.exit_code == 1
    out = result.output
    for code, path in expected:
        assert f"error: {code}: {path}" in out
    assert f"{len(expected)} problem(s) found" in out
    assert out.count("error: ") == len(expected)


def test_cli_valid_graph_exits_zero(b: GraphBuilder) -> None:
    result = CliRunner().invoke(main, ["validate", str(b.root)])
    assert result.exit_code == 0 and "ok" in result.output


def test_cli_not_a_graph_exits_one(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["validate", str(tmp_path)])
    assert result.exit_code == 1 and "not-a-graph" in result.output


# --- a commit reads the same as the work tree ----------------------------------------------


def test_commit_source_equals_work_tree(b: GraphBuilder) -> None:
    b.postmortem(T, "root", "20260103T000000Z", "bob")
    b.gloss(T, "root", "20260104T000000Z", "carol", label="Infinitely many")
    b.annex(T, "root")
    sha = git_commit(b.root, "all")
    work = load_graph(b.root)
    at_commit = load_graph(b.root, commit=sha)
    by_source = load_graph(CommitSource(b.root, sha))
    assert at_commit.commit == sha and work.commit is None
    for g in (at_commit, by_source):
        assert g.files == work.files
        assert g.policy == work.policy and g.curators == work.curators
        assert g.targets == work.targets
        assert g.merges == work.merges and g.attestations == work.attestations
    assert validate_graph(b.root, sha) == validate_graph(b.root) == []


def test_commit_source_sees_the_commit_not_the_work_tree(b: GraphBuilder) -> None:
    sha = git_commit(b.root, "valid")
    b.write(f"{ROOT}/Statement.lean", "changed after the commit\n")
    assert validate_graph(b.root, sha) == []
    assert {p.code for p in validate_graph(b.root)} == {"statement-hash-mismatch"}
    with pytest.raises(ValidationFailed):
        load_graph(b.root)
