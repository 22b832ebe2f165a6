"""The bundled registry the engine starts when no registry URL is configured: a real stdio
subprocess from `bundled_registry_command()`, creating its database on first start."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from formspec_consult.servers.registry import bundled_registry_command
from tests.registry.conftest import structured

pytestmark = pytest.mark.slow


def test_the_bundled_command_runs_this_package_over_stdio() -> None:
    command = bundled_registry_command()
    assert command[0] == sys.executable
    assert command[1:] == ["-m", "formspec_consult", "registry-serve", "--stdio"]


@pytest.mark.anyio
async def test_the_bundled_registry_creates_its_database_on_first_start_and_answers(tmp_path: Path) -> None:
    command = bundled_registry_command()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("FORMSPEC_REGISTRY_DB", None)
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    with anyio.fail_after(60):
        async with Client(params, read_timeout_seconds=30) as client:
            templates = structured(await client.call_tool("list_business_templates", {}))
            found = structured(
                await client.call_tool("search_modules_registry", {"query": "pembayaran online", "limit": 3})
            )
    assert templates["count"] >= 12
    assert found["results"][0]["name"] == "payment-gateway"
    assert (tmp_path / "data" / "formspec-consult" / "registry.db").is_file()


def test_registry_serve_with_an_unusable_database_url_exits_with_a_clear_message(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "formspec_consult",
            "registry-serve",
            "--stdio",
            "--db",
            "mysql://localhost/x",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 1
    assert "Unsupported registry database URL" in result.stderr
