"""Safe, node-aware YAML loading with hard limits.

We compose with libyaml (C) when available and build plain Python values ourselves
(`yamlbuild.Builder`), so that duplicate keys, unknown tags, deep nesting and alias bombs are
refused with a position and a hint. Positions of nested keys are found later, on demand
(`yamlpos`), by re-composing only the documents that have problems.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

try:  # the C composer is ~10x faster; fall back silently where libyaml is missing
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - depends on the build of PyYAML
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

from formspec_consult.spec.yamlbuild import (
    MAP_TAG,
    MAX_ALIASES,
    MAX_DEPTH,
    MAX_NODES,
    NULL_TAG,
    SEQ_TAG,
    STR_TAG,
    Builder,
    YamlLoadError,
)

__all__ = ["MAX_ALIASES", "MAX_DEPTH", "MAX_FILE_BYTES", "MAX_NODES", "RawDocument", "YamlLoadError",
           "decode", "load_stream", "too_large"]

MAX_FILE_BYTES = 1024 * 1024

#: first characters for which some implicit resolver (int, float, bool, null, …) may apply
_IMPLICIT_FIRST = frozenset(k for k in _BaseLoader.yaml_implicit_resolvers if k)


class SpecLoader(_BaseLoader):
    """The safe loader with a short-cut resolver (the composer calls it for every node).

    Most scalars in a spec are words that no implicit type could match; answering `str` for
    those without running the regex table halves the Python work per scalar. Path resolvers
    (never registered by the safe loader) are skipped.
    """

    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        """The tag of an untagged node (fast path for scalars no implicit type can match)."""
        if kind is yaml.ScalarNode:
            if implicit[0] and (not value or value[0] in _IMPLICIT_FIRST):
                tag: str = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
                return tag
            return STR_TAG
        return SEQ_TAG if kind is yaml.SequenceNode else MAP_TAG

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        """No path resolvers are registered: nothing to track."""
        return None

    def ascend_resolver(self) -> None:
        """No path resolvers are registered: nothing to track."""
        return None


@dataclass
class RawDocument:
    """One document of a YAML stream: its value, its node and where it starts/ends (1-based)."""

    value: Any
    node: yaml.Node
    line: int
    end_line: int


def too_large(size: int) -> YamlLoadError:
    """The error for a file of `size` bytes above MAX_FILE_BYTES."""
    return YamlLoadError("FS-FILE-TOO-LARGE", f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,} bytes",
                         hint="Split it into several smaller spec files (one document per file).")


def decode(raw: bytes) -> str:
    """Bytes → text, enforcing the size limit and strict UTF-8 (a BOM is allowed)."""
    if len(raw) > MAX_FILE_BYTES:
        raise too_large(len(raw))
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise YamlLoadError("FS-FILE-ENCODING", f"invalid UTF-8 byte 0x{raw[exc.start]:02x}",
                            line, column, "Save the file as UTF-8.") from None


#: `key: value` where the value holds `: ` (block style, or one entry of a flow mapping)
_BLOCK_VALUE = re.compile(r"^(\s*(?:-\s+)?)([A-Za-z_][\w-]*):\s+([^'\"{\[#][^#]*?:\s[^#]*?)\s*$")
_FLOW_VALUE = re.compile(r"([{,]\s*)([A-Za-z_][\w-]*):\s+([^'\"{\[,}]*?:\s[^,}]*?)\s*(?=[,}])")


def _quoting_hint(text: str, line: int | None) -> str | None:
    """The quoted form when the broken line (or the one before it) has a value holding `: `.

    `title: Nama: lengkap` (or `{name: x, title: Nama: lengkap}`) is not YAML: an unquoted
    value cannot hold a colon followed by a space. The hint shows the line as it passes.
    """
    if line is None:
        return None
    lines = text.splitlines()
    for index in (line, line - 1):
        if not 0 <= index < len(lines):
            continue
        source = lines[index]
        found = _BLOCK_VALUE.match(source)
        if found:
            fixed = f"{found.group(1)}{found.group(2)}: {json.dumps(found.group(3), ensure_ascii=False)}"
        else:
            flow = _FLOW_VALUE.search(source)
            if flow is None:
                continue
            fixed = (source[:flow.start(3)] + json.dumps(flow.group(3), ensure_ascii=False)
                     + source[flow.end(3):])
        return (f"A value holding `: ` must be quoted. Write line {index + 1} as `{fixed.strip()}`.")
    return None


def load_stream(text: str) -> list[RawDocument]:
    """Every non-empty document of `text`, built under the safety limits."""
    loader = SpecLoader(text)
    docs: list[RawDocument] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None or (isinstance(node, yaml.ScalarNode) and node.tag == NULL_TAG
                                and node.value in ("", "~", "null")):
                continue  # an empty document between `---` markers
            value = Builder().build(node)
            docs.append(RawDocument(value, node, node.start_mark.line + 1, node.end_mark.line + 1))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = " ".join(str(x) for x in (exc.context, exc.problem) if x) or "invalid YAML"
        raise YamlLoadError("FS-YAML-SYNTAX", f"not valid YAML: {message}",
                            mark.line + 1 if mark else None, mark.column + 1 if mark else None,
                            _quoting_hint(text, mark.line if mark else None)
                            or "Check indentation, quoting and colons near this line.") from None
    except yaml.YAMLError as exc:
        raise YamlLoadError("FS-YAML-SYNTAX", f"not valid YAML: {exc}",
                            hint="Remove control characters and check the file is YAML.") from None
    finally:
        loader.dispose()
    return docs
