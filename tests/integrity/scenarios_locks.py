"""Concurrency: two real `mcp-serve` processes, two clients on one session."""

from __future__ import annotations

import os
import sys
from contextlib import AsyncExitStack
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

                    async def apply(name: str, tools: Tools) -> None:
                        outcomes[name] = await tools("apply_draft", file=SERVICE)

                    async with anyio.create_task_group() as group:
                        group.start_soon(apply, "A", a)
                        group.start_soon(apply, "B", b)
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
