"""The person's editor for a draft: `$VISUAL`, else `$EDITOR`, else a common one on PATH.

The draft's text goes into a temporary file with the draft's name (so the editor picks YAML
highlighting), the editor runs in the terminal, and the saved text comes back — or None when the
editor could not start or exited with an error (then nothing changes). Clients (the TUI, which
hands the terminal over while it runs, and `formspec-consult edit`) send the result through the
review workflow; this module only runs the editor.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

FALLBACKS = ("nano", "vim", "vi")


class EditorError(RuntimeError):
    """No editor, or it failed: the message says what happened and what to set."""


def editor_command() -> list[str]:
    """The person's editor as a command line; EditorError when none is set or found."""
    for variable in ("VISUAL", "EDITOR"):
        value = os.environ.get(variable, "").strip()
        if value:
            return shlex.split(value)
    for name in FALLBACKS:
        if shutil.which(name):
            return [name]
    raise EditorError("No editor is set: set VISUAL or EDITOR (e.g. export EDITOR=nano) and try again.")


def edit_text(text: str, name: str) -> str | None:
    """Open `text` in the person's editor as a file called `name`; the saved text, or None when
    the editor exited with an error. EditorError when it cannot start."""
    command = editor_command()
    with tempfile.TemporaryDirectory(prefix="formspec-edit-") as folder:
        file = Path(folder) / Path(name).name
        file.write_text(text, encoding="utf-8")
        try:
            done = subprocess.run([*command, str(file)], check=False)
        except OSError as exc:
            raise EditorError(f"The editor {command[0]!r} could not start ({exc.strerror or exc}); "
                              "set VISUAL or EDITOR to one that is installed.") from exc
        if done.returncode != 0:
            return None
        return file.read_text(encoding="utf-8")
