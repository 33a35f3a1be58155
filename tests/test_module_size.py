"""Every module of network/ is small enough to read in one sitting (issue 17, "the house").

A module over :data:`LIMIT` lines is allowed only when :data:`EXCEPTIONS` names it and says
why. The list of big modules must equal the exceptions, so it can only shrink: a new
module over the limit fails, a module that grows past it fails, and a module split below
the limit fails until its exception is struck out.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 800
"""The most lines a module of network/ may have without a named exception."""

EXCEPTIONS: dict[str, str] = {}
"""Modules over :data:`LIMIT` lines, each with why it may be (path relative to the root)."""


def line_count(path: Path) -> int:
    """The number of lines of ``path`` as an editor shows them."""
    return len(path.read_text(encoding="utf-8").splitlines())


def big_modules(root: Path = ROOT, limit: int = LIMIT) -> dict[str, int]:
    """Every ``.py`` file under ``root/network`` with more than ``limit`` lines, by path."""
    return {p.relative_to(root).as_posix(): n
            for p in sorted((root / "network").rglob("*.py"))
            if (n := line_count(p)) > limit}


def test_big_modules_are_exactly_the_named_exceptions() -> None:
    big = big_modules()
    new = {p: n for p, n in big.items() if p not in EXCEPTIONS}
    assert not new, (f"modules over {LIMIT} lines with no exception (split them; "
                     f"issue 17): {new}")
    gone = sorted(set(EXCEPTIONS) - set(big))
    assert not gone, f"these are at most {LIMIT} lines now: strike them from EXCEPTIONS: {gone}"


def test_every_exception_says_why() -> None:
    assert all(why.strip() for why in EXCEPTIONS.values())


def test_the_derive_package_is_split() -> None:
    """network/record/derive.py became a package whose modules are each under the limit."""
    assert not (ROOT / "network/record/derive.py").exists()
    modules = sorted((ROOT / "network/record/derive").glob("*.py"))
    assert len(modules) > 10
    assert all(line_count(p) <= LIMIT for p in modules)


def test_a_new_big_module_fails(tmp_path: Path) -> None:
    """The check itself: a module one line over the limit is listed, one at it is not."""
    (tmp_path / "network" / "pkg").mkdir(parents=True)
    (tmp_path / "network" / "pkg" / "big.py").write_text("x = 1\n" * (LIMIT + 1))
    (tmp_path / "network" / "pkg" / "ok.py").write_text("x = 1\n" * LIMIT)
    (tmp_path / "network" / "notes.txt").write_text("x\n" * (LIMIT * 2))
    assert big_modules(tmp_path) == {"network/pkg/big.py": LIMIT + 1}
