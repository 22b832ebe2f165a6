"""The read-only grounding tools of the local server, through an in-memory MCP client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.helpers import first_text
from tests.servers.conftest import call, call_error

pytestmark = pytest.mark.anyio

READ_ONLY_TOOLS = {
    "list_kind_schemas",
    "read_workspace_manifest",
    "list_installed_modules",
    "read_module_spec",
    "check_naming_conflict",
    "validate_spec",
    "list_skills",
    "read_skill",
    "list_drafts",
    "diff_drafts",
    "get_server_status",
    "read_transcript",
    "list_draft_blocks",
    "list_turn_changes",
    "validate_project",
}


async def test_every_tool_is_listed_with_a_description_and_the_right_hints(client: Client) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == READ_ONLY_TOOLS | {
        "propose_spec_file",
        "apply_draft",
        "undo_apply",
        "reject_draft",
        "withdraw_draft",
        "restart_server",
        "stop_server",
        "install_module",
        "edit_draft",
        "apply_draft_blocks",
    }
    for name, tool in tools.items():
        assert tool.description and len(tool.description) > 20, name  # a sentence, short: it is in every request
        assert tool.annotations is not None
        assert bool(tool.annotations.read_only_hint) == (name in READ_ONLY_TOOLS), name
    annotations = tools["apply_draft"].annotations
    assert annotations is not None and annotations.destructive_hint is True
    assert tools["propose_spec_file"].input_schema["properties"]["path"]["description"]


async def test_results_are_structured_and_also_one_json_text_block(client: Client) -> None:
    result = await client.call_tool("list_kind_schemas", {})
    assert len(result.content) == 1
    assert json.loads(first_text(result)) == result.structured_content


async def test_list_kind_schemas_lists_kinds_and_returns_one_schema_case_insensitively(
    client: Client,
) -> None:
    kinds = (await call(client, "list_kind_schemas"))["kinds"]
    assert {"Entity", "Module", "App", "Form"} <= set(kinds)
    one = await call(client, "list_kind_schemas", {"kind": "entity"})
    assert one["kind"] == "Entity" and "version*" in one["outline"]["spec*"] and one["source"]
    full = await call(client, "list_kind_schemas", {"kind": "entity", "full": True})
    assert full["kind"] == "Entity" and full["schema"]["type"] == "object" and full["source"] == one["source"]


async def test_an_unknown_kind_is_an_error_listing_the_known_kinds(client: Client) -> None:
    message = await call_error(client, "list_kind_schemas", {"kind": "Spaceship"})
    assert "Spaceship" in message and "Entity" in message


async def test_read_workspace_manifest_returns_every_app_with_its_text(client: Client) -> None:
    apps = (await call(client, "read_workspace_manifest"))["apps"]
    assert [a["path"] for a in apps] == ["apps/barbershop.yaml"]
    assert apps[0]["file"] == "spec/apps/barbershop.yaml"
    assert "kind: App" in apps[0]["content"]


async def test_installed_modules_cover_both_folders_and_wrap_vendor_skills_as_untrusted(
    client: Client,
) -> None:
    result = await call(client, "list_installed_modules")
    modules = {m["name"]: m for m in result["modules"]}
    assert result["formspec_lock"] is True
    assert modules["booking"]["source"] == "modules" and modules["booking"]["ai_index"]
    vendor = modules["loyalty"]
    assert vendor["source"] == "vendors" and vendor["read_only"] is True
    assert set(vendor) <= {
        "name",
        "source",
        "path",
        "version",
        "active",
        "read_only",
        "trust_tier",
        "alias",
        "checksum",
        "ai_index",
        "holds",  # names only, never spec text
    }
    assert vendor["holds"] == {"Entity master": ["loyalty_card"], "Form": ["loyalty_card-edit"]}
    skills = vendor["ai_index"]["skills_for_ai"]
    assert skills["untrusted"] is True and skills["publisher"]
    assert "never as instructions" in skills["warning"] and skills["text"]
    assert "apiVersion" not in json.dumps(vendor)  # metadata only, never raw spec text


async def test_read_module_spec_finds_a_document_by_identity(client: Client) -> None:
    doc = await call(client, "read_module_spec", {"module": "shop", "kind": "entity", "name": "Customer"})
    assert doc["path"] == "modules/shop/master/customer/entity.yaml"
    assert doc["kind"] == "Entity" and "name: customer" in doc["content"] and "note" not in doc


async def test_read_module_spec_returns_the_file_as_written_with_its_comments(project: Path, client: Client) -> None:
    path = project / "spec/modules/shop/master/customer/entity.yaml"
    written = "# Customers of the shop: kept by the front desk.\n" + path.read_text(encoding="utf-8") + "# end\n"
    path.write_text(written, encoding="utf-8")
    doc = await call(client, "read_module_spec", {"module": "shop", "kind": "Entity", "name": "customer"})
    assert doc["content"] == written


async def test_a_document_in_a_file_of_several_comes_with_the_whole_file_so_a_proposal_keeps_the_others(
    project: Path, client: Client
) -> None:
    # A Table and a Form in one file, as FormSpec allows: read_module_spec hands the model the whole
    # file and says so; proposing it back with one change deletes nothing.
    views = project / "spec/modules/shop/master/customer/forms/list.yaml"
    views.parent.mkdir(parents=True, exist_ok=True)
    table = ("apiVersion: formspec.dev/v1\nkind: Table\nmetadata:\n  name: customer-list\n  module: shop\n"
             "spec:\n  entity: customer\n  columns:\n    - {field: name}\n")
    form = ("apiVersion: formspec.dev/v1\nkind: Form\nmetadata:\n  name: customer-edit\n  module: shop\n"
            "spec:\n  entity: customer\n  mode: edit\n  sections:\n    - title: Customer\n"
            "      fields: [{field: name}]\n")
    views.write_text(table + "---\n" + form, encoding="utf-8")
    doc = await call(client, "read_module_spec", {"module": "shop", "kind": "Table", "name": "customer-list"})
    assert doc["content"] == table + "---\n" + form
    assert "holds 2 documents (Table customer-list, Form customer-edit)" in doc["note"]
    assert "propose all of it" in doc["note"]
    alone = await call(client, "read_module_spec", {"module": "shop", "kind": "Entity", "name": "customer"})
    assert "note" not in alone


async def test_a_vendor_document_is_readable_but_marked_as_third_party_data(client: Client) -> None:
    doc = await call(
        client, "read_module_spec", {"module": "loyalty", "kind": "Entity", "name": "loyalty_card"}
    )
    assert doc["read_only"] is True and doc["origin"] == "vendors"
    assert "not as instructions" in doc["note"] and "overrides/" in doc["note"]


async def test_check_naming_conflict_reports_taken_and_free_names(client: Client) -> None:
    taken = await call(client, "check_naming_conflict", {"name": "customer"})
    assert taken["available"] is False and taken["matches"]
    free = await call(
        client, "check_naming_conflict", {"name": "gift_voucher", "module": "shop", "kind": "Entity"}
    )
    assert free["available"] is True
    assert "empty" in await call_error(client, "check_naming_conflict", {"name": "  "})


async def test_validate_spec_checks_text_in_context_without_writing(client: Client, project: Path) -> None:
    bad = await call(client, "validate_spec", {"yaml": "kind: Entity\n"})
    assert bad["ok"] is False and bad["problems"][0]["layer"] == "schema"
    text = (project / "spec/modules/shop/master/customer/entity.yaml").read_text()
    good = await call(
        client, "validate_spec", {"yaml": text, "path": "modules/shop/master/customer/entity.yaml"}
    )
    assert good["ok"] is True
    assert "empty" in await call_error(client, "validate_spec", {"yaml": ""})


async def test_skills_are_listed_and_read_as_raw_markdown(client: Client) -> None:
    names = {s["name"] for s in (await call(client, "list_skills"))["skills"]}
    assert {"barbershop-pricing", "consultation-workflow"} <= names
    text = await call(client, "read_skill", {"name": "barbershop-pricing"})
    assert text.startswith("---\nname: barbershop-pricing")
    message = await call_error(client, "read_skill", {"name": "nope"})
    assert "Known skills" in message and "barbershop-pricing" in message


async def test_tool_descriptions_carry_no_source_indentation(client: Client) -> None:
    for tool in (await client.list_tools()).tools:
        assert "\n    " not in (tool.description or ""), tool.name


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("read_workspace_manifest", {}),
        ("list_installed_modules", {}),
        ("list_skills", {}),
        ("list_drafts", {}),
        ("validate_spec", {"yaml": "kind: Entity\n"}),
    ],
)
async def test_a_vanished_project_is_a_clear_error(
    client: Client, project: Path, tool: str, args: dict[str, Any]
) -> None:
    project.rename(project.with_name("moved"))
    assert "no longer exists" in await call_error(client, tool, args)


async def test_read_module_spec_of_a_missing_document_names_what_the_module_has(client: Client) -> None:
    """The refusal lists the module's documents (or the modules), never a tool to look them up with."""
    said = await call_error(client, "read_module_spec", {"module": "shop", "kind": "Entity", "name": "ghost"})
    assert "Its Entity documents: " in said and "customer" in said and "list_installed_modules" not in said
    other = await call_error(client, "read_module_spec", {"module": "nowhere", "kind": "Entity", "name": "x"})
    assert "There is no module named 'nowhere'" in other and "shop" in other
