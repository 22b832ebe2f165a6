"""Text from a model (or a server) made safe to print on a terminal.

A reply is text the person reads, never commands for their terminal: an escape sequence in it
could write the clipboard (OSC 52), clear the screen, retitle the window, hide or rewrite lines.
Every control character but newline and tab is shown as a visible escape (``\\x1b``) instead, so
nothing is lost and nothing is executed. C1 controls (U+0080-U+009F, e.g. the one-character CSI
and OSC) count too, and so do the bidirectional overrides that make text read differently
from what it is.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """``text`` with every control character except newline and tab written out as ``\\xNN``/``\\uNNNN``."""
    return _UNSAFE.sub(_visible, text)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
