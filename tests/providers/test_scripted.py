"""The scripted provider: replies from a file, streamed, checked against `expect`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from formspec_consult.providers.base import Completion, Provider, ProviderError, TextDelta
from formspec_consult.providers.scripted import ScriptedProvider

pytestmark = pytest.mark.anyio


async def _run(provider: Any, messages: list[dict[str, Any]], tools: Any = None) -> tuple[list[str], Completion]:
    deltas: list[str] = []
    completion: Completion | None = None
    async for item in provider.stream(messages, tools):
        assert completion is None, "nothing may follow the Completion"
        if isinstance(item, TextDelta):
            deltas.append(item.text)
        else:
            completion = item
    assert completion is not None
    return deltas, completion


USER = [{"role": "user", "content": "I run a barbershop in Bandung"}]


async def test_text_is_streamed_in_several_chunks_that_join_to_the_reply() -> None:
    text = "Hello! Tell me about your barbershop. A) walk-ins B) appointments"
    provider = ScriptedProvider([{"text": text}])
    deltas, completion = await _run(provider, USER)
    assert len(deltas) > 2
    assert "".join(deltas) == text == completion.text
    assert completion.finish_reason == "stop" and completion.tool_calls == ()
    assert isinstance(provider, Provider)


async def test_tool_calls_come_back_with_json_arguments_and_ids(tmp_path: Path) -> None:
    script = tmp_path / "s.yaml"
    script.write_text(
        "- tool_calls:\n"
        "    - name: list_business_templates\n"
        "      arguments: {}\n"
        "    - name: read_skill\n"
        "      id: call_x\n"
        "      arguments: {name: consulting}\n"
    )
    provider = ScriptedProvider.from_file(script)
    _, completion = await _run(provider, USER)
    assert [c.name for c in completion.tool_calls] == ["list_business_templates", "read_skill"]
    assert json.loads(completion.tool_calls[1].arguments) == {"name": "consulting"}
    assert completion.tool_calls[1].id == "call_x"
    assert len({c.id for c in completion.tool_calls}) == 2
    assert completion.finish_reason == "tool_calls"


async def test_usage_counts_prompt_tokens_offline_and_can_be_overridden() -> None:
    provider = ScriptedProvider(["short answer", {"text": "x", "usage": {"prompt_tokens": 999, "cached_tokens": 5}}])
    _, first = await _run(provider, USER)
    assert first.usage is not None
    assert first.usage.prompt_tokens == provider.count_tokens(USER) > 5
    assert first.usage.completion_tokens == 2 and first.usage.cost == 0.0
    _, second = await _run(provider, USER)
    assert second.usage is not None and (second.usage.prompt_tokens, second.usage.cached_tokens) == (999, 5)


async def test_running_out_of_replies_is_a_clear_error_naming_the_script(tmp_path: Path) -> None:
    script = tmp_path / "short.json"
    script.write_text(json.dumps(["only one"]))
    provider = ScriptedProvider.from_file(script)
    await _run(provider, USER)
    with pytest.raises(ProviderError, match=r"ran out of replies after 1 turn") as error:
        await _run(provider, USER)
    assert str(script) in error.value.hint


async def test_expect_catches_a_conversation_that_diverged_from_the_script() -> None:
    provider = ScriptedProvider([{"text": "ok", "expect": "barbershop"}, {"text": "ok", "expect": "bakery"}])
    await _run(provider, USER)
    with pytest.raises(ProviderError, match=r"turn 2 expected .*'bakery'.*barbershop"):
        await _run(provider, USER + [{"role": "assistant", "content": "bakery?"}, USER[0]])


async def test_expect_checks_the_last_tool_result_too() -> None:
    provider = ScriptedProvider([{"text": "ok", "expect": "valid: true"}])
    messages: list[dict[str, Any]] = [*USER,
        {"role": "assistant", "content": None, "tool_calls": [{"id": "1", "function": {"name": "t", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "1", "content": [{"type": "text", "text": "valid: true"}]},
    ]
    _, completion = await _run(provider, messages)
    assert completion.text == "ok"


async def test_a_scripted_error_turn_raises_a_provider_error() -> None:
    provider = ScriptedProvider([{"error": {"message": "rate limited", "hint": "wait", "retryable": True}}, "after"])
    with pytest.raises(ProviderError) as error:
        await _run(provider, USER)
    assert error.value.retryable and error.value.hint == "wait"
    _, completion = await _run(provider, USER)
    assert completion.text == "after"


def test_script_file_may_set_its_context_window_and_settings_override_it(tmp_path: Path) -> None:
    script = tmp_path / "s.yaml"
    script.write_text("context_window: 8000\nturns:\n  - hi\n")
    assert ScriptedProvider.from_file(script).context_window == 8000
    assert ScriptedProvider.from_file(script, context_window=32000).context_window == 32000


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- {txt: hello}\n", "turn 1 has unknown key"),
        ("- {}\n", "turn 1 is empty"),
        ("- tool_calls: [{arguments: {}}]\n", "has no 'name'"),
        ("- tool_calls: [{name: t, arguments: [1]}]\n", "not a mapping"),
        ("turns: text\n", "a script is a list of turns"),
        ("just: text\n", "unknown key"),
        ("context_window: big\nturns: [hi]\n", "context_window must be a whole number"),
        ("- [unclosed\n", "not valid YAML/JSON at line"),
    ],
)
def test_a_malformed_script_is_refused_with_the_file_and_turn(tmp_path: Path, text: str, expected: str) -> None:
    script = tmp_path / "bad.yaml"
    script.write_text(text)
    with pytest.raises(ProviderError, match=expected) as error:
        ScriptedProvider.from_file(script)
    assert str(script) in str(error.value)


def test_a_missing_script_says_which_path() -> None:
    with pytest.raises(ProviderError, match=r"script not found: /nope.yaml"):
        ScriptedProvider.from_file("/nope.yaml")
