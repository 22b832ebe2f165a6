"""read_transcript over the session's events.jsonl, and the prompt files served as MCP prompts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mcp import Client

from formspec_consult.prompting.prompts import list_prompts
from formspec_consult.servers.local.server import LocalServer
from formspec_consult.store.events import EventLog
from tests.helpers import first_text, group_of
from tests.servers.conftest import call, call_error

pytestmark = pytest.mark.anyio


@pytest.fixture
def events(server: LocalServer) -> Path:
    folder: Path = server.state.session_folder
    with EventLog(folder / "events.jsonl") as log:
        log.append("user_message", text="We cut hair and sell Pomade")
        log.append("tool_result", name="list_skills", content="x" * 20_000)
        log.append("assistant_message", text="Shall we track walk-ins? A) yes B) no")
        log.append("user_message", text="B")
    with open(folder / "events.jsonl", "ab") as handle:
        handle.write(b'{"v": 1, "seq": 5, "ty')  # a torn last line, as after a crash
    return folder / "events.jsonl"


async def test_a_short_event_is_returned_in_full_by_seq(client: Client, events: Path) -> None:
    event = (await call(client, "read_transcript", {"seq": 3}))["event"]
    assert event["type"] == "assistant_message" and event["text"].startswith("Shall we track walk-ins?")


async def test_a_long_event_is_read_in_pages_that_each_fit_the_result_cap_and_join_into_the_whole(
    client: Client, events: Path
) -> None:
    whole = json.dumps(list(EventLog.records(events))[1].to_json(), ensure_ascii=False)
    first = await client.call_tool("read_transcript", {"seq": 2})
    pages, text_blocks = [first.structured_content], [first_text(first)]
    while "hint" in pages[-1]:
        offset = int(group_of(r"offset=(\d+)", pages[-1]["hint"]))
        assert offset > pages[-1]["offset"]  # always forward: never a loop
        answer = await client.call_tool("read_transcript", {"seq": 2, "offset": offset})
        pages.append(answer.structured_content)
        text_blocks.append(first_text(answer))
    assert len(pages) > 1 and all(len(block) <= 8000 for block in text_blocks)
    assert "".join(p["text"] for p in pages) == whole


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


async def test_the_note_of_a_cut_result_names_the_call_that_reads_the_rest_to_its_end(
    client: Client, server: LocalServer
) -> None:
    from formspec_consult.agent.loop.tools import cap_result
    from formspec_consult.store.records import ToolResultRecord

    schema = first_text(await client.call_tool("list_kind_schemas", {"kind": "Entity", "full": True}))
    assert len(schema) > 50_000
    with EventLog(server.state.session_folder / "events.jsonl") as log:
        logged = log.write(ToolResultRecord(call_id="c1", name="list_kind_schemas", ok=True, result=schema))
    seen = cap_result(schema, 8000, logged.seq)
    call_text = re.search(r"Read on with read_transcript\(seq=(\d+), offset=(\d+)\)", seen)
    assert call_text is not None
    args: dict[str, int] | None = {"seq": int(call_text.group(1)), "offset": int(call_text.group(2))}
    rest = ""
    while args is not None:
        answer = await client.call_tool("read_transcript", args)
        assert len(first_text(answer)) <= 8000  # never cut again
        page = answer.structured_content
        rest += page["text"]
        hint = page.get("hint")
        args = {"seq": logged.seq, "offset": int(group_of(r"offset=(\d+)", hint))} if hint else None
    assert seen.startswith(schema[:8000]) and schema[:8000] + rest == schema
