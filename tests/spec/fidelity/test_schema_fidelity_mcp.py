"""The MCP tools report what the core reports: problems, shorthand warnings and schema sources."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client

from formspec_consult.servers.local import create_local_server
from formspec_consult.spec import kind_schema, open_project
from formspec_consult.spec.schemas import official_layout
from tests.servers.conftest import call

from .corpus import build, load_cases

pytestmark = pytest.mark.anyio
CASES = {c.name: c for c in load_cases(Path(__file__).parent / "schema_cases")}
PICKED = ["bad-config-key-description", "bad-print-formats-list", "shorthand-form-render", "ok-kanban"]


@pytest.fixture(autouse=True)
def _user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = build(tmp_path / "p", "")
    for rel, data in official_layout().items():
        path = project.root / "schemas" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data), encoding="utf-8")
    (project.root / "schemas" / "kinds" / "Form.schema.json").write_text("{broken", encoding="utf-8")
    return project.root


@pytest.fixture
async def client(root: Path) -> AsyncIterator[Client]:
    async with Client(create_local_server(root, "20261201-120000-fidelity")) as connected:
        yield connected


def core(root: Path, text: str) -> dict[str, object]:
    return open_project(root).validate_text(text, "spec/modules/fid/case.yaml").to_dict()


@pytest.mark.parametrize("name", PICKED)
async def test_validate_spec_reports_what_the_core_reports(client: Client, root: Path, name: str) -> None:
    text = CASES[name].text
    result = await call(client, "validate_spec", {"yaml": text, "path": "modules/fid/case.yaml"})
    assert result == core(root, text)


@pytest.mark.parametrize("name", PICKED)
async def test_propose_spec_file_validates_the_draft_as_the_core_does(client: Client, root: Path, name: str) -> None:
    text = CASES[name].text
    result = await call(client, "propose_spec_file", {"path": "modules/fid/case.yaml", "content": text})
    expected = open_project(root).validate(overlay={"spec/modules/fid/case.yaml": text}).to_dict()
    got = result["validation"]
    assert [(p["code"], p["message"]) for p in got["problems"]] == [
        (p["code"], p["message"]) for p in expected["problems"]]
    assert {w["code"] for w in got["warnings"]} == {w["code"] for w in expected["warnings"]}
    assert got["schema_sources"] == expected["schema_sources"]


async def test_list_kind_schemas_names_the_same_source_per_kind_as_the_core(client: Client, root: Path) -> None:
    project = open_project(root)
    for kind in ("Entity", "Form", "Module", "Print"):
        one = await call(client, "list_kind_schemas", {"kind": kind.lower(), "full": True})
        schema, source = kind_schema(kind, project)
        assert (one["kind"], one["source"], one["schema"]) == (kind, source, schema)
        outline = await call(client, "list_kind_schemas", {"kind": kind})
        assert (outline["kind"], outline["source"]) == (kind, source)
    assert (await call(client, "list_kind_schemas", {"kind": "Entity"}))["source"].startswith("official schema from")
    assert (await call(client, "list_kind_schemas", {"kind": "Form"}))["source"] == "formspec-consult built-in schema"
