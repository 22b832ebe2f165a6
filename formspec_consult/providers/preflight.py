"""What can be told about a model before the app opens, so an impossible start fails in the shell.

The app paints its first frame before litellm is imported (≈5 s): the model layer loads while the
person reads and types. A start that cannot work — a model name without a provider, no key, a
model litellm does not know and nothing said about it — would then open the whole app, say
`ready`, and fail a few seconds later. `check_before_start` finds those first, cheaply: the name
and the key are resolved without litellm, and a model is looked up in litellm's bundled model
map *read as a file*; only a name that map may not hold pays for litellm's import, to confirm
with the same capability check the engine runs.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from formspec_consult.config import Settings
from formspec_consult.i18n import _
from formspec_consult.providers.base import ProviderError
from formspec_consult.providers.capability import check_capability
from formspec_consult.providers.keys import missing_key_hint
from formspec_consult.providers.resolve import open_provider, resolve

MODEL_MAP = "model_prices_and_context_window_backup.json"  # litellm's bundled map (offline)


@lru_cache(maxsize=1)
def bundled_model_names() -> frozenset[str] | None:
    """The model names litellm's bundled map holds, read without importing litellm; None when
    the file cannot be found or read (then nothing is concluded from it)."""
    try:
        spec = importlib.util.find_spec("litellm")  # locates the package; imports nothing
        folders = list(spec.submodule_search_locations or []) if spec else []
        for folder in folders:
            path = Path(folder) / MODEL_MAP
            if path.is_file():
                return frozenset(json.loads(path.read_text(encoding="utf-8")))
    except (ImportError, OSError, ValueError):
        return None
    return None


def maybe_unknown(model: str) -> bool:
    """True when litellm's map holds neither `provider/model` nor `model` as given (litellm may
    still know it under another spelling: the caller confirms with litellm itself)."""
    names = bundled_model_names()
    if names is None:
        return False
    return not ({model, model.split("/", 1)[-1]} & names)


def check_before_start(settings: Settings, env: Mapping[str, str] | None = None) -> None:
    """Raise ProviderError (what to do in its hint) for a model that cannot start; return quickly
    for one that can, without importing litellm."""
    resolution = resolve(settings, env)
    if resolution.kind != "litellm":
        return  # scripted / replay: the engine reads their files and says what is wrong
    key = resolution.key
    if key is not None and not key.found:
        raise ProviderError(_("no API key for {account}").format(account=key.account), hint=missing_key_hint(key))
    if settings.allow_unvalidated or not maybe_unknown(resolution.model):
        return
    check_capability(open_provider(settings, env))  # litellm's own verdict, as the engine's
