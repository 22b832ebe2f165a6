"""The one place litellm gets imported, lazily, offline and quiet; plus what it knows of a model."""

from __future__ import annotations

import gc
import importlib
import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any


@contextmanager
def _import_without_gc_then_freeze() -> Iterator[None]:
    """Pause the cyclic garbage collector for litellm's first import, then freeze what it built.

    The import creates about half a million long-lived objects (modules, classes, pydantic
    schemas) and hardly any garbage (a collection right after it finds ~2,000 unreachable objects,
    a few hundred kB). With the collector on, each full collection scans everything alive
    — ~0.2-0.3 s apiece once litellm is half loaded — and the import alone triggers six or seven:
    about a sixth of the import's CPU time, in a process the interpreter lock makes as slow as its
    CPU time. `gc.freeze()` then moves every object alive into the permanent generation, so later
    collections (the MCP client, the first request's lazy imports) scan only what is new. The
    collector's state is restored: a caller that had disabled it keeps it disabled.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def load_litellm() -> ModuleType:
    """Import litellm (≈5 s the first time) with the bundled cost map and debug noise off."""
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # never download the cost map
    first = "litellm" not in sys.modules
    with _import_without_gc_then_freeze() if first else nullcontext(), warnings.catch_warnings():
        # litellm's import-time warnings (pydantic schema notes…) are noise for our users, and
        # would paint over the TUI. The Copilot module is imported lazily by the first
        # acompletion() and warns too, so load it here, under the same filter.
        warnings.simplefilter("ignore")
        import litellm

        try:
            importlib.import_module("litellm.llms.github_copilot.per_user_auth")
        except Exception:  # noqa: BLE001 - only a warm-up; absent in other litellm versions
            pass

    # pydantic warns (at run time, when it lazily builds a schema) about litellm's ReadOnly
    # TypedDicts; printed to stderr it would paint over the TUI.
    warnings.filterwarnings("ignore", message=".*the `ReadOnly` qualifier", category=UserWarning)
    litellm.suppress_debug_info = True
    litellm.set_verbose = False  # type: ignore[attr-defined,unused-ignore]  # a module attribute litellm does not re-export
    return litellm


@dataclass(frozen=True)
class ModelFacts:
    """What litellm's model map says about a model; `known` is False for unmapped models."""

    known: bool
    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    tool_calling: bool | None = None  # None: litellm cannot tell
    prompt_caching: bool = False
    input_cost_per_token: float | None = None


@lru_cache(maxsize=64)
def model_facts(model: str) -> ModelFacts:
    """Look a model up in litellm's bundled map (no network)."""
    litellm = load_litellm()
    try:
        info: dict[str, Any] = dict(litellm.get_model_info(model))
    except Exception:  # noqa: BLE001 - litellm raises a variety of errors for unmapped models
        return ModelFacts(known=False)
    window = info.get("max_input_tokens") or info.get("max_tokens")
    if window is None:
        return ModelFacts(known=False)
    return ModelFacts(
        known=True,
        max_input_tokens=int(window),
        max_output_tokens=int(info["max_output_tokens"]) if info.get("max_output_tokens") else None,
        tool_calling=bool(info.get("supports_function_calling")),
        prompt_caching=bool(info.get("supports_prompt_caching")),
        input_cost_per_token=info.get("input_cost_per_token"),
    )
