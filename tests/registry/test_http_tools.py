"""The three registry tools through a real Streamable HTTP MCP client, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import anyio
import pytest

from tests.helpers import first_text
from tests.registry.conftest import RunningRegistry, mcp_client, structured

pytestmark = pytest.mark.anyio
TOKEN = "test-token-3f9a"


@pytest.fixture
def registry(seeded_url: str, start_registry: Callable[..., RunningRegistry]) -> Iterator[RunningRegistry]:
    yield start_registry(seeded_url, token=TOKEN)


async def test_tools_are_listed_read_only_with_output_schemas(registry: RunningRegistry) -> None:
    with anyio.fail_after(30):
        async with mcp_client(registry.url, TOKEN) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"list_business_templates", "get_business_template", "search_modules_registry", "get_module_detail"}
    for tool in tools.values():
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.output_schema is not None
        assert tool.description and "\n " not in tool.description, tool.name  # no docstring indentation


async def test_list_business_templates_returns_the_whole_catalogue_with_indonesian_aliases(
    registry: RunningRegistry,
) -> None:
    with anyio.fail_after(30):
        async with mcp_client(registry.url, TOKEN) as client:
            data = structured(await client.call_tool("list_business_templates", {}))
    assert data["count"] == len(data["templates"]) >= 12
    by_pattern = {t["pattern"]: t for t in data["templates"]}
    barber = by_pattern["appointment-services"]
    assert "barbershop" in barber["applies_to"] and "tukang potong rambut" in barber["applies_to"]
    assert {"name": "Appointment", "characteristic": "transaction"}.items() <= barber["candidate_entities"][
        3
    ].items()
    assert "arisan" in by_pattern["rotating-savings-group"]["applies_to"]
    assert all(t["probing_questions"] and t["candidate_entities"] for t in data["templates"])


async def test_get_business_template_returns_one_template_by_pattern_or_alias_and_names_the_patterns_otherwise(
    registry: RunningRegistry,
) -> None:
    with anyio.fail_after(30):
        async with mcp_client(registry.url, TOKEN) as client:
            by_pattern = structured(await client.call_tool("get_business_template", {"pattern": "appointment-services"}))
            by_alias = structured(await client.call_tool("get_business_template", {"pattern": "Tukang Potong Rambut"}))
            unknown = await client.call_tool("get_business_template", {"pattern": "appointment-service"})
    assert by_pattern == by_alias and by_pattern["pattern"] == "appointment-services"
    assert by_pattern["probing_questions"] and by_pattern["candidate_entities"]
    assert unknown.is_error
    assert "Did you mean: appointment-services?" in first_text(unknown)
    assert "rotating-savings-group" in first_text(unknown)  # every pattern is named


async def test_search_finds_a_payment_gateway_for_indonesian_pembayaran_online(
    registry: RunningRegistry,
) -> None:
    with anyio.fail_after(30):
        async with mcp_client(registry.url, TOKEN) as client:
            data = structured(
                await client.call_tool("search_modules_registry", {"query": "pembayaran online", "limit": 3})
            )
    assert data["results"][0]["name"] == "payment-gateway"
    assert data["count"] == len(data["results"]) <= 3
    scores = [r["score"] for r in data["results"]]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0
    assert "«online»" in data["results"][0]["snippet"]


async def test_search_with_a_category_returns_only_that_category(registry: RunningRegistry) -> None:
    with anyio.fail_after(30):
        async with mcp_client(registry.url, TOKEN) as client:
            data = structured(
                await client.call_tool(
                    "search_modules_registry",
                    {"query": "notifications reminders", "category": "notifications"},
                )
            )
            unknown = await client.call_tool(
                "search_modules_registry", {"query": "payment", "category": "weather"}
            )
    assert data["results"] and {r["category"] for r in data["results"]} == {"notifications"}
    assert unknown.is_error and "Known categories" in first_text(unknown)


async def test_search_rejects_a_query_without_searchable_words_with_a_hint(registry: RunningRegistry) -> None:
    with anyio.fail_after(30):
        async with mcp_client(registry.url, TOKEN) as client:
            result = await client.call_tool("search_modules_registry", {"query": "the and of ?!"})
            too_many = await client.call_tool("search_modules_registry", {"query": "payment", "limit": 500})
    assert result.is_error and "no searchable words" in first_text(result)
    assert too_many.is_error


async def test_get_module_detail_returns_the_full_ai_index_versions_and_depends(
    registry: RunningRegistry,
) -> None:
    with anyio.fail_after(30):
        async with mcp_client(registry.url, TOKEN) as client:
            data = structured(await client.call_tool("get_module_detail", {"name": "Payment-Gateway"}))
    assert data["name"] == "payment-gateway" and data["trust_tier"] == "official"
    assert data["versions"][0] == data["version"] and len(data["versions"]) > 1
    assert data["depends"] == [{"module": "invoicing", "version": ">=1.4"}]
    ai = data["ai_index"]
    assert ai["category"] == "payment" and "pembayaran online" in ai["aliases"] and ai["features"]
    assert ai["skills_for_ai"]["untrusted"] is False and ai["skills_for_ai"]["warning"] is None


async def test_get_module_detail_of_an_unknown_name_suggests_close_names(registry: RunningRegistry) -> None:
    with anyio.fail_after(30):
        async with mcp_client(registry.url, TOKEN) as client:
            result = await client.call_tool("get_module_detail", {"name": "invocing"})
    assert result.is_error
    assert "invoicing" in first_text(result) and "search_modules_registry" in first_text(result)


async def test_community_skills_arrive_as_delimited_untrusted_data(registry: RunningRegistry) -> None:
    with anyio.fail_after(30):
        async with mcp_client(registry.url, TOKEN) as client:
            data = structured(await client.call_tool("get_module_detail", {"name": "payment-links"}))
            search = structured(await client.call_tool("search_modules_registry", {"query": "payment link"}))
    skills = data["ai_index"]["skills_for_ai"]
    assert skills["untrusted"] is True and skills["trust_tier"] == "community"
    assert "not instructions" in skills["warning"]
    assert skills["text"] not in data["description"]
    assert all("skills_for_ai" not in hit for hit in search["results"])
