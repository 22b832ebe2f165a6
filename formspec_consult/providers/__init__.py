"""Model providers: the only package that imports litellm, and only lazily.

Public API::

    open_provider(settings) -> Provider     # the documented decision tree (see resolve.py)
    check_capability(provider) -> None      # the minimum capability bar (see capability.py)
    ScriptedProvider, ReplayProvider        # offline providers
    Provider, ToolCall, Usage, TextDelta, Completion, ProviderError   # the contract (base.py)

Importing this package never imports litellm (a test checks it in a subprocess).
"""

from __future__ import annotations

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
from formspec_consult.providers.replay import ReplayProvider
from formspec_consult.providers.scripted import ScriptedProvider

if TYPE_CHECKING:
    from formspec_consult.providers.capability import check_capability
    from formspec_consult.providers.resolve import open_provider

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


def __getattr__(name: str) -> Any:
    # Resolution and capability pull in keyring and platform code: load them on first use.
    if name == "open_provider":
        from formspec_consult.providers.resolve import open_provider

        return open_provider
    if name == "check_capability":
        from formspec_consult.providers.capability import check_capability

        return check_capability
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
