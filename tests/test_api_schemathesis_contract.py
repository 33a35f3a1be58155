"""The published contract holds under fuzzing (issue 16): every status a route answers is
documented, every error body and content type is the documented one.

Marked ``schemathesis`` (deselected from ``make test``); shares the flow network's server
of tests/test_api_schemathesis.py. Bounded: a few examples per operation.
"""

from __future__ import annotations

from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from network.api import precheck
from tests import test_api_schemathesis as shared

pytestmark = pytest.mark.schemathesis

CHECKS = [status_code_conformance, content_type_conformance, response_schema_conformance]


def test_every_answer_is_documented() -> None:
    from hypothesis import given

    if "ctx" not in shared._STATE:  # that module's teardown already stopped its server
        shared._STATE.clear()
    url = shared._serve()
    schema = schemathesis.openapi.from_url(f"{url}/openapi.json")
    checked = 0
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck),
                  database=None)
        def conforms(case: Any) -> None:
            for headers in ({}, {"Authorization": f"Bearer {shared._STATE['token']}"}):
                # raises schemathesis' FailureGroup naming e.g. "Undocumented status code"
                case.call_and_validate(base_url=url, headers=headers, checks=CHECKS)

        conforms()
        checked += 1
    precheck.pool(shared._STATE["app"].state.svc).drain()
    assert checked > 30  # every operation of the published schema was fuzzed


def teardown_module() -> None:
    shared.teardown_module()
