"""The session's verify setting: findings shown (default), hidden (off), or an LLM review added (llm)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ScriptedProvider
from formspec_consult.store.agent_events import ToolCallFinished
from formspec_consult.store.events import EventLog
from tests.helpers import lifecycle_entity

pytestmark = pytest.mark.anyio

ORDER_PATH = "modules/shop/transaction/order/entity.yaml"
LINEAR_ORDER = lifecycle_entity(["open", "paid"], [("open", "paid", "pay")])
REVIEW = "- modules/shop/transaction/order/entity.yaml → state_machine: no cancelled state — add one"


async def propose_once(project: Path, verify: str, replies: list[Any]) -> tuple[dict[str, Any], ScriptedProvider, Engine]:
    provider = ScriptedProvider(replies)
    engine = await Engine.open(
        EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs, flags={"verify": verify})
    )
    try:
        with anyio.fail_after(30):
            events = [e async for e in engine.run_turn("Draft the order, please.")]
    finally:
        await engine.aclose()
    (finished,) = [e for e in events if isinstance(e, ToolCallFinished)]
    return json.loads(finished.result), provider, engine


def script(*middle: Any) -> list[Any]:
    call = {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": ORDER_PATH, "content": LINEAR_ORDER}}]}
    return [call, *middle, "Drafted."]


async def test_by_default_the_model_reads_the_verifiers_findings_in_the_propose_result(project: Path) -> None:
    result, provider, _ = await propose_once(project, "deterministic", script())
    assert [f["code"] for f in result["findings"]] == ["FSV-LIFECYCLE-NO-BRANCH"]
    assert "review" not in result
    assert "FSV-LIFECYCLE-NO-BRANCH" in provider.requests[-1][-1]["content"]


async def test_verify_off_hides_the_findings_from_the_model(project: Path) -> None:
    result, provider, _ = await propose_once(project, "off", script())
    assert "findings" not in result and result["blocking_problems"] == 0
    assert "FSV-" not in provider.requests[-1][-1]["content"]


async def test_verify_llm_sends_verify_draft_on_the_same_provider_and_returns_its_answer_in_one_result(
    project: Path,
) -> None:
    result, provider, engine = await propose_once(project, "llm", script(REVIEW))
    assert result["review"] == REVIEW and result["findings"]
    side = provider.requests[1]  # the verify request: system + user, no conversation history
    assert len(side) == 2 and "second reader" in side[0]["content"]
    assert LINEAR_ORDER.strip() in side[1]["content"] and "FSV-LIFECYCLE-NO-BRANCH" in side[1]["content"]
    tool_messages = [m for m in provider.requests[-1] if m["role"] == "tool"]
    assert len(tool_messages) == 1 and REVIEW in tool_messages[0]["content"]
    events = list(EventLog.read(engine.session_dir / "events.jsonl"))
    assert [e["purpose"] for e in events if e["type"] == "side_reply"] == ["verify"]
    (side_reply,) = [e for e in events if e["type"] == "side_reply"]  # usage keys even when none was reported
    assert list(side_reply)[4:] == ["purpose", "prompt", "text", "prompt_tokens", "completion_tokens",
                                    "cached_tokens", "cost"]
    assert side_reply["text"] == REVIEW and side_reply["prompt"].startswith("verify-draft@")
    assert [e["verify"] for e in events if e["type"] == "session_started"] == ["llm"]


async def test_a_bad_verify_setting_is_a_clear_error(project: Path) -> None:
    from formspec_consult.config import ConfigError

    with pytest.raises(ConfigError, match=r"verify.*off, deterministic, llm"):
        await Engine.open(EngineOptions(project=project, provider=ScriptedProvider([]), in_memory_server=True, servers=server_specs,
                                        flags={"verify": "sometimes"}))
