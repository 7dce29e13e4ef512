"""What stands between a socket and the application, for both planes.

- ``GuardedHttpToolsProtocol`` (uvicorn's httptools protocol with limits): a request head must arrive
  within ``head_timeout`` (a client that connects and trickles bytes is answered 408 and dropped), with
  at most ``max_headers`` headers and ``max_header_bytes`` bytes (else 431). Malformed HTTP gets the
  same JSON error body as everything else.
- ``GuardMiddleware`` (ASGI): the plane's bearer token (compared as bytes, so any header value is a
  401, never an exception), then the whole body read up front within ``body_timeout`` (408) and
  ``max_body`` bytes, chunked or not (413), then a nesting check (400 ``nesting_too_deep``) on the body
  and on JSON text inside its strings (string ``arguments`` and actions are parsed by the server), so
  that no parser downstream can hit Python's recursion limit.

Every refusal is ``{"error": {"code", "message"}}``.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import re
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

_CLOSE = [(b"connection", b"close")]
_JSON_TOKENS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')


def error_json(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()


async def send_error(
    send: Send, status: int, code: str, message: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = error_json(code, message)
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *(headers or [])]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


def too_deep(text: bytes, limit: int) -> bool:
    """Whether JSON ``text`` nests deeper than ``limit``, or holds a string that is such JSON text.

    Counts brackets outside strings, left to right, as a parser meets them (it stops at an unclosed
    string, and so does this). Linear in ``len(text)``."""
    depth = 0
    for m in _JSON_TOKENS.finditer(text):
        tok = m.group()
        c = tok[0]
        if c == 0x22:  # a string: JSON text inside it may be parsed too
            if tok.count(b"[") + tok.count(b"{") > limit:
                try:
                    inner = json.loads(tok)
                except ValueError:
                    continue
                if isinstance(inner, str) and too_deep(inner.encode("utf-8", "surrogatepass"), limit):
                    return True
        elif c in (0x5B, 0x7B):
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


class GuardMiddleware:
    """Bearer token (if set), bounded and timed body, nesting limit; for every route of a plane."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str | None,
        max_body: int,
        max_depth: int,
        body_timeout: float,
        open_paths: frozenset[str] = frozenset({"/health"}),
    ):
        self.app, self.max_body, self.max_depth, self.body_timeout = app, max_body, max_depth, body_timeout
        self.expected = f"Bearer {token}".encode() if token else None
        self.open_paths = open_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = None
        auth = b""
        for name, value in scope["headers"]:
            if name == b"content-length":
                length = value
            elif name == b"authorization":
                auth = value
        if (
            self.expected is not None
            and scope["path"] not in self.open_paths
            and not hmac.compare_digest(auth, self.expected)
        ):
            msg = "missing or wrong bearer token"
            await send_error(send, 401, "unauthorized", msg, [(b"www-authenticate", b"Bearer")])
            return
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            await self._too_large(send)
            return
        try:
            async with asyncio.timeout(self.body_timeout):
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client left
                body: bytes = message.get("body", b"")
                if message.get("more_body", False):
                    parts = [body]
                    size = len(body)
                    while message.get("more_body", False):
                        message = await receive()
                        if message["type"] != "http.request":
                            return
                        chunk = message.get("body", b"")
                        size += len(chunk)
                        if size > self.max_body:
                            await self._too_large(send)
                            return
                        parts.append(chunk)
                    body = b"".join(parts)
        except TimeoutError:
            msg = f"the request body did not arrive within {self.body_timeout:g} s"
            await send_error(send, 408, "request_timeout", msg, _CLOSE)
            return
        if len(body) > self.max_body:
            await self._too_large(send)
            return
        if body.count(b"[") + body.count(b"{") > self.max_depth and too_deep(body, self.max_depth):
            msg = f"the request nests JSON deeper than {self.max_depth} levels"
            await send_error(send, 400, "nesting_too_deep", msg)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, send: Send) -> None:
        await send_error(send, 413, "body_too_large", f"request body larger than {self.max_body} bytes", _CLOSE)


class _Refused(Exception):
    pass


class _Corked:
    """A response's transport that sends its head together with the first body chunk: uvicorn writes the
    status line and headers, then the body, as two writes (two packets, two wake-ups of the client). The head
    waits for the body written in the same turn of the loop, and goes alone at the loop's next turn (a
    streamed response), or before a close."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop):
        self._transport, self._loop = transport, loop
        self._held: bytes | None = None

    def write(self, data: bytes) -> None:
        if self._held is None:
            if data.startswith(b"HTTP/1.1 ") and data.endswith(b"\r\n\r\n"):
                self._held = data
                self._loop.call_soon(self._flush)
                return
            self._transport.write(data)
            return
        held, self._held = self._held, None
        self._transport.write(held + data)

    def _flush(self) -> None:
        if self._held is not None:
            held, self._held = self._held, None
            if not self._transport.is_closing():
                self._transport.write(held)

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline and size limits on every request head."""

    max_headers = 100
    max_header_bytes = 32_768
    head_timeout = 10.0

    @classmethod
    def configured(cls, max_headers: int, max_header_bytes: int, head_timeout: float) -> type[GuardedHttpToolsProtocol]:
        return type(
            "GuardedHttpToolsProtocol",
            (cls,),
            {"max_headers": max_headers, "max_header_bytes": max_header_bytes, "head_timeout": head_timeout},
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_head = True  # bytes now arriving belong to a request head
        self._head_seen = 0  # bytes received since the head began (a bound on buffered head bytes)
        self._head_size = 0  # exact size of the head parsed so far
        self._n_headers = 0
        self._head_timer: asyncio.TimerHandle | None = None
        self._refusal: tuple[int, str, str] | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._in_head:
            if self._head_timer is None:
                self._arm()
            self._head_seen += len(data)
        super().data_received(data)
        if self._in_head and self._head_seen > self.max_header_bytes and not self.transport.is_closing():
            self._respond(431, "headers_too_large", f"the request head is larger than {self.max_header_bytes} bytes")

    def on_url(self, url: bytes) -> None:
        self._head_size += len(url)
        if self._head_size > self.max_header_bytes:
            self._refusal = (414, "uri_too_long", f"the request line is larger than {self.max_header_bytes} bytes")
            raise _Refused
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._n_headers += 1
        self._head_size += len(name) + len(value) + 4
        if self._n_headers > self.max_headers:
            self._refusal = (431, "too_many_headers", f"more than {self.max_headers} request headers")
            raise _Refused
        if self._head_size > self.max_header_bytes:
            self._refusal = (431, "headers_too_large", f"the request head is larger than {self.max_header_bytes} bytes")
            raise _Refused
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._disarm()
        self._in_head = False
        self._head_seen = self._head_size = self._n_headers = 0
        super().on_headers_complete()
        if self.cycle is not None:
            self.cycle.transport = _Corked(self.transport, self.loop)  # type: ignore[assignment]

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._in_head = True  # what follows on this connection is the next request's head

    def send_400_response(self, msg: str) -> None:
        status, code, message = self._refusal or (400, "bad_request", "malformed HTTP request")
        self._refusal = None
        self._respond(status, code, message)

    def _respond(self, status: int, code: str, message: str) -> None:
        self._disarm()
        body = error_json(code, message)
        reason = {400: b"Bad Request", 408: b"Request Timeout", 414: b"URI Too Long"}.get(
            status, b"Request Header Fields Too Large"
        )
        head = b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n"
        self.transport.write(head % (status, reason, len(body)) + body)
        self.transport.close()

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self._in_head and not self.transport.is_closing():
            if self._head_seen == 0 and self.cycle is not None:
                self.transport.close()  # an idle keep-alive connection: nothing to answer
                return
            self._respond(408, "request_timeout", f"the request head did not arrive within {self.head_timeout:g} s")
