"""The round trip over every file of the real Formal Conjectures snapshot (issue 28; D-9).

The Erdős collection at upstream 488aade (the archive in ``tests/fixtures/registries``, the
same bytes as ``../shared/registries``) is imported whole; every Lean file it lands (each
Statement.lean and definitions module) is read back against its source without Lean, and
every source file is read by the command reader. The figures are printed (``-s``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from network.gate.screens.lean_commands import DECL, read_commands
from network.importers.fc_roundtrip import round_trip_differences
from network.importers.formal_conjectures import plan_formal_conjectures_import
from tests.importfixtures import fc_real_checkout

pytestmark = pytest.mark.slow

ERDOS = "FormalConjectures/ErdosProblems"
#: the files held for a curator, and why (each checked by hand against the source): a
#: notation a statement uses, or a lemma proved by `sorry` a landed declaration needs
HELD = {
    "125": "import-command-unknown", "347": "import-command-unknown",
    "508": "import-command-unknown", "812": "import-command-unknown",
    "890": "import-command-unknown",
    "11": "import-closure-missing", "287": "import-closure-missing",
    "295": "import-closure-missing", "392": "import-closure-missing",
    "697": "import-closure-missing", "961": "import-closure-missing",
    "1055": "import-closure-missing",
}


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory):
    """The real snapshot and its import with no graph: (checkout, plan)."""
    co, _ = fc_real_checkout(tmp_path_factory.mktemp("fidelity-real") / "fc")
    return co, plan_formal_conjectures_import(co, None, curator="c")


def test_every_source_file_is_read(real) -> None:
    co, _ = real
    files = sorted((co / ERDOS).glob("*.lean"))
    decls = unknown = 0
    for p in files:
        read = read_commands(p.read_text(encoding="utf-8"))
        decls += sum(1 for c in read.commands if c.cls == DECL)
        unknown += len(read.unknown)
    print(f"\n{len(files)} files read: {decls} declarations, {unknown} unknown commands")
    assert len(files) == 610 and decls == 2599 and unknown == 0


def test_every_landed_file_round_trips(real) -> None:
    co, plan = real
    checked: Counter[str] = Counter()
    differences: list[str] = []
    sources = {f["path"]: f for f in plan.report["files"]}
    by_target = {t["id"]: t["file"] for t in plan.report["targets"]}
    for path, data in sorted(plan.files.items()):
        if not path.endswith(".lean") or path.endswith("/Witness.lean"):
            continue
        tid = path.split("/")[1]
        src = (co / by_target[tid]).read_text(encoding="utf-8")
        text = data.decode("utf-8")
        in_defs = "/defs/" in path
        defs_import = None if in_defs else next(
            (line.removeprefix("import ") for line in text.splitlines()
             if line.startswith("import Lemmata.")), None)
        diffs = round_trip_differences(src, text, defs_import=defs_import,
                                       proof_dropped_ok=not in_defs,
                                       private_dropped_ok=in_defs)
        checked["definitions modules" if in_defs else "statements"] += 1
        differences += [f"{path}: {d}" for d in diffs]
    print(f"\nround trip: {dict(checked)} checked, {len(differences)} differences")
    assert differences == []
    assert checked["statements"] == plan.report["counts"]["roots"] + \
        plan.report["counts"]["variants"]
    assert checked["definitions modules"] > 300
    assert all(f["status"] != "refused" for f in sources.values())


def test_held_files_are_the_ones_that_cannot_land(real) -> None:
    _, plan = real
    held = {Path(f["path"]).stem: f["code"] for f in plan.report["files"]
            if f["status"] == "held"}
    assert held == HELD
    c = plan.report["counts"]
    assert c["declarations"] == c["imported"] + c["skipped"] + c["held"]
    assert c["files"] == c["files_imported"] + c["files_held"] + c["files_refused"] + sum(
        1 for f in plan.report["files"] if f["status"] == "nothing-imported")
    print(f"\nheld: {len(held)} files, {c['held']} declarations; counts {c}")
