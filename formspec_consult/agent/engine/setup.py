"""Building an engine's parts: the project, the usable window, the session folder.

Kept apart from :mod:`engine` so the Engine class reads as the contract it is. Which MCP servers a
session gets is decided by the composition root (`commands.wiring.server_specs`), handed in as
``EngineOptions.servers``: the agent never imports a server.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formspec_consult.providers.base import Provider, ProviderError, output_reserve
from formspec_consult.providers.resolve import explicit_reserve
from formspec_consult.store import layout

if TYPE_CHECKING:
    from formspec_consult.config import Settings

LOCAL = "formspec"  # the local server's name in status and tool routing
REGISTRY = "registry"


def resolve_project(project: Path | None) -> Path:
    """The project root (walking up from `project` or the cwd, as spec.open_project does); ProjectError
    propagates. Only the root is found here: the validator is the MCP servers' to load, not this process's."""
    from formspec_consult.spec.discovery import find_root

    return find_root(Path(project) if project is not None else Path.cwd()).resolve()


def consult_dir(project_root: Path) -> Path:
    return layout.consult_dir(project_root)


def reserved_output(settings: Settings, provider: Provider, window: int) -> int:
    """Tokens kept free for the answer: the provider's reserve, and no more than the settings'
    rule allows for this window (an explicit `reserved_output`, else 4,096 capped at a quarter)."""
    return min(provider.max_output_tokens, output_reserve(window, explicit_reserve(settings)))


def usable_window(settings: Settings, provider: Provider) -> tuple[int, int]:
    """(window, usable): the context window (config override first) and it minus reserved output."""
    window = int(settings.context_window or provider.context_window)
    return window, max(1024, window - reserved_output(settings, provider, window))


MIN_CONVERSATION_TOKENS = 1024  # room a consultation needs beyond the fixed prefix and the answer


def prefix_fit_error(
    provider: Provider,
    window: int,
    reserve_for: Callable[[int], int],
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
) -> ProviderError | None:
    """None when the fixed prefix (the leading system messages and `tools`, the largest offer the
    session may make: agent/engine/offer.py ConsultantOffer.largest_declarations) plus
    the output reserve (`reserve_for(window)`) leave room for a conversation in `window`; else the
    error to show at start, with the numbers and what to change, instead of sending requests the
    server must reject."""
    head = []
    for message in messages:
        if message.get("role") != "system":
            break
        head.append(message)
    system = provider.count_tokens(head, None)
    declarations = max(0, provider.count_tokens(head, tools) - system) if tools else 0
    prefix, reserved = system + declarations, reserve_for(window)
    room = window - prefix - reserved
    if room >= MIN_CONVERSATION_TOKENS:
        return None
    needed = window
    while needed - prefix - reserve_for(needed) < MIN_CONVERSATION_TOKENS:  # the reserve grows with the window
        needed += 1024
    needed = -(-needed // 1024) * 1024
    left = f"leaving only {room:,}" if room > 0 else "leaving nothing"
    said = (
        f"the fixed prompt does not fit the {window:,}-token context window: the system prompt "
        f"({system:,} tokens) and the tool declarations ({declarations:,}) the session may offer take {prefix:,}, and {reserved:,} "
        f"are reserved for the answer, {left} for the conversation (it needs at least {MIN_CONVERSATION_TOKENS:,})"
    )
    hint = (
        f"give the model a window of at least {needed:,} tokens — start the server with that context "
        f"(llama.cpp: --n_ctx {needed}) and pass --context-window {needed} (or context_window: in the config, "
        "FORMSPEC_CONTEXT_WINDOW) — or reserve less for the answer (reserved_output: in the config, "
        "FORMSPEC_RESERVED_OUTPUT)"
    )
    return ProviderError(said, hint=hint)
