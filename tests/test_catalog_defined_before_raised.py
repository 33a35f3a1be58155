"""Every catalog code is defined before it can be raised (issue 41).

``LemmataError(code, …)`` looks its code up in :data:`network.errors.CATALOG` and raises
``KeyError`` when nothing defined it. Codes are defined by ``define(...)`` at import time,
so a code a module raises must be defined by that module or by one it imports, never by a
sibling that happens to be loaded first: ``tests/test_github_forge.py`` failed alone with
``KeyError: 'pseudonym-invalid'`` because ``network/forge/github.py`` raised a code only
``network/api/service.py`` defined.

How it is checked, fast enough for two cores:

* **What a module raises** is read from its source (:func:`raised_codes`): the string
  literals a ``LemmataError(...)`` call passes as its code (both arms of a conditional
  too), the literal a ``LemmataError`` subclass passes to ``super().__init__``, and
  ``CATALOG["..."]`` look-ups. A code computed at run time is not read.
* **What importing a module alone defines** is measured once, in one fresh interpreter
  (``tests/catalog_import_graph.py``): every module of ``network/`` is imported with a
  hook on ``__import__`` recording which modules each body imports, and one on
  ``define``/``define_once`` recording which body defines each code. Importing a module
  alone in a fresh interpreter runs exactly the bodies of the closure of those edges, so
  the codes defined then are those the closure's bodies define.
* **The measurement is itself held**: for a sample of modules (the one that failed, and
  modules from each layer) a real fresh interpreter imports the module alone, and the
  modules it loaded and the codes it defined must equal the closure's.
* Every code raised must be in the published ``graph/errors.json`` too.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RECORDER = ROOT / "tests" / "catalog_import_graph.py"

#: modules a real fresh interpreter imports alone, to hold the one-interpreter measurement
#: true: the module issue 41 found, and one from each layer (record, gate, api, cli, site)
SAMPLE = ("network.forge.github", "network.record.trust", "network.gate.queue.queue",
          "network.api.frontier.claims", "network.cli_gate", "network.site.build")

_ALONE = """
import json, sys
import importlib
importlib.import_module(sys.argv[1])
from network import errors
print(json.dumps({"modules": sorted(m for m in sys.modules
                                    if m == "network" or m.startswith("network.")),
                  "codes": sorted(errors.CATALOG)}))
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


@cache
def measured() -> dict[str, dict[str, list[str]]]:
    """The recorder's output: ``imports`` and ``defines`` per module (one fresh
    interpreter, about the time of one ``register_all``)."""
    proc = subprocess.run([sys.executable, str(RECORDER)], capture_output=True, text=True,
                          check=False,
                          cwd=ROOT, env=_env(), timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out: dict[str, dict[str, list[str]]] = json.loads(proc.stdout)
    return out


def closure(imports: Mapping[str, list[str]], module: str) -> set[str]:
    """``module`` and every module its import reaches through ``imports``' edges."""
    seen = {module}
    stack = [module]
    while stack:
        for nxt in imports.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def defined_alone(module: str) -> set[str]:
    """The codes :data:`~network.errors.CATALOG` holds after importing ``module`` alone in
    a fresh interpreter, by the measured edges."""
    got = measured()
    return {c for m in closure(got["imports"], module) for c in got["defines"].get(m, ())}


def _literals(node: ast.expr) -> Iterator[str]:
    """The string constants an expression can evaluate to: a literal, either arm of a
    conditional expression, any operand of ``or``/``and``; nothing for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.IfExp):
        yield from _literals(node.body)
        yield from _literals(node.orelse)
    elif isinstance(node, ast.BoolOp):
        for v in node.values:
            yield from _literals(v)


def _callee(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _code_argument(call: ast.Call) -> ast.expr | None:
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "code"), None)


def raised_codes(source: str) -> set[str]:
    """The catalog codes a module's source can raise by literal (see the module
    docstring): ``LemmataError("code", …)``, ``super().__init__("code", …)`` in a
    subclass of ``LemmataError``, and ``CATALOG["code"]``."""
    tree = ast.parse(source)
    out: set[str] = set()
    subclass_inits: set[int] = set()
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef) and any(
                (b.id if isinstance(b, ast.Name) else getattr(b, "attr", None))
                in ("LemmataError", "ValidationFailed") for b in cls.bases):
            for node in ast.walk(cls):
                if (isinstance(node, ast.Call) and _callee(node) == "__init__"
                        and isinstance(node.func, ast.Attribute)
                        and isinstance(node.func.value, ast.Call)
                        and _callee(node.func.value) == "super"):
                    subclass_inits.add(id(node))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (_callee(node) == "LemmataError"
                                           or id(node) in subclass_inits):
            arg = _code_argument(node)
            if arg is not None:
                out.update(_literals(arg))
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
              and node.value.id == "CATALOG"):
            out.update(_literals(node.slice))
    return out


def _modules() -> list[tuple[str, Path]]:
    """Every module of ``network/`` but the migrations, as (dotted name, source file)."""
    from network.errors import _package_modules

    return _package_modules()


def test_raised_codes_reads_each_form() -> None:
    src = ("from network.errors import LemmataError, CATALOG\n"
           "class Mine(LemmataError):\n"
           "    def __init__(self, d):\n"
           "        super().__init__('sub-code', d)\n"
           "def f(code, ok):\n"
           "    CATALOG['looked-up']\n"
           "    raise LemmataError(code if ok else 'fallback', 'x')\n"
           "def g():\n"
           "    raise errors.LemmataError(\n"
           "        'multi-line', 'y')\n"
           "def h(c):\n"
           "    raise LemmataError(c, 'computed: not read')\n"
           "    raise LemmataError(code='by-keyword', detail='z')\n")
    assert raised_codes(src) == {"sub-code", "looked-up", "fallback", "multi-line",
                                 "by-keyword"}


def test_the_measurement_matches_real_fresh_interpreters() -> None:
    """Importing a module alone in a real fresh interpreter loads exactly the measured
    closure and defines exactly the measured codes (the sample, run two at a time)."""
    got = measured()
    procs: dict[str, subprocess.Popen[str]] = {}
    pending = list(SAMPLE)
    results: dict[str, dict[str, list[str]]] = {}
    while pending or procs:
        while pending and len(procs) < 2:
            name = pending.pop(0)
            procs[name] = subprocess.Popen(
                [sys.executable, "-c", _ALONE, name], stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, cwd=ROOT, env=_env())
        name, proc = next(iter(procs.items()))
        out, err = proc.communicate(timeout=300)
        del procs[name]
        assert proc.returncode == 0, (name, err[-4000:])
        results[name] = json.loads(out)
    for name in SAMPLE:
        assert set(results[name]["modules"]) == closure(got["imports"], name), name
        assert set(results[name]["codes"]) == defined_alone(name), name


def test_every_code_a_module_raises_is_defined_when_it_is_imported_alone() -> None:
    """A module's literal codes are all defined by it or a module it imports (issue 41)."""
    modules = _modules()
    assert len(modules) > 150
    missing: dict[str, list[str]] = {}
    for name, path in modules:
        raised = raised_codes(path.read_text(encoding="utf-8"))
        absent = sorted(raised - defined_alone(name))
        if absent:
            missing[name] = absent
    assert missing == {}, (
        "codes raised by a module that importing it alone leaves undefined; define each "
        "in the raising module or the lowest module it imports: " + json.dumps(missing))


def test_every_code_a_module_raises_is_published() -> None:
    published = {e["code"] for e in json.loads(
        (ROOT / "graph" / "errors.json").read_text(encoding="utf-8"))["errors"]}
    unpublished = {name: sorted(raised_codes(path.read_text(encoding="utf-8")) - published)
                   for name, path in _modules()}
    assert {k: v for k, v in unpublished.items() if v} == {}


@pytest.mark.parametrize("name", ["network.forge.github"])
def test_the_module_issue_41_found_defines_what_it_raises(name: str) -> None:
    path = dict(_modules())[name]
    assert "pseudonym-invalid" in raised_codes(path.read_text(encoding="utf-8"))
    assert "pseudonym-invalid" in defined_alone(name)
