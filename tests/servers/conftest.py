"""Fixtures for the local MCP server: a private copy of the barbershop project and a client."""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from formspec_consult.servers.local import create_local_server
from formspec_consult.servers.local.server import LocalServer
from tests.helpers import copy_example, first_text

SESSION = "20261130-120000-test"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A writable copy of the barbershop example (never the package's own files)."""
    return copy_example(tmp_path)


@pytest.fixture
def server(project: Path) -> LocalServer:
    return create_local_server(project, SESSION)


@pytest.fixture
async def client(server: LocalServer) -> AsyncIterator[Client]:
    async with Client(server) as connected:
        yield connected


async def call(client: Client, name: str, args: dict[str, Any] | None = None) -> Any:
    """Call a tool that must succeed; return its structured result (or text for text tools)."""
    result = await client.call_tool(name, args or {})
    text = first_text(result)
    assert not result.is_error, f"{name} failed: {text}"
    if result.structured_content is None:
        return text
    if set(result.structured_content) == {"result"} and isinstance(result.structured_content["result"], str):
        # A text tool with an output schema: the text block is the string itself.
        assert result.structured_content["result"] == text, f"{name}: structured and text results differ"
        return text
    # The typed output schema must not drop anything the text block carries.
    assert json.loads(text) == result.structured_content, f"{name}: structured and text results differ"
    return result.structured_content


async def call_error(client: Client, name: str, args: dict[str, Any] | None = None) -> str:
    """Call a tool that must fail; return the error message the model would read."""
    result = await client.call_tool(name, args or {})
    text = first_text(result)
    assert result.is_error, f"{name} unexpectedly succeeded: {text[:300]}"
    return text


def tree_hash(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root`` (including .formspec/), by relative path; logs and the
    empty lock files of .formspec/locks/ (held during apply, never state) are left out."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith((".log", ".lock"))
    }
