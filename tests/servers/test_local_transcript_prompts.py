"""read_transcript over the session's events.jsonl, and the prompt files served as MCP prompts."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

from formspec_consult.prompting.prompts import list_prompts
from formspec_consult.servers.local import server_state
from formspec_consult.store.events import EventLog
from tests.servers.conftest import call, call_error

pytestmark = pytest.mark.anyio


@pytest.fixture
def events(server: MCPServer) -> Path:
    folder = server_state(server).session_folder
    with EventLog(folder / "events.jsonl") as log:
        log.append("user_message", text="We cut hair and sell Pomade")
        log.append("tool_result", name="list_skills", content="x" * 20_000)
        log.append("assistant_message", text="Shall we track walk-ins? A) yes B) no")
        log.append("user_message", text="B")
    with open(folder / "events.jsonl", "ab") as handle:
        handle.write(b'{"v": 1, "seq": 5, "ty')  # a torn last line, as after a crash
    return folder / "events.jsonl"


async def test_one_event_is_returned_in_full_by_seq(client: Client, events: Path) -> None:
    event = (await call(client, "read_transcript", {"seq": 2}))["event"]
    assert event["type"] == "tool_result" and len(event["content"]) == 20_000


async def test_search_is_case_insensitive_newest_first_and_limited(client: Client, events: Path) -> None:
    found = await call(client, "read_transcript", {"query": "POMADE"})
    assert [e["seq"] for e in found["events"]] == [1]
    assert "Pomade" in found["events"][0]["snippet"]
    users = await call(client, "read_transcript", {"type": "user_message", "limit": 1})
    assert users["total_matches"] == 2 and [e["seq"] for e in users["events"]] == [4]


async def test_an_unknown_seq_is_an_error_that_suggests_searching(client: Client, events: Path) -> None:
    assert "search with query" in (await call_error(client, "read_transcript", {"seq": 99})).lower()


async def test_an_empty_session_has_no_matches(client: Client) -> None:
    assert (await call(client, "read_transcript", {"query": "anything"}))["events"] == []


async def test_every_prompt_file_is_served_and_renders_like_the_engine(client: Client) -> None:
    served = {p.name: p for p in (await client.list_prompts()).prompts}
    files = {p.name: p for p in list_prompts()}
    assert set(served) == set(files) and served
    for name, prompt in files.items():
        wanted = {v.name for v in prompt.variables if v.required}
        assert {a.name for a in served[name].arguments or [] if a.required} == wanted, name
    name, prompt = sorted(files.items())[0]
    values = {v.name: f"<{v.name}>" for v in prompt.variables}
    rendered = await client.get_prompt(name, values)
    text = rendered.messages[0].content.text  # type: ignore[union-attr]
    assert text.startswith(prompt.render_system(**values).strip())
    if prompt.user_template:
        assert text.rstrip().endswith(prompt.render_user(**values).strip())
