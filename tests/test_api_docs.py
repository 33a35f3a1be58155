"""docs/api.md keeps up with the code (STYLE.md rule 9): every route, MCP tool, setting,
service error code and service CLI command appears in it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from network.api.settings import ServiceSettings
from network.api.tools import TOOLS
from tests.api_support import Api, make_api


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    """An :class:`Api` over a fresh graph and a fresh SQLite database."""
    yield from make_api(tmp_path)


ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")


def test_every_route_is_documented(api: Api) -> None:
    for row in api.client.get("/").json()["routes"]:
        assert f"| {row['method']} | `{row['path']}` |" in DOC, row


def test_every_tool_is_documented() -> None:
    for op in TOOLS:
        assert f"| `{op.tool}` | {op.method} `{op.path}` |" in DOC, op.tool


def test_every_setting_is_documented() -> None:
    for name, field in ServiceSettings.model_fields.items():
        assert f"| `{name}` |" in DOC, name
        assert field.description, f"setting {name} has no docstring"


def test_every_service_error_code_is_documented() -> None:
    for module in ("service", "frontier/claims", "identity/identity"):
        src = (ROOT / "network" / "api" / f"{module}.py").read_text(encoding="utf-8")
        for code in re.findall(r'define\("([a-z0-9-]+)"', src):
            assert f"| `{code}` |" in DOC, code


def test_service_commands_are_documented() -> None:
    assert "`lemmata serve" in DOC and "`lemmata mcp" in DOC
