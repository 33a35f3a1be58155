"""The README keeps up with the code (STYLE.md rule 9): exactly two set-up commands, every
CLI command named, and the Lean posture stated."""

from __future__ import annotations

import re
from pathlib import Path

import click

from network.cli import main


def _commands(group: click.Group, prefix: str = "lemmata") -> list[str]:
    out: list[str] = []
    for name, cmd in sorted(group.commands.items()):
        full = f"{prefix} {name}"
        if isinstance(cmd, click.Group):
            out.extend(_commands(cmd, full))
        else:
            out.append(full)
    return out


def test_every_command_is_in_the_readme(repo_root: Path) -> None:
    readme = (repo_root / "README.md").read_text("utf-8")
    missing = [c for c in _commands(main) if f"`{c}" not in readme]
    assert missing == []


def test_exactly_two_setup_commands(repo_root: Path) -> None:
    readme = (repo_root / "README.md").read_text("utf-8")
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", quick, re.DOTALL)
    assert block is not None
    lines = [ln.split("#")[0].strip() for ln in block.group(1).splitlines() if ln.strip()]
    assert lines == ["make run", "make test"]


def test_the_lean_posture_is_stated(repo_root: Path) -> None:
    readme = (repo_root / "README.md").read_text("utf-8")
    for phrase in ("toolchain-missing", "recorded stand-in", "marked `lean`", "fails closed"):
        assert phrase in readme, phrase


def test_the_plain_git_example_writes_a_postmortem_of_a_sample_node(repo_root: Path) -> None:
    """Issue 35, item 7: the example names a node the sample graph holds, at a path the
    record layout takes for a postmortem, and says where the format is written down."""
    from network.record.read.loader import ATTEMPT_RE, load_graph

    readme = (repo_root / "README.md").read_text("utf-8")
    section = readme.split("## Contributing with plain git", 1)[1].split("\n## ", 1)[0]
    [path] = re.findall(r"targets/\S+-postmortem\.yaml", section)
    _, target, _, node, _, name = path.split("/")
    assert node in load_graph(repo_root / "graph").targets[target].nodes
    assert ATTEMPT_RE.fullmatch(name), name
    assert f"postmortem of {target}/{node}" in section
    assert "graph/AGENTS.md, section 11" in section
    assert "## 11. Postmortems" in (repo_root / "graph" / "AGENTS.md").read_text("utf-8")
