"""Alt+letter from a real terminal reaches the app as alt+letter, B and F included.

A terminal (and tmux, which re-encodes every key it forwards) sends Alt+B as the two bytes
ESC b. Textual reads ESC b and ESC f as ctrl+left and ctrl+right (the readline / macOS
Option-arrow word moves), so alt+b and alt+f — options B and F — never fired outside Textual's
own pilot, while alt+a, alt+c … did. Without those two entries Textual's parser treats ESC b like
every other ESC letter: alt+b. A real ctrl+left (CSI 1;5D) is a sequence of its own and still
moves by words; the app moves by words on alt+b / alt+f while no option is on offer, so a
terminal that sends ESC b for Option+Left keeps that behaviour too.
"""

from __future__ import annotations

from typing import cast

META_WORD_MOVES = ("\x1bb", "\x1bf")  # ESC b, ESC f: what Textual reads as ctrl+left / ctrl+right
WORD_MOVE_OF_LETTER = {"b": "ctrl+left", "f": "ctrl+right"}


def read_meta_letters_as_alt() -> None:
    """Make Textual's parser report ESC b / ESC f as alt+b / alt+f (idempotent, process-wide)."""
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS

    table = cast("dict[str, object]", ANSI_SEQUENCES_KEYS)  # a plain dict, typed as a Mapping
    for sequence in META_WORD_MOVES:
        table.pop(sequence, None)
