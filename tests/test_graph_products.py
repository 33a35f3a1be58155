"""The starting graph's committed products are what the record derives (issue 2 done-when:
`lemmata validate graph` and `lemmata products graph --check` exit 0). When this fails, run
`lemmata products graph` and commit the result (a new error code changes errors.json)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from network.cli import main


def test_validate_graph_exits_0(repo_root: Path) -> None:
    out = CliRunner().invoke(main, ["validate", str(repo_root / "graph")])
    assert out.exit_code == 0, out.output


def test_products_check_exits_0(repo_root: Path) -> None:
    out = CliRunner().invoke(main, ["products", str(repo_root / "graph"), "--check"])
    assert out.exit_code == 0, out.output
