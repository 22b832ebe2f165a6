"""Offline token counting for providers that are not litellm models (scripted, replay).

tiktoken downloads its BPE files unless they are cached; litellm ships the cl100k/o200k files
in its package, so we point ``TIKTOKEN_CACHE_DIR`` there (without importing litellm, which is
slow) and count with o200k. If even that fails, a cheap character estimate keeps things going.
"""

from __future__ import annotations

import importlib.util
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

PER_MESSAGE_OVERHEAD = 3  # role and separators, as in OpenAI's published counting recipe
PER_REQUEST_OVERHEAD = 3  # the primer of the assistant reply


class _Encoding(Protocol):
    def encode(self, text: str, *, disallowed_special: Any = ...) -> list[int]: ...


def litellm_tokenizer_dir() -> Path | None:
    """The folder of tiktoken files bundled with litellm, found without importing litellm."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    return folder if folder.is_dir() else None


@lru_cache(maxsize=1)
def _encoding() -> _Encoding | None:
    folder = litellm_tokenizer_dir()
    if folder is not None and not os.environ.get("CUSTOM_TIKTOKEN_CACHE_DIR"):
        os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)  # what litellm itself does on import
    try:
        import tiktoken

        for name in ("o200k_base", "cl100k_base"):
            try:
                return tiktoken.get_encoding(name)
            except Exception:  # noqa: BLE001 - a missing file means "try the next one"
                continue
    except ImportError:
        pass
    return None


def count_text(text: str) -> int:
    """Tokens in a piece of text (o200k, or about four characters per token as a fallback)."""
    if not text:
        return 0
    encoding = _encoding()
    if encoding is None:
        return max(1, len(text) // 4)
    return len(encoding.encode(text, disallowed_special=()))


def content_text(content: Any) -> str:
    """The text of a message's content, whether a string or a list of content blocks."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text", "") if isinstance(b, dict) else str(b) for b in content]
        return "\n".join(p for p in parts if p)
    return str(content)


def count_messages(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """Prompt tokens of a chat request: every message, its tool calls, and the tool declarations."""
    total = PER_REQUEST_OVERHEAD
    for message in messages:
        total += PER_MESSAGE_OVERHEAD + count_text(str(message.get("role", "")))
        total += count_text(content_text(message.get("content")))
        for call in message.get("tool_calls") or ():
            function = call.get("function", {}) if isinstance(call, dict) else {}
            total += count_text(str(function.get("name", ""))) + count_text(str(function.get("arguments", "")))
        if message.get("name"):
            total += count_text(str(message["name"]))
    if tools:
        total += count_text(json.dumps(tools, ensure_ascii=False, sort_keys=True))
    return total
