"""Composed YAML node → plain Python value, with the safety checks a spec loader needs."""

from __future__ import annotations

import re
from typing import Any, cast

import yaml

MAX_ALIASES = 50
MAX_NODES = 200_000
#: spec documents nest a dozen levels at most; the cap keeps every later recursive walk safe
MAX_DEPTH = 64
#: Python refuses to turn a longer decimal integer into text (and back) by default; a number this
#: long is never meant as a number in a spec, and letting it through crashed every later step
MAX_INT_DIGITS = 4300
_MAX_INT_BITS = int(MAX_INT_DIGITS * 3.3219280948873626)  # log2(10): the same size in any base

_T = "tag:yaml.org,2002:"
STR_TAG, SEQ_TAG, MAP_TAG, NULL_TAG = _T + "str", _T + "seq", _T + "map", _T + "null"
_SCALAR = yaml.constructor.SafeConstructor()
_PLAIN_SCALAR_TAGS = {_T + "str", _T + "int", _T + "float", _T + "bool", _T + "null"}
_STRING_LIKE_TAGS = {_T + "timestamp", _T + "binary", _T + "value", "!"}
# FormSpec's Go loader reads YAML 1.2: only true/false are booleans (`name: no`, `on: yes` stay
# text) and there are no base-60 numbers (`at: 1:30` stays text). PyYAML resolves by YAML 1.1.
_YAML12_BOOLS = frozenset({"true", "True", "TRUE", "false", "False", "FALSE"})
_SEXAGESIMAL = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")


class YamlLoadError(Exception):
    """A file could not be turned into documents; carries a stable code, position and hint."""

    def __init__(self, code: str, message: str, line: int | None = None,
                 column: int | None = None, hint: str = "") -> None:
        super().__init__(message)
        self.code, self.message, self.line, self.column, self.hint = code, message, line, column, hint


class Builder:
    """Node → Python value with duplicate-key, tag, recursion and alias-expansion checks."""

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.active: set[int] = set()
        self.aliases = 0
        self.nodes = 0
        self.replaying = 0

    def build(self, node: yaml.Node) -> Any:
        """The plain value of `node`; raises YamlLoadError for anything unsafe."""
        if node.__class__ is yaml.ScalarNode:
            # scalars cannot grow through aliases, so they skip the alias bookkeeping
            return node.value if node.tag == STR_TAG else self._scalar(node)
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
                self._check_tag(node, SEQ_TAG)
                return [self.build(child) for child in node.value]
            self._check_tag(node, MAP_TAG)
            return self._mapping(cast(yaml.MappingNode, node))  # a node is a scalar, a sequence or a mapping
        finally:
            self.active.discard(key)
            self.replaying -= replay

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        if node.tag == _T + "bool" and node.value not in _YAML12_BOOLS:
            return node.value
        if node.tag in (_T + "int", _T + "float") and _SEXAGESIMAL.fullmatch(node.value):
            return node.value
        if node.tag == _T + "int":
            return self._integer(node)
        if node.tag in _PLAIN_SCALAR_TAGS:
            return _SCALAR.yaml_constructors[node.tag](_SCALAR, node)
        if node.tag in _STRING_LIKE_TAGS:
            return node.value  # dates stay strings, as in JSON and FormSpec's Go loader
        raise _error("FS-YAML-TAG", f"unsupported YAML tag {node.tag!r}", node,
                     "Remove the explicit tag; spec files use plain YAML values only.")

    def _integer(self, node: yaml.ScalarNode) -> Any:
        # a decimal literal above the limit raises ValueError; a hex/octal/binary one is built,
        # but would raise the same error later, when a check or a tool result prints it
        try:
            value = _SCALAR.yaml_constructors[node.tag](_SCALAR, node)
        except ValueError:
            value = None
        if value is None or abs(value).bit_length() > _MAX_INT_BITS:
            digits = sum(ch.isalnum() for ch in node.value)
            raise _error("FS-YAML-NUMBER", f"a number of {digits:,} digits; the limit is {MAX_INT_DIGITS:,} digits",
                         node, "Write a shorter number, or quote the value (\"...\") if it is meant as text.")
        return value

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
