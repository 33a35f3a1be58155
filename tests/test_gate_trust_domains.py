"""Trust domains (issue 10; D-4 v3.27; DESIGN.md "Security posture").

A fake ``lake``/``lean``/``leanchecker`` toolchain (Python scripts written here) is driven
through the real :class:`~network.gate.lean.lean_toolchain.LeanToolchain` adapter and the real
bubblewrap :class:`~network.gate.sandbox.sandbox.Sandbox`, by the real gate over a real git graph.
The fake ``lake build`` makes one "olean" per source (its module name and its source's
SHA-256) and, when the contributor's file asks for it (``-- TAMPER``), tampers with
everything it can reach: every olean it can see, the packages folder, ``lakefile.toml`` and
``lean-toolchain``, links to host files where the host could read or write, the checker
request folder. The fake ``lean --run`` (a check) records what it was given (the hash of
every olean it loads, of the workspace's lakefile and pin, of its request) into its own
output folder, and reports a mismatch if it ever loads a tampered olean.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from network.gate.lean.kernels import soundness_record
from network.gate.lean.lean_toolchain import LeanToolchain
from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.gate.sandbox.workspace import lakefile_text, lean_toolchain_text
from network.record import models as m
from tests.checker_channel import deliver
from tests.graphs import DEFAULT_TOOLCHAIN, GraphBuilder, git_commit

pytestmark = pytest.mark.skipif(shutil.which("bwrap", path="/usr/bin:/bin") is None
                                or not Path("/usr/bin/python3").is_file(),
                                reason="needs bubblewrap and /usr/bin/python3")

T = "demo"
REV = "5ed2965256430c3649e86755f9576b54eca72435"
STATEMENT = b"theorem Demo.mid (n : Nat) : n + 0 = n := by\n  sorry\n"
WITNESS = b"theorem Demo.mid.witness : True := trivial\n"
PROOF = b"theorem Demo.mid (n : Nat) : n + 0 = n := by\n  simp\n"
MATHLIB_OLEAN = b"lemmata fake olean\0Mathlib\0pinned\n"
VERSION = DEFAULT_TOOLCHAIN.split(":v", 1)[1]

FAKE_COMMON = r'''#!/usr/bin/python3 -I
import hashlib, json, os, pathlib, sys
LIB = ".lake/build/lib/lean"
def olean(mod, src):
    return (b"lemmata fake olean\0" + mod.encode() + b"\0"
            + hashlib.sha256(src).hexdigest().encode() + b"\n")
def sha(b):
    return hashlib.sha256(b).hexdigest()
def find(components):
    for d in os.environ.get("LEAN_PATH", "").split(":"):
        p = pathlib.Path(d, *components[:-1], components[-1] + ".olean")
        if d and p.is_file():
            return p
    return None
'''

FAKE_LAKE = FAKE_COMMON + r'''
SENTINEL = pathlib.Path(@SENTINEL@)
SENTINEL_DIR = pathlib.Path(@SENTINEL_DIR@)
def attempt(fn):
    try:
        fn()
        return True
    except OSError:
        return False
def overwrite(p):
    def go():
        with open(p, "wb") as f:
            f.write(b"EVIL")
    return attempt(go)
def tamper(root, own):
    done = {}
    # every olean it can see, anywhere
    for top in ("/tmp", "/home", "/root", "/work", "/var", "/opt", "/srv", "/mnt", "/run"):
        for dirpath, dirs, files in os.walk(top):
            for f in files:
                p = os.path.join(dirpath, f)
                if p in own:  # its own olean: it wants that one to pass
                    continue
                if f.endswith(".olean") or f == "lake-manifest.json":
                    done[p] = overwrite(p)
    # the statement's olean here (what the gate would load if it checked in scratch)
    st = root / LIB / "Lemmata/demo/mid/Statement.olean"
    done["statement"] = overwrite(st)
    # the packages folder: a new file, a replaced olean
    pk = root / ".lake/packages/mathlib"
    done["packages-new"] = attempt(lambda: (pk / "EVIL.olean").write_bytes(b"EVIL"))
    done["packages-olean"] = overwrite(pk / LIB / "Mathlib.olean")
    # the gate's own configuration
    done["lakefile"] = overwrite(root / "lakefile.toml")
    done["toolchain"] = overwrite(root / "lean-toolchain")
    # links where the host might later read or write
    for name, target in ((".lemmata-checkers", SENTINEL_DIR), ("Lemmata.lean", SENTINEL),
                         (LIB + "/Lemmata/demo/mid/Witness.olean", SENTINEL)):
        p = root / name
        def link(p=p, target=target):
            if p.is_symlink() or p.exists():
                p.unlink()
            p.symlink_to(target)
        done["link " + name] = attempt(link)
    # a forged checker request where the old gate wrote them, and the host folders
    done["request"] = attempt(lambda: (root / ".lemmata-checkers" / "CheckStatement.json")
                              .write_text("{}"))
    for host in (root.parent / (root.name + ".host"), SENTINEL.parent, SENTINEL_DIR):
        done["host " + str(host)] = attempt(lambda host=host: (host / "EVIL").write_text("x"))
    done["sentinel"] = overwrite(SENTINEL)
    (root / "tamper-report.json").write_text(json.dumps(done, sort_keys=True))
args = sys.argv[1:]
root = pathlib.Path.cwd()
if args[:1] == ["build"]:
    sources = sorted(root.glob("Lemmata/**/*.lean"))
    for src in sources:
        rel = src.relative_to(root)
        out = root / LIB / rel.with_suffix(".olean")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(olean(".".join(rel.with_suffix("").parts), src.read_bytes()))
    own = {str(root / LIB / s.relative_to(root).with_suffix(".olean")) for s in sources
           if b"-- TAMPER" in s.read_bytes()}
    if own:
        tamper(root, own)
    sys.exit(0)
if args[:1] == ["env"]:
    env = dict(os.environ)
    dirs = [str(root / LIB)]
    pk = root / ".lake/packages"
    if pk.is_dir():
        dirs += [str(p / LIB) for p in sorted(pk.iterdir())]
    if env.get("LEAN_PATH"):
        dirs.append(env["LEAN_PATH"])  # kept after the workspace's own (Lake Env.lean)
    env["LEAN_PATH"] = ":".join(dirs)
    os.execvpe(args[1], args[1:], env)
sys.exit(2)
'''

FAKE_LEAN = FAKE_COMMON + r'''
args = sys.argv[1:]
if args == ["--version"]:
    print("Lean (version @VERSION@, x86_64-unknown-linux-gnu, commit " + "ab" * 20 + ", Release)")
    sys.exit(0)
if "--json" in args:
    sys.exit(0)
if "--run" not in args:
    sys.exit(2)
nonce = sys.stdin.readline().strip()  # first, as Common.lean's mainWith (issue 32)
src = pathlib.Path(args[args.index("--run") + 1])
req_path = pathlib.Path(args[args.index("--run") + 2])
checker = src.stem
req = json.loads(req_path.read_text())
mods = [v for k, v in sorted(req.items()) if k.endswith("module")]
seen = {}
evil = False
for comps in [*mods, ["Mathlib"]]:
    p = find(comps)
    if p is None and comps == ["Mathlib"]:
        continue  # a target without Mathlib
    data = p.read_bytes() if p else b""
    seen[".".join(comps)] = {"path": str(p), "sha256": sha(data)}
    evil = evil or not data.startswith(b"lemmata fake olean")
cwd = pathlib.Path.cwd()
record = {"checker": checker, "oleans": seen, "request": sha(req_path.read_bytes()),
          "request_path": str(req_path), "lakefile": sha((cwd / "lakefile.toml").read_bytes()),
          "lean_toolchain": sha((cwd / "lean-toolchain").read_bytes()), "cwd": str(cwd)}
home = pathlib.Path(os.environ["HOME"])
(home / f"record-{checker}.json").write_text(json.dumps(record, sort_keys=True))
name = lambda c: ".".join(c)
if checker == "CheckStatement":
    body = {"theorems": [{"name": name(t), "found": True, "type_equal": not evil,
                          "mismatched_constants": [], "axioms": []} for t in req["theorems"]]}
elif checker == "Witness":
    body = {"found": True, "type_matches": not evil, "axioms": [],
            "expected_type": "True", "witness_type": "True"}
elif checker == "Hazards":
    body = {"findings": [], "missing": []}
elif checker == "UsedConstants":
    body = {"constants": [], "modules": []}
elif checker == "OleanEntries":  # issue 32: a fake olean holds no extension entry
    quoted = lambda c: ".".join(x if x.isidentifier() else "\u00ab" + x + "\u00bb" for x in c)
    body = {"modules": [{"module": quoted(c), "outside": [] if (find(c) and find(c).read_bytes(
        ).startswith(b"lemmata fake olean")) else [{"name": "unread", "entries": 1}]}
        for c in req["modules"]]}
else:
    body = {"error": "unexpected checker " + checker}
(pathlib.Path(args[args.index("--run") + 3]) / f"report-{nonce}.json").write_text(
    json.dumps({"checker": checker, "version": 1, **body}) + "\n")
'''

FAKE_CHECKER = FAKE_COMMON + r'''
comps = sys.argv[-1].replace("\u00ab", "").replace("\u00bb", "").split(".")  # «» quoting
p = find(comps)
data = p.read_bytes() if p else b""
home = pathlib.Path(os.environ["HOME"])
(home / "record-leanchecker.json").write_text(json.dumps(
    {"checker": "leanchecker", "oleans": {sys.argv[-1]: {"path": str(p), "sha256": sha(data)}}}))
sys.exit(0 if data.startswith(b"lemmata fake olean") else 1)
'''


#: lean4export: one line per module it is given, naming the olean it loaded and its hash
FAKE_EXPORT = FAKE_COMMON + r'''
lines = [json.dumps({"meta": {"exporter": "fake"}})]
args = sys.argv[1:]
mods = args[:args.index("--")] if "--" in args else args  # `M… -- decl…`
for mod in mods:
    comps = mod.replace("\u00ab", "").replace("\u00bb", "").split(".")
    p = find(comps)
    data = p.read_bytes() if p else b""
    lines.append(json.dumps({"module": mod, "path": str(p), "sha256": sha(data),
                             "ok": data.startswith(b"lemmata fake olean")}))
print("\n".join(lines))
'''

#: nanoda: reads its configuration and the export it names; refuses an export holding a
#: module whose olean was not the gate's
FAKE_NANODA = FAKE_COMMON + r'''
config = json.loads(pathlib.Path(sys.argv[1]).read_text())
rows = [json.loads(x) for x in pathlib.Path(config["export_file_path"]).read_text().splitlines()]
home = pathlib.Path(os.environ["HOME"])
(home / "record-nanoda.json").write_text(json.dumps(
    {"checker": "nanoda", "oleans": {r["module"]: {"path": r["path"], "sha256": r["sha256"]}
                                     for r in rows[1:]}}))
sys.exit(0 if rows[1:] and all(r["ok"] for r in rows[1:]) else 1)
'''


def fake_olean(module: str, source: bytes) -> bytes:
    """What the fake lake writes for ``module`` built from ``source``."""
    return (b"lemmata fake olean\0" + module.encode() + b"\0"
            + hashlib.sha256(source).hexdigest().encode() + b"\n")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Host:
    """The host side of one run: fake toolchain, pins, sentinels, the graph."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.sentinel_dir = tmp / "host-secrets"
        self.sentinel_dir.mkdir()
        self.sentinel = self.sentinel_dir / "id_ed25519"
        self.sentinel.write_bytes(b"-----BEGIN OPENSSH PRIVATE KEY----- sentinel\n")
        self.empty_dir = tmp / "host-empty"
        self.empty_dir.mkdir()
        self.bindir = tmp / "toolchain" / "bin"
        self.bindir.mkdir(parents=True)
        lake = FAKE_LAKE.replace("@SENTINEL@", repr(str(self.sentinel))).replace(
            "@SENTINEL_DIR@", repr(str(self.empty_dir)))
        for name, text in (("lake", lake), ("lean", FAKE_LEAN.replace("@VERSION@", VERSION)),
                           ("leanchecker", FAKE_CHECKER)):
            (self.bindir / name).write_text(text)
            (self.bindir / name).chmod(0o755)
        self.pins = tmp / "pins"
        tools = self.pins / "tools"  # step 4's independent kernels (issue 37)
        tools.mkdir(parents=True)
        for name, text in (("lean4export", FAKE_EXPORT), ("nanoda_bin", FAKE_NANODA)):
            (tools / name).write_text(text)
            (tools / name).chmod(0o755)
        (tools / "nanoda_bin.commit").write_text(
            f"{soundness_record().pins['nanoda'].commit}\n")
        pin = self.pins / REV
        lib = pin / ".lake" / "packages" / "mathlib" / ".lake" / "build" / "lib" / "lean"
        lib.mkdir(parents=True)
        (lib / "Mathlib.olean").write_bytes(MATHLIB_OLEAN)
        (pin / "lake-manifest.json").write_text(json.dumps({"packages": [
            {"name": "mathlib", "rev": REV, "type": "git",
             "url": "https://github.com/leanprover-community/mathlib4"}]}))
        self.before = self.snapshot()

    def snapshot(self) -> dict[str, bytes]:
        """Every host file the sandbox must not change, with its bytes."""
        out = {}
        for top in (self.sentinel_dir, self.empty_dir, self.pins, self.tmp / "toolchain"):
            for p in sorted(top.rglob("*")):
                out[str(p)] = b"<dir>" if p.is_dir() and not p.is_symlink() else (
                    b"<link>" if p.is_symlink() else p.read_bytes())
        return out

    def graph(self, proof: bytes) -> tuple[Path, str, str, m.GateSpec]:
        root = self.tmp / f"graph-{sha(proof)[:8]}"
        b = GraphBuilder(root)
        b.base()
        b.target(T)
        spec = json.loads(b.read(f"targets/{T}/gate-spec.json"))
        spec["mathlib"] = {"name": "mathlib", "rev": REV,
                           "url": "https://github.com/leanprover-community/mathlib4"}
        b.write_json(f"targets/{T}/gate-spec.json", spec)
        b.node(T, "mid", statement=STATEMENT, witness=WITNESS, declaration="Demo.mid")
        base = git_commit(root, "base")
        b.write(f"targets/{T}/nodes/mid/Proof.lean", proof)
        head = git_commit(root, "pull request")
        return root, base, head, m.GateSpec.model_validate(spec)

    def run(self, proof: bytes, name: str) -> tuple[Any, Path, m.GateSpec]:
        root, base, head, spec = self.graph(proof)
        work = self.tmp / f"work-{name}"
        work.mkdir()

        def tc(s: m.GateSpec) -> LeanToolchain:
            return LeanToolchain(s, bindir=self.bindir, pins_root=self.pins)

        out = run_gate(root, base, head, toolchain=tc, sandbox=Sandbox(), mode="precheck",
                       submitter="alice", work_dir=work)
        return out, work, spec


def records(work: Path) -> list[dict[str, Any]]:
    """What every check run's fake Lean recorded, from the runs' own output folders."""
    return [json.loads(p.read_text()) for p in sorted(work.glob("*.host/*/out/home/record-*"))]


def summary(out: Any) -> list[tuple[int, bool, list[str]]]:
    return [(s.step, s.ok, [d.code for d in s.diagnostics])
            for r in out.runs for s in r.steps]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    host = Host(tmp_path_factory.mktemp("domains"))
    honest = host.run(PROOF, "honest")
    tampered_proof = PROOF + b"-- TAMPER\n"
    tampered = host.run(tampered_proof, "tampered")
    return {"host": host, "honest": honest, "tampered": tampered,
            "tampered_proof": tampered_proof}


def test_an_honest_build_passes_through_the_real_adapter_and_sandbox(runs: dict[str, Any]
                                                                     ) -> None:
    out, work, _ = runs["honest"]
    assert out.verdict == "pass", summary(out)
    checkers = {r["checker"] for r in records(work)}
    assert {"leanchecker", "nanoda", "CheckStatement", "Hazards", "Witness",
            "UsedConstants"} <= checkers


def test_a_tampering_build_changes_nothing_a_check_sees(runs: dict[str, Any]) -> None:
    host: Host = runs["host"]
    out, work, spec = runs["tampered"]
    honest_out, _, _ = runs["honest"]
    # the build did tamper: its report exists and it rewrote what it could reach
    scratch = next(work.glob("*-scratch"))
    report = json.loads((scratch / "tamper-report.json").read_text())
    assert report["statement"] and report["lakefile"] and report["toolchain"]
    assert report["link .lemmata-checkers"] and report["link Lemmata.lean"]
    assert (scratch / "Lemmata.lean").is_symlink()
    assert not report["packages-new"] and not report["packages-olean"]
    assert not report["sentinel"] and not any(v for k, v in report.items()
                                              if k.startswith("host "))
    # ... and yet the verdict is the honest one
    assert out.verdict == honest_out.verdict == "pass", summary(out)
    assert summary(out) == summary(honest_out)
    # every check saw the gate-built statement, the carried solution, the pinned Mathlib,
    # the gate's own lakefile and pin, and a request no sandbox could write
    check = next(work.glob("*-check"))
    stmt = "Lemmata.demo.mid.Statement"
    want = {stmt: sha(fake_olean(stmt, STATEMENT)),
            "Lemmata.demo.mid.Witness": sha(fake_olean("Lemmata.demo.mid.Witness", WITNESS)),
            "Lemmata.demo.mid.Proof": sha(fake_olean("Lemmata.demo.mid.Proof",
                                                     runs["tampered_proof"])),
            "Mathlib": sha(MATHLIB_OLEAN)}
    recs = records(work)
    assert {r["checker"] for r in recs} >= {"leanchecker", "nanoda", "CheckStatement",
                                            "Hazards", "Witness", "UsedConstants"}
    for rec in recs:
        for mod, got in rec["oleans"].items():
            assert got["sha256"] == want[mod], (rec["checker"], mod, got)
            if mod == "Lemmata.demo.mid.Proof":
                assert "/carried/lib/lean/" in got["path"], got
            elif mod != "Mathlib":
                assert got["path"].startswith(str(check) + "/"), got
        if rec["checker"] not in ("leanchecker", "nanoda"):
            assert rec["cwd"] == str(check)
            assert rec["lakefile"] == sha(lakefile_text(spec).encode())
            assert rec["lean_toolchain"] == sha(lean_toolchain_text(spec).encode())
            req = Path(rec["request_path"])
            assert req.parent.name == "in" and sha(req.read_bytes()) == rec["request"]
            assert not str(req).startswith(str(scratch))
    # the host's files kept their bytes; nothing was planted next to them
    assert host.snapshot() == host.before
    assert not list(host.empty_dir.iterdir())


def test_a_solution_olean_linked_to_a_host_file_is_refused_unread(tmp_path: Path) -> None:
    """The one file the host reads back from scratch, planted as a link, is refused."""
    host = Host(tmp_path)
    lake = host.bindir / "lake"
    anchor = "    own = {str(root / LIB"
    assert anchor in lake.read_text()
    text = lake.read_text().replace(
        anchor,
        "    if any(b\"-- LINK\" in s.read_bytes() for s in sources):\n"
        "        p = root / LIB / \"Lemmata/demo/mid/Proof.olean\"\n"
        "        p.unlink(); p.symlink_to(SENTINEL)\n" + anchor)
    lake.write_text(text)
    host.before = host.snapshot()
    out, work, _ = host.run(PROOF + b"-- LINK\n", "link")
    assert out.verdict == "fail"
    first = out.runs[0].first_failing
    assert first is not None and first.step == 3
    assert [d.code for d in first.diagnostics] == ["build-output-refused"]
    assert not list(work.glob("*-check"))  # no check workspace was ever made
    assert host.snapshot() == host.before


# --- the no-follow helpers and the crossing, without a sandbox ---------------------------


def test_safe_reads_refuse_links_special_files_and_oversize(tmp_path: Path) -> None:
    from network.errors import LemmataError
    from network.gate.sandbox import safe_io
    secret = tmp_path / "secret"
    secret.write_bytes(b"key")
    root = tmp_path / "scratch"
    (root / "a").mkdir(parents=True)
    (root / "a" / "ok.olean").write_bytes(b"ok")
    assert safe_io.read_file(root, "a/ok.olean") == b"ok"
    assert safe_io.read_optional(root, "a/none.olean") is None
    (root / "a" / "link.olean").symlink_to(secret)
    (root / "dirlink").symlink_to(tmp_path)
    os.mkfifo(root / "a" / "fifo.olean")
    (root / "a" / "big.olean").write_bytes(b"x" * 11)
    for rel, kw in (("a/link.olean", {}), ("dirlink/secret", {}), ("a/fifo.olean", {}),
                    ("a/big.olean", {"max_bytes": 10}), ("../secret", {}), ("/etc/passwd", {})):
        with pytest.raises(LemmataError) as exc:
            safe_io.read_file(root, rel, **kw)
        assert exc.value.code == "build-output-refused", rel
    with pytest.raises(LemmataError):  # the root itself a link
        safe_io.read_file(root / "dirlink", "secret")
    # writes never follow a planted link, in the file or on the way
    with pytest.raises(FileExistsError):
        safe_io.write_new(root, "a/link.olean", b"EVIL")
    with pytest.raises(LemmataError):
        safe_io.write_new(root, "dirlink/new", b"EVIL")
    assert secret.read_bytes() == b"key" and not (tmp_path / "new").exists()
    assert safe_io.lexists(root, "a/link.olean") and not safe_io.lexists(root, "a/no")


def test_carried_oleans_never_shadow_a_trusted_module(tmp_path: Path) -> None:
    from network.errors import LemmataError
    from network.gate.sandbox.workspace import (
        OleanArtifact,
        node_source,
        place_carried,
        write_workspace,
    )
    spec = m.GateSpec.model_validate({"schema": "gate-spec/v1",
                                      "lean_toolchain": DEFAULT_TOOLCHAIN})
    stmt = node_source(T, "mid", "Statement", STATEMENT)
    proof = node_source(T, "mid", "Proof", PROOF)
    check = write_workspace(tmp_path / "check", spec, [stmt], withheld=[proof])
    # a carried file named like the statement the gate built: refused
    forged = OleanArtifact(stmt.module, stmt.path, (("olean", b"EVIL"),))
    with pytest.raises(LemmataError) as exc:
        place_carried(check, [forged])
    assert exc.value.code == "build-output-refused"
    # a carried module whose olean path the trusted build already filled: refused
    lib = check.root / ".lake/build/lib/lean/Lemmata/demo/mid"
    lib.mkdir(parents=True)
    (lib / "Proof.olean").write_bytes(b"trusted")
    with pytest.raises(LemmataError):
        place_carried(check, [OleanArtifact(proof.module, proof.path, (("olean", b"x"),))])
    (lib / "Proof.olean").unlink()
    placed = place_carried(check, [OleanArtifact(proof.module, proof.path,
                                                 (("olean", b"sol"), ("ilean", b"i")))])
    assert placed.carried_dir == check.host_dir / "carried" / "lib" / "lean"  # type: ignore[operator]
    assert [(c.path.name, c.sha256) for c in placed.carried] == [
        ("Proof.olean", sha(b"sol")), ("Proof.ilean", sha(b"i"))]
    assert placed.input_files()["carried/Lemmata/demo/mid/Proof.olean"] == b"sol"
    with pytest.raises(ValueError):  # placed once
        place_carried(placed, [])
    # a carried file that changes after it was hashed is refused before any check runs
    from network.gate.sandbox.workspace import verify_carried
    verify_carried(placed)
    carried = placed.carried_dir / "Lemmata/demo/mid/Proof.olean"  # type: ignore[operator]
    carried.write_bytes(b"EVIL")
    with pytest.raises(LemmataError):
        verify_carried(placed)
    scratch = write_workspace(tmp_path / "scratch", spec, [stmt, proof], role="scratch")
    with pytest.raises(ValueError):  # and never into a scratch workspace
        place_carried(scratch, [])


def test_comparator_gets_a_never_built_workspace_and_a_read_only_config(tmp_path: Path
                                                                        ) -> None:
    """Comparator's README assumption 2: the solution was never compiled. It runs in a
    fresh workspace holding the sources only; its config lies in a read-only host folder."""
    from network.gate.sandbox.sandbox import SandboxLayout, SandboxResult
    from network.gate.sandbox.workspace import node_source, write_workspace
    tools = tmp_path / "tools"
    tools.mkdir()
    for name in ("comparator", "lean4export", "landrun"):
        (tools / name).write_text("#!/bin/sh\n")
    spec = m.GateSpec.model_validate({"schema": "gate-spec/v1",
                                      "lean_toolchain": DEFAULT_TOOLCHAIN,
                                      "kernel": {"replay": "comparator"}})
    stmt = node_source(T, "mid", "Statement", STATEMENT)
    proof = node_source(T, "mid", "Proof", PROOF)
    check = write_workspace(tmp_path / "check", spec, [stmt], withheld=[proof])
    (check.root / ".lake" / "build").mkdir(parents=True)  # the gate's own build ran here
    calls: list[tuple[list[str], SandboxLayout, Path | None]] = []
    row = {"name": "Demo.mid", "found": True, "type_equal": True,
           "mismatched_constants": [], "axioms": []}

    class Recorder:
        def run(self, argv: Any, layout: SandboxLayout, caps: Any, *, cwd: Any = None,
                env: Any = None, stdin: bytes | None = None) -> SandboxResult:
            calls.append((list(argv), layout, cwd))
            out = json.dumps({"checker": "CheckStatement", "version": 1, "theorems": [row]})
            return SandboxResult(0, deliver(argv, stdin, out) if len(calls) == 1
                                 else "Your solution is okay!", "", None, 0.1, tuple(argv))

    (tmp_path / "bin").mkdir()
    tc = LeanToolchain(spec, tmp_path / "bin", tmp_path, comparator=tools / "comparator",
                       lean4export=tools / "lean4export", landrun=tools / "landrun")
    res = tc.check_statement(check, stmt.module, proof.module, ["Demo.mid"], ["propext"],
                             Recorder(), m.Caps())
    assert res.ok, res
    assert len(calls) == 2
    (_, check_layout, _), (argv, layout, cwd) = calls
    assert check_layout.scratch != check.root and check.root in check_layout.read_only
    fresh = layout.scratch
    assert cwd == fresh and fresh != check.root and check.root not in fresh.parents
    assert (fresh / "Lemmata/demo/mid/Proof.lean").read_bytes() == PROOF
    assert (fresh / "Lemmata/demo/mid/Statement.lean").read_bytes() == STATEMENT
    assert not (fresh / ".lake" / "build").exists()  # never built
    cfg = Path(argv[-1])
    assert argv[1:3] == ["env", str(tools / "comparator")]
    assert cfg.parent in layout.read_only and fresh not in cfg.parents
    conf = json.loads(cfg.read_text())
    assert conf["challenge_module"] == stmt.module and conf["solution_module"] == proof.module


def test_a_planted_home_link_in_scratch_is_refused_not_followed(tmp_path: Path) -> None:
    """A later run in the same scratch makes ``home``/``tmp`` without following a link an
    earlier run planted (issue 10)."""
    from network.errors import LemmataError
    from network.gate.sandbox.sandbox import SandboxLayout
    target = tmp_path / "host-home"
    target.mkdir()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "home").symlink_to(target)
    with pytest.raises(LemmataError) as exc:
        Sandbox().run(["/bin/true"], SandboxLayout(scratch=scratch), m.Caps())
    assert exc.value.code == "build-output-refused"
    assert not list(target.iterdir())


def test_a_contributed_witness_is_carried_and_its_statement_rebuilt(tmp_path: Path) -> None:
    """A witness pull request (D-29): the hole's Statement is base bytes, rebuilt by the
    gate in the check workspace; only the new Witness's olean crosses, even when its build
    tampers with the Statement's."""
    sys.path.insert(0, str(Path(__file__).parent))
    from gate_scenarios import ND, base_repo

    host = Host(tmp_path)
    b, base = base_repo(tmp_path / "graph")
    stmt_bytes = (b.root / f"{ND}/root--h2/Statement.lean").read_bytes()
    witness = b"theorem Demo.main.h2.witness : True := trivial\n-- TAMPER\n"
    b.write(f"{ND}/root--h2/Witness.lean", witness)
    head = git_commit(b.root, "witness")
    work = tmp_path / "work"
    work.mkdir()
    out = run_gate(b.root, base, head, mode="precheck", submitter="alice", work_dir=work,
                   toolchain=lambda s: LeanToolchain(s, bindir=host.bindir,
                                                     pins_root=host.pins),
                   sandbox=Sandbox())
    assert out.verdict == "pass", [(s.step, [(d.code, d.message) for d in s.diagnostics])
                                   for r in out.runs for s in r.steps if not s.ok]
    assert out.runs[0].artifact.kind.value == "witness"
    scratch = next(work.glob("*-scratch"))
    assert json.loads((scratch / "tamper-report.json").read_text())["lakefile"]
    check = next(work.glob("*-check"))
    assert not (check / "Lemmata/demo/root--h2/Witness.lean").exists()
    stmt, wit = "Lemmata.demo.root--h2.Statement", "Lemmata.demo.root--h2.Witness"
    recs = [r for r in records(work) if r["checker"] == "Witness"]
    assert recs, records(work)
    for rec in recs:
        assert rec["oleans"][stmt]["sha256"] == sha(fake_olean(stmt, stmt_bytes))
        assert rec["oleans"][stmt]["path"].startswith(str(check) + "/")
        assert rec["oleans"][wit]["sha256"] == sha(fake_olean(wit, witness))
        assert "/carried/lib/lean/" in rec["oleans"][wit]["path"]
    assert host.snapshot() == host.before
