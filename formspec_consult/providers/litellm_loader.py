"""The one place litellm gets imported, lazily, offline and quiet; plus what it knows of a model."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any


def load_litellm() -> ModuleType:
    """Import litellm (≈5 s the first time) with the bundled cost map and debug noise off."""
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # never download the cost map
    import litellm

    litellm.suppress_debug_info = True
    litellm.set_verbose = False
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
