"""Listening sockets for the servers here (``awm serve``, ``awm view``): bind one, and tell a loopback host."""

from __future__ import annotations

import ipaddress
import socket

from awm.errors import AwmError


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening-ready TCP socket on ``host:port`` (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
    except OSError as e:
        sock.close()
        raise AwmError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    return sock
