"""The house's import rules hold (issue 34): the contracts in pyproject.toml
(``[tool.importlinter]``: the layers from the entry points down to the error catalog, and no
circle between sibling modules or packages at any depth) are kept, they do fail on a
circle, and no folder of network/ grows past 18 modules.

``make test`` also runs ``lint-imports`` itself; these tests keep the rules inside the suite
too, and show the checker is not vacuous.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]

#: the most modules (``*.py`` other than ``__init__.py``) a folder of network/ may hold
MODULES_PER_FOLDER = 18
#: the rooms issue 34 split api/, gate/ and record/ into: every sub-package under them (but
#: Alembic's migration scripts, which are data), each with the docstring that says what it
#: holds and what it may import
ROOMS = tuple(sorted(p.parent.relative_to(ROOT).as_posix()
                     for top in ("api", "gate", "record")
                     for p in (ROOT / "network" / top).glob("*/__init__.py")
                     if p.parent.name != "migrations"))


@contextlib.contextmanager
def _cwd(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def test_the_import_contracts_are_kept(capsys: pytest.CaptureFixture[str]) -> None:
    with _cwd(ROOT):
        rc = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True,
                          no_logo=True)
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "2 kept, 0 broken" in out


def test_the_acyclic_contract_fails_on_a_circle(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The same contract, on a package whose two modules import each other (one of them
    inside a function, the way a circle used to be hidden), is broken."""
    pkg = tmp_path / "circled"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "a.py").write_text("from circled import b\n", encoding="utf-8")
    (pkg / "b.py").write_text("def f():\n    from circled import a\n    return a\n",
                              encoding="utf-8")
    config = tmp_path / "setup.toml"
    config.write_text(textwrap.dedent("""\
        [tool.importlinter]
        root_package = "circled"

        [[tool.importlinter.contracts]]
        id = "acyclic"
        name = "no circle"
        type = "acyclic_siblings"
        ancestors = ["circled"]
        """), encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        with _cwd(tmp_path):
            rc = lint_imports(config_filename=str(config), no_cache=True, no_logo=True)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("circled", None)
    out = capsys.readouterr().out
    assert rc != 0
    assert "no circle BROKEN" in out and "0 kept, 1 broken" in out, out


def _module_counts() -> dict[str, int]:
    out = {}
    for folder in [ROOT / "network", *(p for p in (ROOT / "network").rglob("*")
                                       if p.is_dir() and p.name != "__pycache__")]:
        n = sum(1 for p in folder.glob("*.py") if p.name != "__init__.py")
        if n:
            out[folder.relative_to(ROOT).as_posix()] = n
    return out


def test_no_folder_holds_more_than_18_modules() -> None:
    counts = _module_counts()
    assert {"network/api", "network/gate", "network/record"} <= set(counts)
    over = {f: n for f, n in counts.items() if n > MODULES_PER_FOLDER}
    assert over == {}, f"split these rooms into sub-packages (issue 34): {over}"


def test_every_room_says_what_it_holds_and_may_import() -> None:
    """Each sub-package's ``__init__.py`` is a docstring naming what the room holds and, in a
    ``May import:`` paragraph, what it may import (issue 34); every room or module that
    paragraph names exists beside it."""
    import ast

    assert len(ROOMS) >= 17, ROOMS
    for room in ROOMS:
        init = ROOT / room / "__init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "May import:" in doc, room
        rule = doc.split("May import:", 1)[1].split("\n\n", 1)[0]
        named = set(re.findall(r"``(\w+)``", rule))
        here = {p.stem for p in (ROOT / room).glob("*.py")}
        rooms = {p.name for p in (ROOT / room).parent.iterdir() if p.is_dir()}
        siblings = {p.stem for p in (ROOT / room).parent.glob("*.py")}
        unknown = {n for n in named if n not in here | rooms | siblings}
        assert not unknown, (room, unknown)
