"""A direct answer to the MCP requests an agent makes on every turn: ``tools/call`` and ``tools/list`` of
the sessionless protocol (2026-07-28: one POST, one JSON-RPC request, one JSON answer, no session).

The MCP SDK's path for one such request validates the envelope with pydantic models, builds a connection
and a dispatch context, re-serialises the result through the protocol's per-version models, and checks
``Mcp-Param-*`` headers; that is most of a tool call's time. Here the same checks run on the plain JSON
(the SDK's own header, ``Accept``, security and envelope checks are called as they are), the call goes to
the same ``AgentMcp`` code the SDK's handlers use, and the answer is written as the SDK writes it
(``tests/serve/test_mcp_fast.py`` compares the two answers for every kind of request).

Anything else goes to the SDK untouched: the handshake-era protocol (``initialize``, ``Mcp-Session-Id``,
SSE streams, DELETE), notifications, ``server/discover``, other methods, batches, a malformed or
unusual envelope (any field this path does not know, ``Mcp-Param-*`` headers, a tool whose schema
declares them), any rejection the checks find (the SDK then writes the exact error). One difference: the
SDK switches an answer to an SSE stream with keep-alive pings when a call runs past 15 s; this path
answers JSON when the call ends (``call_timeout`` bounds it), which every client accepts.
"""

from __future__ import annotations

import json
import logging
import math
from typing import Any

from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    MCP_PARAM_HEADER_PREFIX,
    InboundLadderRejection,
    classify_inbound_request,
    find_duplicated_routing_header,
)
from mcp_types import INTERNAL_ERROR, SERVER_INFO_META_KEY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from awm.serve.mcp_server import AgentMcp
from awm.serve.sessions import ApiError

logger = logging.getLogger(__name__)
_PARAM = MCP_PARAM_HEADER_PREFIX.lower()
_CALL_KEYS = frozenset({"name", "arguments", "_meta"})
_LIST_KEYS = frozenset({"_meta"})
_JSON = [(b"content-type", b"application/json")]
_PASSED_MAX = 64  # distinct header combinations remembered (clients send few; the values are theirs)


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode()


class FastMcp:
    """``handle`` answers a request it fully understands and returns True; otherwise it returns False
    having sent nothing, and the caller hands the request (its body replayed) to the SDK."""

    def __init__(self, mcp: AgentMcp, security: TransportSecuritySettings | None, json_response: bool = False):
        self.mcp = mcp
        self.security = TransportSecurityMiddleware(security)
        self.json_response = json_response
        self._stamp = {SERVER_INFO_META_KEY: mcp.server.server_info_stamp}
        self._listings: dict[tuple[str, str | None], bytes] = {}  # the "result" of a tools/list, as JSON text
        self._declares_headers: dict[tuple[str, str], bool] = {}
        self._passed: set[tuple[str | None, ...]] = set()  # headers that passed the security and Accept checks

    async def handle(self, scope: Scope, body: bytes, env: str, receive: Receive, send: Send) -> bool:
        raw = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        headers = dict(reversed(raw))  # the first of repeated headers wins, as with starlette's Headers.get
        if headers.get("mcp-protocol-version") not in MODERN_PROTOCOL_VERSIONS:
            return False
        checked = (headers.get("content-type"), headers.get("host"), headers.get("origin"), headers.get("accept"))
        if checked not in self._passed:  # the SDK's checks read only these headers: a pass is remembered
            request = Request(scope, receive)
            if await self.security.validate_request(request, is_post=True) is not None:
                return False
            has_json, has_sse = check_accept_headers(request)
            if not has_json or (not self.json_response and not has_sse):
                return False
            if len(self._passed) < _PASSED_MAX:
                self._passed.add(checked)
        try:
            msg = json.loads(body)
        except (ValueError, RecursionError):
            return False
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" or len(msg) != 4:
            return False
        rid, method, params = msg.get("id"), msg.get("method"), msg.get("params")
        if not (isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool))):
            return False
        if not isinstance(params, dict) or not isinstance(params.get("_meta"), dict):
            return False
        if find_duplicated_routing_header(raw) is not None or any(k.startswith(_PARAM) for k in headers):
            return False
        if isinstance(classify_inbound_request(msg, headers=headers), InboundLadderRejection):
            return False
        if method == "tools/list" and params.keys() <= _LIST_KEYS:
            try:
                key, listing = self.mcp.listing(headers, env)
            except ApiError:
                return False  # the SDK calls the same handler and writes its error
            if key not in self._listings:
                result = listing.model_dump(mode="json", by_alias=True, exclude_none=True)
                result.update({"cacheScope": "private", "resultType": "complete", "_meta": self._stamp})
                self._listings[key] = _dumps(result)
            await self._raw(
                send, 200, b'{"jsonrpc":"2.0","id":' + _dumps(rid) + b',"result":' + self._listings[key] + b"}"
            )
            return True
        if method == "tools/call" and params.keys() <= _CALL_KEYS:
            name, args = params.get("name"), params.get("arguments")
            if not isinstance(name, str) or not (args is None or isinstance(args, dict)):
                return False
            if self._header_declared(env, name):
                return False
            try:
                out, is_error = await self.mcp.call(headers, env, name, args or {})
            except Exception:  # a bug: logged, and a generic error on the wire, as the SDK does
                logger.exception("MCP tools/call failed")
                error = {"code": INTERNAL_ERROR, "message": "Internal server error"}
                failed = _dumps({"jsonrpc": "2.0", "id": rid, "error": error})
                await self._raw(send, ERROR_CODE_HTTP_STATUS.get(INTERNAL_ERROR, 500), failed)
                return True
            await self._send(send, rid, self._call_result(out, is_error))
            return True
        return False

    def _header_declared(self, env: str, tool: str) -> bool:
        """Whether the tool's schema declares ``x-mcp-header`` values (the SDK checks those)."""
        key = (env, tool)
        if key not in self._declares_headers:
            try:
                spec = self.mcp.store.world(env).tools.get(tool)
            except ApiError:
                spec = None
            self._declares_headers[key] = spec is not None and "x-mcp-header" in json.dumps(spec.parameters)
        return self._declares_headers[key]

    def _call_result(self, body: Any, is_error: bool) -> dict[str, Any]:
        text = json.dumps(body, default=str)  # as awm.serve.mcp_server.tool_result writes it
        return {
            "content": [{"type": "text", "text": text}],
            "structuredContent": body,
            "isError": is_error,
            "resultType": "complete",
            "_meta": self._stamp,
        }

    async def _send(self, send: Send, rid: str | int, result: dict[str, Any]) -> None:
        envelope = {"jsonrpc": "2.0", "id": rid, "result": result}
        try:
            out = json.dumps(envelope, ensure_ascii=False, separators=(",", ":"), default=str, allow_nan=False).encode()
        except (ValueError, UnicodeEncodeError):  # NaN or infinity (null, as the SDK writes them), a lone surrogate
            text = json.dumps(_finite(envelope), ensure_ascii=False, separators=(",", ":"), default=str)
            out = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode()
        await self._raw(send, 200, out)

    async def _raw(self, send: Send, status: int, body: bytes) -> None:
        await send({"type": "http.response.start", "status": status, "headers": [*_JSON, _length(body)]})
        await send({"type": "http.response.body", "body": body})


def _length(body: bytes) -> tuple[bytes, bytes]:
    return (b"content-length", str(len(body)).encode())


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` again, then what ``receive`` gives."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again
