"""The order of a session's start: everything independent side by side (the model's warm-up,
each MCP server, the context calls), the session usable while a server it does not need is
still starting, and a failed start leaves nothing behind."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml

from formspec_consult.agent.engine import opening as engine_opening
from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ScriptedProvider
from formspec_consult.providers.base import ProviderError
from formspec_consult.store.agent_events import Notice, TurnFinished
from formspec_consult.store.events import EventLog
from formspec_consult.store.review_results import DraftList
from tests.agent.engines import run
from tests.helpers import HeldWarmUp, trust_project

pytestmark = pytest.mark.anyio
FAKE = Path(__file__).parents[1] / "mcp_client" / "fake_server.py"


def configure(project: Path, **servers: dict[str, Any]) -> None:
    (project / ".formspec").mkdir(exist_ok=True)
    (project / ".formspec" / "consult.yaml").write_text(yaml.safe_dump({"mcpServers": servers}), encoding="utf-8")
    trust_project(project)


def gated(name: str, gate: Path, alive: Path | None = None) -> dict[str, Any]:
    """A configured fake server that serves only once `gate` exists (and says when it runs)."""
    env = {"PYTHONPATH": str(Path(__file__).parents[2]), "FAKE_SERVER_GATE": str(gate)}
    if alive is not None:
        env["FAKE_SERVER_ALIVE"] = str(alive)
    return {"command": sys.executable, "args": [str(FAKE), name], "env": env}


def offered(engine: Engine) -> list[set[str]]:
    """The tool names of each logged model request."""
    return [
        {t["function"]["name"] for t in event["tools"]}
        for event in EventLog.read(engine.session_dir / "events.jsonl")
        if event["type"] == "request" and "tools" in event
    ]


def state_of(engine: Engine, server: str) -> str:
    return next(s.state for s in engine.status().mcp if s.name == server)


async def test_the_session_answers_while_a_server_it_does_not_need_is_still_starting(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine_opening, "START_GRACE", 0.0)
    gate = tmp_path / "gate"
    configure(project, slow=gated("slow", gate), ghost={"command": str(tmp_path / "no-such-server")})
    provider = ScriptedProvider(["first answer", "second answer"])
    with anyio.fail_after(60):
        engine = await Engine.open(
            EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs)
        )
    try:
        assert state_of(engine, "slow") == "starting" and state_of(engine, "formspec") == "running"
        first = await run(engine, "hi")
        # The server that could not start is said at once; the slow one holds nothing back.
        assert any(isinstance(e, Notice) and "'ghost'" in e.message for e in first)
        assert first[-1] == TurnFinished("done")
        assert "echo" not in offered(engine)[0] and "propose_spec_file" in offered(engine)[0]

        gate.touch()  # the slow server comes up now
        with anyio.fail_after(60):
            while state_of(engine, "slow") != "running":  # noqa: ASYNC110 - a server process's state; bounded
                await anyio.sleep(0.02)
        second = await run(engine, "again")
        assert second[-1] == TurnFinished("done")
        assert "echo" in offered(engine)[1]  # offered from the next request on
    finally:
        with anyio.fail_after(30):
            await engine.aclose()


async def test_closing_while_a_server_is_still_starting_does_not_wait_for_it(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine_opening, "START_GRACE", 0.0)
    alive = tmp_path / "alive"
    configure(project, slow=gated("slow", tmp_path / "never", alive))
    engine = await Engine.open(
        EngineOptions(project=project, provider=ScriptedProvider([]), in_memory_server=True, servers=server_specs)
    )
    with anyio.fail_after(60):
        while not alive.exists():  # noqa: ASYNC110 - another process writes the file; bounded
            await anyio.sleep(0.02)
    pid = int(alive.read_text(encoding="utf-8"))
    # Well under the 10 s a running server is given to close by itself.
    with anyio.fail_after(5):
        await engine.aclose()
    assert state_of(engine, "slow") == "stopped"
    with pytest.raises(ProcessLookupError):
        import os

        os.kill(pid, 0)  # the process was ended and reaped, not left behind


async def test_the_model_warms_up_while_the_servers_start(project: Path, tmp_path: Path) -> None:
    """warm() (litellm's import) waits here until a configured server's process runs: were the
    servers started only after the warm-up, it would give up and the start would fail."""
    alive = tmp_path / "alive"
    configure(project, extra=gated("extra", tmp_path / "gate", alive))

    class Warming(ScriptedProvider):
        def warm(self) -> None:
            deadline = time.monotonic() + 60
            while not alive.exists():
                if time.monotonic() > deadline:
                    raise ProviderError("the servers did not start during the warm-up")
                time.sleep(0.02)
            (tmp_path / "gate").touch()
            self.warmed_in = threading.current_thread().name

    provider = Warming(["hello"])
    with anyio.fail_after(90):
        engine = await Engine.open(
            EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs)
        )
    try:
        assert provider.warmed_in != threading.main_thread().name  # off the event loop
        assert state_of(engine, "extra") == "running"
        assert (await run(engine, "hi"))[-1] == TurnFinished("done")
    finally:
        await engine.aclose()


async def test_a_refused_model_leaves_no_session_behind_though_the_servers_had_started(project: Path) -> None:
    options = EngineOptions(
        project=project,
        flags={"model": "mystery", "base_url": "http://127.0.0.1:9/v1"},
        in_memory_server=True,
        servers=server_specs,
    )
    with anyio.fail_after(120), pytest.raises(ProviderError, match="litellm does not know openai/mystery"):
        await Engine.open(options)
    assert not (project / ".formspec" / "consult").exists()


async def test_a_local_server_that_cannot_start_stops_the_session_start_and_leaves_nothing(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from formspec_consult.config import Settings
    from formspec_consult.mcp_client import ServerSpec

    def broken(settings: Settings, project_root: Path, session_id: str, *, in_memory: bool) -> list[ServerSpec]:
        return [ServerSpec(name="formspec", command=str(project_root / "no-such-server"))]

    options = EngineOptions(project=project, provider=ScriptedProvider([]), servers=broken)
    with anyio.fail_after(60), pytest.raises(Exception, match="'formspec' could not start"):
        await Engine.open(options)
    assert not (project / ".formspec" / "consult").exists()


def record_types(engine: Engine) -> list[str]:
    return [event["type"] for event in EventLog.read(engine.session_dir / "events.jsonl")]


async def test_an_engine_opened_before_its_model_layer_reads_at_once_and_writes_only_after_it(
    project: Path,
) -> None:
    from tests.e2e.project import CUSTOMER, DRAFT_PATH

    propose = {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}}]}
    first = ScriptedProvider([propose, "Here is the customer draft.\n\nA) Apply it\nB) Change it"])
    options = EngineOptions(project=project, provider=first, in_memory_server=True, servers=server_specs)
    with anyio.fail_after(60):
        engine = await Engine.open(options)
    try:
        assert (await run(engine, "customers please"))[-1] == TurnFinished("done")
    finally:
        await engine.aclose()
    before = record_types(engine)

    provider = HeldWarmUp(["Applied, thanks."])
    resumed = EngineOptions(
        project=project, provider=provider, in_memory_server=True, servers=server_specs, continue_latest=True
    )
    try:
        with anyio.fail_after(60):
            engine = await Engine.open(resumed, wait_for_model=False)
        # Open while the model layer loads: the earlier conversation, the options, the drafts.
        assert engine.status().model_loading and engine.status().window_tokens == 0
        assert any(getattr(e, "name", None) == "propose_spec_file" for e in engine.past_events())
        assert engine.last_options == ("A) Apply it", "B) Change it")
        with anyio.fail_after(30):
            drafts = DraftList.from_result(await engine.call_tool("list_drafts"))
        assert [d.path for d in drafts.drafts] == [DRAFT_PATH]
        engine.record_command("/status")
        # Nothing is written meanwhile: a write waits until the log's session_resumed is there.
        applying = asyncio.ensure_future(engine.call_tool("apply_draft", {"file": DRAFT_PATH}))
        for _ in range(20):
            await asyncio.sleep(0.01)
        assert not applying.done() and not (project / "spec" / DRAFT_PATH).exists()
        assert record_types(engine) == before

        provider.release.set()
        with anyio.fail_after(60):
            await engine.model_ready()
            await applying
        assert (project / "spec" / DRAFT_PATH).read_text(encoding="utf-8") == CUSTOMER
        assert not engine.status().model_loading and engine.status().window_tokens > 0
        new = record_types(engine)[len(before):]
        assert new[0] == "session_resumed" and new.index("command") < new.index("apply")
        assert (await run(engine, "thanks"))[-1] == TurnFinished("done")
    finally:
        provider.release.set()
        await engine.aclose()


async def test_a_new_session_closed_while_its_model_layer_loads_leaves_nothing(project: Path) -> None:
    provider = HeldWarmUp(["never said"])
    options = EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs)
    with anyio.fail_after(60):
        engine = await Engine.open(options, wait_for_model=False)
    try:
        assert engine.session_dir.is_dir() and engine.status().model_loading
    finally:
        with anyio.fail_after(30):
            await engine.aclose()  # the warm-up is still held: closing does not wait for it
        provider.release.set()
    assert not (project / ".formspec" / "consult").exists()
    with pytest.raises(asyncio.CancelledError):
        await engine.model_ready()


async def test_a_model_refused_after_the_engine_opened_is_raised_by_every_turn_and_leaves_nothing(
    project: Path,
) -> None:
    provider = HeldWarmUp([], refuse=ProviderError("the model cannot call tools", hint="pick one that can"))
    options = EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs)
    with anyio.fail_after(60):
        engine = await Engine.open(options, wait_for_model=False)
    try:
        provider.release.set()
        with anyio.fail_after(30), pytest.raises(ProviderError, match="cannot call tools"):
            await engine.model_ready()
        events = await run(engine, "hi")
        assert isinstance(events[0], Notice) and "cannot call tools" in events[0].message
        assert isinstance(events[-1], TurnFinished) and events[-1].reason == "error"
    finally:
        await engine.aclose()
    assert not (project / ".formspec" / "consult").exists()
    assert not provider.requests
