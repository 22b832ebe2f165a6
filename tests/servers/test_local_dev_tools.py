"""restart_server / get_server_status / stop_server through MCP, with the fake dev server."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import Client

from formspec_consult.servers.local import create_local_server
from formspec_consult.servers.local.server import LocalServer
from tests.servers.conftest import SESSION, call, call_error
from tests.servers.test_devserver import FAKE, free_port

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


def _server(project: Path, port: int) -> LocalServer:
    return create_local_server(
        project,
        SESSION,
        dev_command=[sys.executable, str(FAKE), "--port", str(port)],
        health_url=f"http://127.0.0.1:{port}/health",
    )


async def test_restart_status_and_stop_control_the_dev_server(project: Path) -> None:
    async with Client(_server(project, free_port())) as client:
        assert (await call(client, "get_server_status"))["running"] is False
        started = await call(client, "restart_server")
        assert started["started"] is True and started["health"] == "ok" and started["was_running"] is False
        status = await call(client, "get_server_status")
        assert status == {**status, "running": True, "pid": started["pid"], "health": "ok"}
        again = await call(client, "restart_server")
        assert again["was_running"] is True and again["pid"] != started["pid"]
        stopped = await call(client, "stop_server")
        assert stopped["stopped"] is True
        assert (await call(client, "get_server_status"))["running"] is False
    assert (project / ".formspec/consult/server.log").read_text().count("--- starting:") == 2


async def test_restart_refuses_while_the_project_is_invalid(project: Path) -> None:
    (project / "spec/modules/shop/master/broken.yaml").write_text("kind: Entity\n")
    async with Client(_server(project, free_port())) as client:
        message = await call_error(client, "restart_server")
        assert "Not restarting" in message and "broken.yaml" in message
        assert (await call(client, "get_server_status"))["running"] is False


async def test_a_missing_formspec_binary_is_a_clear_error(project: Path) -> None:
    server = create_local_server(project, SESSION, dev_command=["formspec-not-installed-xyz", "dev"])
    async with Client(server) as client:
        message = await call_error(client, "restart_server")
        assert "not found on PATH" in message and "FORMSPEC_DEV_COMMAND" in message


async def test_a_dev_server_started_by_this_instance_stops_with_it(project: Path) -> None:
    server = _server(project, free_port())
    async with Client(server) as client:
        pid = (await call(client, "restart_server"))["pid"]
    state = server.state
    assert state.devserver.pid() is None, f"dev server {pid} outlived the MCP server"
