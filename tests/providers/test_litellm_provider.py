"""The real litellm provider, driven against the fake OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

import pytest

from formspec_consult.config import Settings
from formspec_consult.providers import open_provider
from formspec_consult.providers.base import Completion, ProviderError, TextDelta
from formspec_consult.providers.errors import RetryPolicy
from formspec_consult.providers.litellm_provider import LiteLLMProvider, RetryNotice
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply

pytestmark = pytest.mark.anyio

USER = [{"role": "system", "content": "You are a consultant."}, {"role": "user", "content": "I run a barbershop"}]
TOOLS = [{"type": "function", "function": {"name": "propose_spec_file", "description": "Draft a spec file",
          "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]


class Sleeps:
    """Records requested waits instead of sleeping, so retry tests take no time."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def _provider(server: FakeOpenAIServer, sleeps: Sleeps | None = None, **kwargs: Any) -> LiteLLMProvider:
    kwargs.setdefault("retry", RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.02))
    return LiteLLMProvider("openai/fake", api_base=server.url, api_key="test-key", context_window=32_000,
                           sleep=sleeps or Sleeps(), **kwargs)


async def _collect(provider: Any, messages: list[dict[str, Any]] = USER, tools: Any = TOOLS) -> tuple[str, Completion]:
    text, completion = "", None
    async for item in provider.stream(messages, tools):
        if isinstance(item, TextDelta):
            text += item.text
        elif isinstance(item, Completion):
            completion = item
    assert completion is not None
    return text, completion


async def test_streamed_text_and_fragmented_tool_calls_are_assembled(fake_openai: FakeOpenAIServer) -> None:
    arguments = {"path": "modules/barbershop/entities/appointment.yaml", "content": "kind: Entity\n" * 5}
    fake_openai.queue(FakeReply(text="Let me draft the appointment entity.", chunk_size=4, tool_calls=[
        {"id": "call_a", "name": "propose_spec_file", "arguments": arguments},
        {"id": "call_b", "name": "list_skills", "arguments": {}},
    ]))
    text, completion = await _collect(_provider(fake_openai))
    assert text == completion.text == "Let me draft the appointment entity."
    assert [(c.id, c.name) for c in completion.tool_calls] == [("call_a", "propose_spec_file"), ("call_b", "list_skills")]
    assert json.loads(completion.tool_calls[0].arguments) == arguments
    assert completion.finish_reason == "tool_calls"
    sent = fake_openai.requests[0]
    assert sent.body["stream"] is True and sent.body["stream_options"] == {"include_usage": True}
    assert sent.body["tools"][0]["function"]["name"] == "propose_spec_file"
    assert sent.headers["authorization"] == "Bearer test-key"


async def test_provider_reported_usage_is_recorded_with_cached_tokens(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(text="ok", usage={"prompt_tokens": 1200, "completion_tokens": 30, "cached_tokens": 1000}))
    _, completion = await _collect(_provider(fake_openai))
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (1200, 30)
    assert completion.usage.cached_tokens == 1000 and completion.usage.reported is True
    assert completion.usage.cost is None  # the fake model has no price


async def test_cost_comes_from_litellm_price_map_for_known_models(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(text="ok", usage={"prompt_tokens": 1_000_000, "completion_tokens": 0}))
    provider = LiteLLMProvider("openai/gpt-4o", api_base=fake_openai.url, api_key="k")
    _, completion = await _collect(provider)
    assert completion.usage is not None and completion.usage.cost == pytest.approx(2.5)


async def test_429_is_retried_honouring_retry_after(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(status=429, retry_after="7"), FakeReply(text="second time lucky"))
    sleeps, notices = Sleeps(), list[RetryNotice]()
    provider = _provider(fake_openai, sleeps, on_retry=notices.append)
    text, completion = await _collect(provider)
    assert text == "second time lucky" and completion.raw["attempts"] == 2
    assert sleeps.delays == [7.0]
    assert len(notices) == 1 and isinstance(notices[0], RetryNotice) and "rate limited" in str(notices[0].error)
    assert len(fake_openai.requests) == 2


async def test_server_errors_back_off_exponentially_then_give_up(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(*[FakeReply(status=500, error="boom")] * 3)
    sleeps = Sleeps()
    provider = _provider(fake_openai, sleeps, retry=RetryPolicy(attempts=3, base_delay=1.0, max_delay=30))
    with pytest.raises(ProviderError) as error:
        await _collect(provider)
    assert error.value.retryable and "retry" in error.value.hint
    assert len(fake_openai.requests) == 3 and len(sleeps.delays) == 2
    assert 0.5 <= sleeps.delays[0] <= 1.0 and 1.0 <= sleeps.delays[1] <= 2.0


async def test_a_rejected_key_is_not_retried_and_points_to_auth_set(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(status=401, error="invalid api key"), FakeReply(text="never"))
    with pytest.raises(ProviderError, match="the API key was rejected") as error:
        await _collect(_provider(fake_openai))
    assert "formspec-consult auth set" in error.value.hint and not error.value.retryable
    assert len(fake_openai.requests) == 1


async def test_an_unknown_model_maps_to_a_model_not_found_hint(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(status=404, error="The model `fake` does not exist"))
    with pytest.raises(ProviderError, match="model not found: openai/fake") as error:
        await _collect(_provider(fake_openai))
    assert "doctor" in error.value.hint


async def test_a_stalled_server_times_out_and_is_retried(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(stall=True), FakeReply(text="awake"))
    text, _ = await _collect(_provider(fake_openai, request_timeout=2.0))
    assert text == "awake"


async def test_a_stream_that_dies_after_text_keeps_the_text_says_why_and_is_not_restarted(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.queue(FakeReply(text="partial answer that goes on", chunk_size=3, stall_after_chunks=3),
                      FakeReply(text="should not be requested"))
    text, completion = await _collect(_provider(fake_openai, request_timeout=2.0))
    assert text and completion.text == text and completion.finish_reason == "incomplete"
    assert completion.tool_calls == () and "stream broke off" in completion.raw["cut_short"]
    assert len(fake_openai.requests) == 1


async def test_a_stream_closed_without_finish_reason_keeps_its_text(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(text="the start of an answer", cut_short=True))
    text, completion = await _collect(_provider(fake_openai))
    assert completion.text == text == "the start of an answer" and completion.finish_reason == "incomplete"
    assert "no finish_reason" in completion.raw["cut_short"]


async def test_missing_usage_is_estimated_and_marked_so(fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_openai.queue(FakeReply(text="no usage here"))
    provider = _provider(fake_openai)
    original = provider._request

    def without_usage(messages: Any, tools: Any) -> dict[str, Any]:
        kwargs = original(messages, tools)
        kwargs.pop("stream_options")
        return kwargs

    monkeypatch.setattr(provider, "_request", without_usage)
    _, completion = await _collect(provider)
    assert completion.usage is not None and completion.usage.reported is False
    assert completion.usage.prompt_tokens == provider.count_tokens(USER, TOOLS) > 10


async def test_settings_with_a_local_base_url_reach_the_fake_server(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(text="hello from the endpoint"))
    provider = open_provider(Settings(model="fake", base_url=fake_openai.url, context_window=32_000), env={})
    text, _ = await _collect(provider, tools=None)
    assert text == "hello from the endpoint"
    assert fake_openai.requests[0].body["model"] == "fake" and "tools" not in fake_openai.requests[0].body


async def test_anthropic_requests_mark_the_stable_prefix_for_caching(monkeypatch: pytest.MonkeyPatch) -> None:
    from formspec_consult.providers.litellm_loader import load_litellm

    litellm = load_litellm()
    captured: dict[str, Any] = {}

    async def fake_acompletion(**kwargs: Any) -> Any:
        captured.update(kwargs)
        raise litellm.AuthenticationError("stop here", llm_provider="anthropic", model=kwargs["model"])

    monkeypatch.setattr(litellm, "acompletion", fake_acompletion)
    provider = LiteLLMProvider("anthropic/claude-sonnet-4-5", api_key="k")
    with pytest.raises(ProviderError, match="rejected"):
        await _collect(provider)
    system = captured["messages"][0]["content"]
    assert system[-1]["cache_control"] == {"type": "ephemeral"} and system[-1]["text"] == "You are a consultant."
    assert captured["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert USER[0]["content"] == "You are a consultant." and "cache_control" not in TOOLS[-1]  # inputs untouched


async def test_openai_requests_carry_no_cache_markers(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(text="ok"))
    await _collect(LiteLLMProvider("openai/gpt-4o", api_base=fake_openai.url, api_key="k"))
    body = fake_openai.requests[0].body
    assert body["messages"][0]["content"] == "You are a consultant." and "cache_control" not in body["tools"][-1]


def test_window_and_output_reservation_come_from_litellm_and_config() -> None:
    known = LiteLLMProvider("anthropic/claude-sonnet-4-5", reserved_output=4096)
    assert (known.context_window, known.max_output_tokens) == (200_000, 4096)
    assert LiteLLMProvider("deepseek/deepseek-chat", reserved_output=100_000).max_output_tokens == 8192
    assert LiteLLMProvider("openai/fake", context_window=20_000).context_window == 20_000
    with pytest.raises(ProviderError, match="does not know the context window") as error:
        _ = LiteLLMProvider("openai/fake").context_window
    assert "--context-window" in error.value.hint


async def test_a_consumer_that_stops_early_leaves_the_provider_usable(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(text="a long answer " * 20, chunk_size=5), FakeReply(text="next turn"))
    provider = _provider(fake_openai)
    stream = provider.stream(USER, TOOLS)
    assert isinstance(stream, AsyncGenerator)  # an async generator, closed as the app closes it
    first = await stream.__anext__()
    assert isinstance(first, TextDelta)
    await stream.aclose()
    text, _ = await _collect(provider)
    assert text == "next turn"


async def test_cancelling_a_stalled_stream_cancels_promptly_without_a_provider_error(
    fake_openai: FakeOpenAIServer,
) -> None:
    import anyio

    fake_openai.queue(FakeReply(text="starts then hangs", chunk_size=3, stall_after_chunks=2))
    provider = _provider(fake_openai, request_timeout=60)
    seen: list[str] = []
    got_text = anyio.Event()

    async def consume() -> None:
        async for item in provider.stream(USER, TOOLS):
            if isinstance(item, TextDelta):
                seen.append(item.text)
                got_text.set()

    with anyio.fail_after(10):  # the cancel must land while the stream hangs, and promptly
        async with anyio.create_task_group() as group:
            group.start_soon(consume)
            await got_text.wait()
            group.cancel_scope.cancel()
    assert seen and len(fake_openai.requests) == 1
