"""The published contract is the one the service keeps (issue 16): every refusal's body is
the catalog error body the OpenAPI names, every status a route answers is documented,
bad JSON is the catalog's ``bad-request`` at the catalog's status, every response carries
the security headers (a strict CSP, and one for /docs that admits exactly what Swagger UI
loads), and /info.json names toolchains without host paths.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fastapi.testclient import TestClient

from network.api.app import create_app
from network.api.settings import ServiceSettings
from network.errors import CATALOG
from network.gate.lean.toolchain import ToolchainInfo
from tests.api_support import Api, FakeClock, auth, build_graph, github_verifier, make_api


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    yield from make_api(tmp_path, settings={"rate_auth_failures_per_address": 3})


def _spec(api: Api) -> dict[str, Any]:
    return api.client.get("/openapi.json").json()  # type: ignore[no-any-return]


def _documented(spec: dict[str, Any], method: str, path: str) -> set[str]:
    return set(spec["paths"][path][method.lower()]["responses"])


def _error_schema(spec: dict[str, Any]) -> dict[str, Any]:
    return {**spec["components"]["schemas"]["ErrorBody"], "components": spec["components"]}


def test_the_openapi_names_the_catalog_error_body_not_fastapis(api: Api) -> None:
    spec = _spec(api)
    schemas = spec["components"]["schemas"]
    assert "HTTPValidationError" not in schemas and "ValidationError" not in schemas
    assert set(schemas["ErrorBody"]["properties"]) == {"code", "detail", "action", "path",
                                                       "field"}
    for path, item in spec["paths"].items():
        for method, op in item.items():
            for status, resp in op["responses"].items():
                if int(status) >= 400:
                    ref = resp["content"]["application/json"]["schema"]["$ref"]
                    assert ref == "#/components/schemas/ErrorBody", (method, path, status)


def test_bearer_writes_document_401_403_409_413_422_429(api: Api) -> None:
    spec = _spec(api)
    for method, path in (("POST", "/claims"), ("POST", "/postmortems"),
                         ("DELETE", "/claims/{claim_id}"), ("POST", "/submissions")):
        assert {"401", "403", "409", "413", "422", "429"} <= _documented(spec, method, path)
    assert "429" in _documented(spec, "POST", "/tokens")
    assert "304" in _documented(spec, "GET", "/frontier.json")


def _hits(api: Api, tok: str) -> list[tuple[str, str, Any]]:
    """Requests meant to be refused, each with the route it is for."""
    c = api.client
    big = "x" * (api.svc.settings.max_body_bytes + 1)
    deep = "[" * 50_000 + "]" * 50_000
    return [
        ("POST", "/claims", c.post("/claims", json={"target": "demo", "node": "root"})),
        ("POST", "/claims", c.post("/claims", content=b"{not json", headers={
            **auth(tok), "Content-Type": "application/json"})),
        ("POST", "/claims", c.post("/claims", content=deep, headers={
            **auth(tok), "Content-Type": "application/json"})),
        ("POST", "/claims", c.post("/claims", content=big, headers={
            **auth(tok), "Content-Type": "application/json"})),
        ("POST", "/claims", c.post("/claims", json={"target": "nope", "node": "root"},
                                   headers=auth(tok))),
        ("GET", "/targets/{target_id}", c.get("/targets/nope")),
        ("POST", "/tokens", c.post("/tokens", json={"pseudonym": "gate", "dco": "1.1",
                                                    "proof": {"kind": "github",
                                                              "token": "gh-x"}})),
        ("POST", "/dco/accept", c.post("/dco/accept", json={"version": "0"},
                                       headers=auth(tok))),
    ] + [("POST", "/claims", c.post("/claims", json={}, headers=auth(f"bad{i}")))
         for i in range(4)]  # the last one is 429


def test_every_refusal_is_documented_and_has_the_error_body(api: Api) -> None:
    tok = api.token("alice")["token"]
    spec = _spec(api)
    schema = _error_schema(spec)
    seen = set()
    for method, path, r in _hits(api, tok):
        assert r.status_code >= 400, (path, r.text)
        assert str(r.status_code) in _documented(spec, method, path), (method, path, r.text)
        jsonschema.validate(r.json(), schema)
        assert CATALOG[r.json()["code"]].http_status == r.status_code, r.text
        seen.add(r.status_code)
    assert {401, 403, 404, 413, 422, 429} <= seen


@pytest.mark.parametrize("body", [b"{not json", b"[" * 50_000 + b"]" * 50_000, b"\xff\xfe"])
def test_bad_json_is_bad_request_at_the_catalogs_status(api: Api, body: bytes) -> None:
    tok = api.token("alice")["token"]
    r = api.client.post("/claims", content=body,
                        headers={**auth(tok), "Content-Type": "application/json"})
    assert r.json()["code"] == "bad-request", r.text
    assert r.status_code == CATALOG["bad-request"].http_status == 422


def _assert_headers(r: Any) -> None:
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]


def test_security_headers_on_reads_errors_and_middleware_refusals(api: Api) -> None:
    c = api.client
    for r in (c.get("/info.json"), c.get("/no/such/route"), c.get("/openapi.json"),
              c.post("/claims", content="x" * (api.svc.settings.max_body_bytes + 1)),
              c.post("/claims", json={})):
        _assert_headers(r)
        assert r.headers["content-security-policy"].startswith("default-src 'none'")
        assert "script-src" not in r.headers["content-security-policy"]


def test_the_docs_csp_admits_exactly_what_swagger_ui_loads(api: Api) -> None:
    r = api.client.get("/docs")
    assert r.status_code == 200
    _assert_headers(r)
    csp = dict(part.strip().split(" ", 1) for part in
               r.headers["content-security-policy"].split(";") if part.strip())
    scripts = csp["script-src"].split()
    for src in re.findall(r'<script src="([^"]+)"', r.text):
        assert any(src.startswith(s) for s in scripts if s.startswith("https://")), src
    for inline in re.findall(r"<script>(.*?)</script>", r.text, re.DOTALL):
        digest = base64.b64encode(hashlib.sha256(inline.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in scripts
    assert "'unsafe-inline'" not in csp["script-src"]
    for href in re.findall(r'<link[^>]+href="([^"]+)"', r.text):
        kind = "style-src" if href.endswith(".css") else "img-src"
        assert any(href.startswith(s) for s in csp[kind].split()), href
    assert csp["connect-src"] == "'self'"  # the OpenAPI document, from this origin only
    assert csp["default-src"] == "'none'"


class _Missing:
    """A toolchain whose lean is not where the service user's elan would put it."""

    def __init__(self, home: str) -> None:
        self.home = home

    def describe(self) -> ToolchainInfo:
        lean = f"{self.home}/.elan/toolchains/leanprover--lean4---v4.22.0/bin/lean"
        return ToolchainInfo(False, "toolchain-missing", "leanprover/lean4:v4.22.0",
                             paths={"lean": lean},
                             detail=f"[Errno 2] No such file or directory: '{lean}'")


def test_info_names_toolchains_without_host_paths(tmp_path: Path) -> None:
    build_graph(tmp_path / "graph")
    home = str(Path.home())
    app = create_app(ServiceSettings(data_dir=tmp_path / "data", graph=tmp_path / "graph"),
                     github_verifier=github_verifier, clock=FakeClock(),
                     toolchain=_Missing(home))
    with TestClient(app) as client:
        body = client.get("/info.json").json()
    text = json.dumps(body)
    assert home not in text and "/.elan/" not in text, text
    detail = body["service"]["proofs"]["targets"]["demo"]["detail"]
    assert detail.endswith("'…/lean'") and body["service"]["proofs"]["checkable"] is False


@pytest.mark.parametrize("value, ok", [
    ("demo", True), ("a-b-1", True), ("", False), ("Demo", False), ("a--b", False),
    ("demo\n", False), ("-a", False), ("x" * 65, False)])
def test_the_published_target_grammar_is_the_one_the_service_enforces(
        api: Api, value: str, ok: bool) -> None:
    """A target id the OpenAPI admits is never refused as malformed, and one it excludes
    is refused ``bad-target-id`` (schemathesis' positive/negative data checks, issue 16)."""
    from urllib.parse import quote

    spec = _spec(api)
    [param] = [p for p in spec["paths"]["/targets/{target_id}"]["get"]["parameters"]
               if p["name"] == "target_id"]
    admitted = True
    try:
        jsonschema.validate(value, param["schema"], format_checker=None)
    except jsonschema.ValidationError:
        admitted = False
    # JSON Schema patterns search: anchored, and "$" must not admit a trailing newline
    admitted = admitted and re.fullmatch(param["schema"]["pattern"][1:-1], value) is not None
    assert admitted is ok
    r = api.client.get(f"/targets/{quote(value, safe='')}") if value else None
    if r is not None:
        assert (r.json().get("code") == "bad-target-id") is (not ok), r.text


def test_input_grammar_is_published_on_params_and_bodies(api: Api) -> None:
    spec = _spec(api)
    node = spec["paths"]["/targets/{target_id}/nodes/{node_id}"]["get"]["parameters"]
    assert {p["name"]: "pattern" in json.dumps(p["schema"]) for p in node} == {
        "target_id": True, "node_id": True, "include": True}
    ledger = spec["paths"]["/ledger.json"]["get"]["parameters"]
    assert "pattern" in json.dumps(ledger[0]["schema"])
    words = spec["paths"]["/words-needed.json"]["get"]["parameters"]
    assert any("enum" in json.dumps(p["schema"]) for p in words if p["name"] == "kind")
    pre = spec["components"]["schemas"]["PrecheckRequest"]["properties"]
    assert "pattern" in pre["target"] and "pattern" in pre["node"]
