"""Options offered by the consultant (`A) …` lines) and picking one with a bare answer.

Options are only what the model offers as choices, in the convention its prompt asks for: two
to `MAX_OPTIONS` consecutive lines lettered `A)`, `B)`, `C)`… in order (a list bullet or markdown
bold around the label is tolerated). A numbered list (`1. …`), a lettered list that does not
start at A or skips a letter, or a longer list is prose, never a choice. The last such block in a
reply is the one the user answers. A bare `b`, `B` or `B)` answer becomes
`[chosen: B) <full option text>]`, so the decision is recorded verbatim and survives compression.
"""

from __future__ import annotations

import re

MAX_OPTIONS = 6  # "two to five" in the prompt, one spare; alt+a … alt+f pick them

# "A) text", "a. text"; tolerant of a list bullet and markdown bold around the label.
_OPTION = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*)?(?P<label>[A-Za-z])[).](?:\*\*)?\s+(?P<text>\S.*)$")
_ANSWER = re.compile(r"^\s*\(?(?P<label>[A-Za-z])[).]?\s*$")


def _label_key(label: str) -> str:
    return label.upper()


def find_options(text: str) -> tuple[str, ...]:
    """The last block of 2…MAX_OPTIONS consecutive lines lettered A, B, C…, each as `B) full text`."""
    blocks: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    for line in text.splitlines():
        match = _OPTION.match(line)
        if match:
            current.append((_label_key(match["label"]), match["text"].strip().rstrip("*").strip()))
            continue
        if line.strip() == "" and current:
            continue  # a blank line inside a list does not end it
        if current:
            blocks.append(current)
        current = []
    if current:
        blocks.append(current)
    if not blocks:
        return ()
    block = blocks[-1]
    if not 2 <= len(block) <= MAX_OPTIONS or not is_letter_sequence([label for label, _ in block]):
        return ()
    return tuple(f"{label}) {option}" for label, option in block)


def is_letter_sequence(labels: list[str]) -> bool:
    """A, B, C… from A with no gap: a lettered prose list starting elsewhere is not a choice."""
    return [ord(label) for label in labels] == list(range(ord("A"), ord("A") + len(labels)))


def pick_option(answer: str, options: tuple[str, ...]) -> str | None:
    """The full option a bare answer picks (`B) text`), or None when it is not a bare pick.

    A bare label (`b`, `B)`) picks by label; the option's own text, typed or pasted whole,
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
