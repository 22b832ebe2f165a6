"""One tiny tool-calling request, to prove a model answers and can call tools (`doctor --probe`)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from formspec_consult.providers.base import Completion, Provider, ProviderError, TextDelta, Usage

PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "ping",
        "description": "Answer a connectivity check. Always call this when asked to ping.",
        "parameters": {"type": "object", "properties": {"echo": {"type": "string"}}, "required": ["echo"]},
    },
}
PROBE_MESSAGES = [
    {"role": "system", "content": "You are a connectivity probe. Reply only by calling the ping tool."},
    {"role": "user", "content": "Call ping with echo set to 'formspec'."},
]


@dataclass(frozen=True)
class ProbeResult:
    """What the probe saw; `error` is set when the request failed."""

    seconds: float
    called_tool: bool = False
    text: str = ""
    usage: Usage | None = None
    error: ProviderError | None = None


async def probe(provider: Provider, timeout: float = 60.0) -> ProbeResult:
    """Send the probe request and report; never raises for provider failures."""
    started = time.monotonic()
    completion: Completion | None = None
    text = ""

    async def run() -> None:
        nonlocal completion, text
        async for item in provider.stream(list(PROBE_MESSAGES), [PROBE_TOOL]):
            if isinstance(item, TextDelta):
                text += item.text
            elif isinstance(item, Completion):
                completion = item

    try:
        await asyncio.wait_for(run(), timeout)
    except ProviderError as error:
        return ProbeResult(time.monotonic() - started, text=text, error=error)
    except TimeoutError:
        late = ProviderError(f"no answer within {timeout:.0f} s", hint="the provider is slow or unreachable")
        return ProbeResult(time.monotonic() - started, text=text, error=late)
    elapsed = time.monotonic() - started
    assert completion is not None
    called = any(call.name == "ping" for call in completion.tool_calls)
    return ProbeResult(elapsed, called, completion.text, completion.usage)
