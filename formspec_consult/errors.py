"""The base of every error a person can fix: caught by type, said as its message and hint.

Every layer may raise one (this module imports nothing); the composition root catches `UserError`
and says it as a setup error (exit 2) instead of a traceback. A subclass keeps the standard base it
had too (`ValueError`, `RuntimeError`), so existing `except ValueError` handlers still see it.

A layer that may not import the catalogues (`spec/`, `mcp_client/`) gives its message as a
`template` (marked with a local ``N_``, so Babel extracts it) and its `fields`: `str()` says it in
the person's language once `i18n` has installed its translator (:func:`use_translator`), and
:meth:`UserError.untranslated` says it in English — for the model, which is always addressed in
English (a tool error).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping


def N_(message: str) -> str:
    """Mark a person-facing template for the catalogues (Babel extracts `N_`) in a layer that may
    not import `i18n`; `UserError` says it in the person's language when it is said."""
    return message


def _same(message: str) -> str:
    return message


_translate: list[Callable[[str], str]] = [_same]


def use_translator(translate: Callable[[str], str]) -> None:
    """How a template becomes the person's language (`i18n` installs its gettext when imported)."""
    _translate[0] = translate


class UserError(Exception):
    """Something the person can fix. `str()` is the message, then ` — hint` when there is one."""

    hint: str = ""
    template: str = ""  # the message's English catalogue id, formatted with `fields`
    fields: Mapping[str, object] = {}

    def __init__(
        self, *args: object, hint: str = "", template: str = "", fields: Mapping[str, object] | None = None
    ) -> None:
        if template and not args:
            args = (template.format(**(fields or {})),)  # the English message, as args[0] always was
        super().__init__(*args)
        if hint:
            self.hint = hint
        if template:
            self.template, self.fields = template, dict(fields or {})

    def _with_hint(self, base: str) -> str:
        return f"{base} — {self.hint}" if self.hint else base

    def __str__(self) -> str:
        if self.template:
            return self._with_hint(_translate[0](self.template).format(**self.fields))
        return self._with_hint(super().__str__())

    def untranslated(self) -> str:
        """The message (and hint) in English, whatever the person's language: what a model reads."""
        return self._with_hint(self.args[0] if self.template and self.args else super().__str__())
