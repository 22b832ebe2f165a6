"""The interface language of one run of the command line, decided once, before anything is said.

:func:`start_language` resolves it (``--lang``, else the ``language`` setting, else the locale,
else English: ``i18n.resolve_language``) and makes it the process's language; `cli.py` calls it
on the arguments before click parses them, so usage errors and ``--help`` are in it too.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import click

from formspec_consult.i18n import N_, UnknownLanguage, _, format_locale, resolve_language, use_language

# `_` and `N_` for cli.py, which imports only commands
__all__ = ["N_", "_", "interface_language", "localise_help", "start_language"]


def _option_value(args: Sequence[str], name: str) -> str | None:
    """The value of `--name X` / `--name=X` among the group's own arguments (before the sub-command)."""
    for index, arg in enumerate(args):
        if arg == "--":
            break
        if arg == name and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith(name + "="):
            return arg.partition("=")[2]
    return None


def interface_language(
    flag: str | None, project: Path | None = None, environ: Mapping[str, str] | None = None
) -> str:
    """The language of the interface for `flag` (``--lang``) in the project at or above `project`
    (default: the current folder). Raises ``i18n.UnknownLanguage`` for a flag or setting that
    names a language without a catalogue."""
    from formspec_consult.config import language_setting

    environ = os.environ if environ is None else environ
    setting = None if flag else language_setting(_project_root(project), env=environ)
    return resolve_language(flag, setting, environ)


def _project_root(project: Path | None) -> Path | None:
    try:
        from formspec_consult.spec.discovery import find_root

        return find_root(project or Path.cwd())
    except Exception:  # noqa: BLE001 - not a project (yet): only the user's settings count
        return None


def start_language(
    args: Sequence[str], environ: Mapping[str, str] | None = None, *, ctx: click.Context | None = None
) -> str:
    """Resolve the language of a command line's `args` and use it for this process; a ``--lang``
    or setting naming a language without a catalogue is a usage error (exit 2) saying which exist."""
    environ = os.environ if environ is None else environ
    project = _option_value(args, "--project")
    try:
        language = interface_language(_option_value(args, "--lang"), Path(project) if project else None, environ)
    except UnknownLanguage as exc:
        raise click.UsageError(str(exc), ctx) from None
    use_language(language, format_locale(language, environ))
    return language


def localise_help(command: click.Command) -> None:
    """The help of `command`'s options (and its sub-commands'), written as catalogue marks
    (``help=N_("…")``), in the interface language. Click shows an option's ``help`` as it is, so
    it is set here, from the English kept aside, each time a command is handed out."""
    for param in command.params:
        if isinstance(param, click.Option) and param.help:
            english = getattr(param, "_help_msgid", None) or param.help
            param._help_msgid = english  # type: ignore[attr-defined]
            param.help = _(english)
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            localise_help(sub)
