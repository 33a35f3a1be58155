"""The published error catalog (errors.json) holds every code the network defines, read
without importing every module (network.errors.full_catalog)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from network import errors

ROOT = Path(__file__).resolve().parent.parent
_SITE_RE = re.compile(r"\bdefine(?:_once)?\(\s*\"([a-z0-9-]+)\"")

_FRESH = """
import json, sys
sys.path.insert(0, sys.argv[1])
import network.record.products.products
from network import errors
cheap = errors.catalog_json()
errors.register_all()
full = [{"code": e.code, "step": e.step, "http_status": e.http_status,
         "meaning": e.meaning, "action": e.action}
        for e in sorted(errors.CATALOG.values(), key=lambda e: e.code)]
print(json.dumps({"cheap": cheap["errors"], "full": full}))
"""


def test_catalog_equals_the_catalog_of_every_module_imported() -> None:
    proc = subprocess.run([sys.executable, "-c", _FRESH, str(ROOT)], capture_output=True,
                          text=True, check=True, timeout=300)
    out = json.loads(proc.stdout)
    assert out["cheap"] == out["full"]
    assert len(out["cheap"]) > 100


def test_every_define_call_site_is_in_errors_json() -> None:
    published = {e["code"] for e in errors.catalog_json()["errors"]}
    sites: set[str] = set()
    for path in (ROOT / "network").rglob("*.py"):
        if "migrations" in path.parts:
            continue
        sites.update(_SITE_RE.findall(path.read_text(encoding="utf-8")))
    assert len(sites) > 100
    assert sites - published == set()


def test_static_reading_of_the_plain_form() -> None:
    src = ('from network.errors import define, define_once\n'
           'from jinja2 import StrictUndefined\n'
           'define("a-code", 3, 422, "Meaning " "joined.", action="Act.")\n'
           'define_once("b-code", None, 409, "M.", "A.")\n'
           'x = StrictUndefined\n')
    got = errors.static_definitions(src)
    assert got == [(errors.ErrorCode("a-code", 3, 422, "Meaning joined.", "Act."), False),
                   (errors.ErrorCode("b-code", None, 409, "M.", "A."), True)]
    assert errors.static_definitions("import os\n") == []


def test_static_reading_refuses_every_other_form() -> None:
    head = "from network.errors import define\n"
    refused = [
        head + "def f():\n    define('a', None, 1, 'm', 'a')\n",
        head + "if True:\n    define('a', None, 1, 'm', 'a')\n",
        head + "CODE = 'a'\ndefine(CODE, None, 1, 'm', 'a')\n",
        head + "define('a', None, 1, 'm')\n",
        head + "define('a', None, 1, 'm', 'a', code='b')\n",
        head + "d = define\nd('a', None, 1, 'm', 'a')\n",
        "from network import errors\nerrors.define('a', None, 1, 'm', 'a')\n",
        "from network.api.submit.records import define_once\ndefine_once('a', None, 1, 'm', 'a')\n",
        "from network.errors import define as d\nd('a', None, 1, 'm', 'a')\n",
        head + "def define_twice(c):\n    pass\n",
        "define(this is not python\n",
    ]
    for src in refused:
        assert errors.static_definitions(src) is None, src


def test_define_once_keeps_the_first_definition() -> None:
    first = errors.CATALOG["validation-failed"]
    assert errors.define_once("validation-failed", 1, 500, "x", "y") is first
