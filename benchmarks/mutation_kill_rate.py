"""Benchmark: the mutation kill rate per module, read from mutmut's results (issue 41).

``make mutate`` runs mutmut (configured under ``[tool.mutmut]`` in pyproject.toml, over the
modules where a wrong line forges a verdict or loses a write) and then this script. mutmut
keeps one ``mutants/<path>.meta`` JSON file per mutated module, whose ``exit_code_by_key``
maps each mutant's name to the exit code of the tests run against it. This reads those
files, as mutmut's own ``status_by_exit_code`` reads them, and prints per module:

* **killed**: a test failed (exit 1 or 3), the type checker caught it (37), or the tests
  ran past their time limit (timeouts: 24, 36, 152, 255, -24; a mutant that makes a test
  hang is found, not missed);
* **survived**: every test passed (0), or no test reaches the mutated function (5, 33):
  both are mutants nothing holds;
* **other**: not yet checked, skipped, suspicious or a crash; left out of the rate and
  counted so a reader sees them;

and the kill rate ``killed / (killed + survived)`` beside issue 41's goal of 90 %. A module
under the goal lists its surviving mutants: read one with ``.venv/bin/mutmut show NAME``,
then add a test that kills it or write down (docs/gate.md, "Reading a surviving mutant")
why it is equivalent.

Usage::

    .venv/bin/python benchmarks/mutation_kill_rate.py [--mutants mutants] [--survivors 10]

Figures are printed, never asserted; with no results it says how to make them (exit 0, so
``make bench`` runs it on a fresh checkout).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Issue 41: the kill rate to reach on the named modules.
GOAL = 0.90
KILLED = frozenset({1, 3, 37, 24, 36, 152, 255, -24})
SURVIVED = frozenset({0, 5, 33})


@dataclass
class ModuleRate:
    """One mutated module's results.

    Attributes:
        module: its path under the repository, e.g. ``network/gate/lean/axioms.py``.
        killed, survived, other: counts of mutants (see the module docstring).
        survivors: the surviving mutants' names, in mutmut's order.
    """

    module: str
    killed: int = 0
    survived: int = 0
    other: int = 0
    survivors: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float | None:
        """killed / (killed + survived), or None when nothing was judged."""
        judged = self.killed + self.survived
        return self.killed / judged if judged else None


def read_rates(mutants: Path) -> list[ModuleRate]:
    """Every ``*.meta`` under ``mutants`` (mutmut's results folder) as a ModuleRate,
    sorted by module path.

    Raises:
        ValueError: a meta file that is not mutmut's JSON (names the file).
    """
    rates: list[ModuleRate] = []
    for meta in sorted(mutants.rglob("*.py.meta")):
        try:
            codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{meta}: not a mutmut results file ({exc})") from exc
        rate = ModuleRate(meta.relative_to(mutants).as_posix().removesuffix(".meta"))
        for name, code in codes.items():
            if code in KILLED:
                rate.killed += 1
            elif code in SURVIVED:
                rate.survived += 1
                rate.survivors.append(name)
            else:
                rate.other += 1
        if codes:
            rates.append(rate)
    return rates


def report(rates: list[ModuleRate], survivors: int) -> str:
    """The table printed: one line per module, the total, and up to ``survivors``
    surviving mutants per module under the goal."""
    lines = [(f"mutation kill rate per module (goal >= {GOAL:.0%}, issue 41; killed / "
              "(killed + survived), timeouts and type-check catches count as killed)")]
    total = ModuleRate("all modules")
    for r in rates:
        total.killed += r.killed
        total.survived += r.survived
        total.other += r.other
    for r in [*rates, total]:
        rate = "  n/a" if r.rate is None else f"{r.rate:5.1%}"
        mark = "" if r.rate is None or r.rate >= GOAL else "  below goal"
        lines.append(f"  {r.module:<48} {rate}  killed {r.killed:5d}  survived {r.survived:5d}"
                     f"  other {r.other:4d}{mark}")
    for r in rates:
        if r.rate is not None and r.rate < GOAL and survivors:
            lines.append(f"  survivors in {r.module} (mutmut show NAME):")
            lines += [f"    {name}" for name in r.survivors[:survivors]]
            if len(r.survivors) > survivors:
                lines.append(f"    ... and {len(r.survivors) - survivors} more")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the kill rates (or how to make them); 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mutants", type=Path, default=ROOT / "mutants",
                    help="mutmut's results folder (default: ./mutants)")
    ap.add_argument("--survivors", type=int, default=10,
                    help="surviving mutants listed per module under the goal")
    args = ap.parse_args(argv)
    rates = read_rates(args.mutants) if args.mutants.is_dir() else []
    if not rates:
        print(f"no mutmut results under {args.mutants}: run `make mutate` first")
        return 0
    print(report(rates, args.survivors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
