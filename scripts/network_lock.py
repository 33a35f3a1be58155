"""Write requirements-network.lock: the part of requirements.lock that running the network
needs (issue 35, item 9).

``make run`` installs this lock and nothing else. ``make test`` installs the whole
requirements.lock, with the test, trainer and Ray extras. Run from the repository root
(``make lock`` runs it after re-resolving requirements.lock):
``python3 scripts/network_lock.py``; ``--check`` exits 1 when the file on disk differs.

The closure is read from requirements.lock itself. Each entry's ``# via`` comment names
the packages that require it (uv's annotation). It starts from pyproject.toml's
``[project] dependencies`` and .ci/build-requirements.in (setuptools, for the editable
install). It then adds every entry required by a package already in it. An entry keeps its
exact lines, hashes included, so both locks pin the same versions. A package needed only
through an extra of a needed package is still included: that errs towards installing more,
never less.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FULL = ROOT / "requirements.lock"
OUT = ROOT / "requirements-network.lock"
HEADER = ("# The network's own dependencies: requirements.lock's entries that `make run`\n"
          "# needs, written by scripts/network_lock.py (never by hand).\n")


def _name(requirement: str) -> str:
    """A requirement's distribution name, normalised (PEP 503)."""
    head = re.split(r"[\s\[<>=!~;@]", requirement.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", head).lower()


def entries(text: str) -> tuple[list[str], dict[str, str], dict[str, set[str]]]:
    """requirements.lock as (option lines before the first entry, name → entry text,
    name → the names its ``# via`` comment lists)."""
    head: list[str] = []
    blocks: dict[str, str] = {}
    via: dict[str, set[str]] = {}
    current: str | None = None
    for line in text.splitlines():
        if line and not line[0].isspace() and not line.startswith(("#", "-")):
            current = _name(line)
            blocks[current] = line + "\n"
            via[current] = set()
            continue
        if current is None:
            if line.strip():
                head.append(line)
            continue
        blocks[current] += line + "\n"
        m = re.match(r"\s*#\s+(?:via\s+)?(\S.*)$", line)
        if m and m.group(1) != "via":
            via[current].add(m.group(1).strip())
    return head, blocks, via


def roots() -> set[str]:
    """pyproject.toml's base dependencies and the build requirements, as names."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    names = {_name(d) for d in project["dependencies"]}
    for line in (ROOT / ".ci" / "build-requirements.in").read_text("utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            names.add(_name(line))
    return names


def network_lock(text: str) -> str:
    """The text of requirements-network.lock for the lock ``text``.

    Raises:
        ValueError: a base dependency has no entry in the lock.
    """
    head, blocks, via = entries(text)
    need = roots()
    missing = sorted(need - blocks.keys())
    if missing:
        raise ValueError(f"requirements.lock has no entry for {missing}: run `make lock`")
    changed = True
    while changed:
        changed = False
        for name, parents in via.items():
            if name not in need and any(_name(p) in need for p in parents
                                        if not p.startswith("lemmata")):
                need.add(name)
                changed = True
    body = "".join(blocks[n] for n in blocks if n in need)
    return HEADER + "\n".join(head) + "\n\n" + body


def main(argv: list[str]) -> int:
    """Write (or with ``--check`` compare) requirements-network.lock; 0 when current."""
    want = network_lock(FULL.read_text("utf-8"))
    if "--check" in argv:
        if not OUT.is_file() or OUT.read_text("utf-8") != want:
            print("requirements-network.lock is not current: python3 scripts/network_lock.py",
                  file=sys.stderr)
            return 1
        return 0
    OUT.write_text(want, "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
