"""Step 2 is complete and runs first (issue 9; D-3, D-4 step 2; STYLE.md rules 4 and 11).

One path table (network/record/layout.py) that docs/record.md also lists; every path of a
pull request held to it, to its size limit and to being a regular file blob under a plain
portable name. Each class is refused at step 2 with its own code, exit 1 and a published
attestation, through the real merge queue over real git repositories, and main still
validates afterwards (the refused change was not merged). Static findings are reported
without a toolchain, all at once.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pygit2
import pytest

from network.errors import CATALOG
from network.forge.local import LocalForge
from network.gate.lean.toolchain import MissingToolchain
from network.gate.queue.queue import process_queue
from network.gate.run import GateOutcome, run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.record import layout
from network.record.read.loader import load_graph
from network.record.validate import validate_graph
from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID, FIXED_EMAIL, FIXED_NAME

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import ND, T, seeded_forge

REPO = Path(__file__).resolve().parents[1]
WHEN = 1_790_000_000
TS = "20260105T000000Z"
SAMPLES = {"target": T, "node": "mid", "pseudonym": "alice", "ts": TS, "date": "2026-01-05",
           "n": "1", "k": "1", "seq:06d": "000007", "key_id": "gate-2",
           "id": f"{T}--mid--{'a' * 12}--{'b' * 12}", "sha256": "c" * 64, "hash": "d" * 64,
           "Stem": "Defs", "kind": "meta", "v": "1", "workflow": "gate"}


def sample(template: str) -> str:
    return re.sub(r"<([^>]+)>", lambda mt: SAMPLES[mt.group(1)], template)


# --- one table ------------------------------------------------------------------------------


def doc_templates() -> list[str]:
    """Every path template of docs/record.md's three layout tables, as full paths."""
    prefixes = {"## Root of the graph": "", "## A target:": "targets/<target>/",
                "## A node:": "targets/<target>/nodes/<node>/"}
    out: list[str] = []
    prefix: str | None = None
    for line in (REPO / "docs" / "record.md").read_text("utf-8").splitlines():
        if line.startswith("## "):
            prefix = next((p for h, p in prefixes.items() if line.startswith(h)), None)
            continue
        if prefix is None or not line.startswith("| `"):
            continue
        first_cell = line.split("|")[1]
        out += [t if t.startswith("targets/") and prefix == "" else prefix + t
                for t in re.findall(r"`([^`]+)`", first_cell)]
    return out


def test_docs_table_is_the_code_table() -> None:
    docs = doc_templates()
    code = [r.template for r in layout.PATH_TABLE]
    assert len(docs) == len(set(docs))
    assert sorted(docs) == sorted(code)


def test_every_template_admits_its_sample_and_no_two_overlap() -> None:
    for rule in layout.PATH_TABLE:
        path = sample(rule.template)
        found = layout.match(path)
        assert found is not None and found[0] is rule, path
        others = [r.template for r in layout.PATH_TABLE
                  if r is not rule and r.regex.fullmatch(path)]
        assert others == [], (path, others)


def test_no_catch_all_folder() -> None:
    """Beside each row's own names, no other name in its folder is admitted."""
    admitted = []
    for rule in layout.PATH_TABLE:
        folder = sample(rule.template).rsplit("/", 1)[0] + "/" if "/" in rule.template else ""
        # names no placeholder grammar fits (a pseudonym or Stem starts with a letter or digit)
        for name in ("_notes.yaml", "_notes.json", "_notes.lean", "notes.txt", "x",
                     f"{TS}-alice.yml", f"{'e' * 64}.txt", "notes"):
            if layout.match(folder + name) is not None:
                admitted.append(folder + name)
    assert admitted == []


def test_what_the_gate_admits_the_loader_places(one_route_graph) -> None:
    """Every row a pull request may add is a place in the loader's layout: a sample file
    there is read as its kind (it may fail its schema) and never ``unknown-file``."""
    b = one_route_graph
    node = next(p.parent.name for p in (b.root / "targets").glob("*/nodes/*/META.yaml"))
    target = next(p.name for p in (b.root / "targets").iterdir() if p.is_dir())
    written = []
    for rule in layout.PATH_TABLE:
        if rule.writer not in ("contributor", "steward", "curator") or rule.template.endswith(
                ("META.yaml", "Statement.lean", "target.yaml", "gate-spec.json")):
            continue
        path = re.sub(r"<([^>]+)>", lambda mt: {**SAMPLES, "target": target,
                                                "node": node}[mt.group(1)], rule.template)
        if (b.root / path).exists():
            continue
        b.write(path, "x: 1\n" if rule.record else "-- a sample\n")
        written.append(path)
    assert len(written) > 20
    unknown = {p.path for p in validate_graph(b.root) if p.code == "unknown-file"}
    assert unknown.isdisjoint(written), sorted(unknown & set(written))


# --- through the merge queue ----------------------------------------------------------------


@pytest.fixture()
def forge(tmp_path: Path) -> LocalForge:
    return seeded_forge(tmp_path, WHEN)  # type: ignore[no-any-return]


def _write_tree(repo: pygit2.Repository, entries: dict[bytes, tuple[int, pygit2.Oid]]
                ) -> pygit2.Oid:
    """A tree of ``entries``: through pygit2's TreeBuilder, or written byte for byte when
    libgit2 refuses a name (``..``, ``.``, an empty name, a slash inside a name, bytes
    that are not UTF-8)."""
    try:
        if any(mode not in (0o100644, 0o100755, 0o120000, 0o160000, 0o40000)
               for mode, _ in entries.values()):
            raise ValueError("libgit2 would normalise this mode")
        tb = repo.TreeBuilder()
        for name, (mode, oid) in entries.items():
            tb.insert(name.decode("utf-8"), oid, mode)
        return tb.write()
    except (pygit2.GitError, UnicodeDecodeError, ValueError):
        def key(item: tuple[bytes, tuple[int, pygit2.Oid]]) -> bytes:
            return item[0] + (b"/" if item[1][0] == 0o40000 else b"")
        data = b"".join(b"%o " % mode + name + b"\0" + oid.raw
                        for name, (mode, oid) in sorted(entries.items(), key=key))
        return repo.odb.write(pygit2.enums.ObjectType.TREE, data)


def _with_entry(repo: pygit2.Repository, tree: pygit2.Tree | None, parts: list[bytes],
                mode: int, oid: pygit2.Oid) -> pygit2.Oid:
    entries = {e.raw_name or b"": (int(e.filemode), e.id) for e in tree} if tree else {}
    if len(parts) == 1:
        entries[parts[0]] = (mode, oid)
    else:
        old = entries.get(parts[0])
        sub = repo.get(old[1]) if old and old[0] == 0o40000 else None
        entries[parts[0]] = (0o40000, _with_entry(repo, sub, parts[1:], mode, oid))
    return _write_tree(repo, entries)


def open_tree_pr(forge: LocalForge, path: bytes, data: bytes = b"-- x\n", mode: int = 0o100644,
                 oid: pygit2.Oid | None = None, author: str = "alice") -> int:
    """A plain-git pull request whose head adds one tree entry at ``path`` (raw bytes,
    split at ``/``; a component may itself hold anything but a slash)."""
    repo = forge.repo
    main = repo.get(forge.main_sha())
    blob = oid or repo.create_blob(data)
    tree = _with_entry(repo, main.tree, path.split(b"/"), mode, blob)
    sig = pygit2.Signature(FIXED_NAME, FIXED_EMAIL, WHEN, 0)
    head = repo.create_commit(None, sig, sig, "hostile", tree, [main.id])
    return forge.open_from_commit(str(head), title="a change", body="", author=author,
                                  base_sha=forge.main_sha()).number


def judged(forge: LocalForge, n: int, code: str) -> GateOutcome:
    """Run the queue; the pull request is refused at step 2 with ``code``, exit 1, its
    attestation published on main, closed, and main (with the attestation) validates."""
    before = forge.main_sha()
    [item] = process_queue(forge, toolchain=MissingToolchain, sandbox=Sandbox(),
                           gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)
    assert item.number == n and item.verdict == "fail", (item.verdict, item.notes)
    out = item.outcome
    assert out is not None and out.exit_code == 1
    codes = [d.code for r in out.runs for s in r.steps if s.step == 2 for d in s.diagnostics]
    assert code in codes, codes
    assert code in CATALOG and CATALOG[code].step in (2, None)  # file-too-large: the loader's too
    first = out.runs[0].first_failing
    assert first is not None and first.step == 2
    assert item.published and item.merge_sha is None and forge.get(n).state == "closed"
    main = forge.main_sha()
    assert main == item.published and main != before
    g = load_graph(forge.path, commit=main)
    assert [a.record.first_failing_step for a in g.attestations
            if a.record.head_commit == forge.get(n).head_sha] == [2] * len(out.runs)
    assert validate_graph(forge.path, main) == []
    # nothing but the attestation reached main
    diff = forge.repo.diff(before, main)
    assert all(p.delta.new_file.path.startswith("attestations/") for p in diff)
    return out


HOSTILE: list[tuple[str, bytes, int, str]] = [
    ("symlink", f"{ND}/mid/Proof.lean".encode(), 0o120000, "symlink-in-submission"),
    ("submodule", f"{ND}/mid/attempts/lib".encode(), 0o160000, "submodule-in-submission"),
    ("odd-mode", f"{ND}/mid/Proof.lean".encode(), 0o100664, "tree-entry-not-a-file"),
    ("lookalike", f"{ND}/r\u043e\u043et/Proof.lean".encode(), 0o100644, "path-not-portable"),
    ("non-nfc", f"{ND}/mid/attempts/{TS}-cafe\u0301-alternate.lean".encode(), 0o100644,
     "path-not-portable"),
    ("not-utf8", f"{ND}/mid/attempts/".encode() + b"x\xff.lean", 0o100644,
     "path-not-portable"),
    ("space", f"{ND}/mid/attempts/{TS}-al ice-partial.lean".encode(), 0o100644,
     "path-not-portable"),
    ("slash-in-name", f"{ND}/".encode() + b"mid\x2fProof.lean", 0o100644, "path-not-portable"),
    ("newline", f"{ND}/mid/Pro\nof.lean".encode(), 0o100644, "path-control-character"),
    ("bidi", f"{ND}/mid/\u202enaed.lean".encode(), 0o100644, "path-control-character"),
    ("backslash", f"{ND}/mid\\Proof.lean".encode(), 0o100644, "path-backslash"),
    ("dotdot", f"{ND}/mid/../Proof.lean".encode(), 0o100644, "path-dot-segment"),
    ("dot", f"{ND}/mid/./Proof.lean".encode(), 0o100644, "path-dot-segment"),
    ("top-dotdot", b"..", 0o100644, "path-dot-segment"),
    ("too-long", f"{ND}/mid/attempts/{TS}-alice-partial.h{'9' * 400}.witness.lean".encode(),
     0o100644, "path-not-portable"),
    # git's own names are admitted only at the root (an attack once crashed the gate here)
    ("nested-gitignore", f"{ND}/mid/.gitignore".encode(), 0o100644, "path-not-portable"),
    ("nested-github", f"{ND}/mid/.github/workflows/x.yml".encode(), 0o100644,
     "path-not-portable"),
]


@pytest.mark.parametrize(("case", "path", "mode", "code"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_tree_entry_is_refused_at_step_2(forge: LocalForge, case: str, path: bytes,
                                                   mode: int, code: str) -> None:
    if case == "slash-in-name":  # one entry of the nodes folder named "mid/Proof.lean"
        repo = forge.repo
        main = repo.get(forge.main_sha())
        blob = repo.create_blob(b"theorem x : True := trivial\n")
        nodes = repo.get(main.tree[ND].id)
        entries = {e.raw_name or b"": (int(e.filemode), e.id) for e in nodes}
        entries[b"mid/Proof.lean"] = (0o100644, blob)
        new_nodes = _write_tree(repo, entries)
        tree = main.tree
        for folder in (f"targets/{T}", "targets"):
            parent = repo.get(tree[folder].id) if folder != "" else tree
            ents = {e.raw_name or b"": (int(e.filemode), e.id) for e in parent}
            ents[(ND if folder == f"targets/{T}" else f"targets/{T}").rsplit("/", 1)[-1]
                 .encode()] = (0o40000, new_nodes)
            new_nodes = _write_tree(repo, ents)
        top = {e.raw_name or b"": (int(e.filemode), e.id) for e in tree}
        top[b"targets"] = (0o40000, new_nodes)
        sig = pygit2.Signature(FIXED_NAME, FIXED_EMAIL, WHEN, 0)
        head = repo.create_commit(None, sig, sig, "slash", _write_tree(repo, top), [main.id])
        n = forge.open_from_commit(str(head), title="x", body="", author="alice",
                                   base_sha=forge.main_sha()).number
    else:
        oid = pygit2.Oid(hex="1" * 40) if mode == 0o160000 else None
        n = open_tree_pr(forge, path, mode=mode, oid=oid,
                         data=b"/etc/passwd" if mode == 0o120000 else b"-- x\n")
    out = judged(forge, n, code)
    shown = [d.path or "" for r in out.runs for s in r.steps for d in s.diagnostics
             if d.code == code]
    assert shown and all(p.isprintable() for p in shown), shown


@pytest.mark.parametrize(("what", "code"), [("a-tree", "tree-entry-not-a-file"),
                                             ("missing", "tree-unreadable")])
def test_a_file_entry_naming_no_blob_is_refused_at_step_2(forge: LocalForge, what: str,
                                                          code: str) -> None:
    """A regular-file mode whose object is a tree, or no object at all: never read."""
    main_tree = forge.repo.get(forge.main_sha()).tree.id
    oid = main_tree if what == "a-tree" else pygit2.Oid(hex="3" * 40)
    n = open_tree_pr(forge, f"{ND}/mid/Proof.lean".encode(), oid=oid)
    judged(forge, n, code)


def test_an_unreadable_tree_is_refused_at_step_2(forge: LocalForge) -> None:
    repo = forge.repo
    blob = repo.create_blob(b"x")
    bad = _write_tree(repo, {b"": (0o100644, blob)})  # an empty entry name: unparseable
    main = repo.get(forge.main_sha())
    top = {e.raw_name or b"": (int(e.filemode), e.id) for e in main.tree}
    top[b"extra"] = (0o40000, bad)
    sig = pygit2.Signature(FIXED_NAME, FIXED_EMAIL, WHEN, 0)
    head = repo.create_commit(None, sig, sig, "bad tree", _write_tree(repo, top), [main.id])
    n = forge.open_from_commit(str(head), title="x", body="", author="alice",
                               base_sha=forge.main_sha()).number
    judged(forge, n, "tree-unreadable")


POSTMORTEM = (f"schema: d13/v1\nnode: {T}/mid\ncontributor: alice\nroute: a route\n"
              "route_class: induction\noutcome: refuted-route\nterminal_goal_state: x\n"
              "failure_class: route-dead-ends\n")


@pytest.mark.parametrize("path", [
    f"targets/{T}/approaches/notes.yaml",
    f"targets/{T}/status/whenever.yaml",
    f"targets/{T}/withdrawals/mine.yaml",
    f"targets/{T}/stewards/alice.yml",
    f"{ND}/mid/attempts/precheck/mine.json",
    f"{ND}/mid/attempts/precheck/{'a' * 64}.yaml",
    f"{ND}/mid/literature/{TS}-alice.json",
    f"{ND}/mid/gloss/extra/{TS}-alice.yaml",
    f"{ND}/mid/defects/{TS}-alice.yml",
    f"{ND}/mid/annex/{'c' * 64}.txt",
    f"{ND}/mid/waivers/other.yaml",
    f"{ND}/mid/attempts/{TS}-alice-postmortem.yml",
    f"{ND}/mid/notes/{TS}-alice.yaml",
])
def test_a_file_its_record_folder_does_not_have_is_refused(forge: LocalForge, path: str) -> None:
    n = forge.open_pull_request(files={path: POSTMORTEM.encode()}, title="a record", body="",
                                author="alice").number
    judged(forge, n, "path-not-permitted")


def test_an_oversized_record_is_refused(forge: LocalForge) -> None:
    big = POSTMORTEM.replace("route: a route", "route: " + "x" * (layout.RECORD_MAX_BYTES + 1))
    n = forge.open_pull_request(
        files={f"{ND}/mid/attempts/{TS}-alice-postmortem.yaml": big.encode()},
        title="a big record", body="", author="alice").number
    out = judged(forge, n, "file-too-large")
    assert out.runs[0].first_failing is not None
    assert out.runs[0].first_failing.code == "file-too-large"


def test_an_oversized_lean_file_is_refused(forge: LocalForge) -> None:
    limit = load_graph(forge.path, commit=forge.main_sha()).policy.max_file_bytes
    text = b"theorem Demo.mid (n : Nat) : n + 0 + 0 = n := by\n  simp\n"
    text += b"-- " + b"x" * limit + b"\n"
    n = forge.open_pull_request(files={f"{ND}/mid/Proof.lean": text}, title="big",
                                body="", author="alice").number
    judged(forge, n, "file-too-large")


def test_an_admissible_record_merges_and_main_validates(forge: LocalForge) -> None:
    n = forge.open_pull_request(
        files={f"{ND}/mid/attempts/{TS}-alice-postmortem.yaml": POSTMORTEM.encode()},
        title="a record", body="", author="alice").number
    [item] = process_queue(forge, toolchain=MissingToolchain, sandbox=Sandbox(),
                           gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)
    assert item.number == n and item.verdict == "pass" and item.merge_sha, item.notes
    assert validate_graph(forge.path, forge.main_sha()) == []


# --- static findings without a toolchain, all at once ---------------------------------------

FORBIDDEN_PROOF = ("import Lemmata.demo.nowhere.Proof\n"
                   "set_option /- hidden -/ debug.skipKernelTC true\n"
                   "theorem Demo.mid (n : Nat) : n + 0 + 0 = n := by\n  simp\n")


def test_without_a_toolchain_the_precheck_names_step_2_and_toolchain_missing(
        forge: LocalForge) -> None:
    main = forge.main_sha()
    head = forge.commit_files(main, {f"{ND}/mid/Proof.lean": FORBIDDEN_PROOF.encode()},
                              "a proof", author=("alice", "alice@x.invalid"))
    out = run_gate(forge.path, main, head, toolchain=MissingToolchain, sandbox=Sandbox(),
                   mode="precheck", submitter="alice")
    assert out.verdict == "fail" and out.exit_code == 1
    [run] = out.runs
    assert [(s.step, s.ok, s.code) for s in run.steps] == [
        (2, False, "forbidden-option"), (1, False, "toolchain-missing")]
    assert {d.code for d in run.steps[0].diagnostics} == {"use-unusable", "forbidden-option"}
    [pre] = out.precheck_attestations
    # one precheck answer (issue 35 item 6, decided): step 2 refused without Lean, so the
    # precheck fails as the authoritative run below does, the missing toolchain listed too
    assert pre.verdict == "precheck-fail" and pre.first_failing_step == 2
    assert [s.step for s in pre.steps] == [2, 1]
    # authoritative: step 0's bounce is listed too, the verdict is step 2's fail
    auth = run_gate(forge.path, main, head, toolchain=MissingToolchain, sandbox=Sandbox(),
                    submitter="alice")
    [arun] = auth.runs
    assert [(s.step, s.ok) for s in arun.steps] == [(2, False), (0, False), (1, False)]
    assert auth.verdict == "fail" and auth.attestations[0].first_failing_step == 2


def test_every_finding_at_once(forge: LocalForge) -> None:
    big = POSTMORTEM.replace("route: a route", "route: " + "x" * (layout.RECORD_MAX_BYTES + 1))
    main = forge.main_sha()
    head = forge.commit_files(main, {
        f"{ND}/mid/Proof.lean": FORBIDDEN_PROOF.encode(),
        f"{ND}/root/attempts/{TS}-alice-postmortem.yaml": big.encode(),
        f"targets/{T}/approaches/notes.yaml": POSTMORTEM.encode(),
    }, "everything wrong", author=("alice", "alice@x.invalid"))
    repo = forge.repo
    commit = repo.get(head)
    tree = _with_entry(repo, commit.tree, f"{ND}/mid/attempts/lnk".encode().split(b"/"),
                       0o120000, repo.create_blob(b"/etc/passwd"))
    sig = pygit2.Signature(FIXED_NAME, FIXED_EMAIL, WHEN, 0)
    head = str(repo.create_commit(None, sig, sig, "and a link", tree, [commit.id]))
    out = run_gate(forge.path, main, head, toolchain=MissingToolchain, sandbox=Sandbox(),
                   submitter="alice")
    assert out.exit_code == 1
    found = {d.code for r in out.runs for s in r.steps for d in s.diagnostics}
    assert {"use-unusable", "forbidden-option", "file-too-large", "path-not-permitted",
            "symlink-in-submission", "toolchain-missing"} <= found, found
    assert all(r.verdict == "fail" for r in out.runs)


def test_a_root_level_hostile_entry_is_published_on_a_graph_of_many_targets(
        tmp_path: Path) -> None:
    from tests.graphs import GraphBuilder, git_commit

    b = GraphBuilder(tmp_path / "g").base()
    for tid in ("beta", "alpha"):
        b.target(tid)
        b.node(tid, "root")
    base = git_commit(b.root, "two targets")
    repo = pygit2.Repository(str(b.root))
    top = {e.raw_name or b"": (int(e.filemode), e.id) for e in repo.get(base).tree}
    top[b".."] = (0o100644, repo.create_blob(b"x"))
    sig = pygit2.Signature(FIXED_NAME, FIXED_EMAIL, WHEN, 0)
    head = str(repo.create_commit(None, sig, sig, "dotdot", _write_tree(repo, top),
                                  [pygit2.Oid(hex=base)]))
    out = run_gate(b.root, base, head, toolchain=MissingToolchain, sandbox=Sandbox(),
                   submitter="alice")
    assert out.exit_code == 1
    [att] = out.attestations
    assert att.target == "alpha" and att.first_failing_step == 2
    assert [d["code"] for s in att.steps for d in s.diagnostics] == ["path-dot-segment"]
    assert validate_graph(b.root, base) == []


def test_lemmata_gate_run_answers_a_hostile_tree_with_exit_1(tmp_path: Path) -> None:
    """Through the CLI a hostile tree (a submodule and a look-alike name) is exit 1 with
    the attestation written, never exit 3 (issue 9)."""
    import json

    from click.testing import CliRunner

    from network.cli import main
    from tests.graphs import GraphBuilder, git_commit

    b = GraphBuilder(tmp_path / "g").base()
    b.target(T)
    b.node(T, "root")
    base = git_commit(b.root, "base")
    repo = pygit2.Repository(str(b.root))
    tree = repo.get(base).tree
    tree = repo.get(_with_entry(repo, tree, [b"targets", T.encode(), b"nodes", b"root",
                                             b"lib"], 0o160000, pygit2.Oid(hex="2" * 40)))
    tree_id = _with_entry(repo, tree, [b"targets", T.encode(), b"nodes",
                                       "r\u043eot".encode(), b"Proof.lean"], 0o100644,
                          repo.create_blob(b"-- x\n"))
    sig = pygit2.Signature(FIXED_NAME, FIXED_EMAIL, WHEN, 0)
    head = str(repo.create_commit(None, sig, sig, "hostile", tree_id, [pygit2.Oid(hex=base)]))
    res = CliRunner().invoke(main, ["gate", "run", "--graph", str(b.root), "--base", base,
                                    "--head", head, "--submitter", "alice",
                                    "--out", str(tmp_path / "out")])
    assert res.exit_code == 1, res.output
    body = json.loads(res.output)
    codes = {d["code"] for a in body["artifacts"] for s in a["steps"] for d in s["diagnostics"]}
    assert {"submodule-in-submission", "path-not-portable"} <= codes, codes
    assert body["written"]


BOMB = (POSTMORTEM.replace("route: a route", "route: &r0 '" + "x" * 200 + "'")
        + "".join(f"l{i}: &r{i} [" + ", ".join([f"*r{i - 1}"] * 9) + "]\n" for i in range(1, 8)))
DEEP_YAML = POSTMORTEM + "extra: " + "[" * 5000 + "]" * 5000 + "\n"
DEEP_JSON = '{"schema": "precheck/v1", "steps": ' + "[" * 5000 + "]" * 5000 + "}\n"


@pytest.mark.parametrize(("text", "code"), [
    (POSTMORTEM + "contributor: curator\n", "invalid-record"),  # a key said twice
    (POSTMORTEM + "when: 2026-13-45\n", "malformed-yaml"),  # a date no calendar has
    (POSTMORTEM + "count: " + "1" * 5000 + "\n", "malformed-yaml"),  # past int's digit limit
])
def test_a_record_whose_values_cannot_be_built_is_refused(forge: LocalForge, text: str,
                                                          code: str) -> None:
    """Scalars the YAML constructors raise on are an unreadable file (exit 1, published),
    never an internal error (an attack once got exit 3 here)."""
    path = f"{ND}/mid/attempts/{TS}-alice-postmortem.yaml"
    n = forge.open_pull_request(files={path: text.encode()}, title="a record", body="",
                                author="alice").number
    judged(forge, n, code)


@pytest.mark.parametrize(("path", "text"), [
    (f"{ND}/mid/attempts/{TS}-alice-postmortem.yaml", BOMB),
    (f"{ND}/mid/attempts/{TS}-alice-postmortem.yaml", DEEP_YAML),
    (f"{ND}/mid/attempts/precheck/{'a' * 64}.json", DEEP_JSON),
], ids=["alias-bomb", "deep-yaml", "deep-json"])
def test_a_record_that_is_not_plain_data_is_refused(forge: LocalForge, path: str,
                                                    text: str) -> None:
    """A few kilobytes that expand to gigabytes, or nest past any recursive parser: refused
    at step 2 before anything builds them (never a hang or a RecursionError)."""
    assert len(text.encode()) < layout.RECORD_MAX_BYTES
    n = forge.open_pull_request(files={path: text.encode()}, title="a record", body="",
                                author="alice").number
    out = judged(forge, n, "malformed-yaml" if text is DEEP_YAML else "invalid-record")
    assert out.runs[0].first_failing is not None
