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
    extras = project["optional-dependencies"]
    reqs = list(project["dependencies"]) + [r for x in ("test", "trainer", "ray")
                                            for r in extras[x]]
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
        if block.startswith(("#", "--")):  # a comment, a pip option
            continue
        assert "--hash=sha256:" in block, f"no hash for {block.splitlines()[0]}"


def test_torch_is_the_cpu_build_on_disk_and_nothing_of_cuda_is_locked() -> None:
    """`make test` installs the CPU build of torch that lies in /opt/wheels, never a CUDA
    download: the lock pins torch 2.13.0+cpu with that wheel's one hash, looks in
    /opt/wheels, and names no nvidia-* or triton package (docs/trainer.md)."""
    text = (ROOT / "requirements.lock").read_text("utf-8")
    assert str(_pins()["torch"]) == "2.13.0+cpu"
    block = text[text.index("\ntorch==") + 1:].split("\n    # via")[0]
    assert block.count("--hash=sha256:") == 1 and ";" not in block.splitlines()[0]
    assert "--find-links /opt/wheels" in text.splitlines()
    names = {canonicalize_name(n) for n, _ in _PIN.findall(text)}
    assert not {n for n in names if n.startswith("nvidia") or n == "triton"}
