"""Tool errors are written for the model ("pass force: true", "propose_spec_file"); shown to the
person they are reworded into what the person can do, in their terms (`--force`, the consultant).
"""

from __future__ import annotations

import re
from typing import Literal

Surface = Literal["tui", "cli"]

_FORCE_APPLY = {
    "tui": "apply it anyway from a terminal with `formspec-consult apply {path} --force`",
    "cli": "add --force to apply it anyway",
}
_FORCE_UNDO = {
    "tui": "run `formspec-consult undo --force` in a terminal to restore the earlier version anyway",
    "cli": "run undo again with --force to restore the earlier version anyway",
}


def for_person(text: str, surface: Surface = "tui", path: str = "PATH") -> str:
    """`text` with the model's instructions replaced by the person's."""
    out = re.sub(r"pass force: true to (?:overwrite|apply it anyway)", _FORCE_APPLY[surface].format(path=path), text)
    out = re.sub(r"call undo_apply with force: true to restore the earlier version anyway",
                 _FORCE_UNDO[surface], out)
    out = out.replace("Fix the draft with propose_spec_file", "Ask the consultant to fix the draft")
    out = out.replace("Propose the draft again from the current file",
                      "Ask the consultant to propose the draft again from the current file")
    out = out.replace("Propose it first with propose_spec_file.", "Ask the consultant to draft it first.")
    return out
