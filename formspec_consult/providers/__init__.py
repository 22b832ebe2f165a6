"""Model providers: the only package that imports litellm, and only lazily.

Public API::

    open_provider(settings) -> Provider     # the documented decision tree (see resolve.py)
    check_capability(provider) -> None      # the minimum capability bar (see capability.py)
    ScriptedProvider, ReplayProvider        # offline providers
    Provider, ToolCall, Usage, TextDelta, Completion, ProviderError   # the contract (base.py)

Importing this package never imports litellm (a test checks it in a subprocess).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from formspec_consult.providers.base import (
    Completion,
    Provider,
    ProviderError,
    StreamItem,
    TextDelta,
    ToolCall,
    Usage,
)

if TYPE_CHECKING:
    from formspec_consult.providers.capability import check_capability
    from formspec_consult.providers.replay import ReplayProvider
    from formspec_consult.providers.resolve import open_provider
    from formspec_consult.providers.scripted import ScriptedProvider

__all__ = [
    "Completion",
    "Provider",
    "ProviderError",
    "ReplayProvider",
    "ScriptedProvider",
    "StreamItem",
    "TextDelta",
    "ToolCall",
    "Usage",
    "check_capability",
    "open_provider",
]


# Loaded on first use: resolution and capability pull in keyring and platform code, the offline
# providers the event log's records and YAML — none of which the TUI's first frame needs.
_HOMES = {
    "open_provider": "resolve",
    "check_capability": "capability",
    "ReplayProvider": "replay",
    "ScriptedProvider": "scripted",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # once loaded, a plain module attribute
    return value
