"""The house's layering, read from the code's own imports (issue 17).

Every ``import`` and ``from ... import`` in every module under ``network/`` is read with the
standard library's :mod:`ast`, lazy imports inside functions and ``TYPE_CHECKING`` blocks
included, and relative imports resolved. The rules:

- the record (``network.record``) imports none of the gate, the service, the site, the
  forge or the trainer;
- signing (``network.signing``, and the model base it builds on) sits below the record;
- the forge (``network.forge``) imports neither the service nor the gate;
- no module of the service imports ``network.api.app`` but ``app.py`` itself: route
  modules take what they share from ``network.api.deps``, and ``app.py`` imports them.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "network"


def module_name(path: Path) -> str:
    """``network/api/app.py`` → ``network.api.app``; a package's ``__init__.py`` → its name."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(dotted: str) -> bool:
    rel = Path(*dotted.split("."))
    return (ROOT / rel).with_suffix(".py").is_file() or (ROOT / rel / "__init__.py").is_file()


def imports_of(source: str, name: str, *, is_package: bool) -> set[str]:
    """Every module ``source`` (the text of module ``name``) imports, as dotted names.

    ``from a.b import c`` yields ``a.b.c`` when that is a module of this repository (a
    submodule import), else ``a.b``. Relative imports are resolved against ``name``.
    """
    here = name.split(".") if is_package else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if _is_module(sub):
                    found.add(sub)
    return found


def graph() -> dict[str, set[str]]:
    """Module → the modules it imports, for every module under ``network/`` (a copy)."""
    return {name: set(targets) for name, targets in _graph().items()}


@functools.cache
def _graph() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        out[name] = imports_of(path.read_text(encoding="utf-8"), name,
                               is_package=path.name == "__init__.py")
    return out


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def violations(imports: dict[str, set[str]]) -> list[str]:
    """Every import that breaks one of the module docstring's rules, as ``a -> b``."""
    rules: list[tuple[str, tuple[str, ...]]] = [
        ("network.record", ("network.gate", "network.api", "network.site", "network.forge",
                            "network.trainer")),
        ("network.signing", ("network.record",)),
        ("network.model_base", ("network.record",)),
        ("network.forge", ("network.api", "network.gate")),
    ]
    bad: list[str] = []
    for module, targets in sorted(imports.items()):
        for low, forbidden in rules:
            if _within(module, low):
                bad += [f"{module} -> {t}" for t in sorted(targets)
                        if any(_within(t, f) for f in forbidden)]
        if (_within(module, "network.api") and module != "network.api.app"
                and "network.api.app" in targets):
            bad.append(f"{module} -> network.api.app")
    return bad


def test_the_layering_holds() -> None:
    imports = graph()
    # the walk saw the modules the rules are about
    for name in ("network.record.models", "network.signing", "network.forge.local",
                 "network.forge.github", "network.api.app", "network.api.deps",
                 "network.api.records.record_routes"):
        assert name in imports, name
    assert violations(imports) == []


def test_app_imports_the_route_modules_in_one_direction() -> None:
    app = graph()["network.api.app"]
    for route_module in ("network.api.records.record_routes",
                         "network.api.submit.submission_routes",
                         "network.api.records.record_acts", "network.api.people.web_session",
                         "network.api.deps"):
        assert route_module in app, route_module


@pytest.mark.parametrize(("name", "source", "expected"), [
    ("network.record.derive", "def f():\n    from network.gate import run\n",
     "network.record.derive -> network.gate.run"),
    ("network.record.validate", "from ..api import db\n", "network.record.validate -> network.api.db"),
    ("network.signing", "from network.record.models import Signature\n",
     "network.signing -> network.record.models"),
    ("network.forge.local", "from network.api.db import transaction\n",
     "network.forge.local -> network.api.db"),
    ("network.forge.github", "import network.gate.attestation\n",
     "network.forge.github -> network.gate.attestation"),
    ("network.api.records.panel", "from network.api.app import marks\n",
     "network.api.records.panel -> network.api.app"),
    ("network.api.people.web_session", "def f():\n    from network.api import app\n",
     "network.api.people.web_session -> network.api.app"),
    ("network.api.records.panel", "from .. import app\n",
     "network.api.records.panel -> network.api.app"),
])
def test_a_violation_is_found(name: str, source: str, expected: str) -> None:
    """Each rule fails on an import built to break it, lazy and relative ones included."""
    imports = graph()
    imports[name] = imports_of(source, name, is_package=False)
    assert expected in violations(imports)


def test_allowed_imports_are_not_violations() -> None:
    imports = graph()
    imports["network.record.derive"] = imports_of(
        "from network import signing\nfrom network.ids import ROOT\n", "network.record.derive",
        is_package=False)
    imports["network.up"] = {"network.api.app"}
    imports["network.gate.queue.queue"] = {"network.forge.local"}
    assert violations(imports) == []
