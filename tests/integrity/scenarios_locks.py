"""Concurrency: two real `mcp-serve` processes, two clients on one session."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.integrity.scenarios import Observed, scenario
from tests.integrity.scenarios_tamper import SERVICE, Tools, barbershop

CLI = Path(sys.executable).parent / "formspec-consult"
ROUNDS = 4


def serve_params(project: Path, *extra: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}
    return StdioServerParameters(command=str(CLI), args=["mcp-serve", "--project", str(project), *extra], env=env)


async def _servers(stack: AsyncExitStack, project: Path, errlog: Any, *sessions: str) -> list[Tools]:
    tools = []
    for session in sessions:
        client = await stack.enter_async_context(
            Client(stdio_client(serve_params(project, "--session", session), errlog=errlog))
        )
        tools.append(Tools(client))
    return tools


@scenario
def two_servers_apply_the_same_file_at_once(request: pytest.FixtureRequest) -> Observed:
    """Two mcp-serve processes on two sessions, each with a draft of the same file, apply at once."""
    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = barbershop(tmp_path)
    target = project / "spec" / SERVICE
    rounds: list[dict[str, Any]] = []

    async def main() -> None:
        with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as errlog, anyio.fail_after(100):
            async with AsyncExitStack() as stack:
                a, b = await _servers(stack, project, errlog, "20261201-100000-aaaa", "20261201-100000-bbbb")
                for number in range(ROUNDS):
                    base = target.read_text(encoding="utf-8")
                    await a("propose_spec_file", path=SERVICE, content=base + f"# from A, round {number}\n")
                    await b("propose_spec_file", path=SERVICE, content=base + f"# from B, round {number}\n")
                    outcomes: dict[str, tuple[bool, Any]] = {}

                    async def apply(name: str, tools: Tools, into: dict[str, tuple[bool, Any]]) -> None:
                        into[name] = await tools("apply_draft", file=SERVICE)

                    async with anyio.create_task_group() as group:
                        group.start_soon(apply, "A", a, outcomes)
                        group.start_soon(apply, "B", b, outcomes)
                    winners = [name for name, (ok, _) in outcomes.items() if ok]
                    losers = [str(result) for ok, result in outcomes.values() if not ok]
                    text = target.read_text(encoding="utf-8")
                    rounds.append({
                        "applied": len(winners),
                        "refusal": losers[0] if losers else "",
                        "file_has_the_winner": len(winners) == 1 and f"from {winners[0]}, round {number}" in text,
                    })
                    if len(winners) == 1:  # the loser's draft stays for review; clear it for the next round
                        loser = b if winners[0] == "A" else a
                        await loser("reject_draft", path=SERVICE)
                        undone, _ = await (a if winners[0] == "A" else b)("undo_apply")
                        rounds[-1]["winner_can_undo"] = undone
                        await (a if winners[0] == "A" else b)("propose_spec_file", path=SERVICE, content=text)
                        await (a if winners[0] == "A" else b)("apply_draft", file=SERVICE)

    anyio.run(main)
    return {
        "rounds_with_exactly_one_apply": sum(r["applied"] == 1 for r in rounds),
        "refusal": rounds[0]["refusal"],
        "winner_in_file": all(r["file_has_the_winner"] for r in rounds),
        "winner_can_undo": all(r.get("winner_can_undo") for r in rounds),
    }


def _wait_for(predicate: Any, what: str, timeout: float = 60.0) -> None:
    """A bounded wait for another process to reach a state (polls; fails after `timeout`)."""
    import time

    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting for {what}")
        time.sleep(0.05)


@scenario
def two_clients_on_one_session(request: pytest.FixtureRequest) -> Observed:
    """A headless client keeps a session open; a second `--resume` of it, then the first is killed."""
    import signal
    import subprocess

    from formspec_consult.store.events import load_events
    from tests.e2e.cli import cli_env, run_cli, write_script
    from tests.e2e.project import make_project

    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = make_project(tmp_path / "shop")
    env = cli_env(tmp_path)
    script = write_script(tmp_path / "s.yaml", ["One.", "Two.", "Three.", "Four."])
    model = ["-m", f"scripted:{script}"]
    first = run_cli([*model, "-p", "start"], project, env)
    assert first.returncode == 0, first.stderr
    (folder,) = [p for p in (project / ".formspec" / "consult").iterdir() if p.is_dir()]

    def holder(*extra: str) -> subprocess.Popen[str]:
        proc = subprocess.Popen([sys.executable, "-m", "formspec_consult", *model, "--resume", folder.name,
                                 "-p", "-", *extra], cwd=project, env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _wait_for(lambda: (folder / ".writer.json").exists() or proc.poll() is not None, "the first client")
        return proc

    keeper = holder()
    second = run_cli([*model, "--resume", folder.name, "-p", "me too"], project, env)
    keeper.communicate("hello from the first\n", timeout=60)
    killed = holder()
    killed.send_signal(signal.SIGKILL)
    killed.communicate(timeout=30)  # reaps it and closes its pipes
    after_kill = run_cli([*model, "--resume", folder.name, "-p", "after the kill"], project, env)
    seqs = [event["seq"] for event in load_events(folder / "events.jsonl")]
    return {
        "second_exit": second.returncode,
        "second_message": second.stderr.strip(),
        "second_names_holder": f"process {keeper.pid} (formspec-consult" in second.stderr,
        "first_exit": keeper.returncode,
        "after_kill_exit": after_kill.returncode,
        "seqs_unique_and_ordered": seqs == sorted(set(seqs)),
    }


@scenario
def mcp_serve_without_session(request: pytest.FixtureRequest) -> Observed:
    """External clients start `mcp-serve` without --session: a health check, then one process per
    conversation, then `--session new`."""
    from tests.integrity.scenarios_tamper import edited_service

    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = barbershop(tmp_path)
    consult = project / ".formspec" / "consult"

    def sessions() -> list[str]:
        return sorted(p.name for p in consult.iterdir() if p.is_dir()) if consult.is_dir() else []

    facts: dict[str, Any] = {}

    @asynccontextmanager
    async def conversation(*extra: str) -> AsyncIterator[Tools]:
        """One conversation of an external client: its own `mcp-serve` process, then it exits."""
        with open(tmp_path / "stderr.txt", "a", encoding="utf-8") as errlog:
            async with Client(stdio_client(serve_params(project, *extra), errlog=errlog)) as client:
                yield Tools(client)

    async def main() -> None:
        with anyio.fail_after(100):
            async with conversation() as health:  # a client checking the server is alive
                await health.client.list_tools()
                await health("list_drafts")
            facts["health_check_sessions"] = len(sessions())
            async with conversation() as one:
                facts["proposed"], _ = await one("propose_spec_file", path=SERVICE, content=edited_service(project))
            async with conversation() as two:
                _, listed = await two("list_drafts")
                facts["next_conversation_sees_the_draft"] = [d["path"] for d in listed["drafts"]] == [SERVICE]
                facts["applied"], _ = await two("apply_draft", file=SERVICE)
            async with conversation() as three:
                facts["undo_in_a_later_conversation"], _ = await three("undo_apply")
            first = sessions()
            async with conversation("--session", "new") as fresh:
                _, listed = await fresh("list_drafts")
                facts["new_starts_empty"] = listed["drafts"] == [] and listed["session"] not in first
                await fresh("propose_spec_file", path=SERVICE, content=edited_service(project))
                new_id = listed["session"]
            async with conversation() as later:
                _, listed = await later("list_drafts")
                facts["later_conversations_follow_the_new_one"] = listed["session"] == new_id

    anyio.run(main)
    facts["sessions"] = len(sessions())
    return facts
