"""The minimum capability bar: tool calling and a 16k usable window, with an explicit override."""

from __future__ import annotations

import pytest

from formspec_consult.config import Settings
from formspec_consult.providers import ScriptedProvider, check_capability, open_provider
from formspec_consult.providers.base import ProviderError
from formspec_consult.providers.capability import assess
from formspec_consult.providers.litellm_provider import LiteLLMProvider


def test_a_known_tool_calling_model_with_a_big_window_passes() -> None:
    check_capability(LiteLLMProvider("anthropic/claude-sonnet-4-5"))
    verdict = assess(LiteLLMProvider("openai/gpt-4o"))
    assert verdict.ok and verdict.tool_calling is True and verdict.usable_window == 128_000 - 4096


def test_a_small_window_is_refused_with_the_numbers_and_the_override() -> None:
    with pytest.raises(ProviderError) as error:
        check_capability(LiteLLMProvider("openai/gpt-4o", context_window=12_000))
    # The default reserve is a quarter of a small window (3,000 of 12,000), not 4,096.
    assert "usable context window is 9,000 tokens (12,000 minus 3,000 reserved" in str(error.value)
    assert "--allow-unvalidated" in error.value.hint


def test_an_unknown_model_is_refused_and_told_to_set_its_window() -> None:
    provider = open_provider(Settings(model="mystery", base_url="http://127.0.0.1:9/v1"), env={})
    with pytest.raises(ProviderError, match="litellm does not know openai/mystery") as error:
        check_capability(provider)
    assert "--context-window" in error.value.hint and "--allow-unvalidated" in error.value.hint


def test_the_override_accepts_a_model_below_the_bar() -> None:
    settings = Settings(model="mystery", base_url="http://127.0.0.1:9/v1", allow_unvalidated=True)
    provider = open_provider(settings, env={})
    check_capability(provider)
    assert provider.context_window == 8192  # conservative when nothing is known
    check_capability(LiteLLMProvider("openai/gpt-4o", context_window=12_000), allow_unvalidated=True)


def test_a_configured_window_still_needs_the_override_for_an_unknown_model() -> None:
    provider = LiteLLMProvider("openai/mystery", context_window=100_000)
    verdict = assess(provider)
    assert not verdict.ok and verdict.tool_calling is None and verdict.usable_window == 100_000 - 4096
    with pytest.raises(ProviderError, match="tool calling cannot be confirmed"):
        check_capability(provider)


def test_offline_providers_always_pass() -> None:
    check_capability(ScriptedProvider(["hi"], context_window=8000))
