"""Safe, node-aware YAML loading with hard limits.

We compose with libyaml (C) when available and build plain Python values ourselves, so that we
can (a) reject duplicate keys, unknown tags and alias bombs, and (b) keep the composed node of
every document to point problems at the exact line of a nested key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

try:  # the C composer is ~10x faster; fall back silently where libyaml is missing
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - depends on the build of PyYAML
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

MAX_FILE_BYTES = 1024 * 1024
MAX_ALIASES = 50
MAX_NODES = 200_000
#: spec documents nest a dozen levels at most; the cap keeps every later recursive walk safe
MAX_DEPTH = 64

_T = "tag:yaml.org,2002:"
_SCALAR = yaml.constructor.SafeConstructor()
_PLAIN_SCALAR_TAGS = {_T + "str", _T + "int", _T + "float", _T + "bool", _T + "null"}
_STRING_LIKE_TAGS = {_T + "timestamp", _T + "binary", _T + "value", "!"}


_STR, _SEQ, _MAP = _T + "str", _T + "seq", _T + "map"
#: first characters for which some implicit resolver (int, float, bool, null, …) may apply
_IMPLICIT_FIRST = frozenset(k for k in _BaseLoader.yaml_implicit_resolvers if k)


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """The safe loader with a short-cut resolver (the composer calls it for every node).

    Most scalars in a spec are words that no implicit type could match; answering `str` for
    those without running the regex table halves the Python work per scalar. Path resolvers
    (never registered by the safe loader) are skipped.
    """

    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode:
            if implicit[0] and (not value or value[0] in _IMPLICIT_FIRST):
                return super().resolve(kind, value, implicit)
            return _STR
        return _SEQ if kind is yaml.SequenceNode else _MAP

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None


class YamlLoadError(Exception):
    """A file could not be turned into documents; carries a stable code, position and hint."""

    def __init__(self, code: str, message: str, line: int | None = None,
                 column: int | None = None, hint: str = "") -> None:
        super().__init__(message)
        self.code, self.message, self.line, self.column, self.hint = code, message, line, column, hint


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


def load_stream(text: str) -> list[RawDocument]:
    """Every non-empty document of `text`, built under the safety limits."""
    loader = _Loader(text)
    docs: list[RawDocument] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None or (isinstance(node, yaml.ScalarNode) and node.tag == _T + "null"
                                and node.value in ("", "~", "null")):
                continue  # an empty document between `---` markers
            value = _Builder().build(node)
            docs.append(RawDocument(value, node, node.start_mark.line + 1, node.end_mark.line + 1))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = " ".join(str(x) for x in (exc.context, exc.problem) if x) or "invalid YAML"
        raise YamlLoadError("FS-YAML-SYNTAX", f"not valid YAML: {message}",
                            mark.line + 1 if mark else None, mark.column + 1 if mark else None,
                            "Check indentation, quoting and colons near this line.") from None
    except yaml.YAMLError as exc:
        raise YamlLoadError("FS-YAML-SYNTAX", f"not valid YAML: {exc}",
                            hint="Remove control characters and check the file is YAML.") from None
    finally:
        loader.dispose()
    return docs


class _Builder:
    """Node → Python value with duplicate-key, tag, recursion and alias-expansion checks."""

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.active: set[int] = set()
        self.aliases = 0
        self.nodes = 0
        self.replaying = 0

    def build(self, node: yaml.Node) -> Any:
        if node.__class__ is yaml.ScalarNode:
            # scalars cannot grow through aliases, so they skip the alias bookkeeping
            return node.value if node.tag == _STR else self._scalar(node)
        key = id(node)
        if key in self.active:
            raise _error("FS-YAML-ALIAS", "recursive alias: a node contains itself", node,
                         "Remove the self-referencing anchor/alias.")
        replay = key in self.seen  # an alias: this node was built before
        if replay and not self.replaying:
            self.aliases += 1  # count references written in the text, not their expansion
            if self.aliases > MAX_ALIASES:
                raise _error("FS-YAML-ALIAS", f"more than {MAX_ALIASES} alias uses (the anchor is here)", node,
                             "Write the values out instead of using YAML anchors and aliases.")
        self.seen.add(key)
        self.nodes += 1
        if self.nodes > MAX_NODES:  # expansion of nested aliases (a "billion laughs" bomb)
            raise _error("FS-YAML-ALIAS", f"alias expansion: the document grows to more than {MAX_NODES:,} nodes",
                         node, "This looks like an alias bomb; remove the anchors and aliases.")
        if len(self.active) >= MAX_DEPTH:
            raise _error("FS-YAML-DEPTH", f"nesting deeper than {MAX_DEPTH} levels", node,
                         "Flatten the structure; spec documents never need this much nesting.")
        self.active.add(key)
        self.replaying += replay
        try:
            if isinstance(node, yaml.SequenceNode):
                self._check_tag(node, _SEQ)
                return [self.build(child) for child in node.value]
            self._check_tag(node, _MAP)
            return self._mapping(node)
        finally:
            self.active.discard(key)
            self.replaying -= replay

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        if node.tag in _PLAIN_SCALAR_TAGS:
            return _SCALAR.yaml_constructors[node.tag](_SCALAR, node)
        if node.tag in _STRING_LIKE_TAGS:
            return node.value  # dates stay strings, as in JSON and FormSpec's Go loader
        raise _error("FS-YAML-TAG", f"unsupported YAML tag {node.tag!r}", node,
                     "Remove the explicit tag; spec files use plain YAML values only.")

    def _check_tag(self, node: yaml.Node, expected: str) -> None:
        if node.tag != expected:
            raise _error("FS-YAML-TAG", f"unsupported YAML tag {node.tag!r}", node,
                         "Remove the explicit tag; spec files use plain YAML values only.")

    def _mapping(self, node: yaml.MappingNode) -> dict[str, Any]:
        out: dict[str, Any] = {}
        merged: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _T + "merge":
                merged.update(self._merge_source(value_node))
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                raise _error("FS-YAML-COMPLEX-KEY", "mapping keys must be plain strings", key_node,
                             "Use a simple word as the key.")
            key = key_node.value  # keys stay text (`on:`/`yes:` are not booleans here)
            if key in out:
                raise _error("FS-YAML-DUPLICATE-KEY", f"duplicate key {key!r}", key_node,
                             "Each key may appear once per mapping; merge or rename the repeated one.")
            out[key] = self.build(value_node)
        for key, value in merged.items():
            out.setdefault(key, value)
        return out

    def _merge_source(self, node: yaml.Node) -> dict[str, Any]:
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        merged: dict[str, Any] = {}
        for source in reversed(sources):
            value = self.build(source)
            if not isinstance(value, dict):
                raise _error("FS-YAML-TAG", "a merge key (<<) needs a mapping", source,
                             "Merge only mappings, or write the keys out.")
            merged.update(value)
        return merged


def _error(code: str, message: str, node: yaml.Node, hint: str) -> YamlLoadError:
    mark = node.start_mark
    return YamlLoadError(code, message, mark.line + 1, mark.column + 1, hint)


def compose_first(text: str) -> yaml.Node | None:
    """The node of the first document of `text` (None when it does not compose)."""
    loader = _Loader(text)
    try:
        return loader.get_node() if loader.check_node() else None
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()


def node_position(node: yaml.Node | None, path: tuple[Any, ...]) -> tuple[int, int] | None:
    """1-based (line, column) of the deepest node reachable along `path` (keys and list indexes).

    For a mapping entry the key's position is used: that is where an editor should jump.
    """
    if node is None:
        return None
    mark = node.start_mark
    for step in path:
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.value == step:
                    mark, node = key_node.start_mark, value_node
                    break
            else:
                break
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            node = node.value[step]
            mark = node.start_mark
        else:
            break
    return mark.line + 1, mark.column + 1


def node_line(node: yaml.Node | None, path: tuple[Any, ...]) -> int | None:
    """1-based line of the node at `path` (see `node_position`)."""
    pos = node_position(node, path)
    return pos[0] if pos else None
