"""Registry fixtures: a seeded database per backend (SQLite file, PostgreSQL schema) and real
HTTP servers on loopback (uvicorn on port 0 in a thread), with MCP clients that talk to them.

PostgreSQL comes from tests/setup/20-postgres.sh (run by `make test`), which writes its URL to
tests/.tools/pg.url. Without it the postgres-marked tests fail under CI=true and skip locally.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import psycopg
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from formspec_consult.registry.db import open_store
from formspec_consult.registry.postgres_store import split_schema
from formspec_consult.servers.http_edge import bind_socket
from formspec_consult.servers.registry import create_registry_server
from formspec_consult.servers.registry_http import HttpLimits, http_server
from tests.helpers import first_text

PG_URL_FILE = Path(__file__).resolve().parents[1] / ".tools" / "pg.url"
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def _no_postgres(reason: str) -> None:
    message = f"{reason}; run `bash tests/setup/20-postgres.sh` (make test does)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def pg_base_url() -> str:
    """The test PostgreSQL server's URL, checked to be reachable."""
    if not PG_URL_FILE.is_file():
        _no_postgres(f"no PostgreSQL URL at {PG_URL_FILE}")
    url = PG_URL_FILE.read_text().strip()
    try:
        psycopg.connect(url, connect_timeout=5).close()
    except psycopg.OperationalError as exc:
        _no_postgres(f"PostgreSQL at {url} is not reachable ({exc})")
    return url


def _drop_schema(url: str) -> None:
    dsn, schema = split_schema(url)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
def make_db_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[str], str]]:
    """Fresh, empty database URLs for a backend; PostgreSQL schemas are dropped afterwards."""
    schemas: list[str] = []

    def make(backend: str) -> str:
        if backend == "sqlite":
            return f"sqlite:///{tmp_path_factory.mktemp('registry') / 'registry.db'}"
        base = request.getfixturevalue("pg_base_url")
        url = f"{base}?schema=t_{uuid.uuid4().hex[:12]}"
        schemas.append(url)
        return url

    yield make
    for url in schemas:
        _drop_schema(url)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def db_url(backend: str, make_db_url: Callable[[str], str]) -> str:
    """An empty database of the current backend."""
    return make_db_url(backend)


@pytest.fixture(scope="module", params=BACKENDS)
def seeded_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A database seeded with the bundled catalogue, shared by a module's read-only tests."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('seeded') / 'registry.db'}"
    else:
        url = f"{request.getfixturevalue('pg_base_url')}?schema=s_{uuid.uuid4().hex[:12]}"
    open_store(url).close()
    yield url
    if request.param != "sqlite":
        _drop_schema(url)


class RunningRegistry:
    """A registry HTTP server on 127.0.0.1 in a background thread."""

    def __init__(self, db_url: str, token: str | None, limits: HttpLimits) -> None:
        self.server = create_registry_server(db_url, token=token)
        self._sock = bind_socket("127.0.0.1", 0)
        port = self._sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        self.url = f"{self.base}/mcp"
        self._uvicorn = http_server(self.server, host="127.0.0.1", port=port, limits=limits)
        # The socket is already listening, so clients may connect before uvicorn's loop starts.
        self._thread = threading.Thread(
            target=self._uvicorn.run, kwargs={"sockets": [self._sock]}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._uvicorn.should_exit = True
        self._thread.join(timeout=15)
        self._sock.close()
        self.server.close()
        assert not self._thread.is_alive(), "registry server thread did not stop"


@pytest.fixture
def start_registry() -> Iterator[Callable[..., RunningRegistry]]:
    """Start registry servers: start_registry(db_url, token=None, limits=HttpLimits(...))."""
    running: list[RunningRegistry] = []

    def start(db_url: str, *, token: str | None = None, limits: HttpLimits | None = None) -> RunningRegistry:
        registry = RunningRegistry(db_url, token, limits or HttpLimits(rate_per_second=1000, burst=1000))
        running.append(registry)
        return registry

    yield start
    for registry in running:
        registry.stop()


@asynccontextmanager
async def mcp_client(url: str, token: str | None = None) -> AsyncIterator[Client]:
    """A real Streamable HTTP MCP client, with a bearer token when given."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=20) as http,
        Client(streamable_http_client(url, http_client=http), read_timeout_seconds=20) as client,
    ):
        yield client


def structured(result: Any) -> dict[str, Any]:
    """The structured content of a successful tool result (fails the test on a tool error)."""
    assert not result.is_error, first_text(result) if result.content else result
    assert isinstance(result.structured_content, dict)
    return result.structured_content
