"""benchmarks/mutation_kill_rate.py reads mutmut's results as mutmut reads them (issue 41).

The results folder is written here in mutmut 3's form (``mutants/<path>.meta``, JSON with
``exit_code_by_key``); the exit codes are mutmut's own (``mutmut.stats.status_by_exit_code``):
1 and 3 killed, 0 survived, 5 and 33 no tests, 36 timeout, 37 caught by the type
checker, None not checked. The configuration ``make mutate`` runs is checked against the
issue's list of modules.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import mutation_kill_rate as mkr


def write_meta(mutants: Path, module: str, codes: dict[str, int | None]) -> None:
    meta = mutants / f"{module}.meta"
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps({"exit_code_by_key": codes, "durations_by_key": {}}))


def test_rates_count_as_mutmut_does(tmp_path: Path) -> None:
    write_meta(tmp_path, "network/gate/lean/axioms.py", {
        "network.gate.lean.axioms.x_f__mutmut_1": 1, "network.gate.lean.axioms.x_f__mutmut_2": 3,
        "network.gate.lean.axioms.x_f__mutmut_3": 36, "network.gate.lean.axioms.x_f__mutmut_4": 37,
        "network.gate.lean.axioms.x_f__mutmut_5": 0, "network.gate.lean.axioms.x_f__mutmut_6": 33,
        "network.gate.lean.axioms.x_f__mutmut_7": None, "network.gate.lean.axioms.x_f__mutmut_8": 34})
    write_meta(tmp_path, "network/signing.py", {"network.signing.x_g__mutmut_1": 1})
    write_meta(tmp_path, "network/empty.py", {})
    rates = {r.module: r for r in mkr.read_rates(tmp_path)}
    assert set(rates) == {"network/gate/lean/axioms.py", "network/signing.py"}
    ax = rates["network/gate/lean/axioms.py"]
    assert (ax.killed, ax.survived, ax.other) == (4, 2, 2)
    assert ax.rate == pytest.approx(4 / 6)
    assert ax.survivors == ["network.gate.lean.axioms.x_f__mutmut_5",
                            "network.gate.lean.axioms.x_f__mutmut_6"]
    assert rates["network/signing.py"].rate == 1.0
    text = mkr.report(list(rates.values()), survivors=1)
    assert "66.7%" in text and "below goal" in text
    assert "network.gate.lean.axioms.x_f__mutmut_5" in text and "... and 1 more" in text
    assert "all modules" in text and "83.3%" not in text  # 5 killed of 7 judged is 71.4%
    assert "71.4%" in text


def test_no_results_say_how_to_make_them(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert mkr.main(["--mutants", str(tmp_path / "none")]) == 0
    assert "make mutate" in capsys.readouterr().out


def test_a_foreign_meta_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "x.py.meta").write_text("[]")
    with pytest.raises(ValueError, match=r"x\.py\.meta"):
        mkr.read_rates(tmp_path)


def test_make_mutate_covers_the_issues_modules() -> None:
    """Issue 41 names the modules where a wrong line forges or loses something; each is
    mutated, and each pattern names something that exists."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    patterns = cfg["only_mutate"]
    for pattern in patterns:
        assert list(ROOT.glob(pattern)), pattern
    for needed in ("network/gate/steps/*", "network/gate/attestation.py",
                   "network/signing.py", "network/gate/lean/axioms.py", "network/api/frontier/claims.py",
                   "network/api/identity/pseudonyms.py", "network/gate/queue/merge_journal.py",
                   "network/gate/queue/queue.py", "network/forge/local.py",
                   "network/gate/postmerge/postmerge_ledger.py", "network/api/submit/record_pr.py"):
        assert needed in patterns, needed
    assert "mutate:" in (ROOT / "Makefile").read_text()
