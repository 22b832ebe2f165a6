"""The scripted provider: replies read from a YAML/JSON file, for tests, evals and demos.

Script format (YAML or JSON) — a list of turns, or a mapping with ``turns`` (and optionally
``context_window``, and ``images: true`` to play a model that takes images in tool results)::

    - text: "Hello! What does your business do?"
      expect: "barbershop"            # optional: the last user/tool message must contain this
    - tool_calls:
        - name: list_business_templates
          arguments: {}
    - "A bare string is a text-only turn."
    - error: {message: "rate limited", retryable: true}   # optional: fail this turn
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from formspec_consult.providers.base import ProviderError, Usage
from formspec_consult.providers.canned import DEFAULT_WINDOW, CannedProvider, CannedTurn, tool_call_from

_TURN_KEYS = {"text", "tool_calls", "expect", "usage", "error"}
_USAGE_KEYS = set(Usage.__dataclass_fields__)


def parse_turn(raw: Any, turn_no: int, where: str) -> CannedTurn:
    """Validate one scripted turn; errors name the file and the turn number."""
    if isinstance(raw, str):
        return CannedTurn(text=raw)
    if not isinstance(raw, Mapping):
        raise ProviderError(f"{where}: turn {turn_no} must be a mapping or a string", hint="see providers/scripted.py")
    unknown = set(raw) - _TURN_KEYS
    if unknown:
        raise ProviderError(
            f"{where}: turn {turn_no} has unknown key(s) {', '.join(sorted(map(str, unknown)))}",
            hint=f"use only {', '.join(sorted(_TURN_KEYS))}",
        )
    text = raw.get("text") or ""
    calls_raw = raw.get("tool_calls") or []
    if not isinstance(text, str) or not isinstance(calls_raw, list):
        raise ProviderError(f"{where}: turn {turn_no} needs text as a string and tool_calls as a list")
    if not text and not calls_raw and raw.get("error") is None:
        raise ProviderError(f"{where}: turn {turn_no} is empty", hint="give it text, tool_calls or error")
    calls = tuple(tool_call_from(c, turn_no, i, where) for i, c in enumerate(calls_raw) if isinstance(c, Mapping))
    if len(calls) != len(calls_raw):
        raise ProviderError(f"{where}: turn {turn_no} has a tool call that is not a mapping")
    usage = raw.get("usage")
    if usage is not None and (not isinstance(usage, Mapping) or set(usage) - _USAGE_KEYS):
        raise ProviderError(f"{where}: turn {turn_no} usage may only set {', '.join(sorted(_USAGE_KEYS))}")
    error = raw.get("error")
    if error is not None and not isinstance(error, Mapping):
        error = {"message": str(error)}
    expect = raw.get("expect")
    return CannedTurn(text=text, tool_calls=calls, expect=None if expect is None else str(expect), usage=usage, error=error)


class ScriptedProvider(CannedProvider):
    """Replies from a prepared script, streamed in chunks; see the module docstring for the format."""

    name = "scripted"

    def __init__(
        self,
        replies: list[Any],
        *,
        model: str = "scripted",
        context_window: int = DEFAULT_WINDOW,
        max_output_tokens: int | None = None,
        source: str = "the script",
        images: bool = False,
    ) -> None:
        turns = [r if isinstance(r, CannedTurn) else parse_turn(r, i + 1, source) for i, r in enumerate(replies)]
        super().__init__(
            turns, model=model, context_window=context_window, max_output_tokens=max_output_tokens, source=source,
            images=images,
        )

    @classmethod
    def from_file(
        cls, path: Path | str, *, context_window: int | None = None, max_output_tokens: int | None = None
    ) -> ScriptedProvider:
        """Load a script; `context_window` (e.g. from settings) overrides the file's own value."""
        path = Path(path)
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))  # JSON is valid YAML
        except FileNotFoundError:
            raise ProviderError(f"script not found: {path}", hint="check the path after 'scripted:'") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f" at line {mark.line + 1}" if mark is not None else ""
            raise ProviderError(f"{path}: not valid YAML/JSON{at}", hint="fix the script's syntax") from None
        window, images = DEFAULT_WINDOW, False
        if isinstance(data, Mapping):
            unknown = set(map(str, data)) - {"turns", "context_window", "images"}
            if unknown:
                raise ProviderError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}",
                                    hint="a script mapping holds only 'turns', 'context_window' and 'images'")
            images = data.get("images", False)
            if not isinstance(images, bool):
                raise ProviderError(f"{path}: images must be true or false")
            raw_window = data.get("context_window", window)
            if isinstance(raw_window, bool) or not isinstance(raw_window, int) or raw_window <= 0:
                raise ProviderError(f"{path}: context_window must be a whole number of tokens, e.g. 8000")
            window = raw_window
            data = data.get("turns")
        if not isinstance(data, list):
            raise ProviderError(f"{path}: a script is a list of turns (or a mapping with 'turns')")
        return cls(
            data,
            model=f"scripted:{path}",
            context_window=context_window or window,
            max_output_tokens=max_output_tokens,
            source=str(path),
            images=images,
        )
