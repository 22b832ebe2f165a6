"""The base of every error a person can fix: caught by type, said as its message and hint.

Every layer may raise one (this module imports nothing); the composition root catches `UserError`
and says it as a setup error (exit 2) instead of a traceback. A subclass keeps the standard base it
had too (`ValueError`, `RuntimeError`), so existing `except ValueError` handlers still see it.
"""

from __future__ import annotations


class UserError(Exception):
    """Something the person can fix. `str()` is the message, then ` — hint` when there is one."""

    hint: str = ""

    def __init__(self, *args: object, hint: str = "") -> None:
        super().__init__(*args)
        if hint:
            self.hint = hint

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base} — {self.hint}" if self.hint else base
