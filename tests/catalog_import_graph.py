"""What importing each module of ``network/`` alone defines, measured in one interpreter
(issue 41: every catalog code defined before it can be raised).

Run as a script in a fresh interpreter (``python tests/catalog_import_graph.py``, the
repository root on ``PYTHONPATH``), it imports every module of the package, as
:func:`network.errors.register_all` does, with two hooks in place, and prints one JSON
object:

* ``imports``: for each ``network`` module, the ``network`` modules its own import
  executes or reaches (every ``import`` statement or ``importlib.import_module`` call run
  while its body runs, whether the module was loaded already or not, plus its parent
  package). A module's import in a
  fresh interpreter loads exactly the closure of these edges, so the codes it defines are
  the codes the closure's bodies define.
* ``defines``: for each module, the codes its body passes to ``define`` or
  ``define_once`` (a ``define_once`` of a code already defined is counted too: alone, it
  would define it).

A module is attributed by the innermost ``<module>`` frame on the stack, so an import or a
``define`` made by a helper the body calls at import time counts for the body's module.
``tests/test_catalog_defined_before_raised.py`` reads the output and checks a sample of modules
against real fresh interpreters, so the measurement is itself held.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import FrameType, ModuleType
from typing import Any


def _executing_module(frame: FrameType | None) -> str | None:
    """The ``__name__`` of the innermost module body running at ``frame`` or above it."""
    while frame is not None:
        if frame.f_code.co_name == "<module>":
            name = frame.f_globals.get("__name__")
            return name if isinstance(name, str) else None
        frame = frame.f_back
    return None


def _ours(name: str) -> bool:
    return name == "network" or name.startswith("network.")


def _prefixes(dotted: str) -> list[str]:
    parts = dotted.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _resolved(name: str, importer_globals: Mapping[str, object] | None, level: int) -> str:
    if not level:
        return name
    package = (importer_globals or {}).get("__package__") or ""
    return importlib.util.resolve_name("." * level + name, str(package))


def _touched(name: str, fromlist: Iterable[str] | None) -> list[str]:
    """The modules an import statement of ``name`` (resolved) with ``fromlist`` loads or
    reaches: every prefix of ``name``, and each fromlist item that is a submodule."""
    out = _prefixes(name)
    for item in fromlist or ():
        sub = f"{name}.{item}"
        if item != "*" and sub in sys.modules:
            out.append(sub)
    return out


def record() -> dict[str, dict[str, list[str]]]:
    """Import every module of ``network`` (migrations aside) with the hooks in place;
    return ``{"imports": {module: [modules]}, "defines": {module: [codes]}}``.

    Must run in an interpreter that has imported no ``network`` module yet.
    """
    assert not any(_ours(m) for m in sys.modules), "run in a fresh interpreter"
    imports: dict[str, set[str]] = defaultdict(set)
    defines: dict[str, set[str]] = defaultdict(set)
    original_import = builtins.__import__

    def hooked_import(name: str, globals: Mapping[str, object] | None = None,
                      locals: Mapping[str, object] | None = None,
                      fromlist: Sequence[str] | None = (), level: int = 0) -> ModuleType:
        module = original_import(name, globals, locals, fromlist, level)
        importer = _executing_module(sys._getframe(1))
        if importer is not None and _ours(importer):
            resolved = _resolved(name, globals, level)
            imports[importer].update(m for m in _touched(resolved, fromlist)
                                     if _ours(m) and m != importer)
        return module

    original_import_module = importlib.import_module

    def hooked_import_module(name: str, package: str | None = None) -> ModuleType:
        module = original_import_module(name, package)
        importer = _executing_module(sys._getframe(1))
        if importer is not None and _ours(importer):
            resolved = (importlib.util.resolve_name(name, package) if name.startswith(".")
                        else name)
            imports[importer].update(m for m in _prefixes(resolved)
                                     if _ours(m) and m != importer)
        return module

    builtins.__import__ = hooked_import
    importlib.import_module = hooked_import_module
    try:
        from network import errors

        defines["network.errors"].update(errors.CATALOG)  # its own body, before the hook
        imports["network.errors"].add("network")

        def recording(definer: Callable[..., Any]) -> Callable[..., Any]:
            def wrapper(code: str, *args: Any, **kwargs: Any) -> Any:
                who = _executing_module(sys._getframe(1))
                if who is not None:
                    defines[who].add(code)
                return definer(code, *args, **kwargs)
            return wrapper

        errors.define = recording(errors.define)
        errors.define_once = recording(errors.define_once)
        for name, _path in errors._package_modules():
            importlib.import_module(name)
    finally:
        builtins.__import__ = original_import
        importlib.import_module = original_import_module
    for name in [m for m in sys.modules if _ours(m)]:
        parent = name.rpartition(".")[0]
        if parent:
            imports[name].add(parent)
    loaded = sorted(m for m in sys.modules if _ours(m))
    return {"imports": {m: sorted(imports.get(m, ())) for m in loaded},
            "defines": {m: sorted(codes) for m, codes in sorted(defines.items())}}


if __name__ == "__main__":
    json.dump(record(), sys.stdout, sort_keys=True)
