"""The real provider: any litellm model, streamed, with retries, caching hints and usage/cost.

litellm is imported on first use (never at module import), so creating the provider is instant
and the TUI can paint first. Retries happen only before the first streamed text: once the user
has seen part of an answer, a failure is reported instead of silently starting over.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from formspec_consult.providers.base import (
    INCOMPLETE,
    Completion,
    Provider,
    ProviderError,
    Retrying,
    StreamItem,
    TextDelta,
    ToolCall,
    Usage,
    output_reserve,
)
from formspec_consult.providers.errors import (
    RetryPolicy,
    is_context_overflow,
    map_error,
    retry_after_of,
    server_detail,
)
from formspec_consult.providers.keys import LOCAL_PLACEHOLDER_KEY, redact_url, url_secrets
from formspec_consult.providers.litellm_loader import ModelFacts, load_litellm, model_facts
from formspec_consult.providers.server_gone import gone_server
from formspec_consult.providers.stream_assembly import StreamAssembler
from formspec_consult.providers.tokens import count_messages, count_text

UNKNOWN_WINDOW_FALLBACK = 8192  # used only with --allow-unvalidated: compaction starts early, safely
CACHE_CONTROL_FAMILIES = ("anthropic/", "bedrock/", "vertex_ai/")  # explicit cache_control markers
# Providers whose APIs take images inside a tool result (litellm translates the OpenAI image_url
# parts of a tool message for them); OpenAI's chat API takes images only in user messages.
TOOL_IMAGE_PROVIDERS = frozenset({"anthropic", "bedrock", "vertex_ai", "vertex_ai_beta", "gemini"})


@dataclass(frozen=True)
class RetryNotice:
    """Told to `on_retry` before each wait, so a UI can say "rate limited, retrying in 4 s"."""

    attempt: int
    delay: float
    error: ProviderError


class LiteLLMProvider(Provider):
    """A :class:`~formspec_consult.providers.base.Provider` backed by ``litellm.acompletion``."""

    name = "litellm"

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        account: str = "",
        context_window: int | None = None,
        reserved_output: int | None = None,
        allow_unvalidated: bool = False,
        retry: RetryPolicy | None = None,
        request_timeout: float = 120.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        on_retry: Callable[[RetryNotice], None] | None = None,
    ) -> None:
        self.model = model
        self.api_base = api_base
        self._api_key = api_key  # never logged, never in repr
        self.account = account or model.split("/", 1)[0]
        self._window_override = context_window
        self.reserved_output = reserved_output  # None: the default, in proportion to the window
        self._allow_unvalidated = allow_unvalidated
        self.retry = retry or RetryPolicy()
        self.request_timeout = request_timeout
        self._sleep = sleep
        self.on_retry = on_retry

    def __repr__(self) -> str:
        return f"LiteLLMProvider(model={self.model!r}, api_base={redact_url(self.api_base)!r})"

    def secret_values(self) -> tuple[str, ...]:
        """Strings a log must mask (the API key), e.g. for ``EventLog.add_secret``."""
        key = (self._api_key,) if self._api_key and self._api_key != LOCAL_PLACEHOLDER_KEY else ()
        return key + url_secrets(self.api_base)  # a password or token written into --base-url

    def warm(self) -> None:
        """Import litellm and look the model up now (≈5 s the first time). Call it off the event
        loop — ``await asyncio.to_thread(provider.warm)`` — before reading `context_window`,
        so a UI keeps painting; everything after is instant."""
        _ = self.facts

    @property
    def facts(self) -> ModelFacts:
        """What litellm knows about the model (imports litellm on first use)."""
        return model_facts(self.model)

    @property
    def context_window(self) -> int:
        """Input tokens: the configured override, else litellm's `max_input_tokens`."""
        if self._window_override is not None:
            return self._window_override
        if self.facts.max_input_tokens is not None:
            return self.facts.max_input_tokens
        if self.allow_unvalidated:
            return UNKNOWN_WINDOW_FALLBACK
        raise ProviderError(
            f"litellm does not know the context window of {self.model}",
            hint="set context_window (--context-window N, FORMSPEC_CONTEXT_WINDOW or the config file)",
        )

    @property
    def max_output_tokens(self) -> int:
        """Tokens reserved for the answer (see :func:`~formspec_consult.providers.base.output_reserve`):
        an explicit `reserved_output`, else 4,096 capped at a quarter of the window; never more
        than the model's max output."""
        try:
            window = self.context_window
        except ProviderError:  # an unknown window: nothing to be in proportion to
            window = 4 * (self.reserved_output or 4096)
        return output_reserve(window, self.reserved_output, self.facts.max_output_tokens)

    @property
    def allow_unvalidated(self) -> bool:
        return self._allow_unvalidated

    @property
    def known_model(self) -> bool:
        return self.facts.known

    @property
    def supports_tool_calling(self) -> bool | None:
        return self.facts.tool_calling

    def count_tokens(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
        """litellm's offline counter for this model; our o200k count if litellm cannot."""
        litellm = load_litellm()
        try:
            return int(litellm.token_counter(model=self.model, messages=messages, tools=tools or None))
        except Exception:  # noqa: BLE001 - odd content shapes must not break counting
            return count_messages(messages, tools)

    @property
    def supports_images(self) -> bool:
        """Whether tool results may carry image parts: a vision model of a provider that takes them."""
        litellm = load_litellm()
        try:
            provider = litellm.get_llm_provider(self.model)[1]
            return provider in TOOL_IMAGE_PROVIDERS and bool(litellm.supports_vision(self.model))
        except Exception:  # noqa: BLE001 - an unknown model reads placeholders only
            return False

    @property
    def supports_cache_control(self) -> bool:
        """Anthropic-style explicit cache markers apply (other providers cache automatically)."""
        return self.model.startswith(CACHE_CONTROL_FAMILIES) and self.facts.prompt_caching

    def _request(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        if self.supports_cache_control:
            messages, tools = _mark_cache_prefix(messages, tools)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "max_tokens": self.max_output_tokens,
            "timeout": self.request_timeout,
            "num_retries": 0,  # we retry ourselves, with Retry-After and only before any output
            "max_retries": 0,
        }
        if tools:
            kwargs["tools"] = tools
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self._api_key:
            kwargs["api_key"] = self._api_key
        return kwargs

    async def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamItem]:
        """Stream one answer: TextDelta pieces, then one Completion with tool calls and usage."""
        litellm = await asyncio.to_thread(load_litellm)  # the first import is slow: keep the loop free
        kwargs = self._request(messages, tools)
        attempt = 0
        cut_short: str | None = None
        server_error: str | None = None
        while True:
            attempt += 1
            assembler = StreamAssembler()
            try:
                response = await litellm.acompletion(**kwargs)
                try:
                    async for chunk in response:
                        piece = assembler.feed(chunk)
                        if piece:
                            yield TextDelta(piece)
                finally:
                    await _close(response)  # also when the caller stops early or the turn is cancelled
                break
            except Exception as exc:
                failed = _mid_stream_failure(exc)  # the server's own words, when it gave any
                begun = failed is not None or assembler.chunks > 0  # the stream had started
                gone = gone_server(self.api_base, failed or str(exc)) if begun else None
                if assembler.text:  # the person has read part of it: keep it, say what happened
                    cut_short = gone or _cut_short_reason(exc, failed)
                    server_error = failed
                    break
                if gone is not None:  # a local server that crashed: restarting it is the fix
                    raise ProviderError(f"{self.model}: {gone}", hint="start the model server again, then "
                                        "send your message again") from exc
                if failed is not None:  # accepted, then failed (context exceeded, template error…)
                    raise self._failed_reply(failed, messages, tools) from exc
                error = map_error(exc, model=self.model, account=self.account, endpoint=self.api_base)
                if not error.retryable or attempt >= self.retry.attempts:
                    raise error from exc
                delay = self.retry.delay(attempt, retry_after_of(exc))
                if self.on_retry is not None:
                    self.on_retry(RetryNotice(attempt, delay, error))
                yield Retrying(attempt, delay, str(error).split(" — ")[0])  # a notice before the wait
                await self._sleep(delay)
        # A reply cut short keeps its text; its tool calls may be half-streamed, so none are run.
        calls = () if cut_short else assembler.tool_calls()
        if not cut_short and not assembler.text.strip() and not calls:
            # Nothing to show: some servers (llama-cpp-python) fail after sending the headers and
            # just close the stream; litellm then reports an ordinary `stop`. Never a silent turn.
            if assembler.nameless_calls:
                raise self._nameless_calls(assembler.nameless_calls)
            raise self._empty_reply(assembler.finish_reason, messages, tools)
        raw: dict[str, Any] = {"provider": self.name, "model": self.model, "attempts": attempt,
                               "chunks": assembler.chunks}
        if cut_short:
            raw["cut_short"] = cut_short
        if server_error:
            raw["server_error"] = server_error
        yield Completion(
            text=assembler.text,
            tool_calls=calls,
            usage=self._usage(assembler, calls, messages, tools),
            finish_reason=INCOMPLETE if cut_short else (assembler.finish_reason or "stop"),
            raw=raw,
        )

    def _fit_hint(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
        """What to change when the prompt may not fit the server's window, with the numbers."""
        tokens = self.count_tokens(messages, tools)
        try:
            window = f"{self.context_window:,}"
        except ProviderError:
            window = "unknown"
        return (
            f"this request is about {tokens:,} tokens plus {self.max_output_tokens:,} reserved for the answer, "
            f"and the context window is taken to be {window}: give the server a larger context "
            "(llama.cpp: --n_ctx / -c) and pass the same number with --context-window, or run /compact"
        )

    def _failed_reply(
        self, said: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> ProviderError:
        """The server accepted the request, then failed: say what it said (not retried: the
        same request fails the same way)."""
        where = f" at {redact_url(self.api_base)}" if self.api_base else ""
        if is_context_overflow(said):
            hint = self._fit_hint(messages, tools)
        else:
            hint = "the server's log has the details; `formspec-consult doctor` checks the setup"
        return ProviderError(f"{self.model}: the model server{where} failed partway through its reply: {said}",
                             hint=hint)

    def _nameless_calls(self, count: int) -> ProviderError:
        """A reply whose only content was tool calls with an empty name: nothing can be run."""
        where = f" at {redact_url(self.api_base)}" if self.api_base else ""
        calls = "a tool call" if count == 1 else f"{count} tool calls"
        return ProviderError(
            f"{self.model}: the model server{where} replied with {calls} without a tool name, so nothing "
            "could be run (a fault of the model's reply, not of the context window)",
            hint="send your message again; if it repeats, the model or its chat template does not handle "
            "tool calls well: try another model",
        )

    def _empty_reply(
        self, finish_reason: str | None, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> ProviderError:
        """A stream that ended with no text and no tool call."""
        where = f" at {redact_url(self.api_base)}" if self.api_base else ""
        said = f" (finish_reason: {finish_reason})" if finish_reason else ""
        return ProviderError(
            f"{self.model}: the model server{where} ended its reply without any text or tool call{said}",
            hint="the server's log says why (often a prompt that does not fit its context window, or a "
            "chat-template error); " + self._fit_hint(messages, tools),
        )

    def _usage(
        self, assembler: StreamAssembler, calls: tuple[ToolCall, ...], messages: list[dict[str, Any]], tools: Any
    ) -> Usage:
        reported = assembler.usage
        if reported is None or reported.prompt_tokens is None:
            # Nothing reported (some local servers): estimate, and say so with reported=False.
            prompt = self.count_tokens(messages, tools)
            completion = count_text(assembler.text) + sum(count_text(c.arguments) for c in calls)
            return Usage(prompt, completion, cost=self._cost(prompt, completion, 0), reported=False)
        prompt, completion = reported.prompt_tokens, reported.completion_tokens or 0
        return Usage(prompt, completion, cached_tokens=reported.cached_tokens,
                     cost=self._cost(prompt, completion, reported.cached_tokens), reported=True)

    def _cost(self, prompt: int, completion: int, cached: int) -> float | None:
        """Dollar cost from litellm's price map; None when the model has no known price."""
        if not self.facts.known or self.facts.input_cost_per_token is None:
            return None
        try:
            prompt_cost, completion_cost = load_litellm().cost_per_token(
                model=self.model, prompt_tokens=prompt, completion_tokens=completion,
                cache_read_input_tokens=cached,
            )
        except Exception:  # noqa: BLE001 - no price is not an error
            return None
        return float(prompt_cost) + float(completion_cost)


def _mid_stream_failure(exc: BaseException) -> str | None:
    """The server's message when it failed partway through a stream it had begun (an error
    frame after the 200), else None (a refused request, a timeout, a stream that just ended)."""
    if type(exc).__name__ != "MidStreamFallbackError":
        return None
    return server_detail(exc)


def _cut_short_reason(exc: BaseException, server_said: str | None = None) -> str:
    """Why a stream that had already shown text ended early, in words."""
    if server_said:
        return f"the model server failed partway through the reply: {server_said[:300]}"
    text = str(exc)
    if "finish_reason" in text:
        return "the provider closed the stream before finishing the reply (no finish_reason)"
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return f"the stream broke off ({first[:200]})"


async def _close(response: Any) -> None:
    """Release the HTTP stream of a litellm response (best effort)."""
    close = getattr(response, "aclose", None)
    if close is not None:
        try:
            await close()
        except Exception:  # noqa: BLE001 - cleanup must never mask the real outcome
            pass


MAX_CACHE_BREAKPOINTS = 4  # Anthropic refuses a request with more `cache_control` blocks
CACHE_MARKER: dict[str, str] = {"type": "ephemeral"}


def _mark_cache_prefix(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """Copies with rolling `cache_control` breakpoints; the inputs are left untouched.

    The stable prefix gets two: the last tool and the system prompt. The conversation gets the
    rest (at most :data:`MAX_CACHE_BREAKPOINTS` in all): the last user-side message (a user turn,
    or a tool result, which Anthropic's wire carries as a user turn), so the next request reads
    everything up to it from cache, and the user-side message before it, which the previous
    request marked, so this request reads that prefix back exactly.
    """
    messages = list(messages)
    used = 0
    if tools:
        tools = [*tools[:-1], {**tools[-1], "cache_control": dict(CACHE_MARKER)}]
        used += 1
    for index, message in enumerate(messages):
        if message.get("role") == "system":
            marked = _with_marker(message)
            if marked is not None:
                messages[index], used = marked, used + 1
            break
    user_side = [i for i, m in enumerate(messages) if m.get("role") in ("user", "tool")]
    for index in reversed(user_side[-2:]):
        if used >= MAX_CACHE_BREAKPOINTS:
            break
        marked = _with_marker(messages[index])
        if marked is not None:
            messages[index], used = marked, used + 1
    return messages, tools


def _with_marker(message: dict[str, Any]) -> dict[str, Any] | None:
    """`message` with a cache marker on its last content block; None if it has no content to mark.

    Tool results carry the marker on the message (litellm moves it onto the `tool_result`).
    """
    if message.get("role") == "tool":
        return {**message, "cache_control": dict(CACHE_MARKER)}
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) and content else copy.deepcopy(
        content if isinstance(content, list) else [])
    if not blocks:
        return None
    blocks[-1] = {**blocks[-1], "cache_control": dict(CACHE_MARKER)}
    return {**message, "content": blocks}
