"""Property-based fuzzing of every route in the published OpenAPI schema (issue 4: no 5xx).

Marked ``schemathesis`` (deselected from ``make test``; ``make test-all`` runs it). The app
is the flow network's (forge, keys, the recorded stand-in toolchain), so the precheck and
submission routes run their real code; each generated request is sent once without a token
and once with a valid one. Bounded: a few examples per operation.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings

from network.api.submit import precheck
from tests.api_flow_support import FlowNet

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain

pytestmark = pytest.mark.schemathesis

_STATE: dict[str, Any] = {}


def _serve() -> str:
    """Serve the flow network's app with uvicorn on loopback for the whole module (the
    MCP session manager may start once per app, so every case shares one server)."""
    if "url" not in _STATE:
        import tempfile

        from network.api.identity import identity
        from network.api.service import Caller

        tmp = Path(tempfile.mkdtemp(prefix="lemmata-schemathesis-"))
        net = FlowNet.create(tmp, RecordedToolchain)
        ctx = net.serve()
        url, app = ctx.__enter__()
        receipt = identity.issue_token(app.state.svc, Caller(token=None, address="fuzz"),
                                       pseudonym="fuzz", dco="1.1",
                                       proof={"kind": "github", "token": "gh-fuzz"})
        _STATE.update(url=url, app=app, ctx=ctx, token=receipt["token"])
    return str(_STATE["url"])


def test_no_route_answers_5xx() -> None:
    from hypothesis import given

    url = _serve()
    schema = schemathesis.openapi.from_url(f"{url}/openapi.json")
    checked = []
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck),
                  database=None)
        def no_5xx(case: Any) -> None:
            for headers in ({}, {"Authorization": f"Bearer {_STATE['token']}"}):
                response = case.call(base_url=url, headers=headers)
                assert response.status_code < 500, (case.method, case.path,
                                                    response.text[:500])

        no_5xx()
        checked.append(operation.label)
    precheck.pool(_STATE["app"].state.svc).drain()
    assert any("/submissions" in label for label in checked)
    assert any("/precheck" in label for label in checked)


def teardown_module() -> None:
    ctx = _STATE.pop("ctx", None)
    if ctx is not None:
        ctx.__exit__(None, None, None)
