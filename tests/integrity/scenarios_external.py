"""`mcp-serve` without --session (the external clients' shared session): a damaged pointer, a
reserved name given as an id, two conversations whose first writes land at once."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import stdio_client

from tests.integrity.scenarios import Observed, scenario
from tests.integrity.scenarios_locks import CLI, serve_params
from tests.integrity.scenarios_tamper import SERVICE, Tools, barbershop, edited_service


def _sessions(consult: Path) -> list[str]:
    return sorted(p.name for p in consult.iterdir() if p.is_dir()) if consult.is_dir() else []


@scenario
def external_session_pointer_not_utf8(request: pytest.FixtureRequest) -> Observed:
    """`.formspec/consult/external-session` holds bytes that are not UTF-8; then `--session
    external-session` is given as an id."""
    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = barbershop(tmp_path)
    consult = project / ".formspec" / "consult"
    consult.mkdir(parents=True, exist_ok=True)
    pointer = consult / "external-session"
    pointer.write_bytes(b"\xff\xfe\x00garbage\n")
    facts: dict[str, Any] = {}

    async def main() -> None:
        with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as errlog, anyio.fail_after(60):
            async with Client(stdio_client(serve_params(project), errlog=errlog)) as client:
                tools = Tools(client)
                facts["proposed"], _ = await tools("propose_spec_file", path=SERVICE,
                                                   content=edited_service(project))
                _, listed = await tools("list_drafts")
                facts["pointer_repaired"] = pointer.read_text(encoding="utf-8").strip() == listed["session"]

    anyio.run(main)
    facts["traceback"] = "Traceback" in (tmp_path / "stderr.txt").read_text(encoding="utf-8")
    named = subprocess.run([str(CLI), "mcp-serve", "--project", str(project), "--session", "external-session"],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    facts["reserved_id_exit"] = named.returncode
    facts["reserved_id_message"] = named.stderr.strip()
    facts["pointer_still_a_file"] = pointer.is_file()
    return facts


@scenario
def two_external_conversations_write_at_once(request: pytest.FixtureRequest) -> Observed:
    """Two `mcp-serve` processes without --session, on a project with no session yet, propose
    drafts of two files at the same moment (3 rounds, each on a fresh copy)."""
    tmp_path: Path = request.getfixturevalue("tmp_path")
    rounds: list[int] = []
    together: list[bool] = []
    other = "modules/shop/master/customer/entity.yaml"

    async def one_round(number: int) -> None:
        project = barbershop(tmp_path / f"round-{number}")
        with open(tmp_path / "stderr.txt", "a", encoding="utf-8") as errlog:
            async with Client(stdio_client(serve_params(project), errlog=errlog)) as first, \
                    Client(stdio_client(serve_params(project), errlog=errlog)) as second:
                a, b = Tools(first), Tools(second)
                text_b = (project / "spec" / other).read_text(encoding="utf-8") + "# from B\n"
                async with anyio.create_task_group() as group:
                    group.start_soon(_propose, a, SERVICE, edited_service(project))
                    group.start_soon(_propose, b, other, text_b)
                _, listed = await a("list_drafts")
                together.append(sorted(d["path"] for d in listed["drafts"]) == sorted([SERVICE, other]))
        rounds.append(len(_sessions(project / ".formspec" / "consult")))

    async def main() -> None:
        with anyio.fail_after(150):
            for number in range(3):
                await one_round(number)

    anyio.run(main)
    return {"sessions_per_round": rounds, "both_drafts_in_one_session": all(together)}


async def _propose(tools: Tools, path: str, content: str) -> None:
    await tools("propose_spec_file", path=path, content=content)


@scenario
def malformed_requests_on_stdio(request: pytest.FixtureRequest) -> Observed:
    """Raw JSON-RPC lines to `mcp-serve` over stdio: `params` as a list, a lone surrogate in a
    string, a line that is not JSON; each must be answered within 5 s, and the server goes on."""
    import json
    import select
    import time

    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = barbershop(tmp_path)
    params = serve_params(project, "--session", "20261202-080000-wire")
    process = subprocess.Popen([params.command, *params.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=params.env)
    stdin, stdout = process.stdin, process.stdout
    assert stdin is not None and stdout is not None

    def send(line: str) -> None:
        stdin.write(line.encode("utf-8") + b"\n")
        stdin.flush()

    def answer(within: float) -> tuple[dict[str, Any] | None, float]:
        started = time.monotonic()
        ready, _, _ = select.select([stdout], [], [], within)
        line = stdout.readline() if ready else b""
        return (json.loads(line) if line else None), time.monotonic() - started

    try:
        send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}))
        initialised, _ = answer(60)
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ["list_drafts"]}))
        as_list, list_took = answer(5)
        send('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "validate_spec", '
             '"arguments": {"yaml": "a: \\ud800"}}}')
        surrogate, surrogate_took = answer(5)
        send("this is not json")
        not_json, _ = answer(5)
        send(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}))
        after, _ = answer(30)
    finally:
        process.kill()
        process.communicate(timeout=30)  # reaps it and closes the pipes
    return {
        "initialised": bool(initialised and "result" in initialised),
        "list_params": (as_list or {}).get("error", {}).get("code"),
        "list_params_message": str((as_list or {}).get("error", {}).get("message")),
        "list_params_id": (as_list or {}).get("id"),
        "surrogate": (surrogate or {}).get("error", {}).get("code"),
        "surrogate_message": str((surrogate or {}).get("error", {}).get("message")),
        "not_json": (not_json or {}).get("error", {}).get("code"),
        "answered_at_once": list_took < 5 and surrogate_took < 5,
        "server_goes_on": bool(after and after.get("id") == 3 and after.get("result", {}).get("tools")),
    }
