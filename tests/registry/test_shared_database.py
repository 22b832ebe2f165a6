"""Several stateless registry servers on one database (the load-balancer setup), and the real
`registry-serve` command with worker processes, token from the environment, on loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import httpx
import pytest

from formspec_consult.registry.db import open_store
from formspec_consult.registry.importer import import_path
from tests.registry.conftest import RunningRegistry, mcp_client, structured
from tests.registry.test_import import write_module

pytestmark = pytest.mark.anyio


async def test_two_servers_on_one_database_both_serve_a_module_imported_while_they_run(
    db_url: str, tmp_path: Path, start_registry: Callable[..., RunningRegistry]
) -> None:
    first, second = start_registry(db_url), start_registry(db_url)
    write_module(tmp_path)
    with open_store(db_url) as store:
        import_path(store, tmp_path)
    with anyio.fail_after(30):
        for registry in (first, second):
            async with mcp_client(registry.url) as client:
                data = structured(
                    await client.call_tool("search_modules_registry", {"query": "patungan", "limit": 1})
                )
            assert [r["name"] for r in data["results"]] == ["bill-splitter"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """`registry-serve --workers 2` as a subprocess; yields its /mcp URL once /healthz answers."""
    port = _free_port()
    env = {**os.environ, "FORMSPEC_REGISTRY_TOKEN": "env-token"}
    command = [
        sys.executable,
        "-m",
        "formspec_consult",
        "registry-serve",
        "--port",
        str(port),
        "--db",
        f"sqlite:///{tmp_path / 'r.db'}",
        "--workers",
        "2",
    ]
    log = tmp_path / "serve.log"
    with log.open("wb") as err:
        proc = subprocess.Popen(
            command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err
        )
    deadline = time.monotonic() + 60
    try:
        while True:  # bounded wait for the workers to listen
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "registry-serve did not start within 60 s"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.slow
async def test_registry_serve_with_workers_requires_the_token_from_the_environment(served: str) -> None:
    with anyio.fail_after(30):
        async with httpx.AsyncClient() as http:
            refused = await http.post(served, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert refused.status_code == 401
        for _ in range(4):  # spread over both workers
            async with mcp_client(served, "env-token") as client:
                data = structured(
                    await client.call_tool("search_modules_registry", {"query": "arisan", "limit": 1})
                )
            assert data["results"][0]["name"] == "rotating-savings"
