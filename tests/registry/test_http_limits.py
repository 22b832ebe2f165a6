"""The HTTP edge of the registry: bearer auth, rate limit, body size, malformed JSON-RPC,
DNS-rebinding protection — with raw HTTP requests and a real MCP client, on loopback only."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import httpx
import pytest
from mcp.shared.exceptions import MCPError

from formspec_consult.servers.registry_http import HttpLimits
from tests.registry.conftest import RunningRegistry, mcp_client, structured

TOKEN = "s3cret-registry-token"
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


@pytest.fixture
def registry(seeded_url: str, start_registry: Callable[..., RunningRegistry]) -> RunningRegistry:
    return start_registry(
        seeded_url, token=TOKEN, limits=HttpLimits(rate_per_second=1000, burst=1000, max_body_bytes=8192)
    )


def test_requests_without_a_token_get_401_with_a_bearer_challenge(registry: RunningRegistry) -> None:
    response = httpx.post(registry.url, json=LIST_TOOLS, headers=MCP_HEADERS)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.json() == {"error": "Missing bearer token."}


def test_requests_with_a_wrong_token_get_401(registry: RunningRegistry) -> None:
    for value in (f"Bearer {TOKEN}x", "Bearer", f"Basic {TOKEN}", TOKEN):
        response = httpx.post(registry.url, json=LIST_TOOLS, headers={**MCP_HEADERS, "authorization": value})
        assert response.status_code == 401, value


@pytest.mark.anyio
async def test_an_mcp_client_with_a_bad_token_fails_fast_instead_of_hanging(
    registry: RunningRegistry,
) -> None:
    with anyio.fail_after(20), pytest.raises(BaseExceptionGroup) as caught:
        async with mcp_client(registry.url, "wrong") as client:
            await client.list_tools()
    assert caught.group_contains(MCPError, depth=None)


@pytest.mark.anyio
async def test_an_mcp_client_with_the_token_is_served(registry: RunningRegistry) -> None:
    with anyio.fail_after(20):
        async with mcp_client(registry.url, TOKEN) as client:
            data = structured(await client.call_tool("search_modules_registry", {"query": "kasir"}))
    assert data["results"][0]["name"] == "cash-register"


def test_oversized_bodies_get_413_before_authentication(registry: RunningRegistry) -> None:
    big = {**LIST_TOOLS, "params": {"padding": "x" * 20_000}}
    assert httpx.post(registry.url, json=big, headers=MCP_HEADERS).status_code == 413
    authed = {**MCP_HEADERS, "authorization": f"Bearer {TOKEN}"}
    assert httpx.post(registry.url, json=big, headers=authed).status_code == 413


def test_malformed_json_rpc_gets_a_parse_error_not_a_crash(registry: RunningRegistry) -> None:
    authed = {**MCP_HEADERS, "authorization": f"Bearer {TOKEN}"}
    broken = httpx.post(registry.url, content=b'{"jsonrpc": "2.0", "id": 1, "method": ', headers=authed)
    assert broken.status_code == 400 and broken.json()["error"]["code"] == -32700
    not_rpc = httpx.post(registry.url, json={"hello": "world"}, headers=authed)
    assert not_rpc.status_code == 400 and "error" in not_rpc.json()
    # ... and the server still answers afterwards.
    assert httpx.get(f"{registry.base}/healthz").json() == {"status": "ok"}


def test_a_foreign_host_header_is_refused_by_dns_rebinding_protection(registry: RunningRegistry) -> None:
    headers = {**MCP_HEADERS, "authorization": f"Bearer {TOKEN}", "host": "evil.example:80"}
    assert httpx.post(registry.url, json=LIST_TOOLS, headers=headers).status_code == 421


def test_a_client_over_its_rate_gets_429_with_retry_after(
    seeded_url: str, start_registry: Callable[..., RunningRegistry]
) -> None:
    registry = start_registry(seeded_url, token=TOKEN, limits=HttpLimits(rate_per_second=0.01, burst=3))
    codes = [httpx.post(registry.url, json=LIST_TOOLS, headers=MCP_HEADERS).status_code for _ in range(5)]
    assert codes == [401, 401, 401, 429, 429]
    limited = httpx.post(registry.url, json=LIST_TOOLS, headers=MCP_HEADERS)
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
    # A client with a valid token has its own bucket, so one noisy address does not lock it out.
    authed = {**MCP_HEADERS, "authorization": f"Bearer {TOKEN}"}
    assert httpx.post(registry.url, json=LIST_TOOLS, headers=authed).status_code == 200


def test_without_a_token_configured_the_registry_is_open(
    seeded_url: str, start_registry: Callable[..., RunningRegistry]
) -> None:
    registry = start_registry(seeded_url)
    response = httpx.post(registry.url, json=LIST_TOOLS, headers=MCP_HEADERS)
    assert response.status_code == 200
    assert {t["name"] for t in response.json()["result"]["tools"]} >= {"search_modules_registry"}


def test_get_on_the_stateless_endpoint_answers_405_at_once_instead_of_an_endless_stream(
    registry: RunningRegistry,
) -> None:
    authed = {"accept": "text/event-stream", "authorization": f"Bearer {TOKEN}"}
    response = httpx.get(registry.url, headers=authed, timeout=5)
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert "POST" in response.json()["error"]


@pytest.mark.parametrize(
    "path",
    [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    ],
)
def test_with_a_token_oauth_discovery_paths_answer_404_not_401(registry: RunningRegistry, path: str) -> None:
    response = httpx.get(f"{registry.base}{path}")
    assert response.status_code == 404
    assert "www-authenticate" not in response.headers
    assert "bearer token" in response.json()["error"]
    # The MCP endpoint itself still demands the token.
    assert httpx.post(registry.url, json=LIST_TOOLS, headers=MCP_HEADERS).status_code == 401


def test_the_default_limits_serve_a_burst_of_two_hundred_requests_from_one_client(
    seeded_url: str, start_registry: Callable[..., RunningRegistry]
) -> None:
    registry = start_registry(seeded_url, limits=HttpLimits())
    with httpx.Client(headers=MCP_HEADERS) as http:
        codes = {http.post(registry.url, json=LIST_TOOLS).status_code for _ in range(200)}
    assert codes == {200}
