"""Benchmark: how often step 2's Lean text screens refuse real, honest Lean (issue 32).

The screens that need no Lean (the import-time screen with the lexer's fail-closed
ambiguities, :mod:`network.gate.screens.import_screen`; hidden characters and look-alike names,
:mod:`network.gate.screens.unicode_screen`; issue 37) must refuse what an attacker writes and
pass what mathematicians write. This prints, per corpus, the files read and the files each
screen would refuse, by catalog code, beside the count of real refusals: the attack texts
the tests hold (``tests/test_attack_import_screen.py``,
``tests/test_attack_screen_lean_exact.py``), each of which must be refused.

Corpora (read as data, never built):

* graph/: every ``.lean`` file of this repository's sample graph;
* Formal Conjectures 488aade (../shared/registries/formal-conjectures-488aade-erdos.tar.gz):
  every ``.lean`` file, statements with their definitions;
* miniF2F (../shared/datasets/minif2f-lean4-5746b7d.tar.gz): 488 competition statements.

A public corpus of finished competition proofs (e.g. compfiles) is not on this machine; add
its archive's path with ``--extra PATH.tar.gz`` where it is.

Usage::

    .venv/bin/python benchmarks/screen_false_positives.py [--extra archive.tar.gz ...]

Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from network.gate.screens.import_screen import import_time_problems
from network.gate.screens.unicode_screen import (
    delimiter_lookalike_findings,
    format_character_findings,
    identifier_findings,
)

SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared")
               if p.is_dir()), ROOT.parent / "shared")


def lean_files_in_tar(path: Path) -> Iterator[tuple[str, str]]:
    """``(member name, text)`` of every ``.lean`` member of a tar archive."""
    with tarfile.open(path) as tar:
        for member in tar:
            if member.isfile() and member.name.endswith(".lean"):
                data = tar.extractfile(member)
                if data is not None:
                    yield member.name, data.read().decode("utf-8", "replace")


def lean_files_in_graph(root: Path) -> Iterator[tuple[str, str]]:
    """Every ``.lean`` file under ``root``."""
    for p in sorted(root.rglob("*.lean")):
        yield str(p.relative_to(root)), p.read_text("utf-8", "replace")


def screen(text: str, path: str) -> set[str]:
    """The catalog codes step 2's Lean text screens would refuse ``text`` with (names are
    screened as in a statement-bearing file: the strictest reading)."""
    codes = {p.code for p in import_time_problems(text)}
    codes |= {d.code for d in format_character_findings(text, path)}
    codes |= {d.code for d in delimiter_lookalike_findings(text, path)}
    codes |= {d.code for d in identifier_findings(text, path)}
    return codes


def run(name: str, files: Iterator[tuple[str, str]]) -> None:
    t0 = time.perf_counter()
    n, refused = 0, 0
    by_code: collections.Counter[str] = collections.Counter()
    examples: dict[str, str] = {}
    for path, text in files:
        n += 1
        codes = screen(text, path)
        if codes:
            refused += 1
        for c in codes:
            by_code[c] += 1
            examples.setdefault(c, path)
    dt = time.perf_counter() - t0
    print(f"{name}: {n} files, {refused} refused ({refused / max(n, 1):.1%}), "
          f"{dt:.1f} s")
    for code, k in by_code.most_common():
        print(f"    {code}: {k} (e.g. {examples[code]})")


def attack_texts() -> list[str]:
    """The attack texts the tests hold, each of which the screens must refuse."""
    sys.path.insert(0, str(ROOT / "tests"))
    import test_attack_screen_lean_exact as lean_exact

    out = [before + lean_exact.MACRO for before in (
        "def a : Nat := #[(0)][0]!'\"'\n", "def b : Set Nat := ∅ᶜ'\"'\n",
        "def c : Nat := xˣ'\"'\n", "def e := fun λ'\"'\n")]
    out += ["simproc_pattern% (_ + _ : Nat) => f\nattribute [simp] f\n",
            "theorem t : True := trivial -- \u202e\n",
            "theorem t (a а : Nat) : a = а := rfl\n",
            "def S := {n : Int //-1 < n}\nset_option debug.skipKernelTC true  -- -/\n",
            "theorem t : 1 = 1 /- half \u2011/ ∧ 2 = 3 -- -/\n  := rfl\n",
            "theorem t : True := by simp at *\n#eval! IO.println \"x\"\n"]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--extra", action="append", default=[], type=Path,
                        help="another tar archive of Lean files to read")
    args = parser.parse_args()
    run("graph/", lean_files_in_graph(ROOT / "graph"))
    for label, archive in (("Formal Conjectures 488aade",
                            SHARED / "registries" / "formal-conjectures-488aade-erdos.tar.gz"),
                           ("miniF2F 5746b7d",
                            SHARED / "datasets" / "minif2f-lean4-5746b7d.tar.gz"),
                           *((str(p), p) for p in args.extra)):
        if Path(archive).is_file():
            run(label, lean_files_in_tar(Path(archive)))
        else:
            print(f"{label}: not on this machine ({archive})")
    attacks = attack_texts()
    caught = sum(1 for t in attacks if screen(t, "targets/x/nodes/y/Statement.lean"))
    print(f"real refusals: {caught} of {len(attacks)} attack texts refused")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
