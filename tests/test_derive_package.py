"""network.record.derive is a package behind one interface (issue 17): every public name a
family module defines is re-exported by the package, under ``__all__``, as the same
object, and the package names nothing its modules do not define."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

from network.record import derive

PACKAGE = Path(derive.__file__).parent


def _defined_public(path: Path) -> set[str]:
    """Top-level names a module's source binds itself (defs, classes, assignments)."""
    out: set[str] = set()
    for s in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(s, (ast.FunctionDef, ast.ClassDef)):
            out.add(s.name)
        elif isinstance(s, ast.Assign):
            out.update(t.id for t in s.targets if isinstance(t, ast.Name))
        elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
            out.add(s.target.id)
    return {n for n in out if not n.startswith("_")}


def test_every_public_name_is_reexported_as_the_same_object() -> None:
    owners: dict[str, str] = {}
    for info in pkgutil.iter_modules([str(PACKAGE)]):
        mod = importlib.import_module(f"network.record.derive.{info.name}")
        for name in _defined_public(PACKAGE / f"{info.name}.py"):
            assert name not in owners, f"{name} defined in {owners[name]} and {info.name}"
            owners[name] = info.name
            assert name in derive.__all__, f"{info.name}.{name} is not re-exported"
            assert getattr(derive, name) is getattr(mod, name)
    assert sorted(derive.__all__) == sorted(owners)


def test_no_module_shadows_a_public_name() -> None:
    """A module named like a function (``frontier``) would replace it on the package."""
    modules = {info.name for info in pkgutil.iter_modules([str(PACKAGE)])}
    assert not modules & set(derive.__all__)
    for name in derive.__all__:
        assert not isinstance(getattr(derive, name), type(derive)), name


def test_the_index_is_one_object_everywhere() -> None:
    """Readers outside the package use ``derive._ix``/``derive._Index``: the same ones."""
    from network.record.derive import _index

    assert derive._ix is _index._ix and derive._Index is _index._Index
