"""Failed authentications count against the client address (issue 16), and past the
limit a further failure answers 429 instead of 401 — over HTTP, on the routes that take an
optional token, and over MCP's write guard alike — while a valid token is never refused
by it (issue 39). Bounded loops on the in-process client; no timing is asserted.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from network.api.service import Caller, authenticate
from network.errors import LemmataError
from tests.api_support import Api, auth, make_api

CLAIM = {"target": "demo", "node": "root"}


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    yield from make_api(tmp_path)


def test_a_thousand_bad_token_writes_from_one_address_meet_429(api: Api) -> None:
    statuses = []
    for i in range(1000):
        r = api.client.post("/claims", json=CLAIM, headers=auth(f"lmt_guess{i}"))
        statuses.append(r.status_code)
        if r.status_code == 429:
            break
    assert statuses[-1] == 429, statuses[-5:]
    assert set(statuses[:-1]) == {401}
    assert len(statuses) == api.svc.settings.rate_auth_failures_per_address + 1
    assert int(r.headers["Retry-After"]) > 0 and r.json()["code"] == "rate-limited"


def test_past_the_limit_a_good_token_from_that_address_still_passes(api: Api) -> None:
    """Only failures are limited (issue 39): a bad token past the limit meets 429, a good
    one from the same address is served."""
    good = api.token("alice")["token"]
    limit = api.svc.settings.rate_auth_failures_per_address
    for i in range(limit):
        assert api.client.post("/claims", json=CLAIM,
                               headers=auth(f"bad{i}")).status_code == 401
    assert api.client.post("/claims", json=CLAIM, headers=auth("bad-again")).status_code == 429
    r = api.client.post("/claims", json=CLAIM, headers=auth(good))
    assert r.status_code == 201, r.text


def test_missing_tokens_and_optional_token_routes_count_too(api: Api) -> None:
    limit = api.svc.settings.rate_auth_failures_per_address
    for _ in range(limit // 2):
        assert api.client.post("/claims", json=CLAIM).status_code == 401  # token-missing
    for i in range(limit - limit // 2):
        r = api.client.post("/check", json={"target_id": "demo", "content": "x"},
                            headers=auth(f"bad{i}"))
        assert r.status_code == 401, r.text
    assert api.client.post("/claims", json=CLAIM).status_code == 429


def test_the_limit_applies_to_callers_without_http(api: Api) -> None:
    """MCP tools authenticate through the same guard with the caller's address."""
    caller = Caller(token="bad", address="mcp-client")
    limit = api.svc.settings.rate_auth_failures_per_address
    for _ in range(limit):
        with pytest.raises(LemmataError) as exc:
            authenticate(api.svc, caller.token, caller.address_hash)
        assert exc.value.code == "token-invalid"
    with pytest.raises(LemmataError) as exc:
        authenticate(api.svc, caller.token, caller.address_hash)
    assert exc.value.code == "rate-limited"


def test_good_tokens_are_never_counted_as_failures(api: Api) -> None:
    good = api.token("alice")["token"]
    limit = api.svc.settings.rate_auth_failures_per_address
    for _ in range(limit + 5):
        assert api.client.get("/claims/mine", headers=auth(good)).status_code == 200
