"""ASGI guard in front of the registry's MCP endpoint: size limit, rate limit, bearer token.

Order matters: an oversized body is refused (413) before anything else; `/.well-known/*` answers
404 (the registry has no OAuth metadata: an OAuth-capable client that met a 401 with metadata
there would try dynamic client registration instead of telling its user to configure the static
bearer token); `GET` on the MCP endpoint answers 405 (stateless: there is no server-to-client
stream, and an empty one held open with keep-alive pings defeats client timeouts); then the
per-client token bucket (429) so nobody can hammer the token check; then the bearer token (401). Clients are keyed
by their token when it is valid (many users behind one NAT or load balancer each get their own
bucket), otherwise by their address.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.types import ASGIApp, Receive, Scope, Send

# Defaults a real client never reaches: the conformance suite opens ~30 sessions at once (about
# 130 requests in a third of a second), an agent a few calls a second. The limit is against abuse.
DEFAULT_RATE = 100.0
DEFAULT_BURST = 1000


@dataclass
class TokenBucket:
    """Per-key token buckets: `rate` requests per second on average, bursts up to `burst`."""

    rate: float
    burst: float
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)

    def take(self, key: str) -> float:
        """Spend one token for `key`: 0.0 if allowed, else seconds until the next token."""
        now = self.clock()
        tokens, stamp = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - stamp) * self.rate)
        if tokens >= 1.0:
            self._buckets[key] = (tokens - 1.0, now)
            if len(self._buckets) > 50_000:
                self._forget_full(now)
            return 0.0
        self._buckets[key] = (tokens, now)
        return (1.0 - tokens) / self.rate if self.rate > 0 else math.inf

    def _forget_full(self, now: float) -> None:
        # Buckets that have refilled completely carry no information; drop them to bound memory.
        self._buckets = {
            k: v for k, v in self._buckets.items() if v[0] + (now - v[1]) * self.rate < self.burst
        }


class RegistryGuard:
    """Wraps the MCP ASGI app; non-HTTP scopes (lifespan) and `/healthz` pass straight through."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str | None,
        limiter: TokenBucket | None,
        max_body_bytes: int,
        open_paths: frozenset[str] = frozenset({"/healthz"}),
        mcp_path: str = "/mcp",
    ) -> None:
        self.app = app
        self._token = token.encode() if token else None
        self.limiter = limiter
        self.max_body_bytes = max_body_bytes
        self.open_paths = open_paths
        self.mcp_path = mcp_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.open_paths:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self.max_body_bytes:
            await _reply(send, 413, f"Request body too large (limit {self.max_body_bytes} bytes).")
            return
        if scope["path"].startswith("/.well-known/"):
            await _reply(send, 404, "Not found. This registry takes a static bearer token, not OAuth.")
            return
        if scope["method"] == "GET" and scope["path"].rstrip("/") == self.mcp_path:
            message = "This stateless endpoint has no event stream; send JSON-RPC requests with POST."
            await _reply(send, 405, message, [(b"allow", b"POST")])
            return
        presented = _bearer(headers.get("authorization", ""))
        valid = self._token is None or (
            presented is not None and hmac.compare_digest(presented.encode(), self._token)
        )
        if self.limiter is not None:
            client = scope.get("client") or ("unknown", 0)
            key = (
                "token:" + hashlib.sha256(presented.encode()).hexdigest()
                if valid and presented
                else f"addr:{client[0]}"
            )
            wait = self.limiter.take(key)
            if wait > 0:
                retry = str(max(1, math.ceil(wait))) if math.isfinite(wait) else "3600"
                await _reply(send, 429, "Too many requests; slow down.", [(b"retry-after", retry.encode())])
                return
        if not valid:
            challenge = b'Bearer realm="formspec-registry"'
            message = "Missing bearer token." if presented is None else "Invalid bearer token."
            await _reply(send, 401, message, [(b"www-authenticate", challenge)])
            return
        await self.app(scope, receive, send)


def _bearer(value: str) -> str | None:
    scheme, _, credentials = value.partition(" ")
    return credentials.strip() or None if scheme.lower() == "bearer" else None


async def _reply(
    send: Send, status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
