"""The schema layer agrees with FormSpec: constructs it accepts validate, what its schema rejects fails.

Cases live in `schema_cases/` (our own small projects, one construct each); the tests below also
cover FormSpec's official schema layouts and the spec-root check.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from formspec_consult.spec import Project, kind_schema
from formspec_consult.spec.schema_registry import BUILTIN_SOURCE, CompiledSchema
from formspec_consult.spec.schemas import official_layout

from .corpus import TICKET, Case, build, load_cases

CASES = load_cases(Path(__file__).parent / "schema_cases")


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private user cache, so official schemas on the machine never leak into a test."""
    cache = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache / "formspec" / "schemas"


def test_the_corpus_covers_the_constructs_and_rules_it_should() -> None:
    by_expect = {kind: [c for c in CASES if c.expect == kind] for kind in ("ok", "error", "warning")}
    assert len(by_expect["ok"]) >= 20 and len(by_expect["error"]) >= 20 and len(by_expect["warning"]) >= 3
    assert len(CASES) == sum(map(len, by_expect.values())), "every case says ok, error or warning"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_schema_case_behaves_as_formspec_does(case: Case, tmp_path: Path) -> None:
    result = build(tmp_path / "p", case.text).validate()
    listing = [(p.code, p.message) for p in result.problems + result.warnings]
    if case.expect == "ok":
        assert result.ok and not result.warnings, listing
    elif case.expect == "error":
        hits = [p for p in result.problems if p.code == case.code and case.fragment in p.message]
        assert hits, listing
        assert all(p.source == "spec/modules/fid/case.yaml" and p.line and p.hint for p in hits)
    else:
        assert result.ok, listing
        hits = [w for w in result.warnings if w.code == case.code]
        assert hits and case.fragment in hits[0].hint, listing


@pytest.mark.parametrize("case", [c for c in CASES if c.expect == "error"], ids=lambda c: c.name)
def test_compiled_fast_path_reaches_the_same_verdict(case: Case, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(CompiledSchema, "FAST_PATH_AFTER", 0)
    result = build(tmp_path / "p", case.text).validate()
    assert any(p.code == case.code and case.fragment in p.message for p in result.problems)


# -- official schemas in FormSpec's layout ---------------------------------------------------------

def write_layout(folder: Path, change: dict[str, Any] | None = None) -> None:
    """Our own schemas written as FormSpec lays its official ones out, with optional replacements."""
    for rel, data in {**official_layout(), **(change or {})}.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")


def strict_entity() -> dict[str, Any]:
    """Our Entity fragment, changed so that it demands an `owner_team` (proves which schema ran)."""
    fragment = official_layout()["kinds/Entity.schema.json"]
    fragment["properties"]["owner_team"] = {"$ref": "#/$defs/TeamName"}
    fragment["required"] = ["version", "owner_team"]
    return fragment


def test_project_official_layout_is_used_and_named_per_kind(tmp_path: Path) -> None:
    project = build(tmp_path / "p", "")
    write_layout(project.root / "schemas")
    result = project.validate()
    assert result.ok and not result.warnings, [(p.code, p.message) for p in result.problems + result.warnings]
    assert result.schema_sources["Entity"].startswith(f"official schema from {project.root}/schemas/")
    assert result.schema_sources["Entity"].endswith("(formspec.schema.json + kinds/Entity.schema.json)")
    schema, source = kind_schema("entity", project)
    assert source == result.schema_sources["Entity"] and "$defs" in schema


def test_a_kind_fragment_refs_into_the_root_defs(tmp_path: Path) -> None:
    project = build(tmp_path / "p", "")
    root = official_layout()["formspec.schema.json"]
    root["$defs"]["TeamName"] = {"type": "string", "minLength": 3}
    write_layout(project.root / "schemas", {"formspec.schema.json": root, "kinds/Entity.schema.json": strict_entity()})
    codes = [(p.code, p.message) for p in project.validate().problems]
    assert ("FS-SCHEMA", "spec: 'owner_team' is a required property") in codes
    team = TICKET.replace("  version: v1\n", "  version: v1\n  owner_team: ab\n")
    (project.root / "spec/modules/fid/ticket.yaml").write_text(team, encoding="utf-8")
    assert [p.message for p in project.validate().problems] == ["spec/owner_team: 'ab' is too short"]


def test_user_cache_layout_is_used_per_spec_version(tmp_path: Path, user_cache: Path) -> None:
    project = build(tmp_path / "p", "")
    root = official_layout()["formspec.schema.json"]
    root["$defs"]["TeamName"] = {"type": "string"}
    write_layout(user_cache / "v1", {"formspec.schema.json": root, "kinds/Entity.schema.json": strict_entity()})
    write_layout(user_cache / "v2")  # another version's schemas are not used for formspec.dev/v1
    result = project.validate()
    assert any("'owner_team' is a required property" in p.message for p in result.problems)
    assert result.schema_sources["Entity"].startswith(f"official schema from the user cache {user_cache / 'v1'}/")
    (project.root / "schemas").mkdir()
    write_layout(project.root / "schemas")  # the project's own official schemas come first
    assert project.validate().ok


def test_a_broken_fragment_is_one_warning_and_every_document_of_the_kind_falls_back(tmp_path: Path) -> None:
    second = TICKET.replace("name: ticket", "name: ticket_two")
    project = build(tmp_path / "p", second)
    write_layout(project.root / "schemas", {"kinds/Entity.schema.json": {"type": "objekt"}})
    result = project.validate()
    assert result.ok
    [warning] = [w for w in result.warnings if w.code == "FS-SCHEMA-SOURCE"]
    assert warning.source == "schemas/kinds/Entity.schema.json"
    assert "'objekt'" in warning.message and f"{BUILTIN_SOURCE} for Entity" in warning.message
    assert result.schema_sources["Entity"] == BUILTIN_SOURCE
    assert result.schema_sources["Module"].startswith("official schema from")


def test_a_broken_root_sends_every_kind_to_the_next_source_with_one_warning(tmp_path: Path) -> None:
    project = build(tmp_path / "p", "")
    write_layout(project.root / "schemas", {"formspec.schema.json": "{ not json"})
    result = project.validate()
    assert result.ok
    [warning] = [w for w in result.warnings if w.code == "FS-SCHEMA-SOURCE"]
    assert warning.source == "schemas/formspec.schema.json" and "not valid JSON" in warning.message
    assert "for Entity, Module" in warning.message
    assert set(result.schema_sources.values()) == {BUILTIN_SOURCE}


def test_a_root_without_defs_is_unusable(tmp_path: Path) -> None:
    project = build(tmp_path / "p", "")
    write_layout(project.root / "schemas", {"formspec.schema.json": {"title": "no defs"}})
    [warning] = [w for w in project.validate().warnings if w.code == "FS-SCHEMA-SOURCE"]
    assert "has no `$defs` object" in warning.message


def test_a_dangling_ref_in_a_fragment_is_found_before_any_document_is_checked(tmp_path: Path) -> None:
    broken = official_layout()["kinds/Entity.schema.json"]
    broken["properties"]["fields"] = {"type": "array", "items": {"$ref": "#/$defs/NoSuchField"}}
    for order in ("a_first", "z_last"):  # whichever document comes first, the outcome is the same
        project = build(tmp_path / order, TICKET.replace("name: ticket", f"name: {order}"))
        write_layout(project.root / "schemas", {"kinds/Entity.schema.json": broken})
        result = project.validate()
        assert result.ok and result.schema_sources["Entity"] == BUILTIN_SOURCE
        [warning] = [w for w in result.warnings if w.code == "FS-SCHEMA-SOURCE"]
        assert "does not resolve: #/$defs/NoSuchField" in warning.message


def test_editing_an_official_file_is_picked_up_without_a_restart(tmp_path: Path) -> None:
    project = build(tmp_path / "p", "")
    write_layout(project.root / "schemas")
    assert project.validate().ok
    root = official_layout()["formspec.schema.json"]
    root["$defs"]["TeamName"] = {"type": "string"}
    write_layout(project.root / "schemas", {"formspec.schema.json": root, "kinds/Entity.schema.json": strict_entity()})
    assert not project.validate().ok


# -- the spec root ---------------------------------------------------------------------------------

def test_a_spec_root_that_does_not_exist_is_an_error_naming_the_path(tmp_path: Path) -> None:
    project: Project = build(tmp_path / "p", "")
    (project.root / "formspec-app.yaml").write_text("spec: specs\n", encoding="utf-8")
    result = type(project)(project.root).validate()
    [problem] = [p for p in result.problems if p.code == "FS-SPEC-ROOT-MISSING"]
    assert not result.ok and str(project.root / "specs") in problem.message and "specs/" in problem.hint


def test_the_default_spec_root_may_be_absent_when_modules_sit_at_the_project_root(tmp_path: Path) -> None:
    root = tmp_path / "flat"
    (root / "modules" / "fid").mkdir(parents=True)
    (root / "modules" / "fid" / "module.yaml").write_text(
        "apiVersion: formspec.dev/v1\nkind: Module\nmetadata: {name: fid}\nspec: {version: 1.0.0}\n")
    assert type(build(tmp_path / "p", ""))(root).validate().ok
