"""Framing shared by the parent and the worker: one message = a JSON header frame plus raw blob frames.

A frame is a 4-byte big-endian length and that many bytes. A header is a JSON object; when it has
``"blobs": n``, n raw frames follow it (database images, never base64). Values that JSON cannot carry
(``bytes`` in SQL rows and parameters) travel as ``{"$b": "<base64>"}``. The parent never unpickles
anything from a worker: JSON and raw bytes only.
"""

from __future__ import annotations

import base64
import json
import os
import struct
from typing import Any

HEADER = struct.Struct(">I")
MAX_FRAME = 256 << 20  # a frame larger than this is a protocol violation


class ProtocolError(Exception):
    """The other side sent something that is not a valid message (or closed the pipe)."""


def encode_value(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"$b": base64.b64encode(bytes(value)).decode("ascii")}
    return value


def decode_value(value: Any) -> Any:
    if isinstance(value, dict) and len(value) == 1 and "$b" in value:
        raw = value["$b"]
        if not isinstance(raw, str):
            raise ProtocolError("a $b value must be a base64 string")
        return base64.b64decode(raw)
    return value


def encode_tree(value: Any) -> Any:
    """``encode_value`` through nested lists and dicts (rows as dicts, lists of rows)."""
    if isinstance(value, list):
        return [encode_tree(v) for v in value]
    if isinstance(value, dict):
        return {k: encode_tree(v) for k, v in value.items()}
    return encode_value(value)


def decode_tree(value: Any) -> Any:
    """``decode_value`` through nested lists and dicts (the inverse of ``encode_tree``)."""
    if isinstance(value, list):
        return [decode_tree(v) for v in value]
    if isinstance(value, dict) and not (len(value) == 1 and "$b" in value):
        return {k: decode_tree(v) for k, v in value.items()}
    return decode_value(value)


def pack(header: dict[str, Any], blobs: tuple[bytes, ...] | list[bytes] = ()) -> bytes:
    if blobs:
        header = {**header, "blobs": len(blobs)}
    body = json.dumps(header, separators=(",", ":"), ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")
    parts = [HEADER.pack(len(body)), body]
    for blob in blobs:
        parts += [HEADER.pack(len(blob)), bytes(blob)]
    return b"".join(parts)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def read_exact(fd: int, n: int) -> bytes:
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise ProtocolError("the pipe closed")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> bytes:
    (n,) = HEADER.unpack(read_exact(fd, HEADER.size))
    if n > MAX_FRAME:
        raise ProtocolError(f"a frame of {n} bytes (the limit is {MAX_FRAME})")
    return read_exact(fd, n)


def parse_header(raw: bytes) -> dict[str, Any]:
    try:
        header = json.loads(raw.decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ProtocolError(f"a header that is not JSON: {e}") from e
    if not isinstance(header, dict):
        raise ProtocolError("a header that is not a JSON object")
    n = header.get("blobs", 0)
    if not isinstance(n, int) or not 0 <= n <= 8:
        raise ProtocolError("a bad blob count")
    return header


def receive(fd: int) -> tuple[dict[str, Any], list[bytes]]:
    """One whole message (blocking)."""
    header = parse_header(read_frame(fd))
    blobs = [read_frame(fd) for _ in range(header.get("blobs", 0))]
    return header, blobs
