"""AGENTS.md's map is true: every repository path it names in backticks exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_PATHY = re.compile(r"`([A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-<>*]*)+|[A-Za-z0-9_\-]+\.(?:py|md|toml|lock|json|yml))`")


def named_paths(text: str) -> list[str]:
    """Backticked tokens that look like repository paths (a slash or a file suffix);
    templated parts (``<kind>``, ``*``) are globbed. Paths outside the repository
    (``../shared/…``, beside a checkout but not in it) are not the map's to hold."""
    return sorted({m.group(1).rstrip("/") for m in _PATHY.finditer(text)
                   if not m.group(1).startswith("../")})


#: the packages a bare module name in the map may be read under: every folder of network/
#: (the map's rows name a room, and its entry points by their names inside it)
PACKAGES = ("", *sorted(p.parent.relative_to(ROOT / "network").as_posix()
                        for p in (ROOT / "network").rglob("__init__.py")
                        if p.parent != ROOT / "network"))


def test_every_path_agents_md_names_exists() -> None:
    text = (ROOT / "AGENTS.md").read_text("utf-8")
    paths = named_paths(text)
    assert len(paths) > 30, paths
    missing = []
    for p in paths:
        pattern = re.sub(r"<[^>]*>", "*", p)
        candidates = [ROOT / pattern] + [ROOT / "network" / d / pattern for d in PACKAGES]
        if not any(list(ROOT.glob(str(c.relative_to(ROOT)))) for c in candidates):
            missing.append(p)
    assert missing == []
