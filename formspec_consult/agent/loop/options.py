"""Options offered by the consultant (`A) …` or `1. …` lines) and picking one with a bare answer.

Two or more consecutive option lines form a choice; the last such block in a reply is the one the
user answers. A bare `b`, `B`, `B)` or `2.` answer becomes `[chosen: B) <full option text>]`, so
the decision is recorded verbatim and survives compression.
"""

from __future__ import annotations

import re

# "A) text", "a. text", "1) text", "1. text"; tolerant of a list bullet and markdown bold around the label.
_OPTION = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*)?(?P<label>[A-Za-z]|\d{1,2})[).](?:\*\*)?\s+(?P<text>\S.*)$")
_ANSWER = re.compile(r"^\s*\(?(?P<label>[A-Za-z]|\d{1,2})[).]?\s*$")


def _label_key(label: str) -> str:
    return label.upper()


def find_options(text: str) -> tuple[str, ...]:
    """The last block of two or more consecutive option lines, each as `B) full text`."""
    blocks: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    for line in text.splitlines():
        match = _OPTION.match(line)
        if match:
            current.append((_label_key(match["label"]), match["text"].strip().rstrip("*").strip()))
            continue
        if line.strip() == "" and current:
            continue  # a blank line inside a list does not end it
        if len(current) >= 2:
            blocks.append(current)
        current = []
    if len(current) >= 2:
        blocks.append(current)
    if not blocks:
        return ()
    block = blocks[-1]
    if not _is_sequence([label for label, _ in block]):
        return ()
    return tuple(f"{label}) {option}" for label, option in block)


def _is_sequence(labels: list[str]) -> bool:
    """A, B, C… or 1, 2, 3… — a numbered list of prose steps with gaps is not a choice."""
    if all(label.isdigit() for label in labels):
        return [int(label) for label in labels] == list(range(int(labels[0]), int(labels[0]) + len(labels)))
    if all(label.isalpha() for label in labels):
        return [ord(label) for label in labels] == list(range(ord(labels[0]), ord(labels[0]) + len(labels)))
    return False


def pick_option(answer: str, options: tuple[str, ...]) -> str | None:
    """The full option a bare answer picks (`B) text`), or None when it is not a bare pick.

    A bare label (`b`, `B)`, `2.`) picks by label; the option's own text, typed or pasted whole,
    picks that option too.
    """
    if not options:
        return None
    typed = answer.strip().casefold()
    for option in options:
        if typed and typed == option.split(") ", 1)[-1].strip().casefold():
            return option
    match = _ANSWER.match(answer)
    if not match:
        return None
    wanted = _label_key(match["label"])
    for option in options:
        if option.split(")", 1)[0] == wanted:
            return option
    return None


def resolve_choice(answer: str, options: tuple[str, ...]) -> str:
    """`B` after options → `[chosen: B) full text]`; any other answer is returned unchanged."""
    option = pick_option(answer, options)
    return f"[chosen: {option}]" if option else answer
