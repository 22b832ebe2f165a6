"""Search snippets, computed in Python so both backends return identical text.

The snippet is a short window of the module's own (original, un-normalised) description around
the first word that matches a query term, with matches wrapped in «…» markers.
"""

from __future__ import annotations

import re
from functools import lru_cache

from formspec_consult.registry.text import fold, stem

_TOKEN = re.compile(r"\w+|\W+")


@lru_cache(maxsize=65536)
def _norm(word: str) -> str:
    # Descriptions share most of their vocabulary, so caching the per-word work pays off.
    return stem(fold(word))


def make_snippet(text: str, query_terms: list[str], *, width: int = 24) -> str:
    """A window of about `width` words of `text` around the first match, matches marked."""
    wanted = set(query_terms)
    tokens = _TOKEN.findall(text)
    words = [i for i, tok in enumerate(tokens) if tok[0].isalnum() or tok[0] == "_"]
    if not words:
        return ""
    hits = [i for i in words if _norm(tokens[i]) in wanted]
    first = words.index(hits[0]) if hits else 0
    start_word = max(0, first - width // 3)
    end_word = min(len(words), start_word + width)
    start_tok, end_tok = words[start_word], words[end_word - 1] + 1
    hit_set = set(hits)
    body = "".join(
        f"«{tok}»" if i in hit_set else tok for i, tok in enumerate(tokens) if start_tok <= i < end_tok
    )
    prefix = "…" if start_word > 0 else ""
    suffix = "…" if end_word < len(words) else ""
    return f"{prefix}{body.strip()}{suffix}"
