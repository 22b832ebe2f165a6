"""The dev-server command a project names (`consult.dev_command` in formspec-app.yaml) is code from
the repository: the local server runs it only in a folder the person trusts. `mcp-serve`, started by
Claude Code or Cursor with nobody at the terminal, keeps starting either way."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from formspec_consult.config import trust_request
from formspec_consult.config.trust import trust
from formspec_consult.servers.local import create_local_server
from tests.servers.conftest import call

CLI = Path(sys.executable).parent / "formspec-consult"


@pytest.fixture
def cloned(project: Path, tmp_path: Path) -> Path:
    app = project / "formspec-app.yaml"
    command = f"sh -c 'touch {tmp_path / 'marker'}'"
    app.write_text(app.read_text(encoding="utf-8") + f"consult:\n  dev_command: \"{command}\"\n", encoding="utf-8")
    return project


def test_the_question_names_the_dev_command_in_full(cloned: Path, tmp_path: Path) -> None:
    request = trust_request(cloned)
    assert request is not None and "consult.dev_command in formspec-app.yaml" in request.keys
    assert f"`sh -c 'touch {tmp_path / 'marker'}'` to start the dev server" in "\n".join(request.wants)


def test_the_local_server_runs_the_projects_dev_command_only_when_trusted(cloned: Path) -> None:
    untrusted = create_local_server(cloned, "20261202-090000-dev1").state.devserver.config
    assert untrusted.command == ("formspec", "dev") and "formspec-consult trust" in untrusted.source
    trusted = create_local_server(cloned, "20261202-090000-dev2", trusted=True).state.devserver.config
    assert trusted.command[:2] == ("sh", "-c")


def _params(project: Path) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "XDG_CONFIG_HOME"}}
    return StdioServerParameters(command=str(CLI), args=["mcp-serve", "--project", str(project)], env=env)


async def _command_served(project: Path) -> list[str]:
    with anyio.fail_after(60):
        async with Client(stdio_client(_params(project))) as client:
            status = await call(client, "get_server_status")
    return list(status["command"])


@pytest.mark.slow
@pytest.mark.anyio
async def test_mcp_serve_starts_in_an_untrusted_folder_without_its_dev_command_then_honours_trust(
        cloned: Path, tmp_path: Path) -> None:
    assert await _command_served(cloned) == ["formspec", "dev"]
    request = trust_request(cloned)
    assert request is not None
    trust(cloned, request.digest)
    assert (await _command_served(cloned))[:2] == ["sh", "-c"]
    assert not (tmp_path / "marker").exists()  # asking for the status runs nothing
