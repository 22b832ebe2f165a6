"""A real local model server as a peer: llama-cpp-python's OpenAI-compatible server (built from
PyPI's source package by tests/setup/40-llama.sh) with the Gemma 3 270M GGUF from PyPI, served
with ``--chat_format chatml-function-calling`` on loopback.

Through our engine and our litellm provider, exactly as a person's session runs: one streamed
turn, and one forced tool round trip (the call streamed, parsed, run through the local MCP
server, its result sent back in a history llama.cpp's strict chat template accepts, and the
answer streamed). Decoding is greedy (temperature 0, a fixed seed) so a run is repeatable.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers.keys import LOCAL_PLACEHOLDER_KEY
from formspec_consult.providers.litellm_provider import LiteLLMProvider
from formspec_consult.store.agent_events import AgentEvent, AssistantDelta, ToolCallFinished, TurnFinished
from formspec_consult.store.events import load_events
from tests.e2e.project import make_project

TOOLS = Path(__file__).resolve().parents[1] / ".tools" / "llama"
WINDOW = 8192  # the server's --n_ctx and our --context-window: the fixed prompt fits, with room
pytestmark = [pytest.mark.llama, pytest.mark.slow, pytest.mark.anyio, pytest.mark.timeout(1800)]


def _unavailable() -> str | None:
    """Why the server cannot run here, or None."""
    if (TOOLS / "ready").is_file() and (TOOLS / "venv" / "bin" / "python").is_file():
        return None
    if (TOOLS / "unavailable").is_file():
        return "llama.cpp server not built: " + (TOOLS / "unavailable").read_text(encoding="utf-8").strip()
    return "llama.cpp server not installed: run `make setup-test-tools` (tests/setup/40-llama.sh builds it)"


@dataclass
class LlamaServer:
    url: str
    log: Path
    process: subprocess.Popen[bytes]

    def state(self) -> str:
        """Whether the server process still runs, or how it ended (a crash shows as its signal)."""
        code = self.process.poll()
        if code is None:
            return "the llama.cpp server process is still running"
        if code < 0:
            return f"the llama.cpp server process is gone: killed by signal {signal.Signals(-code).name}"
        return f"the llama.cpp server process is gone: it exited with status {code}"


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    reason = _unavailable()
    if reason:
        pytest.skip(reason)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [
        str(TOOLS / "venv" / "bin" / "python"), "-m", "llama_cpp.server",
        "--model", str(TOOLS / "gemma3-270m-q4_k_m.gguf"), "--chat_format", "chatml-function-calling",
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(WINDOW), "--n_threads", "1",  # spinning thread barriers stall on a busy machine
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:  # bounded wait for the model to load
            if process.poll() is not None:
                pytest.fail(f"llama.cpp server exited with {process.returncode}: {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"llama.cpp server did not answer within 120 s: {log.read_text()[-2000:]}")
                time.sleep(0.2)
        yield LlamaServer(url, log, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


class GreedyLocalModel(LiteLLMProvider):
    """Our litellm provider, decoding greedily; `force` names a tool the next request must call
    (the server's grammar then makes the model write its arguments), after which it answers in text."""

    force: str | None = None
    sent: list[dict[str, Any]]

    def _request(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        kwargs = super()._request(messages, tools)
        kwargs.update(temperature=0.0, seed=7)
        if tools:
            forced = next((t["function"]["name"] for t in tools if self.force and t["function"]["name"].endswith(self.force)),
                          None)
            if self.force and forced is None:  # never let a forced call quietly become tool_choice none
                offered = ", ".join(t["function"]["name"] for t in tools)
                raise AssertionError(f"{self.force} is not offered to the consultant now (offered: {offered})")
            self.force = None
            kwargs["tool_choice"] = {"type": "function", "function": {"name": forced}} if forced else "none"
        self.sent.append(kwargs)
        return kwargs


async def _engine(project: Path, server: LlamaServer) -> tuple[Engine, GreedyLocalModel]:
    provider = GreedyLocalModel(
        "openai/gemma3-270m", api_base=server.url, api_key=LOCAL_PLACEHOLDER_KEY, context_window=WINDOW,
        reserved_output=48, allow_unvalidated=True, request_timeout=300,
    )
    provider.sent = []
    engine = await Engine.open(EngineOptions(project=project, provider=provider, in_memory_server=True,
                                             servers=server_specs, flags={"context_window": WINDOW}))
    return engine, provider


async def _turn(engine: Engine, text: str) -> list[AgentEvent]:
    with anyio.fail_after(600):
        return [event async for event in engine.run_turn(text)]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return make_project(tmp_path / "shop")


async def test_a_real_llama_cpp_server_streams_a_turn_then_round_trips_a_forced_tool_call(
    llama: LlamaServer, project: Path
) -> None:
    # One session for both turns: the server reuses its cache of the fixed prompt for the second.
    engine, provider = await _engine(project, llama)
    try:
        first = await _turn(engine, "Hello! I run a small barbershop. Say hello back in one sentence.")
        # A tool the consultant is offered in Discovery (list_skills waits for the first draft).
        provider.force = "list_kind_schemas"
        second = await _turn(engine, "Which kinds of spec file are there?")
        session_dir = engine.session_dir
    finally:
        await engine.aclose()
    server_log = "\n".join(line for line in llama.log.read_text(errors="replace").splitlines()
                           if line.startswith(("INFO", "Exception", "ValueError", "Traceback", "Llama.generate")))
    server_log = f"{llama.state()}\n{server_log}"  # a crash (e.g. SIGSEGV in libggml) says so first

    deltas = [e.text for e in first if isinstance(e, AssistantDelta)]
    assert [e.reason for e in first if isinstance(e, TurnFinished)] == ["done"], server_log
    assert len(deltas) > 1 and "".join(deltas).strip()  # streamed in pieces, and not empty

    ran = [e for e in second if isinstance(e, ToolCallFinished)]
    end = [e for e in second if isinstance(e, TurnFinished)][-1]
    # The server took the history with the tool's result (no template or request error). What a
    # 270M model answers to it is not ours to test: it may be nothing, which we report as an
    # empty reply (an error the person sees, never a silent `done`).
    assert end.reason == "done" or "ended its reply without any text" in (end.error or ""), (end, server_log)
    # Streamed, parsed, run via MCP and answered. Whether a 270M model's arguments are right is not
    # ours to test: a tool error (a kind it made up) is a result the model reads, like a success.
    assert [e.name.endswith("list_kind_schemas") for e in ran] == [True] and ran[0].result.strip()
    assert len(provider.sent) == 3  # the first turn's answer, then the call and the answer to its result
    sent = provider.sent[2]["messages"]
    call_message = next(m for m in sent if m["role"] == "assistant" and m.get("tool_calls"))
    assert call_message["content"] == ""  # never `content: null`, which the server's template refuses
    assert any(m["role"] == "tool" and m["tool_call_id"] == call_message["tool_calls"][0]["id"] for m in sent)
    logged = load_events(session_dir / "events.jsonl")
    assert any(e["type"] == "tool_result" and e["name"] == ran[0].name and e["ok"] == ran[0].ok for e in logged)
