"""The number format of a generated natural key (`natural_key_rule.format`), as FormSpec renders it.

FormSpec's key counter replaces a closed set of placeholders: `{seq}` / `{counter}` (the counter),
`{seq:0Nd}` / `{counter:0Nd}` (zero-padded to N digits, N from 1 to 20), `{period}`, `{year}`,
`{month}`, `{day}`, `{prefix}`, `{resource}`, `{field}`. Anything else in braces is copied into
every key as written, and a format without a counter placeholder gives every record the same key
— the second record then breaks the key's uniqueness. Neither is caught by FormSpec before the
first records are saved; both are certain failures, so the gate refuses them.
"""

from __future__ import annotations

import re

from formspec_consult.spec.checks.context import Findings, as_list
from formspec_consult.spec.model import Document

_DEFAULT_FORMAT = "{prefix}-{period}-{seq:05d}"
_COUNTER = re.compile(r"\{(?:seq|counter)(?::0(?:[1-9]|1[0-9]|20)d)?\}")
_FIXED = frozenset({"{period}", "{year}", "{month}", "{day}", "{prefix}", "{resource}", "{field}"})
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_PADDED = re.compile(r"\{(seq|counter):0*(\d+)d?\}")


def check_natural_key_formats(doc: Document, out: Findings) -> None:
    """Every generated natural key's format renders a distinct key per record."""
    for i, f in enumerate(as_list(doc.spec.get("fields"))):
        rule = f.get("natural_key_rule") if isinstance(f, dict) else None
        if not isinstance(rule, dict) or rule.get("strategy") == "custom":
            continue  # a custom key is supplied by a hook, script or import: no format is rendered
        written = rule.get("format")
        fmt: str = written if isinstance(written, str) and written else _DEFAULT_FORMAT
        where = ("spec", "fields", i, "natural_key_rule", "format" if "format" in rule else "strategy")
        name = f.get("name")
        unknown = [p for p in dict.fromkeys(_PLACEHOLDER.findall(fmt)) if p not in _FIXED and not _COUNTER.fullmatch(p)]
        for placeholder in unknown:
            out.error("FS-NATURAL-KEY-FORMAT", doc, where,
                      f"natural key {name!r}: format {fmt!r} has {placeholder}, which FormSpec does not fill in "
                      "(it stays in every key as written)", _fix(placeholder))
        if not _COUNTER.search(fmt) and not any(_PADDED.fullmatch(p) for p in unknown):
            out.error("FS-NATURAL-KEY-FORMAT", doc, where,
                      f"natural key {name!r}: format {fmt!r} has no counter, so every record gets the same key "
                      "and the second one breaks its uniqueness",
                      "Put the counter in the format: `{seq}`, or `{seq:05d}` for 00001, e.g. "
                      "`format: \"INV-{year}-{seq:05d}\"`.")


def _fix(placeholder: str) -> str:
    padded = _PADDED.fullmatch(placeholder)
    if padded:
        width = max(1, min(20, int(padded.group(2))))
        return (f"Write `{{{padded.group(1)}:0{width}d}}` for a counter padded to {width} digits "
                f"(or `{{{padded.group(1)}}}` unpadded).")
    return ("Use only {seq} or {seq:0Nd} (the counter; N = digits), {year}, {month}, {day}, {period}, {prefix}, "
            "{resource}, {field}; write fixed text without braces.")

