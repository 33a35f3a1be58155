"""The published contract holds under fuzzing with every schemathesis check (issue 16):
the Python-API equivalent of ``schemathesis run --checks all`` (every check registered
in ``schemathesis.checks.CHECKS``: no server error, status codes, content types, headers
and bodies as documented, schema-valid data accepted, schema-violating data rejected,
and the rest), over positive and negative cases of every operation.

One setting departs from schemathesis' defaults, on purpose: ``negative_data_rejection``
also counts 413 as a rejection. A generated string past a field's ``maxLength`` makes a
body over the service's documented ``max_body_bytes``, which is refused
``body-too-large`` (413) before it is read; that is a rejection, and the OpenAPI
documents it on every route.

Marked ``schemathesis`` (deselected from ``make test``); shares the flow network's server
of tests/test_api_schemathesis.py. Bounded: a few examples per operation and mode (about
22 s on a quiet two-core machine, two minutes on a busy one; both marked files together
about 40 s).
"""

from __future__ import annotations

from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.config import SchemathesisConfig

from network.api.submit import precheck
from tests import test_api_schemathesis as shared

pytestmark = pytest.mark.schemathesis

#: schemathesis' default rejection statuses, plus 413 (body-too-large; see the docstring)
REJECTED = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428",
            "429", "5xx"]
CONFIG = f"""
[checks.negative_data_rejection]
expected-statuses = {REJECTED!r}
"""


def all_checks() -> list[Any]:
    """Every registered check: what ``--checks all`` selects."""
    load_all_checks()
    return list(CHECKS.get_all())


def test_every_answer_is_documented_under_all_checks() -> None:
    from hypothesis import given

    checks = all_checks()
    names = {getattr(c, "__name__", type(c).__name__) for c in checks}
    assert {"status_code_conformance", "response_schema_conformance",
            "positive_data_acceptance", "negative_data_rejection",
            "not_a_server_error"} <= names
    if "ctx" not in shared._STATE:  # that module's teardown already stopped its server
        shared._STATE.clear()
    url = shared._serve()
    schema = schemathesis.openapi.from_url(f"{url}/openapi.json",
                                           config=SchemathesisConfig.from_str(CONFIG))
    checked = {GenerationMode.POSITIVE: 0, GenerationMode.NEGATIVE: 0}
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in checked:
            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck),
                      database=None)
            def conforms(case: Any) -> None:
                for headers in ({}, {"Authorization": f"Bearer {shared._STATE['token']}"}):
                    # raises schemathesis' FailureGroup naming e.g. "Undocumented status
                    # code" or "Schema-valid request rejected"
                    case.call_and_validate(base_url=url, headers=headers, checks=checks)

            try:
                conforms()
            except Unsatisfiable:
                # no input can violate the schema (a route without parameters, or with
                # free strings only): there is no negative case to send
                assert mode is GenerationMode.NEGATIVE, operation.label
                continue
            checked[mode] += 1
    precheck.pool(shared._STATE["app"].state.svc).drain()
    assert checked[GenerationMode.POSITIVE] > 30  # every operation of the schema was fuzzed
    assert checked[GenerationMode.NEGATIVE] > 15  # and every one that takes constrained input


def teardown_module() -> None:
    shared.teardown_module()
