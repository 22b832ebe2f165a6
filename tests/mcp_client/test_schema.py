"""Tool input schemas as the model reads them: the same arguments, without pydantic's noise."""

from __future__ import annotations

from typing import Any

import pytest

from formspec_consult.mcp_client import MCPManager, ServerSpec
from formspec_consult.mcp_client.schema import compact_schema
from tests.mcp_client.fake_server import build

pytestmark = pytest.mark.anyio


async def test_declarations_drop_titles_and_defaults_and_write_optional_arguments_as_their_type() -> None:
    manager = MCPManager([ServerSpec(name="fake", in_process=build())])
    await manager.start()
    try:
        listed = next(t for t in manager.connections["fake"].tools if t.name == "find").input_schema
        declared = next(d for d in manager.tool_declarations() if d["function"]["name"] == "find")
    finally:
        await manager.aclose()
    assert listed["properties"]["title"]["anyOf"]  # what the server says (MCP clients still get it)
    assert listed["properties"]["limit"]["default"] == 3
    assert declared["function"]["parameters"] == {
        "properties": {
            "query": {"description": "What to find.", "maxLength": 50, "type": "string"},
            "title": {"type": "string", "description": "Only items with this title."},  # a property named title stays
            "limit": {"maximum": 9, "minimum": 1, "type": "integer"},  # optional: its default is the server's
        },
        "required": ["query"],
        "type": "object",
    }


def test_a_nullable_argument_without_a_null_default_keeps_its_null_option_but_not_its_default() -> None:
    required_nullable: dict[str, Any] = {"anyOf": [{"type": "string"}, {"type": "null"}], "title": "Note"}
    assert compact_schema(required_nullable) == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    other_default = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": "x"}
    assert compact_schema(other_default) == {"anyOf": [{"type": "string"}, {"type": "null"}]}


def test_nested_schemas_and_definitions_are_compacted_and_everything_else_is_kept() -> None:
    schema = {
        "title": "Args",
        "type": "object",
        "$defs": {"Item": {"title": "Item", "type": "object", "properties": {"n": {"title": "N", "type": "integer"}}}},
        "properties": {
            "items": {"title": "Items", "type": "array", "items": {"$ref": "#/$defs/Item"}},
            "mode": {"title": "Mode", "enum": ["a", "b"], "default": "a"},
            "tag": {"anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"}], "default": None, "title": "Tag"},
        },
    }
    assert compact_schema(schema) == {
        "type": "object",
        "$defs": {"Item": {"type": "object", "properties": {"n": {"type": "integer"}}}},
        "properties": {
            "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
            "mode": {"enum": ["a", "b"]},
            "tag": {"type": "string", "maxLength": 5},
        },
    }
    assert compact_schema(None) is None and compact_schema({"title": 3}) == {"title": 3}  # not a title annotation
