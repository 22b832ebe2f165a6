"""Every provider shares one base class: capabilities are attributes with defaults, never probed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import formspec_consult
from formspec_consult.providers import ReplayProvider, ScriptedProvider
from formspec_consult.providers.base import Completion, Provider, StreamItem, output_reserve
from formspec_consult.providers.litellm_provider import LiteLLMProvider
from tests.helpers import package_probes

PACKAGE = Path(formspec_consult.__file__).parent


class Minimal(Provider):
    """A provider that gives only what the contract requires."""

    name = "minimal"
    model = "minimal"

    @property
    def context_window(self) -> int:
        return 32_000

    @property
    def max_output_tokens(self) -> int:
        return 4096

    async def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamItem]:
        yield Completion(text="hi")


def test_a_provider_that_declares_nothing_gets_the_conservative_defaults() -> None:
    provider = Minimal()
    assert (provider.supports_images, provider.supports_cache_control, provider.offline) == (False, False, False)
    assert (provider.supports_tool_calling, provider.known_model, provider.allow_unvalidated) == (True, True, False)
    assert provider.secret_values() == ()
    provider.warm()  # nothing to load, and callable on any provider
    assert provider.count_tokens([{"role": "user", "content": "hello there"}]) > 0


def test_a_provider_without_its_window_or_stream_cannot_be_created() -> None:
    class Incomplete(Provider):
        name = "incomplete"

    with pytest.raises(TypeError, match="abstract"):
        Incomplete()  # type: ignore[abstract]


def test_every_provider_of_the_package_is_a_provider_and_says_its_capabilities() -> None:
    scripted = ScriptedProvider(["hi"], images=True)
    replay = ReplayProvider.from_events([{"type": "message", "message": {"role": "assistant", "content": "hi"}}])
    litellm = LiteLLMProvider("anthropic/claude-sonnet-4-5", api_key="sk-test-secret")
    assert all(isinstance(p, Provider) for p in (scripted, replay, litellm))
    assert scripted.offline and replay.offline and not litellm.offline
    assert scripted.supports_images and not replay.supports_images
    assert litellm.supports_cache_control and litellm.supports_images and litellm.secret_values() == ("sk-test-secret",)
    assert not LiteLLMProvider("openai/gpt-4o").supports_cache_control


def _provider_like(name: str) -> bool:
    """An object named like a provider (`provider`, `self.provider`…)."""
    return "provider" in name.lower() or name in {"consultant", "owner_model"}


def test_no_call_site_probes_a_provider_for_a_capability() -> None:
    offenders = package_probes(PACKAGE, _provider_like)
    assert offenders == [], "read capabilities as Provider attributes instead:\n" + "\n".join(offenders)


@pytest.mark.parametrize(
    ("window", "configured", "model_limit", "reserve"),
    [
        (200_000, None, None, 4096),  # large windows keep the default
        (16_384, None, None, 4096),
        (8192, None, None, 2048),  # a quarter of a small window, not 4,096 of 8,192
        (4096, None, None, 1024),
        (1024, None, None, 512),  # never below 512
        (8192, 6000, None, 6000),  # an explicit reserved_output is honoured
        (200_000, None, 1000, 1000),  # never above the model's own output limit
    ],
)
def test_the_output_reserve_is_in_proportion_to_small_windows(
    window: int, configured: int | None, model_limit: int | None, reserve: int
) -> None:
    assert output_reserve(window, configured, model_limit) == reserve


def test_a_local_model_with_a_small_window_reserves_a_quarter_of_it_for_output() -> None:
    provider = LiteLLMProvider("openai/local", api_base="http://127.0.0.1:9/v1", context_window=8192)
    assert provider.max_output_tokens == 2048
    assert LiteLLMProvider("openai/local", context_window=8192, reserved_output=4096).max_output_tokens == 4096
