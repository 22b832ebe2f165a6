"""Positions of nested keys: re-compose a document and walk its nodes along a path."""

from __future__ import annotations

from typing import Any

import yaml

from formspec_consult.spec.yamlload import SpecLoader


def compose_first(text: str) -> yaml.Node | None:
    """The node of the first document of `text` (None when it does not compose)."""
    loader = SpecLoader(text)
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
