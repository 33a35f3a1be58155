"""Refusals on ``/mcp`` as JSON-RPC errors (issue 35, item 5; D-28 the MCP adapter).

The service refuses some requests before the MCP server reads them: a body over
``max_body_bytes`` (``body-too-large``, 413), two ``Authorization`` headers
(``credentials-conflict``), a malformed request the framework refuses. Rendered as the
plain routes render them (``{code, detail, action, path, field}``), an MCP client sees an
HTTP error with no JSON-RPC error in it; the official SDK then raises only "Server returned
an error response". :class:`McpRefusals` re-renders each such refusal on ``/mcp`` as a
JSON-RPC 2.0 error object at the same HTTP status and headers (``Retry-After`` kept)::

    {"jsonrpc": "2.0", "id": null,
     "error": {"code": -32600, "message": "<catalog code>: <detail>",
               "data": {code, detail, action, path, field, http_status,
                        limit_bytes (body-too-large), retry_after_s (rate-limited)}}}

``id`` is null because the request was refused before its id was read; the MCP
specification's streamable HTTP client (modelcontextprotocol/python-sdk,
``mcp/client/streamable_http.py`` ``_handle_post_request``: a non-2xx JSON body holding a
``JSONRPCError`` is surfaced with the request's own id) then raises an ``MCPError`` whose
``error.data`` carries the catalog code, the limit and the action.

A tool's own refusal (a bad argument, ``rate-limited``, ``token-invalid``, every catalog
error a tool raises) is not a transport refusal: it stays a tool result with
``isError: true`` whose one text block is the same catalog body (network/api/tools.py
``error_result``), as the MCP specification asks of tool execution errors.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: JSON-RPC 2.0: "Invalid Request" for a refused request, "Internal error" for a fault
INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603


def jsonrpc_error(body: dict[str, Any], status: int, *, limit_bytes: int | None = None,
                  retry_after_s: int | None = None) -> dict[str, Any]:
    """The JSON-RPC 2.0 error object for one catalog refusal.

    Args:
        body: the catalog body (``code``, ``detail``, ``action``, ``path``, ``field``).
        status: the HTTP status the refusal is answered with.
        limit_bytes: the body limit, for ``body-too-large``.
        retry_after_s: seconds until a retry may pass, for ``rate-limited``.

    Returns:
        ``{"jsonrpc": "2.0", "id": None, "error": {code, message, data}}``.
    """
    data = {**body, "http_status": status}
    if limit_bytes is not None:
        data["limit_bytes"] = limit_bytes
    if retry_after_s is not None:
        data["retry_after_s"] = retry_after_s
    return {"jsonrpc": "2.0", "id": None,
            "error": {"code": INTERNAL_ERROR if status >= 500 else INVALID_REQUEST,
                      "message": f"{body.get('code')}: {body.get('detail')}", "data": data}}


class McpRefusals:
    """ASGI middleware: on ``path`` (``/mcp``), a response of status ≥ 400 whose JSON body
    is a catalog refusal (an object with ``code`` and ``action``) is re-rendered by
    :func:`jsonrpc_error`; every other response passes unchanged. Outermost, so it sees
    what :class:`~network.api.app.BodyLimit` and the credential check answer.

    Args:
        app: the wrapped application.
        max_body_bytes: the service's body limit, named in ``body-too-large``'s data.
        path: the MCP endpoint's path.
    """

    def __init__(self, app: ASGIApp, max_body_bytes: int, path: str = "/mcp") -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") != self.path:
            await self.app(scope, receive, send)
            return
        held: Message | None = None
        chunks: list[bytes] = []

        async def relay(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start" and message["status"] >= 400:
                held = message
                return
            if message["type"] == "http.response.body" and held is not None:
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    await self._send_rewritten(held, b"".join(chunks), send)
                return
            await send(message)

        await self.app(scope, receive, relay)

    async def _send_rewritten(self, start: Message, body: bytes, send: Send) -> None:
        headers = [(k, v) for k, v in start.get("headers", [])]
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        if not (isinstance(parsed, dict) and "code" in parsed and "action" in parsed):
            await send(start)
            await send({"type": "http.response.body", "body": body})
            return
        status = int(start["status"])
        retry = next((v for k, v in headers if k.lower() == b"retry-after"), None)
        out = json.dumps(jsonrpc_error(
            parsed, status,
            limit_bytes=self.max_body_bytes if parsed["code"] == "body-too-large" else None,
            retry_after_s=int(retry) if retry is not None and retry.isdigit() else None),
            separators=(",", ":")).encode("utf-8")
        kept = [(k, v) for k, v in headers
                if k.lower() not in (b"content-length", b"content-type")]
        kept += [(b"content-type", b"application/json"),
                 (b"content-length", str(len(out)).encode("ascii"))]
        await send({**start, "headers": kept})
        await send({"type": "http.response.body", "body": out})
