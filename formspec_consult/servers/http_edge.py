"""The HTTP edge both servers share: a listening socket and DNS-rebinding protection."""

from __future__ import annotations

import socket

from mcp.server.transport_security import TransportSecuritySettings

_LOOPBACK_HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
_LOOPBACK_ORIGINS = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]


def dns_rebinding_protection(host: str, allowed_hosts: tuple[str, ...] = ()) -> TransportSecuritySettings:
    """Host and Origin must be loopback, the bind host, or one of ``allowed_hosts`` (both servers)."""
    hosts = [*_LOOPBACK_HOSTS, *allowed_hosts]
    if host not in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "::"):
        hosts.append(f"{host}:*")
    origins = [
        *_LOOPBACK_ORIGINS,
        *(f"https://{h}" for h in allowed_hosts),
        *(f"http://{h}" for h in allowed_hosts),
    ]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def bind_socket(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening socket (port 0 picks a free port); pass it to `serve_http` to know the port first."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock
