"""docs/site.md keeps up with the site build (STYLE.md rule 9)."""

from __future__ import annotations

from pathlib import Path

from network.site.build import STAGES
from network.site.config import SiteConfig

DOC = (Path(__file__).resolve().parents[1] / "docs" / "site.md").read_text(encoding="utf-8")


def test_command_stages_and_settings_are_documented() -> None:
    assert "`lemmata site build GRAPH OUT" in DOC
    for stage in STAGES:
        assert f"`{stage}`" in DOC, stage
    for name in SiteConfig.model_fields:
        assert f"| `{name}` |" in DOC, name
    for code in ("site-warnings", "site-tool-missing"):
        assert f"`{code}`" in DOC, code
