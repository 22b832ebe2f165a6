"""Session-start context: what the deterministic calls put in front of the model."""

from __future__ import annotations

from typing import Any

import pytest

from formspec_consult.agent.engine.context import collect_context, render_template_index
from formspec_consult.mcp_client import ToolError

CATALOGUE = {
    "count": 1,
    "templates": [
        {
            "pattern": "appointment-services",
            "title": "Appointment-based services",
            "applies_to": ["barbershop", "tukang cukur"],
            "description": "Sells time with a skilled person.",
            "probing_questions": ["Do customers book ahead?"],
            "candidate_entities": [
                {"name": "Appointment", "characteristic": "transaction", "note": "booked slot"}
            ],
        }
    ],
}


def test_the_template_catalogue_is_injected_as_an_index_of_ids_titles_and_aliases() -> None:
    text = render_template_index(CATALOGUE)
    assert text == "- appointment-services — Appointment-based services (barbershop, tukang cukur)"
    assert "Do customers book ahead?" not in text  # details are read on demand with get_business_template


def test_an_unexpected_catalogue_shape_is_passed_on_whole() -> None:
    assert render_template_index({"odd": [1, 2]}) == '{"odd":[1,2]}'


@pytest.mark.anyio
async def test_context_calls_run_in_order_and_a_missing_registry_only_leaves_its_part_empty() -> None:
    called: list[str] = []

    async def call(tool: str, arguments: dict[str, Any]) -> Any:
        called.append(tool)
        return {"tool": tool}

    values, problems = await collect_context(call, lambda tool: tool != "list_business_templates")
    assert called == ["read_workspace_manifest", "list_installed_modules", "list_skills"]
    assert values["business_templates"] == "" and problems == []
    assert values["skills"] == '{"tool":"list_skills"}'


@pytest.mark.anyio
async def test_a_failing_required_context_call_stops_the_start() -> None:
    async def call(tool: str, arguments: dict[str, Any]) -> Any:
        raise ToolError(f"{tool}: broken project")

    with pytest.raises(ToolError, match="read_workspace_manifest: broken project"):
        await collect_context(call, lambda tool: True)
