"""The MCP tools report FormSpec's engine rules exactly as the spec core does (one gate, two doors)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from formspec_consult.spec import open_project
from tests.servers.conftest import call

pytestmark = pytest.mark.anyio

GIFT_CARD = "modules/shop/master/gift_card/entity.yaml"
BROKEN = {
    "FS-EVENT-TYPE-MISSING": "  events:\n    - {name: gift_card_spent}\n",
    "FS-EVENT-DURABLE": "  events:\n    - name: on_spent\n      deliver: [{channel: queue, job: notifier.notify}]\n",
    "FS-HOOK-ACTION": "  hooks:\n    - {on: after, action: top_up, impl: {type: script_ref, ref: scripts/t.star}}\n",
    "FS-EXTEND-NAMESPACE": "  extend_storage: {target: shop/customer, namespace: ab}\n",
}


def gift_card(tail: str) -> str:
    return ("apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: gift_card, module: shop}\nspec:\n"
            "  version: v1\n  fields:\n    - {name: code, type: string}\n" + tail)


@pytest.mark.parametrize("code", sorted(BROKEN))
async def test_validate_spec_and_propose_report_the_rule_the_core_reports(client: Client, project: Path,
                                                                          code: str) -> None:
    text = gift_card(BROKEN[code])
    core = open_project(project).validate(overlay={f"spec/{GIFT_CARD}": text})
    core_problems = [(p.code, p.line, p.message) for p in core.problems]
    assert [c for c, _, _ in core_problems] == [code]

    checked = await call(client, "validate_spec", {"yaml": text, "path": GIFT_CARD})
    assert [(p["code"], p["line"], p["message"]) for p in checked["problems"]] == core_problems
    assert checked["problems"][0]["hint"] == core.problems[0].hint

    proposed = await call(client, "propose_spec_file", {"path": GIFT_CARD, "content": text})
    assert proposed["validation"]["ok"] is False
    assert [(p["code"], p["line"], p["message"]) for p in proposed["validation"]["problems"]] == core_problems


async def test_a_dangling_app_menu_view_is_reported_through_mcp_as_by_the_core(client: Client, project: Path) -> None:
    app = (project / "spec/apps/barbershop.yaml").read_text().replace("view: appointment-list", "view: agenda")
    core = open_project(project).validate(overlay={"spec/apps/barbershop.yaml": app})
    assert core.codes() == ["FS-MENU-VIEW"]
    checked = await call(client, "validate_spec", {"yaml": app, "path": "apps/barbershop.yaml"})
    assert [p["code"] for p in checked["problems"]] == ["FS-MENU-VIEW"]
    assert checked["problems"][0]["message"] == core.problems[0].message
