"""The tiny, strict template language of prompt files.

``{{var}}`` substitutes, ``{{#var}}…{{/var}}`` keeps its body only when `var` is non-empty,
``{{^var}}…{{/var}}`` only when it is empty, ``{{> partial}}`` includes `partials/<partial>.md`
(expanded once, at load time, nested, with cycles reported). Values are inserted verbatim and never
re-scanned, so text from a workspace cannot inject placeholders.
"""

from __future__ import annotations

import re
from pathlib import Path

from formspec_consult.errors import UserError

__all__ = ["PromptError", "expand_partials", "placeholders", "render_template"]

_PARTIAL = re.compile(r"\{\{>\s*([a-z0-9][a-z0-9_-]*)\s*\}\}")
_SECTION = re.compile(r"\{\{([#^])\s*([A-Za-z_]\w*)\s*\}\}(.*?)\{\{/\s*\2\s*\}\}\n?", re.DOTALL)
_VAR = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")
_ANY_TAG = re.compile(r"\{\{[^{}]*\}\}")


class PromptError(UserError, ValueError):
    """A prompt file or a rendering request is wrong; the message names what and where."""


def expand_partials(text: str, folder: Path, origin: str, _stack: tuple[str, ...] = ()) -> str:
    """Replace every ``{{> name}}`` with `folder/name.md`, recursively; a cycle is an error."""

    def include(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in _stack:
            chain = " → ".join((*_stack, name))
            raise PromptError(f"{origin}: partials include each other in a cycle: {chain}")
        path = folder / f"{name}.md"
        if not path.is_file():
            raise PromptError(f"{origin}: partial '{name}' not found (expected {path})")
        body = path.read_text(encoding="utf-8").rstrip("\n")
        return expand_partials(body, folder, origin, (*_stack, name))

    return _PARTIAL.sub(include, text)


def placeholders(text: str) -> set[str]:
    """Every variable name a template refers to (plain and section tags)."""
    names = {m.group(2) for m in re.finditer(r"\{\{([#^/])\s*([A-Za-z_]\w*)\s*\}\}", text)}
    return names | set(_VAR.findall(text))


def render_template(text: str, values: dict[str, str], prompt_name: str) -> str:
    """Fill `text` strictly: every placeholder must have a value in `values`."""
    missing = sorted(placeholders(text) - set(values))
    if missing:
        raise PromptError(f"prompt '{prompt_name}': no value for placeholder(s) {', '.join(missing)}")

    def section(match: re.Match[str]) -> str:
        kind, name, body = match.groups()
        present = bool(values[name].strip())
        return body if present == (kind == "#") else ""

    previous = None
    while previous != text:  # sections may nest (different names); expand outer-first until stable
        previous, text = text, _SECTION.sub(section, text)
    # Substitute in one pass so inserted values are never scanned again for tags.
    out = _VAR.sub(lambda m: values[m.group(1)], text)
    leftover = _ANY_TAG.search(_VAR.sub("", text))
    if leftover:
        raise PromptError(f"prompt '{prompt_name}': malformed tag {leftover.group(0)!r}")
    return re.sub(r"\n{3,}", "\n\n", out)
