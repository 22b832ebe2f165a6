"""The person's language: which one, its message catalogues, and numbers, dates and money in it.

Every person-facing string is written in English in the source and wrapped: ``_("Accept")``,
``ngettext("{n} draft", "{n} drafts", n).format(n=n)``, or ``N_("Accept")`` where a string is only
marked (a class attribute, a table) and translated where it is shown. The catalogues are gettext
``.po`` files under ``i18n/locale/<language>/LC_MESSAGES/``; their compiled ``.mo`` beside them is
what is read at run time (the standard library's ``gettext``: no start-up cost), and
``tests/i18n`` fails when a ``.mo`` no longer matches its ``.po``. ``make catalogues`` extracts,
updates and compiles them with Babel (``i18n/catalogues.py``); ``docs/translating.md`` says how
to add a language.

Text the *model* reads (prompts, tool descriptions and results, gate messages) is never
translated: the model is addressed in English whatever the person's language.

Which language: :func:`resolve_language` — the ``--lang`` flag, else the ``language`` setting
(its own layers: user config, project config, ``FORMSPEC_LANGUAGE``), else the locale
(``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, as gettext reads them), else English. The
command line resolves it once at start and calls :func:`use_language`; everything else reads
:func:`current_language`.

This layer imports nothing of ours but `errors`; Babel is imported only here, and only when a number, date
or amount is formatted (or the catalogues are built).
"""

from __future__ import annotations

import gettext as _gettext
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from pathlib import Path

from formspec_consult.errors import UserError, use_translator

DOMAIN = "formspec_consult"
SOURCE_LANGUAGE = "en"  # the language the msgids are written in
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

# The locale variables gettext reads, highest first (LANGUAGE is a list, and only counts when
# the locale is not C/POSIX).
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")


class UnknownLanguage(UserError, ValueError):
    """A language was asked for by name (flag or setting) that has no catalogue."""


@cache
def available_languages() -> tuple[str, ...]:
    """The languages with a complete interface: English and every language with a compiled catalogue."""
    found = {SOURCE_LANGUAGE}
    if LOCALE_DIR.is_dir():
        found.update(
            entry.name for entry in LOCALE_DIR.iterdir() if (entry / "LC_MESSAGES" / f"{DOMAIN}.mo").is_file()
        )
    return tuple(sorted(found))


_LOCALE_NAME = re.compile(r"^([A-Za-z]{2,3})(?:[_-]([A-Za-z]{2}|\d{3}))?(?:[.@].*)?$")


def _parts(name: str) -> tuple[str, str | None] | None:
    """("id", "ID") for "id_ID.UTF-8", "id-ID", "id"; None for anything else (C, POSIX, junk)."""
    match = _LOCALE_NAME.match(name.strip())
    if match is None:
        return None
    territory = match.group(2)
    return match.group(1).lower(), territory.upper() if territory else None


def normalize(name: str) -> str | None:
    """The available language a locale or language name means ("id_ID.UTF-8" → "id"), or None."""
    parts = _parts(name)
    if parts is None or parts[0] not in available_languages():
        return None
    return parts[0]


def check_language(name: str) -> str:
    """`name` as an available language code; raises :class:`UnknownLanguage` saying which exist."""
    language = normalize(name)
    if language is None:
        raise UnknownLanguage(
            _("unknown language {name!r}: the interface is available in {languages}").format(
                name=name, languages=", ".join(available_languages())
            )
        )
    return language


def _from_locale(environ: Mapping[str, str]) -> tuple[str, str | None]:
    """(language, the locale name it came from) as gettext would choose it from the environment."""
    locale = next((environ[var] for var in LOCALE_VARIABLES if environ.get(var)), "")
    if locale in {"", "C", "POSIX"} or locale.startswith(("C.", "POSIX.")):
        return SOURCE_LANGUAGE, None
    for name in [*environ.get("LANGUAGE", "").split(":"), locale]:
        language = normalize(name) if name else None
        if language is not None:
            return language, name
    return SOURCE_LANGUAGE, None


def locale_language(environ: Mapping[str, str] | None = None) -> str | None:
    """The language the locale of `environ` (default ``os.environ``) names, as gettext reads it
    (``LANGUAGE``'s first entry, else ``LC_ALL``, ``LC_MESSAGES``, ``LANG``), whether or not it has a
    catalogue: ``ms_MY.UTF-8`` → "ms" (whose interface falls back to English); None for C/POSIX."""
    environ = os.environ if environ is None else environ
    locale = next((environ[var] for var in LOCALE_VARIABLES if environ.get(var)), "")
    if locale in {"", "C", "POSIX"} or locale.startswith(("C.", "POSIX.")):
        return None
    for name in [*environ.get("LANGUAGE", "").split(":"), locale]:
        parts = _parts(name) if name else None
        if parts is not None:
            return parts[0]
    return None


def resolve_language(
    flag: str | None = None, setting: str | None = None, environ: Mapping[str, str] | None = None
) -> str:
    """The interface language: `flag` (``--lang``), else `setting` (the ``language`` setting),
    else the locale of `environ` (default ``os.environ``), else English.

    A flag or setting naming a language without a catalogue raises :class:`UnknownLanguage`
    (the person asked for it by name); a locale without one falls back to English quietly.
    """
    for asked in (flag, setting):
        if asked not in (None, ""):
            return check_language(asked)
    return _from_locale(os.environ if environ is None else environ)[0]


def format_locale(language: str, environ: Mapping[str, str] | None = None) -> str:
    """The locale numbers, dates and money are written in: the environment's own locale when it
    is of `language` (``en_GB`` keeps British dates), else the language itself ("id")."""
    environ = os.environ if environ is None else environ
    chosen, name = _from_locale(environ)
    parts = _parts(name) if name else None
    if chosen == language and parts is not None and parts[1] is not None:
        return f"{parts[0]}_{parts[1]}"
    return language


@dataclass
class _State:
    language: str
    locale: str
    translations: _gettext.NullTranslations


@cache
def _translations(language: str) -> _gettext.NullTranslations:
    if language == SOURCE_LANGUAGE:
        return _gettext.NullTranslations()
    return _gettext.translation(DOMAIN, localedir=str(LOCALE_DIR), languages=[language])


_state = _State(SOURCE_LANGUAGE, SOURCE_LANGUAGE, _gettext.NullTranslations())


def use_language(language: str, locale: str | None = None) -> None:
    """Make `language` the interface language of this process (`locale`: for numbers and dates,
    default the language itself). Raises :class:`UnknownLanguage` for one without a catalogue."""
    code = check_language(language)
    _state.language = code
    _state.locale = locale or code
    _state.translations = _translations(code)


def current_language() -> str:
    """The interface language in use ("en" until :func:`use_language` is called)."""
    return _state.language


def current_locale() -> str:
    """The locale numbers, dates and money are written in."""
    return _state.locale


def gettext(message: str) -> str:
    """`message` in the interface language (the empty string stays empty: gettext would answer
    it with the catalogue's header)."""
    return _state.translations.gettext(message) if message else message


_ = gettext
use_translator(gettext)  # the templates of errors raised below this layer (spec/, mcp_client/), said in it


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message that goes with the count `n`, in the interface language."""
    return _state.translations.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """`message` in the interface language, where the same English word means two things
    ("key": of the keyboard, or an API key) and `context` says which."""
    return _state.translations.pgettext(context, message)


def N_(message: str) -> str:
    """Mark `message` for the catalogues without translating it now (it is translated where shown)."""
    return message


# -- numbers, dates and money: Babel, in the interface locale ------------------------------------


def format_number(number: float, *, decimals: int | None = None) -> str:
    """`number` with the locale's grouping and decimal mark (`decimals`: exactly that many)."""
    from babel.numbers import format_decimal

    if decimals is None:
        return format_decimal(number, locale=_state.locale)
    pattern = "#,##0" + ("." + "0" * decimals if decimals else "")
    return format_decimal(number, format=pattern, locale=_state.locale, decimal_quantization=True)


def format_percent(fraction: float) -> str:
    """A fraction (0.75) as the locale writes a percentage."""
    from babel.numbers import format_percent as babel_percent

    return babel_percent(fraction, locale=_state.locale)


def format_money(amount: float, currency: str = "USD", *, decimals: int | None = None) -> str:
    """An amount of `currency` as the locale writes it; `decimals`: exactly that many digits
    (the fractions of a cent a model request costs) instead of the currency's usual ones."""
    import copy

    from babel import Locale
    from babel.numbers import format_currency

    if decimals is None:
        return format_currency(amount, currency, locale=_state.locale)
    locale = Locale.parse(_state.locale)
    pattern = copy.copy(locale.currency_formats["standard"])
    pattern.frac_prec = (decimals, decimals)
    formatted: str = pattern.apply(amount, locale, currency=currency, currency_digits=False)
    return formatted


def _local(moment: datetime) -> datetime:
    """An aware moment on the person's clock (the machine's time zone); a naive one as it is."""
    return moment.astimezone() if moment.tzinfo is not None else moment


def format_datetime(moment: datetime, *, length: str = "medium") -> str:
    """A date and time as the locale writes it (`length`: short, medium, long), in local time."""
    from babel.dates import format_datetime as babel_datetime

    return babel_datetime(_local(moment), format=length, locale=_state.locale)


def format_when(moment: datetime) -> str:
    """A moment in a list (sessions, undo history): the date with the month's short name and the
    time to the minute, in local time, joined as the locale joins them — "Dec 2, 2026, 1:30 PM",
    "2 Des 2026 13.30"."""
    from babel import Locale
    from babel.dates import format_skeleton, format_time

    moment = _local(moment)
    locale = Locale.parse(_state.locale)
    day = format_skeleton("yMMMd", moment, locale=locale, fuzzy=True)
    time = format_time(moment, "short", locale=locale)
    join = str(locale.datetime_formats["medium"])
    # CLDR's narrow no-break space ("1:30\u202fPM") is one cell wide but not every terminal font has it
    return join.replace("{1}", day).replace("{0}", time).replace("\u202f", " ").replace("\xa0", " ")


def format_date(day: date, *, length: str = "medium") -> str:
    """A date as the locale writes it."""
    from babel.dates import format_date as babel_date

    return babel_date(day, format=length, locale=_state.locale)


# -- any language by its code: the reply language (agent/language) ------------------------------


def language_code(name: str) -> str | None:
    """The ISO 639 code of any language Babel knows ("id", "id_ID", "id-ID", "JA" → "id", "ja"),
    or None — not only the languages with a catalogue: the consultant may reply in any."""
    from babel import Locale, UnknownLocaleError

    parts = _parts(name)
    if parts is None:
        return None
    try:
        return str(Locale.parse(parts[0]).language)
    except (UnknownLocaleError, ValueError):
        return None


def language_name(code: str, in_language: str | None = None) -> str:
    """The name of the language `code` in `in_language` (default: the interface language):
    "id" → "Indonesian" in English, "Indonesia" in Indonesian; the code itself when unknown."""
    from babel import Locale, UnknownLocaleError

    try:
        name = Locale.parse(code).get_display_name(in_language or _state.language)
    except (UnknownLocaleError, ValueError, TypeError):
        return code
    return name or code
