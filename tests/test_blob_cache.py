"""The record cache by git blob id (issue 17): a load through it, cold or warm, equals a
load without it (records, problems, order), and nothing stored in it can change a load."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pygit2
import pytest

from network.errors import ValidationFailed
from network.record.read import blob_cache, loader
from network.record.read.blob_cache import RecordCache
from tests.graphs import git_commit
from tests.sitegraph import build_rich_graph

ROOT = Path(__file__).resolve().parent.parent


def _snapshot(graph: Any, commit: str | None = None,
              cache: RecordCache | None = None) -> Any:
    try:
        g = loader.load_graph(graph, commit, cache=cache)
    except ValidationFailed as exc:
        return ("problems", [p.to_dict() for p in exc.problems])
    return repr([g.commit, g.policy, g.curators, g.identities, g.names, g.keys, g.merges,
                 g.attestations, g.ledger, g.targets, g.files])


def _three(graph: Any, commit: str | None, where: Path) -> tuple[Any, RecordCache, RecordCache]:
    """Without a cache, then cold, then warm: returns the plain snapshot and both caches,
    after checking all three equal."""
    plain = _snapshot(graph, commit)
    cold = RecordCache(where)
    assert _snapshot(graph, commit, cold) == plain
    warm = RecordCache(where)
    assert _snapshot(graph, commit, warm) == plain
    return plain, cold, warm


def _break(root: Path) -> None:
    node = root / "targets/demo/nodes/root"
    (node / "literature").mkdir(exist_ok=True)
    (node / "literature/20260301T000000Z-eve.yaml").write_text("schema: literature/v1\nby: [\n")
    (node / "defects").mkdir(exist_ok=True)
    (node / "defects/20260301T000000Z-eve.yaml").write_bytes(b"schema: defect/v1\nx: \xff\n")
    (node / "shelving").mkdir(exist_ok=True)
    (node / "shelving/20260302T000000Z-eve.yaml").write_text("- a list\n")
    (root / "keys").mkdir(exist_ok=True)
    (root / "keys/k1.json").write_text('{"schema": "key/v1", ')
    meta = root / "targets/demo/nodes/root--h2/META.yaml"
    meta.write_text(meta.read_text() + "unexpected_field: 1\n")


def test_graph_dir_at_a_commit_equals_without_cache(tmp_path: Path) -> None:
    head = str(pygit2.Repository(str(ROOT)).head.target)
    plain, cold, warm = _three(ROOT / "graph", head, tmp_path / "c")
    assert plain[0] != "problems"
    assert cold.misses > 0 and cold.hits == 0
    assert warm.misses == 0 and warm.hits == cold.misses


@pytest.mark.parametrize("at_commit", [True, False])
def test_rich_graph_equals_without_cache(tmp_path: Path, at_commit: bool) -> None:
    root = tmp_path / "g"
    _, sha = build_rich_graph(root)
    plain, cold, warm = _three(root, sha if at_commit else None, tmp_path / "c")
    assert plain[0] != "problems"
    assert warm.misses == 0 and warm.hits == cold.misses > 10


@pytest.mark.parametrize("at_commit", [True, False])
def test_problems_come_back_the_same_from_cache(tmp_path: Path, at_commit: bool) -> None:
    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    _break(root)
    sha = git_commit(root, "broken") if at_commit else None
    plain, cold, warm = _three(root, sha, tmp_path / "c")
    assert plain[0] == "problems"
    codes = {p["code"] for p in plain[1]}
    assert {"malformed-yaml", "not-utf8", "invalid-record", "malformed-json"} <= codes
    assert warm.misses == 0 and warm.hits == cold.misses


def test_synthetic_graph_equals_without_cache(tmp_path: Path) -> None:
    from benchmarks.products import generate

    root = tmp_path / "g"
    root.mkdir()
    generate(root, 40)
    sha = git_commit(root, "base")
    plain, cold, warm = _three(root, sha, tmp_path / "c")
    assert plain[0] != "problems"
    assert warm.hits == cold.misses > 80


def _rows(cache: RecordCache) -> list[tuple[str, str, bytes, bytes]]:
    with sqlite3.connect(cache.path) as db:
        return list(db.execute("SELECT oid, place, value, check_ FROM entries"))


def test_same_blob_at_two_places_of_different_kinds(tmp_path: Path) -> None:
    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    node = root / "targets/demo/nodes/root"
    (node / "gloss").mkdir(exist_ok=True)
    shutil.copy(node / "META.yaml", node / "gloss/20260401T000000Z-eve.yaml")
    sha = git_commit(root, "meta bytes at a gloss place")
    plain, cold, _ = _three(root, sha, tmp_path / "c")
    assert plain[0] == "problems"
    assert [p["path"] for p in plain[1]] == [
        "targets/demo/nodes/root/gloss/20260401T000000Z-eve.yaml"]
    oid = blob_cache.git_blob_id((node / "META.yaml").read_bytes())
    places = sorted(place for o, place, _, _ in _rows(cold) if o == oid)
    assert places == ["yaml:network.record.node_models.Gloss",
                      "yaml:network.record.node_models.Meta"]


def _corrupt(cache: RecordCache, how: str) -> None:
    with sqlite3.connect(cache.path) as db:
        rows = list(db.execute("SELECT oid, place, value, check_ FROM entries"))
        for oid, place, value, check in rows:
            if how == "garbage":
                db.execute("UPDATE entries SET value = ? WHERE oid = ? AND place = ?",
                           (b"\x00garbage" + value[:5], oid, place))
            elif how == "truncated":
                db.execute("UPDATE entries SET value = ? WHERE oid = ? AND place = ?",
                           (value[: len(value) // 2], oid, place))
            elif how == "bad-check":
                db.execute("UPDATE entries SET check_ = ? WHERE oid = ? AND place = ?",
                           (bytes(32), oid, place))
            elif how in ("refused-record", "other-kind", "flipped-sha"):
                # an entry rewritten with a matching check: what the model refuses, or a
                # record of another kind, is still a miss
                new = value
                if how == "refused-record":
                    new = value.replace(b'"record":{', b'"record":{"not_a_field":1,', 1)
                elif how == "other-kind":
                    new = value.replace(b'"kind":"', b'"kind":"x', 1)
                else:
                    new = value.replace(b'"sha256":"', b'"sha256":"zz', 1)
                fixed = hashlib.sha256(f"{oid}\0{place}\0".encode() + new).digest()
                db.execute("UPDATE entries SET value = ?, check_ = ? WHERE oid = ? AND "
                           "place = ?", (new, fixed, oid, place))


@pytest.mark.parametrize("how", ["garbage", "truncated", "bad-check", "refused-record",
                                 "other-kind", "flipped-sha"])
def test_a_corrupted_entry_is_a_miss(tmp_path: Path, how: str) -> None:
    root = tmp_path / "g"
    _, sha = build_rich_graph(root)
    plain, cold, _ = _three(root, sha, tmp_path / "c")
    _corrupt(cold, how)
    again = RecordCache(tmp_path / "c")
    assert _snapshot(root, sha, again) == plain
    records = sum(1 for _, _, v, _ in _rows(cold) if b'"kind":null' not in v)
    assert again.misses >= records > 0 if how in ("refused-record", "other-kind") \
        else again.misses == cold.misses
    # the misses were parsed again and written back: the next load is all hits
    last = RecordCache(tmp_path / "c")
    assert _snapshot(root, sha, last) == plain and last.misses == 0


@pytest.mark.parametrize("junk", [b"", b"not a database at all" * 100, b"SQLite format 3\0" +
                                  bytes(200)])
def test_a_garbage_database_file_is_a_miss(tmp_path: Path, junk: bytes) -> None:
    root = tmp_path / "g"
    _, sha = build_rich_graph(root)
    plain, cold, _ = _three(root, sha, tmp_path / "c")
    cold.path.write_bytes(junk)
    again = RecordCache(tmp_path / "c")
    assert _snapshot(root, sha, again) == plain
    assert again.hits == 0


def test_a_code_version_change_invalidates(tmp_path: Path) -> None:
    root = tmp_path / "g"
    _, sha = build_rich_graph(root)
    plain, cold, _ = _three(root, sha, tmp_path / "c")
    other = RecordCache(tmp_path / "c", version=blob_cache.code_version("models changed"))
    assert other.path != cold.path
    assert _snapshot(root, sha, other) == plain and other.hits == 0


def test_code_digest_follows_models_loader_and_schemas(tmp_path: Path) -> None:
    pkg = tmp_path / "network"
    pkg.mkdir()
    for rel in blob_cache._CODE_MODULES:
        shutil.copy(ROOT / "network" / rel, pkg / rel)
    shutil.copytree(ROOT / "network" / "record", pkg / "record",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "schemas", tmp_path / "schemas")
    base = blob_cache.code_digest(pkg)
    assert base == blob_cache.code_digest(ROOT / "network")
    seen = {base}
    for changed in (pkg / "record/models.py", pkg / "record/read/loader.py",
                    pkg / "record/read/plain.py", pkg / "model_base.py", pkg / "signing.py",
                    pkg / "record/derive/status.py",
                    next((tmp_path / "schemas").rglob("*.json"))):
        changed.write_bytes(changed.read_bytes() + b"\n")
        digest = blob_cache.code_digest(pkg)
        assert digest not in seen
        seen.add(digest)


def test_no_cache_writes_nothing_and_plain_load_is_unchanged(tmp_path: Path) -> None:
    root = tmp_path / "g"
    _, sha = build_rich_graph(root)
    assert blob_cache.configured() is None
    loader.load_graph(root, sha)
    assert not (tmp_path / "c").exists()


def test_entries_decode_only_to_plain_data() -> None:
    good = blob_cache.encode_entry("a" * 64, "meta/v1", {"schema": "meta/v1"}, [])
    assert blob_cache.decode_entry(good) == ("a" * 64, "meta/v1", {"schema": "meta/v1"}, [])
    for bad in (b"\x80\x04\x95pickle", b"[]", good.replace(b"a" * 64, b"A" * 64),
                b'{"f":1}', good.replace(b'"f":1', b'"f":2'),
                b'{"f":1,"sha256":"' + b"a" * 64 + b'","kind":null,"record":null,'
                b'"problems":[]}',
                b'{"f":1,"sha256":"' + b"a" * 64 + b'","kind":"meta/v1","record":{},'
                b'"problems":[["x","y",null]]}',
                b"[" * 100000):
        assert blob_cache.decode_entry(bad) is None


def test_default_dir_is_under_the_data_directory(tmp_path: Path) -> None:
    assert blob_cache.default_dir(tmp_path) == tmp_path / "record-cache"
    assert blob_cache.configure(tmp_path / "x") is blob_cache.configured()
    blob_cache.configure(None)
    assert blob_cache.configured() is None


def test_no_sandbox_bind_shows_the_cache(tmp_path: Path) -> None:
    from network.errors import LemmataError
    from network.gate.sandbox.sandbox import Sandbox, SandboxLayout
    from network.record.models import Caps

    fake = tmp_path / "tool"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    data = tmp_path / "data"
    (data / "work" / "ws").mkdir(parents=True)
    (data / "toolchains").mkdir()
    sb = Sandbox(bwrap=fake, prlimit=fake, timeout=fake)
    blob_cache.configure(blob_cache.default_dir(data))
    try:
        blob_cache.default_dir(data).mkdir()
        ok = SandboxLayout(scratch=data / "work" / "ws", read_only=(data / "toolchains",))
        assert "--bind" in sb.command(["true"], ok, Caps())
        inside = blob_cache.default_dir(data) / "records.sqlite3"
        inside.write_bytes(b"")
        for shown in (data, blob_cache.default_dir(data), tmp_path, inside):
            for layout in (SandboxLayout(scratch=data / "work" / "ws", read_only=(shown,)),
                           SandboxLayout(scratch=shown)):
                with pytest.raises(LemmataError) as exc:
                    sb.command(["true"], layout, Caps())
                assert exc.value.code == "sandbox-unavailable"
                assert "record cache" in exc.value.detail
    finally:
        blob_cache.configure(None)


@pytest.mark.parametrize("name", ["proof-ok", "statement-edit", "postmortem"])
def test_the_gate_through_the_cache_judges_the_same(tmp_path: Path, name: str) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from gate_scenarios import precheck_raw, scenarios
    from standin import RecordedToolchain

    from network.gate.run import run_gate
    from network.gate.sandbox.sandbox import Sandbox

    sc = scenarios()[name]
    b, base, head = sc.build(tmp_path / name)
    raw = precheck_raw(b.root, base, head)

    def judged() -> Any:
        out = run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                       precheck_raw=raw, submitter=sc.submitter, review=sc.review)
        return (out.verdict, out.exit_code,
                [(r.first_failing.step, r.first_failing.code) if r.first_failing else None
                 for r in out.runs])

    plain = judged()
    cache = blob_cache.configure(tmp_path / "data" / "record-cache")
    try:
        assert judged() == plain  # cold
        assert cache is not None and cache.misses > 0 and cache.hits == 0
        assert judged() == plain  # warm
        assert cache.hits == cache.misses
    finally:
        blob_cache.configure(None)


def test_a_file_changed_during_the_load_is_filed_under_its_own_blob_id(tmp_path: Path) -> None:
    """The blob id a work tree's listing computed names the bytes read then; the parse of
    what was read later is filed under the later bytes' id, never the earlier one."""
    from network.record.read.source import WorktreeSource

    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    meta = "targets/demo/nodes/root/META.yaml"
    before = (root / meta).read_bytes()
    after = before + b"unexpected_field: 1\n"

    class Flipping(WorktreeSource):
        reads = 0

        def read(self, path: str) -> bytes:
            if path == meta:
                Flipping.reads += 1
                return before if Flipping.reads == 1 else after
            return super().read(path)

    plain = _snapshot(root)
    assert plain[0] != "problems"
    cache = RecordCache(tmp_path / "c")
    flipped = _snapshot(Flipping(root), cache=cache)
    assert flipped[0] == "problems" and Flipping.reads == 2
    oids = {o for o, place, _, _ in _rows(cache) if place.endswith(".Meta")}
    assert blob_cache.git_blob_id(after) in oids
    assert blob_cache.git_blob_id(before) not in oids
    assert _snapshot(root, cache=RecordCache(tmp_path / "c")) == plain


def test_old_code_versions_are_pruned_only_when_stale(tmp_path: Path) -> None:
    import os

    root = tmp_path / "g"
    _, sha = build_rich_graph(root)
    old = RecordCache(tmp_path / "c", version=blob_cache.code_version("old"))
    recent = RecordCache(tmp_path / "c", version=blob_cache.code_version("recent"))
    for c in (old, recent):
        loader.load_graph(root, sha, cache=c)
    stale = blob_cache.STALE_VERSION_S + 60
    os.utime(old.path, (old.path.stat().st_atime - stale, old.path.stat().st_mtime - stale))
    loader.load_graph(root, sha, cache=RecordCache(tmp_path / "c"))
    assert not old.path.exists() and recent.path.exists()


def test_the_place_names_parser_and_model() -> None:
    from network.record import models as m

    places = {blob_cache.place_of(p, model) for p, model in (
        ("a/x.yaml", m.Meta), ("a/x.json", m.Meta), ("b/y.yaml", m.Meta),
        ("a/x.yaml", m.Gloss), ("a/x.yaml", m.Approach), ("a/x.yaml", m.ApproachV2))}
    assert len(places) == 5  # the folder is not part of it; parser and model are
