"""Rolling prompt-cache breakpoints, driven through the real litellm provider against a fake
Anthropic Messages server that refuses more than four markers and simulates the cache."""

from __future__ import annotations

import json
from typing import Any

import pytest

from formspec_consult.providers.base import Completion
from formspec_consult.providers.litellm_provider import LiteLLMProvider
from tests.fakes.anthropic_server import FakeAnthropicServer, request_blocks
from tests.fakes.openai_wire import FakeReply

pytestmark = pytest.mark.anyio

SYSTEM = "You are a FormSpec consultant. " + "Follow the house rules carefully. " * 200
TOOLS = [{"type": "function", "function": {"name": name, "description": f"The {name} tool",
          "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}
         for name in ("read_spec_file", "propose_spec_file")]


async def _ask(provider: LiteLLMProvider, messages: list[dict[str, Any]]) -> Completion:
    completion = None
    async for item in provider.stream(messages, TOOLS):
        if isinstance(item, Completion):
            completion = item
    assert completion is not None
    return completion


def _assistant(completion: Completion) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": completion.text}
    if completion.tool_calls:
        message["tool_calls"] = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                                 for c in completion.tool_calls]
    return message


async def _session(server: FakeAnthropicServer, turns: int) -> list[Completion]:
    """A discovery session: each turn the person says something, the model reads a file, then answers."""
    provider = LiteLLMProvider("anthropic/claude-sonnet-4-5", api_base=server.url, api_key="test-key")
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]
    completions = []
    for turn in range(turns):
        server.queue(FakeReply(tool_calls=[{"id": f"toolu_{turn}", "name": "read_spec_file",
                                            "arguments": {"path": f"modules/m{turn}.yaml"}}]),
                     FakeReply(text=f"Answer {turn}: " + "a detailed explanation " * 30))
        messages.append({"role": "user", "content": f"Question {turn} about my barbershop: " + "details " * 40})
        for _ in range(2):
            completion = await _ask(provider, messages)
            completions.append(completion)
            messages.append(_assistant(completion))
            for call in completion.tool_calls:
                messages.append({"role": "tool", "tool_call_id": call.id, "content": "kind: Module\n" * 40})
    return completions


async def test_a_long_session_reads_most_of_its_prompt_from_cache(fake_anthropic: FakeAnthropicServer) -> None:
    completions = await _session(fake_anthropic, turns=6)
    assert all(outcome.markers <= 4 for outcome in fake_anthropic.outcomes)
    usages = [c.usage for c in completions]
    assert all(u is not None and u.reported for u in usages)
    cached = [u.cached_tokens for u in usages if u is not None]
    prompt = [u.prompt_tokens for u in usages if u is not None]
    assert cached[0] == 0 and all(c > 0 for c in cached[1:])  # every request after the first reads a prefix
    assert [o.read_tokens for o in fake_anthropic.outcomes] == cached  # what the server read is what we record
    assert sum(cached[1:]) / sum(prompt[1:]) > 0.8


async def test_the_conversation_is_marked_at_the_last_two_user_side_messages(
    fake_anthropic: FakeAnthropicServer,
) -> None:
    await _session(fake_anthropic, turns=2)
    body = fake_anthropic.requests[-1].body  # turn 2, after its tool result
    marked = [b for b in request_blocks(body) if b.get("cache_control")]
    assert [b.get("name") for b in marked[:1]] == ["propose_spec_file"]  # the last tool declaration
    assert marked[1]["_part"] == "system" and marked[1]["text"] == SYSTEM
    assert marked[2]["type"] == "text" and marked[2]["text"].startswith("Question 1")  # the person's turn
    assert marked[3]["type"] == "tool_result" and marked[3]["tool_use_id"] == "toolu_1"  # the latest user side
    assert len(marked) == 4 and all(b["cache_control"] == {"type": "ephemeral"} for b in marked)


async def test_tools_system_and_two_user_turns_carry_exactly_four_markers_and_the_history_is_untouched(
    fake_anthropic: FakeAnthropicServer,
) -> None:
    provider = LiteLLMProvider("anthropic/claude-sonnet-4-5", api_base=fake_anthropic.url, api_key="test-key")
    fake_anthropic.queue("ok")
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "first"},
                {"role": "assistant", "content": "noted"}, {"role": "user", "content": "second"}]
    before = json.dumps(messages)
    completion = await _ask(provider, messages)
    assert completion.text == "ok" and fake_anthropic.outcomes[-1].markers == 4
    assert json.dumps(messages) == before  # the caller's history is never modified
