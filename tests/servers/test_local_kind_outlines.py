"""list_kind_schemas answers with a kind's outline, small enough to be read whole, with drill-down by
path into every part it shows only by its keys; the whole JSON Schema only when a client asks."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from formspec_consult.spec.kinds import KNOWN_KINDS
from formspec_consult.spec.outline import OutlinePathError, kind_outline
from formspec_consult.spec.schemas import KIND_SPECS, official_layout
from tests.helpers import first_text, group_of
from tests.servers.conftest import call, call_error

pytestmark = pytest.mark.anyio

RESULT_CAP = 8000  # the loop's default tool_result_cap


def summarised_parts(outline: Any, prefix: str = "") -> list[str]:
    """Paths of the parts an outline shows only by their keys (`{a, b}` or `list of {a, b}`)."""
    out: list[str] = []
    items = outline[0] if isinstance(outline, list) and outline else outline
    if not isinstance(items, dict):
        return out
    for label, value in items.items():
        key = label.rstrip("*")
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, str) and re.match(r"(list of )?\{\w", value):
            out.append(path)
        elif isinstance(value, (dict, list)):
            out += summarised_parts(value, path)
    return out


async def test_every_kind_is_answered_with_an_outline_that_fits_the_result_cap_and_names_all_its_keys(
    client: Client,
) -> None:
    for kind in KNOWN_KINDS:
        answer = await client.call_tool("list_kind_schemas", {"kind": kind})
        text = first_text(answer)
        assert len(text) <= 5000 < RESULT_CAP, (kind, len(text))  # Entity, the largest, is ~4,450
        spec = answer.structured_content["outline"]["spec*"]
        schema = KIND_SPECS[kind]
        assert {k.rstrip("*") for k in spec} == set(schema["properties"]), kind
        assert {k[:-1] for k in spec if k.endswith("*")} == set(schema.get("required", [])), kind


async def test_the_entity_outline_types_each_field_key_lists_the_field_types_and_marks_what_is_required(
    client: Client,
) -> None:
    outline = (await call(client, "list_kind_schemas", {"kind": "Entity"}))["outline"]
    assert outline["kind*"] == "= Entity" and outline["metadata*"].startswith("{name*")
    (field,) = outline["spec*"]["fields"]
    assert field["name*"].startswith("string") and field["required"] == "boolean"
    assert "money" in field["type*"].split("|") and field["enum_values"] == "list of string"
    assert field["relation"] == "{type*, resource*, foreign_key, on_delete, snapshot}"
    assert outline["spec*"]["state_machine"]["transitions"] == ("list of {from, to*, via*, guard, params, conditions, description, impl, audit, emit, emits, idempotent, "
                                                                  "idempotency_key, ui, uses, expose, rate_limit, require_permission, approval}")


@pytest.mark.parametrize("path", ["fields.relation", "spec/fields/3/relation", "fields[].relation", "fields.*.relation"])
async def test_a_part_is_expanded_by_its_path_in_any_of_the_spellings_a_model_meets(client: Client, path: str) -> None:
    answer = await call(client, "list_kind_schemas", {"kind": "Entity", "path": path})
    assert answer["path"] == "spec.fields.relation"
    assert answer["outline"]["type*"] == "belongs_to|has_many|has_one"
    assert answer["outline"]["on_delete"] == "restrict|cascade|set_null"


async def test_a_path_naming_no_part_is_refused_with_the_keys_there_and_the_closest(client: Client) -> None:
    message = await call_error(client, "list_kind_schemas", {"kind": "Entity", "path": "fields.relaton"})
    assert "`relaton` is not a key of spec.fields" in message and "Did you mean `relation`?" in message
    assert "enum_values" in message


def test_every_part_an_outline_shows_by_its_keys_can_be_expanded_by_path() -> None:
    for kind in KNOWN_KINDS:
        for path in summarised_parts(kind_outline(kind).outline["spec*"]):
            expanded = kind_outline(kind, path=path).outline
            assert isinstance(expanded, (dict, list)) and expanded, (kind, path)


def test_the_legend_names_a_path_that_expands() -> None:
    for kind in ("Entity", "App", "Page", "Service"):
        legend = kind_outline(kind).legend
        example = json.loads(group_of(r"\(e\.g\. (\"[^\"]+\")\)", legend))
        assert kind_outline(kind, path=example).outline, kind
        try:
            kind_outline(kind, path=example + ".no_such_key")
        except OutlinePathError as exc:
            assert "no_such_key" in str(exc)


async def test_the_outline_comes_from_the_schema_the_gate_uses_an_official_one_when_the_project_has_it(
    client: Client, project: Path
) -> None:
    folder = project / "schemas"
    for name, content in official_layout().items():
        if name == "kinds/Form.schema.json":
            content["properties"]["colour"] = {"type": "string", "enum": ["red", "green"]}
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(json.dumps(content), encoding="utf-8")
    answer = await call(client, "list_kind_schemas", {"kind": "Form"})
    assert answer["source"].startswith("official schema from")
    assert answer["outline"]["spec*"]["colour"] == "red|green"
    gate = await call(client, "validate_spec", {"path": "modules/shop/forms/f.yaml", "yaml": (
        "apiVersion: formspec.dev/v1\nkind: Form\nmetadata: {name: f, module: shop}\nspec: {colour: blue}\n")})
    assert any("colour" in p["message"] for p in gate["problems"])


async def test_an_official_style_schema_with_refs_beside_notes_reads_as_its_keys_types_and_examples(
    client: Client, project: Path
) -> None:
    # FormSpec's generated schemas put `nullable` and `description` beside a `$ref`, examples on
    # leaves and `@schema` notes in descriptions: written here in that shape, in our own words.
    root = {"$defs": {
        "Metadata": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        "Level": {"type": "string", "enum": ["low", "high"]},
        "Tank": {"type": "object", "properties": {"litres": {"type": "integer"}, "level": {"$ref": "#/$defs/Level"}},
                 "required": ["litres"], "additionalProperties": False},
    }}
    fragment = {"type": "object", "additionalProperties": False, "required": ["version"], "properties": {
        "version": {"type": "string", "description": "@schema {example: \"v1\"}", "examples": ["v1"]},
        "tank": {"$ref": "#/$defs/Tank", "nullable": True, "description": "where the water is kept"},
        "tanks": {"type": "array", "items": {"$ref": "#/$defs/Tank"}},
    }}
    (project / "schemas" / "kinds").mkdir(parents=True, exist_ok=True)
    (project / "schemas" / "formspec.schema.json").write_text(json.dumps(root), encoding="utf-8")
    (project / "schemas" / "kinds" / "Theme.schema.json").write_text(json.dumps(fragment), encoding="utf-8")
    answer = await call(client, "list_kind_schemas", {"kind": "Theme"})
    spec = answer["outline"]["spec*"]
    assert answer["source"].startswith("official schema from")
    assert spec["version*"] == "string, e.g. v1"  # the example shown, the @schema note not
    assert spec["tanks"] == [{"litres*": "integer", "level": "low|high"}]
    assert spec["tank"] in ("{litres*, level}", {"litres*": "integer", "level": "low|high"})
    part = await call(client, "list_kind_schemas", {"kind": "Theme", "path": "tank"})
    assert part["outline"] == {"litres*": "integer", "level": "low|high"}
