"""The service's shared FastAPI dependencies, as in FastAPI's full-stack template (D-35).

Every route module imports what it shares from here, never from ``network.api.app``:
:func:`network.api.app.create_app` imports the route modules, in one direction
(issue 17; ``tests/test_layering.py``).

- :func:`bearer`, :func:`address`: the presented bearer token and the client address
  (``X-Forwarded-For`` read only from a peer ``settings.trusted_proxies`` names:
  :func:`client_address`, issue 39);
- :data:`Anon`, :data:`Bearer`: the anonymous caller of a route, and the caller of a token
  route (authenticated before the body is validated, through :func:`bearer_caller`);
- :func:`marks`: tags a handler with the operation function it calls and its auth, which
  the route index and the tool↔route bijection test read;
- :func:`read_response`, :func:`cached_read_response`: a cacheable read (ETag = graph
  snapshot + SHA-256 of the body; ``304`` on ``If-None-Match``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from typing import Annotated, Any

from fastapi import Depends, Request, Response

from network.api.frontier import frontier_cache
from network.api.service import Caller, Service, Who, authenticate
from network.errors import LemmataError


def bearer(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None. A request with
    more than one ``Authorization`` header never reaches a route (``credentials-conflict``,
    :class:`network.api.contract.CredentialHeaders`)."""
    auth = request.headers.get("authorization") or ""
    scheme, _, value = auth.partition(" ")
    return value.strip() or None if scheme.lower() == "bearer" else None


def _networks(trusted: Iterable[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    out = []
    for entry in trusted:
        try:
            out.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            continue  # the setting's validator refuses these; a bad entry trusts nobody
    return out


def _is_trusted(host: str, networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> bool:
    try:
        ip = ipaddress.ip_address(host.strip())
    except ValueError:
        return False
    return any(ip in net for net in networks)


def client_address(peer: str, forwarded_for: Iterable[str], trusted: Iterable[str]) -> str:
    """The address a request counts against (issue 39).

    Args:
        peer: the TCP peer's address (``request.client.host``).
        forwarded_for: every ``X-Forwarded-For`` header value, in order.
        trusted: ``settings.trusted_proxies``: addresses or networks (``10.0.0.0/8``).

    Returns:
        ``peer`` unless ``peer`` is a trusted proxy; then the right-most hop of
        ``X-Forwarded-For`` that is not itself a trusted proxy (each trusted proxy appends
        the address it saw, so hops left of the first untrusted one are the caller's own
        claim). A hop that is not an IP address, or no hop at all, leaves ``peer``.
    """
    networks = _networks(trusted)
    if not networks or not _is_trusted(peer, networks):
        return peer
    hops = [h.strip() for value in forwarded_for for h in value.split(",") if h.strip()]
    for hop in reversed(hops):
        if _is_trusted(hop, networks):
            continue
        try:
            return str(ipaddress.ip_address(hop))
        except ValueError:
            return peer
    return peer


def address(request: Request) -> str:
    """The client's address (:func:`client_address`: ``X-Forwarded-For`` only from a
    trusted proxy), or ``unknown``."""
    peer = request.client.host if request.client else "unknown"
    svc = getattr(request.app.state, "svc", None)
    trusted = svc.settings.trusted_proxies if svc is not None else ()
    return client_address(peer, request.headers.getlist("x-forwarded-for"), trusted)


def caller(request: Request) -> Caller:
    """The anonymous caller of a route: bearer token (if any) and client address."""
    return Caller(token=bearer(request), address=address(request))


def bearer_caller(request: Request) -> Caller:
    """The caller of a token route, authenticated before the body is validated, so a
    missing or wrong token is always the answer to an unauthenticated write.

    Raises:
        LemmataError: ``token-missing``; ``token-invalid``; ``token-expired``.
    """
    token = bearer(request)
    anon = Caller(token=token, address=address(request))
    who: Who = authenticate(request.app.state.svc, token, anon.address_hash)
    return Caller(token=token, address=anon.address, who=who)


Anon = Annotated[Caller, Depends(caller)]
Bearer = Annotated[Caller, Depends(bearer_caller)]


def marks(op: Callable[..., Any] | None, auth: str = "none") -> Callable[[Any], Any]:
    """Tag a route handler with the operation function it calls and its auth, which the
    route index and the bijection test read."""

    def deco(handler: Any) -> Any:
        handler.__lemmata_op__ = op
        handler.__lemmata_auth__ = auth
        return handler

    return deco


def read_response(request: Request, svc: Service, body: Any) -> Response:
    """A cacheable read: ETag = graph snapshot + SHA-256 of the body; 304 on a match."""
    try:
        snap = svc.graphs.snapshot().etag
    except LemmataError:
        snap = "none"
    data = frontier_cache.serialize(body)
    return cached_read_response(request, svc, data, frontier_cache.etag_of(snap, data), snap)


def cached_read_response(request: Request, svc: Service, data: bytes, etag: str,
                         snap: str) -> Response:
    """A read whose bytes and ETag are already made: ``304`` when ``If-None-Match``
    names the ETag, else the bytes (the headers of :func:`read_response`)."""
    headers = {"ETag": etag, "Cache-Control": f"public, max-age={svc.settings.read_max_age_s}",
               "X-Graph-Snapshot": snap}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(data, media_type="application/json", headers=headers)
