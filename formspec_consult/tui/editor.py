"""ctrl+g: write the message in the person's own editor ($VISUAL, else $EDITOR).

The fallback for whatever the prompt does badly in some terminal — an input method that will not
compose there, a long message, a paste the terminal mangles: the app hands the terminal to the
editor (`App.suspend`) with the message in a temporary file, and takes the file back as the
message once the editor exits. An editor that fails (exit code, cannot start) or leaves the file
empty changes nothing: the message stays as it was, and a notification says why.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from formspec_consult.i18n import gettext as _

if TYPE_CHECKING:
    from textual.widgets import TextArea


def editor_command(environ: Mapping[str, str] | None = None) -> list[str] | None:
    """The editor's command line ($VISUAL, else $EDITOR, split like a shell would), or None."""
    environ = os.environ if environ is None else environ
    for name in ("VISUAL", "EDITOR"):
        value = environ.get(name, "").strip()
        if value:
            try:
                return shlex.split(value)
            except ValueError:
                return [value]
    return None


def _run(prompt: TextArea, command: list[str]) -> int:
    """Run the editor on the file (the last argument) with the terminal handed over to it."""
    from textual.app import SuspendNotSupported

    try:
        with prompt.app.suspend():
            return subprocess.run(command, check=False).returncode
    except SuspendNotSupported:  # no terminal to hand over (an app run headless, in tests)
        return subprocess.run(command, check=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode


def edit_in_editor(prompt: TextArea) -> None:
    """Open the prompt's text in the editor; the edited text replaces it unless the editor failed
    or left it empty (then nothing changes and the person is told why)."""
    notify = prompt.app.notify
    command = editor_command()
    if command is None:
        notify(_("Set $VISUAL or $EDITOR to write the message in your editor with ctrl+g."), severity="warning")
        return
    handle, name = tempfile.mkstemp(prefix="formspec-message-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(prompt.text)
        try:
            code = _run(prompt, [*command, str(path)])
        except OSError as exc:
            notify(_("Could not start the editor {editor}: {why}. The message is left as it was.").format(
                editor=command[0], why=exc.strerror or exc), severity="error")
            return
        if code != 0:
            notify(_("The editor exited with code {code}: the message is left as it was.").format(code=code),
                   severity="warning")
            return
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            notify(_("Could not read what the editor wrote ({why}): the message is left as it was.").format(
                why=exc), severity="error")
            return
    finally:
        path.unlink(missing_ok=True)
    text = text.rstrip("\n")  # the final newline an editor adds is not part of the message
    if not text.strip():
        notify(_("The editor left the message empty: it is left as it was."), severity="warning")
        return
    prompt.load_text(text)
    prompt.move_cursor(prompt.document.end)
    prompt.focus()
