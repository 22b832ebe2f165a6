"""Serve the registry over MCP Streamable HTTP at `/mcp` (stateless, JSON responses).

Stateless HTTP means no session lives in a process, so several server processes can sit behind a
load balancer on one shared database. The SDK's DNS-rebinding protection is always on: Host and
Origin must be loopback or explicitly allowed.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field

import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp

from formspec_consult.servers.http_edge import bind_socket as bind_socket  # re-exported for callers
from formspec_consult.servers.http_edge import dns_rebinding_protection
from formspec_consult.servers.registry import RegistryServer
from formspec_consult.servers.registry_guard import DEFAULT_BURST, DEFAULT_RATE, RegistryGuard, TokenBucket

MCP_PATH = "/mcp"


@dataclass(frozen=True)
class HttpLimits:
    """Abuse limits of the HTTP endpoint (per client: address, or token when one is valid)."""

    rate_per_second: float = DEFAULT_RATE
    burst: int = DEFAULT_BURST
    max_body_bytes: int = 64 * 1024
    allowed_hosts: tuple[str, ...] = field(default=())

    def security(self, host: str) -> TransportSecuritySettings:
        """DNS-rebinding protection: loopback names, the bind host, and any extra allowed hosts."""
        return dns_rebinding_protection(host, self.allowed_hosts)


def registry_http_app(
    server: RegistryServer, *, host: str = "127.0.0.1", limits: HttpLimits | None = None
) -> ASGIApp:
    """The ASGI app: `/mcp` behind the guard (413 → 404 for `/.well-known/*` → 405 for GET → 429 → 401),
    plus an open `/healthz`."""
    limits = limits or HttpLimits()

    async def healthz(_: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    server.custom_route("/healthz", methods=["GET"], include_in_schema=False)(healthz)  # the SDK's decorator is untyped

    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        max_request_body_size=limits.max_body_bytes,
        transport_security=limits.security(host),
        host=host,
    )
    limiter = TokenBucket(limits.rate_per_second, float(limits.burst)) if limits.rate_per_second > 0 else None
    return RegistryGuard(
        app, token=server.token, limiter=limiter, max_body_bytes=limits.max_body_bytes, mcp_path=MCP_PATH
    )


def http_server(
    server: RegistryServer,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    limits: HttpLimits | None = None,
    log_level: str = "warning",
) -> uvicorn.Server:
    """A uvicorn server for the registry app (call `.run(sockets=[…])` or `.run()`)."""
    app = registry_http_app(server, host=host, limits=limits)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, lifespan="on", access_log=False)
    return uvicorn.Server(config)


_WORKER_ENV = "_FORMSPEC_REGISTRY_WORKER"


def app_from_env() -> ASGIApp:
    """ASGI factory for `--workers N`: each uvicorn worker process builds its own server and store
    from the settings `run_workers` put in the environment (stateless HTTP makes this safe)."""
    from formspec_consult.servers.registry import create_registry_server

    settings = json.loads(os.environ[_WORKER_ENV])
    server = create_registry_server(settings["db"], token=settings["token"])
    limits = HttpLimits(**{**settings["limits"], "allowed_hosts": tuple(settings["limits"]["allowed_hosts"])})
    return registry_http_app(server, host=settings["host"], limits=limits)


def run_workers(
    db_url: str,
    *,
    token: str | None,
    host: str,
    port: int,
    limits: HttpLimits,
    workers: int,
    log_level: str = "info",
) -> None:
    """Serve with `workers` processes on one listening socket (each with its own rate-limit buckets)."""
    os.environ[_WORKER_ENV] = json.dumps(
        {"db": db_url, "token": token, "host": host, "limits": asdict(limits)}
    )
    uvicorn.run(
        "formspec_consult.servers.registry_http:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
        access_log=False,
    )
