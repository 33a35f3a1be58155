"""requirements.lock pins every dependency pyproject.toml names, within its bounds.

``make test`` and ``make run`` install from the lock alone (exact versions, hashes), so a
dependency added to pyproject.toml without re-running ``make lock`` would be missing from
a fresh install; this test fails first.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.MULTILINE)


def _pins() -> dict[str, Version]:
    text = (ROOT / "requirements.lock").read_text("utf-8")
    return {canonicalize_name(n): Version(v) for n, v in _PIN.findall(text)}


def _declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    reqs = list(project["dependencies"]) + list(project["optional-dependencies"]["test"])
    return [Requirement(r) for r in reqs]


def test_every_declared_dependency_is_pinned_within_its_bounds() -> None:
    pins = _pins()
    for req in _declared():
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is not in requirements.lock: run `make lock`"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"requirements.lock pins {req.name}=={pins[name]}, outside {req.specifier}")


def test_every_declared_dependency_has_an_upper_bound() -> None:
    for req in _declared():
        assert any(s.operator in ("<", "<=", "==", "~=") for s in req.specifier), (
            f"{req} has no upper bound: pin its major version")


def test_every_pin_carries_a_hash() -> None:
    text = (ROOT / "requirements.lock").read_text("utf-8")
    blocks = re.split(r"\n(?=[A-Za-z0-9])", text.strip())
    for block in blocks:
        if block.startswith("#"):
            continue
        assert "--hash=sha256:" in block, f"no hash for {block.splitlines()[0]}"
