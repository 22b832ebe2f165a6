"""Search text normalisation shared by both storage backends.

Both SQLite FTS5 and PostgreSQL index text that *we* normalised (lower case, accents removed,
a light plural/verb-ending stemmer, stop words dropped), so the two backends see exactly the same
terms and a query matches identically on either; only the ranking function differs (BM25 vs
ts_rank_cd). Multilingual matching comes from publisher-declared aliases, indexed with the
description — no AI and no language-specific dictionaries.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_WORD = re.compile(r"[a-z0-9]+")

# Words too common to help ranking, in English and Indonesian. Kept short on purpose: a stop
# word wrongly kept only costs a little ranking noise, a content word wrongly dropped loses hits.
STOP_WORDS = frozenset(
    """
    a an and any are as at be by can do for from has have how i in is it its me my need of on or
    our so that the their them they this to us we what when which who will with want would you your
    ada agar akan atau bisa buat dan dari dengan di ini itu ke kami kita mau oleh pada saya
    supaya untuk yang
    """.split()  # noqa: SIM905 - a word list reads better as text
)

MAX_QUERY_TERMS = 24


def fold(text: str) -> str:
    """Lower-case `text` and strip accents ("Café" → "cafe")."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def stem(word: str) -> str:
    """A deliberately light stemmer: English plurals and -ing/-ed endings only.

    Applied to both the indexed text and the query, so it needs to be consistent, not correct.
    """
    if len(word) <= 3 or word.isdigit():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ing") and len(word) > 5:
        return word[:-3]
    if word.endswith("ed") and len(word) > 4 and not word.endswith("eed"):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def terms(text: str, *, keep_stop_words: bool = False) -> list[str]:
    """The normalised search terms of `text`, in order (duplicates kept)."""
    words = _WORD.findall(fold(text))
    return [stem(w) for w in words if keep_stop_words or w not in STOP_WORDS]


def index_text(parts: Iterable[str]) -> str:
    """Normalise several pieces of text into one space-separated string for the index."""
    return " ".join(t for part in parts for t in terms(part, keep_stop_words=True))


def query_terms(query: str) -> list[str]:
    """Distinct normalised query terms, stop words removed, capped at MAX_QUERY_TERMS.

    Raises ValueError when nothing searchable is left, so the model gets a clear tool error.
    """
    unique = list(dict.fromkeys(terms(query)))
    if not unique:
        raise ValueError(
            f"The query {query!r} has no searchable words; describe the feature, e.g. "
            "'online payment' or 'pembayaran online'."
        )
    return unique[:MAX_QUERY_TERMS]
