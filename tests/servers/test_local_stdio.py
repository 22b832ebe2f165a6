"""The real thing: `formspec-consult mcp-serve` as a subprocess, over stdio, with the SDK client."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.servers.conftest import call, call_error

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
CLI = Path(sys.executable).parent / "formspec-consult"
SESSION = "20261130-130000-stdo"


def params(project: Path, *extra: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "SYSTEMROOT"}}
    return StdioServerParameters(
        command=str(CLI), args=["mcp-serve", "--project", str(project), *extra], env=env
    )


async def test_mcp_serve_over_stdio_proposes_a_draft_into_its_session(project: Path, tmp_path: Path) -> None:
    stderr_path = tmp_path / "stderr.txt"
    with open(stderr_path, "w", encoding="utf-8") as errlog, anyio.fail_after(60):
        async with Client(stdio_client(params(project, "--session", SESSION), errlog=errlog)) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"propose_spec_file", "apply_draft", "undo_apply", "read_transcript"} <= names
            text = (project / "spec/modules/shop/master/service/entity.yaml").read_text() + "# via stdio\n"
            result = await call(
                client,
                "propose_spec_file",
                {"path": "modules/shop/master/service/entity.yaml", "content": text},
            )
            assert result["validation"]["ok"] is True
            assert "vendors/" in await call_error(
                client, "propose_spec_file", {"path": "vendors/loyalty/module.yaml", "content": text}
            )
    draft = project / f".formspec/consult/{SESSION}/draft/modules/shop/master/service/entity.yaml"
    assert draft.read_text() == text
    assert stderr_path.read_text() == "", "stderr must stay quiet; logs go to mcp-server.log"
    assert "serving" in (project / ".formspec/consult/mcp-server.log").read_text()


async def test_mcp_serve_outside_a_project_fails_with_a_clear_message(tmp_path: Path) -> None:
    with anyio.fail_after(60):
        proc = await anyio.run_process([str(CLI), "mcp-serve", "--project", str(tmp_path)], check=False)
    assert proc.returncode != 0
    assert b"formspec" in proc.stderr.lower() and proc.stdout == b""


def _with_fake_dev_server(project: Path) -> StdioServerParameters:
    from tests.servers.test_devserver import FAKE, free_port

    port = free_port()
    server = params(project)
    server.env = {
        **(server.env or {}),
        "FORMSPEC_DEV_COMMAND": f"{sys.executable} {FAKE} --port {port}",
        "FORMSPEC_HEALTH_URL": f"http://127.0.0.1:{port}/health",
    }
    return server


async def test_closing_the_client_also_stops_the_dev_server_mcp_serve_started(
    project: Path, tmp_path: Path
) -> None:
    with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as errlog, anyio.fail_after(60):
        async with Client(stdio_client(_with_fake_dev_server(project), errlog=errlog)) as client:
            dev_pid = (await call(client, "restart_server"))["pid"]
            assert _running(dev_pid)
        while _running(dev_pid):  # noqa: ASYNC110 - another process's state; bounded by fail_after
            await anyio.sleep(0.05)


async def test_killing_mcp_serve_also_stops_the_dev_server_it_started(project: Path, tmp_path: Path) -> None:
    server = _with_fake_dev_server(project)
    with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as errlog, anyio.fail_after(60):
        async with Client(stdio_client(server, errlog=errlog)) as client:
            dev_pid = (await call(client, "restart_server"))["pid"]
            serve_pid = int(Path(f"/proc/{dev_pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            os.kill(serve_pid, 15)
            while _running(dev_pid):  # noqa: ASYNC110 - another process's state; bounded by fail_after
                await anyio.sleep(0.05)
    assert not _running(dev_pid)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
