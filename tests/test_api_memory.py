"""Caches have sizes (issue 16): the rendered-frontier cache keeps only the current
registry version's bodies and stays under its byte cap whatever the filters; the role
table and the skeleton keys are bounded. Counts and sizes only; no timing is asserted.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from network.api.frontier import frontier_cache
from network.api.identity import confusables
from tests.api_support import Api, auth, make_api


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    yield from make_api(tmp_path, extra_nodes=3)


def _cache(api: Api) -> frontier_cache.FrontierCache:
    cache = api.svc.extra["frontier_cache"]
    assert isinstance(cache, frontier_cache.FrontierCache)
    return cache


def test_claim_churn_leaves_one_version_in_the_frontier_cache(api: Api) -> None:
    tok = api.token("alice")["token"]
    for i in range(12):  # every claim and release moves the registry version
        r = api.client.post("/claims", json={"target": "demo", "node": f"n{i % 3 + 1}"},
                            headers=auth(tok))
        assert r.status_code == 201, r.text
        api.client.get("/frontier.json")
        api.client.get("/frontier.json?target=demo")
        api.client.delete(f"/claims/{r.json()['claim_id']}", headers=auth(tok))
        api.client.get("/frontier.json")
    versions = {k[:2] for k in _cache(api).templates}
    assert len(versions) == 1 and len(_cache(api).templates) <= 2


def test_the_frontier_cache_stays_under_its_byte_cap(api: Api,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    api.client.get("/frontier.json")
    one = next(iter(_cache(api).templates.values())).size
    monkeypatch.setattr(frontier_cache, "MAX_BYTES", 2 * one)
    for i in range(20):  # twenty filter variants at one version
        assert api.client.get(f"/frontier.json?target=demo&where=attempts%3C{i + 1000}").status_code == 200
        assert api.client.get("/frontier.json").status_code == 200
    assert sum(t.size for t in _cache(api).templates.values()) <= 2 * one
    monkeypatch.setattr(frontier_cache, "MAX_BYTES", 1)  # below one body: keep the newest
    assert api.client.get("/frontier.json?target=demo&where=attempts%3C999").status_code == 200
    assert len(_cache(api).templates) == 1


def test_skeleton_keys_are_a_bounded_cache() -> None:
    info = confusables.keys.cache_info()
    assert info.maxsize is not None and info.maxsize <= 65536
