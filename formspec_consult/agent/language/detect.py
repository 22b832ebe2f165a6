"""Which language a text is in: py3langid (a maintained fork of langid.py), offline, deterministic.

langid's model ships inside the package (97 languages, CJK included) and answers in a millisecond,
but loading it takes a second or two: :func:`warm` loads it in a thread when a session opens, and
:func:`detect` waits for that load when it has not finished.

What the consultant writes is rarely plain prose: file paths, field names, `code`, YAML blocks
and English entity names sit inside Indonesian sentences. Those are taken out before the text is
judged (:func:`prose`), and a verdict needs enough letters left and a clear probability — a mixed
reply ("Oke, draft Booking entity sudah ready") gives no verdict rather than a wrong one. Languages
the model confuses with each other (Indonesian and Malay) count as one for the checks.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Protocol

# Languages langid tells apart poorly; a verdict for one is a verdict for its family.
FAMILIES: tuple[frozenset[str], ...] = (
    frozenset({"id", "ms"}),
    frozenset({"zh", "wuu", "yue"}),
    frozenset({"hr", "sr", "bs"}),
    frozenset({"no", "nb", "nn", "da"}),
)
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.S)
# A word with a path, an identifier or markup in it: not prose in any language.
_NOT_PROSE = re.compile(r"https?://\S+|\S*[/\\_=<>{}\[\]#@|]\S*|\S+\.\S*[A-Za-z]\S*|\b[a-z]+[A-Z]\w*\b")


class _Identifier(Protocol):
    def rank(self, text: str) -> list[tuple[str, float]]: ...


@dataclass(frozen=True)
class Detection:
    """The likeliest language of a text (an ISO 639-1 code) and the probability of each family."""

    language: str
    probability: float  # of the language's family
    letters: int  # letters of prose judged
    ranked: tuple[tuple[str, float], ...]  # the five likeliest, highest first

    def probability_of(self, language: str) -> float:
        """The probability of `language` and the languages langid confuses it with."""
        family = family_of(language)
        return sum(p for code, p in self.ranked if code in family)


def family_of(language: str) -> frozenset[str]:
    """The languages counted as `language` (itself alone when it has no family)."""
    return next((family for family in FAMILIES if language in family), frozenset({language}))


def same_language(a: str, b: str) -> bool:
    """True when the codes name one language for these checks (id and ms, zh and yue, …)."""
    return b in family_of(a)


def prose(text: str) -> str:
    """The text without code, paths, identifiers and URLs: what its language is judged on."""
    return _NOT_PROSE.sub(" ", _CODE.sub(" ", text))


_lock = threading.Lock()
_loaded: list[_Identifier | None] = []  # the identifier once loaded (None: py3langid is missing)


def _identifier() -> _Identifier | None:
    """langid's identifier with normalised probabilities, loaded once (a second caller waits for
    the first); None when py3langid is not installed (then no language is ever detected)."""
    with _lock:
        if not _loaded:
            try:
                from py3langid.langid import MODEL_FILE, LanguageIdentifier
            except ImportError:
                _loaded.append(None)
            else:
                _loaded.append(LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True))
        return _loaded[0]


def available() -> bool:
    """True when the detector can run (py3langid is installed); loads it on first call."""
    return _identifier() is not None


def warm() -> None:
    """Load the model in a daemon thread now, so the first detection does not wait for it."""
    threading.Thread(target=_identifier, name="language-model", daemon=True).start()


def detect(text: str, *, min_letters: int = 20) -> Detection | None:
    """The language of `text`'s prose, or None when there is too little of it (fewer than
    `min_letters` letters) or the detector is not installed. Blocks while the model loads."""
    judged = prose(text)
    letters = sum(ch.isalpha() for ch in judged)
    if letters < min_letters:
        return None
    identifier = _identifier()
    if identifier is None:
        return None
    ranked = tuple((str(code), float(p)) for code, p in identifier.rank(judged)[:5])
    best = ranked[0][0]
    family = family_of(best)
    return Detection(best, sum(p for code, p in ranked if code in family), letters, ranked)
