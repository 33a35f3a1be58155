"""`make run` installs only the network's part of the lock (issue 35, item 9).

requirements-network.lock is written by scripts/network_lock.py from requirements.lock;
these tests hold it current, a subset with the same pins and hashes, free of the trainer's
and the tests' stacks, and holding every base dependency.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import network_lock as nl
from network_lock import _name, entries, network_lock


def test_the_network_lock_is_current() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "network_lock.py"),
                           "--check"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_it_pins_a_subset_of_the_full_lock_with_the_same_hashes() -> None:
    _, full, _ = entries((ROOT / "requirements.lock").read_text("utf-8"))
    _, net, _ = entries((ROOT / "requirements-network.lock").read_text("utf-8"))
    assert net and set(net) < set(full)
    for name, block in net.items():
        assert block == full[name], name


def test_it_holds_every_base_dependency_and_none_of_the_extras() -> None:
    _, net, _ = entries((ROOT / "requirements-network.lock").read_text("utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert {_name(d) for d in project["dependencies"]} <= set(net)
    for heavy in ("torch", "transformers", "peft", "trl", "ray", "datasets", "schemathesis",
                  "pytest", "accelerate", "pandas", "pyarrow"):
        assert heavy not in net, heavy


def test_make_run_installs_the_network_lock_and_make_test_the_whole() -> None:
    mk = (ROOT / "Makefile").read_text("utf-8")
    run = re.search(r"^run: (.*)$", mk, re.MULTILINE)
    test = re.search(r"^test: (.*)$", mk, re.MULTILINE)
    assert run and run.group(1).strip() == "$(NET_STAMP)"
    assert test and test.group(1).strip() == "$(STAMP)"
    assert "-r requirements-network.lock" in mk and "-r requirements.lock" in mk


def test_a_dependency_of_a_needed_package_is_followed(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    lock = ("--find-links /opt/wheels\n\nclick==8.0 \\\n    --hash=sha256:aa\n"
            "    # via lemmata (pyproject.toml)\nfoo==1 \\\n    --hash=sha256:bb\n"
            "    # via click\nbar==2 \\\n    --hash=sha256:cc\n    # via torch\n"
            "torch==9 \\\n    --hash=sha256:dd\n    # via lemmata (pyproject.toml)\n")
    _, _, via = entries(lock)
    assert via["foo"] == {"click"} and via["bar"] == {"torch"}
    monkeypatch.setattr(nl, "roots", lambda: {"click"})
    out = network_lock(lock)
    assert "click==8.0" in out and "foo==1" in out and "--find-links /opt/wheels" in out
    assert "bar==2" not in out and "torch==9" not in out  # only through the extra's torch
    monkeypatch.setattr(nl, "roots", lambda: {"click", "absent"})
    with pytest.raises(ValueError, match="no entry"):
        network_lock(lock)
