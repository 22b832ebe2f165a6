"""Kind schemas: ours by default, official ones (project, then user cache) when present."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

from formspec_consult.spec import Project, UnknownKind, kind_schema, known_kinds

from .conftest import entity

OFFICIAL_ENTITY = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"spec": {"type": "object", "required": ["version", "owner_team"]}},
}


@pytest.fixture(autouse=True)
def _isolated_user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache


def test_known_kinds_are_the_34_kinds_plus_workspace_seed_and_document() -> None:
    kinds = known_kinds()
    assert len(kinds) == 37 and len(set(kinds)) == 37
    assert {"Entity", "App", "Module", "Workflow", "VisualSpecKind", "Workspace", "Seed", "Document"} <= set(kinds)


@pytest.mark.parametrize("kind", known_kinds())
def test_every_known_kind_has_a_valid_builtin_schema(kind: str) -> None:
    schema, source = kind_schema(kind)
    Draft7Validator.check_schema(schema)
    assert source == "formspec-consult built-in schema"
    assert set(schema["required"]) == {"apiVersion", "kind", "metadata", "spec"}


def test_kind_lookup_is_case_insensitive_and_unknown_kinds_list_the_known_ones() -> None:
    assert kind_schema("entity")[0]["title"] == "Entity"
    with pytest.raises(UnknownKind) as caught:
        kind_schema("Invoice")
    assert "Unknown kind 'Invoice'" in str(caught.value) and "Entity" in str(caught.value)


def test_entity_schema_is_rich() -> None:
    schema, _ = kind_schema("Entity")
    field = schema["$defs"]["Field"]
    assert "relation" in field["properties"] and "natural_key_rule" in field["properties"]
    assert "state_machine" in schema["properties"]["spec"]["properties"]


def test_official_project_schema_is_preferred_and_named(shop: Project, shop_dir: Path) -> None:
    (shop_dir / "schemas").mkdir()
    (shop_dir / "schemas" / "Entity.Schema.json").write_text("{}")  # lenient name matching …
    (shop_dir / "schemas" / "entity.schema.json").write_text(json.dumps(OFFICIAL_ENTITY))  # … first sorted wins
    _schema, source = kind_schema("ENTITY", shop)
    assert source.startswith("official schema from ") and source.endswith("schemas/Entity.Schema.json")


def test_validation_uses_the_official_schema_when_present(shop: Project, shop_dir: Path) -> None:
    (shop_dir / "schemas").mkdir()
    (shop_dir / "schemas" / "entity.schema.json").write_text(json.dumps(OFFICIAL_ENTITY))
    result = shop.validate(overlay={"spec/modules/shop/x.yaml": entity("x", "  fields: []\n")})
    assert any("'owner_team' is a required property" in p.message for p in result.problems)
    schema, source = kind_schema("entity", shop)
    assert schema == OFFICIAL_ENTITY and "schemas/entity.schema.json" in source


def test_user_cache_schema_is_used_when_the_project_has_none(shop: Project, _isolated_user_cache: Path) -> None:
    folder = _isolated_user_cache / "formspec" / "schemas"
    folder.mkdir(parents=True)
    (folder / "form.json").write_text(json.dumps({"type": "object"}))
    _, source = kind_schema("Form", shop)
    assert source.startswith("official schema from the user cache")
    assert kind_schema("Table", shop)[1] == "formspec-consult built-in schema"


def test_a_broken_official_schema_falls_back_to_ours_with_a_warning(shop: Project, shop_dir: Path) -> None:
    (shop_dir / "schemas").mkdir()
    (shop_dir / "schemas" / "module.schema.json").write_text("{not json")
    assert kind_schema("Module", shop)[1] == "formspec-consult built-in schema"
    result = shop.validate()
    assert result.ok
    [warning] = [w for w in result.warnings if w.code == "FS-SCHEMA-SOURCE"]
    assert warning.source == "schemas/module.schema.json" and "unusable" in warning.message


def test_builtin_schema_accepts_the_fixture_and_fast_path_agrees_with_jsonschema(shop: Project) -> None:
    for doc in shop.documents():
        schema, _ = kind_schema(doc.kind)
        assert not list(Draft7Validator(schema).iter_errors(doc.data)), doc.rel


def test_official_schema_with_an_unhelpful_file_name_is_matched_by_content(shop: Project, shop_dir: Path) -> None:
    (shop_dir / "schemas").mkdir()
    (shop_dir / "schemas" / "v1-0042.json").write_text(json.dumps({"title": "Workflow", "type": "object"}))
    assert kind_schema("workflow", shop)[1].endswith("schemas/v1-0042.json")


def test_compiled_fast_path_agrees_with_jsonschema_on_good_and_bad_documents(
        shop: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from formspec_consult.spec.schema_registry import CompiledSchema

    from .test_bad_input import CASES, DRAFT

    monkeypatch.setattr(CompiledSchema, "FAST_PATH_AFTER", 0)
    assert shop.validate().ok
    schema_cases = [(case_id, text) for case_id, text, code, *_ in CASES if code == "FS-SCHEMA"]
    assert len(schema_cases) >= 7
    for case_id, text in schema_cases:
        assert "FS-SCHEMA" in shop.validate(overlay={DRAFT: text}).codes(), case_id


def test_official_schema_describing_only_spec_is_applied_to_spec(shop: Project, shop_dir: Path) -> None:
    (shop_dir / "schemas").mkdir()
    spec_only = {"type": "object", "required": ["version", "owner_team"], "properties": {"version": {"type": "string"}}}
    (shop_dir / "schemas" / "entity.schema.json").write_text(json.dumps(spec_only))
    result = shop.validate(overlay={"spec/modules/shop/x.yaml": entity("x", "  fields: []\n")})
    [problem] = [p for p in result.problems if p.code == "FS-SCHEMA" and p.source == "spec/modules/shop/x.yaml"]
    assert problem.message == "spec: 'owner_team' is a required property" and problem.line == 4


def test_official_schema_refs_to_sibling_files_resolve(shop: Project, shop_dir: Path) -> None:
    folder = shop_dir / "schemas"
    folder.mkdir()
    (folder / "common.json").write_text(json.dumps({"$defs": {"team": {"type": "string", "minLength": 3}}}))
    (folder / "entity.schema.json").write_text(json.dumps({
        "type": "object",
        "properties": {"metadata": {"type": "object", "properties": {
            "annotations": {"type": "object", "properties": {"team": {"$ref": "common.json#/$defs/team"}}}}}},
    }))
    text = entity("x", "  fields: []\n").replace("metadata: {name: x, module: shop}",
                                                 "metadata: {name: x, module: shop, annotations: {team: ab}}")
    result = shop.validate(overlay={"spec/modules/shop/x.yaml": text})
    assert any("'ab' is too short" in p.message for p in result.problems)


def test_official_schema_with_a_dangling_ref_falls_back_without_crashing(shop: Project, shop_dir: Path) -> None:
    (shop_dir / "schemas").mkdir()
    (shop_dir / "schemas" / "form.schema.json").write_text(json.dumps({"$ref": "missing.json#/x"}))
    result = shop.validate()
    assert result.ok
    [warning] = [w for w in result.warnings if w.code == "FS-SCHEMA-SOURCE"]
    assert warning.source == "schemas/form.schema.json" and "does not resolve: missing.json#/x" in warning.message
