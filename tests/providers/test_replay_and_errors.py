"""The replay provider, and the mapping of provider failures to hints."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest

from formspec_consult.providers import ReplayProvider
from formspec_consult.providers.base import Completion, ProviderError
from formspec_consult.providers.errors import RetryPolicy, map_error, retry_after_of

RECORDED: list[dict[str, Any]] = [
    {"type": "session_started", "model": "anthropic/claude-x"},
    {"type": "message", "message": {"role": "user", "content": "I run a barbershop"}},
    {"type": "message", "message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": "toolu_1", "type": "function", "function": {"name": "list_skills", "arguments": "{}"}}]}},
    {"type": "message", "message": {"role": "tool", "tool_call_id": "toolu_1", "content": "[]"}},
    {"type": "message", "message": {"role": "assistant", "content": [{"type": "text", "text": "A) walk-ins"}]}},
]


TOOLS = [{"type": "function", "function": {"name": "list_skills", "parameters": {"type": "object"}}}]


async def _complete(provider: ReplayProvider) -> Completion:
    items = [item async for item in provider.stream([{"role": "user", "content": "x"}], TOOLS)]
    assert isinstance(items[-1], Completion)
    return items[-1]


@pytest.mark.anyio
async def test_replay_plays_the_assistant_side_in_order_with_recorded_ids() -> None:
    provider = ReplayProvider.from_events(RECORDED)
    first = await _complete(provider)
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [("toolu_1", "list_skills", "{}")]
    assert (await _complete(provider)).text == "A) walk-ins"
    with pytest.raises(ProviderError, match="ran out of replies after 2"):
        await _complete(provider)


@pytest.mark.anyio
async def test_a_side_request_without_tools_fails_without_using_up_a_turn() -> None:
    provider = ReplayProvider.from_events(RECORDED)
    summary_request = [{"role": "system", "content": "Summarise"}, {"role": "user", "content": "..."}]
    with pytest.raises(ProviderError, match="not part of the recording"):
        async for _ in provider.stream(summary_request, None):
            pass
    assert provider.remaining == 2
    assert (await _complete(provider)).tool_calls[0].id == "toolu_1"


def test_a_session_log_with_a_torn_last_line_still_replays(tmp_path: Path) -> None:
    lines = [json.dumps(e) for e in RECORDED] + ['{"type": "message", "mess']
    (tmp_path / "events.jsonl").write_text("\n".join(lines))
    assert ReplayProvider.from_session_dir(tmp_path).remaining == 2


def test_a_damaged_or_empty_session_is_refused_clearly(tmp_path: Path) -> None:
    (tmp_path / "events.jsonl").write_text('not json\n{"type": "x"}\n')
    with pytest.raises(ProviderError, match="line 1 is not a valid event") as damaged:
        ReplayProvider.from_session_dir(tmp_path)
    assert str(damaged.value).count("the event log is damaged") <= 1
    (tmp_path / "events.jsonl").write_text('{"type": "session_started"}\n')
    with pytest.raises(ProviderError, match="holds no assistant messages"):
        ReplayProvider.from_session_dir(tmp_path)
    with pytest.raises(ProviderError, match="no recorded session"):
        ReplayProvider.from_session_dir(tmp_path / "nope")


class _Fake(Exception):
    def __init__(self, status: int | None = None, headers: dict[str, str] | None = None) -> None:
        super().__init__("something happened")
        self.status_code = status
        self.litellm_response_headers = headers


def _named(name: str, status: int | None = None) -> Exception:
    """An exception of class `name`, as litellm's are told apart (by name and status code)."""
    error: Exception = type(name, (_Fake,), {})(status)
    return error


@pytest.mark.parametrize(
    ("error", "message", "hint", "retryable"),
    [
        (_named("ContextWindowExceededError", status=400), "context window exceeded", "/compact", False),
        (_named("AuthenticationError", status=401), "rejected", "auth set anthropic", False),
        (_named("NotFoundError", status=404), "model not found", "doctor", False),
        (_named("RateLimitError", status=429), "rate limited", "wait", True),
        (_named("ServiceUnavailableError", status=503), "answered with error 503", "retry", True),
        (_named("APIConnectionError"), "cannot reach", "--base-url", True),
        (_named("Timeout", status=408), "timed out", "retry", True),
        (_named("BadRequestError", status=400), "bad request", "doctor", False),
        (_named("PaymentRequiredError", status=402), "out of credit", "top up", False),
        (ValueError("weird"), "ValueError: weird", "doctor", False),
    ],
)
def test_every_failure_maps_to_a_one_line_hint(error: Exception, message: str, hint: str, retryable: bool) -> None:
    mapped = map_error(error, model="anthropic/claude-x", account="anthropic")
    assert message in str(mapped) and hint in mapped.hint and mapped.retryable is retryable
    assert "\n" not in str(mapped)


def test_retry_after_is_read_as_seconds_or_as_an_http_date() -> None:
    assert retry_after_of(_Fake(429, {"retry-after": "12"})) == 12.0
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 <= (retry_after_of(_Fake(429, {"Retry-After": later})) or 0) <= 31
    assert retry_after_of(_Fake(429, {})) is None


def test_backoff_grows_is_capped_and_never_ignores_retry_after() -> None:
    policy = RetryPolicy(attempts=5, base_delay=1.0, max_delay=4.0, max_retry_after=60)
    assert all(0.5 <= policy.delay(1) <= 1.0 for _ in range(20))
    assert all(2.0 <= policy.delay(5) <= 4.0 for _ in range(20))
    assert policy.delay(1, retry_after=10) == 10 and policy.delay(1, retry_after=999) == 60
