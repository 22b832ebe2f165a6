"""Text for a screen reader: what the eye takes from a layout, said as plain lines.

A screen reader reads a terminal as a stream of lines. Table rules, diff signs and Markdown marks
read as noise ("pipe dash dash pipe"), so the screen-reader mode (commands/screen_reader.py) says
them in words: a Markdown table becomes one sentence per row naming each column, a unified diff
numbered lines that say "added" or "removed", a code block is announced and closed, emphasis
marks are dropped. Pure functions of text; the wording of the labels is here and nowhere else.
"""

from __future__ import annotations

import re

from formspec_consult.i18n import gettext as _
from formspec_consult.i18n import ngettext

_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _is_table_row(line: str) -> bool:
    return line.strip().startswith("|") and line.count("|") >= 2


def table_sentences(header: list[str], rows: list[list[str]]) -> list[str]:
    """One sentence per row: "Row 2: Field is phone; Type is string." (empty cells left out)."""
    sentences = []
    for number, row in enumerate(rows, 1):
        parts = [_("{column} is {value}").format(column=name or _("column {n}").format(n=i), value=value)
                 for i, (name, value) in enumerate(zip(header, row, strict=False), 1) if value]
        sentences.append(_("Row {n}: {cells}.").format(n=number, cells="; ".join(parts) or _("empty")))
    said = ngettext("A table of {n} row, columns {columns}.", "A table of {n} rows, columns {columns}.", len(rows))
    return [said.format(n=len(rows), columns=", ".join(header)), *sentences]


def reply_text(text: str) -> str:
    """A Markdown reply as plain lines: tables as sentences, code blocks announced, marks dropped."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("```"):
            language = line.strip()[3:].strip()
            out.append(_("Code block ({language}):").format(language=language) if language else _("Code block:"))
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                out.append(lines[i])
                i += 1
            out.append(_("End of code block."))
            i += 1
            continue
        if _is_table_row(line) and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1]):
            header = _cells(line)
            i += 2
            rows = []
            while i < len(lines) and _is_table_row(lines[i]):
                rows.append(_cells(lines[i]))
                i += 1
            out.extend(table_sentences(header, rows))
            continue
        heading = _HEADING.match(line)
        if heading:
            line = f"{heading.group(2)}:"
        out.append(_EMPHASIS.sub(lambda m: m.group(2) or m.group(3), line).replace("`", ""))
        i += 1
    return "\n".join(out)


def diff_text(text: str) -> str:
    """Unified diffs (the review text of /diff) as numbered lines that say what changed where."""
    out: list[str] = []
    number = 0
    new_line = 0
    for line in text.splitlines():
        hunk = _HUNK.match(line)
        if line.startswith("=== ") and line.endswith(" ==="):
            out.append(_("Draft {what}.").format(what=line[4:-4]))
            number = 0
        elif line.startswith(("--- ", "+++ ")):
            continue
        elif hunk:
            new_line = int(hunk.group(3))
            out.append(_("Changes from line {n}:").format(n=new_line))
        elif line.startswith("+"):
            number += 1
            out.append(_("{number}. Line {n} added: {text}").format(number=number, n=new_line,
                                                                    text=line[1:].strip() or _("(blank)")))
            new_line += 1
        elif line.startswith("-"):
            number += 1
            out.append(_("{number}. Removed: {text}").format(number=number, text=line[1:].strip() or _("(blank)")))
        elif line.startswith("  ! "):  # a problem of the draft (format_diffs), before its diff
            out.append(_("Problem: {text}").format(text=line.strip()[2:]))
        elif line.startswith(" "):
            new_line += 1  # context: unchanged, not read out
        elif line.strip():
            out.append(line.strip())
    return "\n".join(out)


def looks_like_diff(text: str) -> bool:
    """True for the review text of /diff (a draft header or a hunk)."""
    return any(line.startswith("=== ") or _HUNK.match(line) for line in text.splitlines())


def options_text(options: tuple[str, ...]) -> str:
    """The options a reply offered, said as a numbered choice."""
    letters = [option.split(")", 1)[0].strip() for option in options]
    if len(letters) > 1:
        listed = _("{some} or {last}").format(some=", ".join(letters[:-1]), last=letters[-1])
    else:
        listed = letters[0]
    return ngettext("{n} option: type {letters} to choose it.", "{n} options: type {letters} to choose one.",
                    len(options)).format(n=len(options), letters=listed)
