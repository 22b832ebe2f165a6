"""Exceptions raised by the spec core (ordinary exceptions: callers turn them into tool errors)."""

from __future__ import annotations

from formspec_consult.errors import N_, UserError

__all__ = ["N_", "ProjectError", "SkillNotFound", "UnknownKind"]


class ProjectError(UserError):
    """The given path is not (inside) a FormSpec project, or the project cannot be read."""


class SkillNotFound(LookupError):
    """`read_skill` was asked for a name that no bundled or project skill carries."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        self.known = known
        listing = ", ".join(known) if known else "(none)"
        super().__init__(f"No skill named {name!r}. Known skills: {listing}.")


class UnknownKind(LookupError):
    """`kind_schema` was asked for a kind FormSpec does not define."""

    def __init__(self, kind: str, known: list[str]) -> None:
        self.kind = kind
        self.known = known
        super().__init__(f"Unknown kind {kind!r}. Known kinds: {', '.join(known)}.")
