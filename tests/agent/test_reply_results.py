"""What the consultant reads of its proposals, through the engine and a scripted model: the drafts
of one reply judged as a set (a draft a later one of the same reply makes valid is told valid in
that reply), each answer its own draft's verdict, and lean answers (compact, no machine-only
fields, the skills named once per session) while the log and the UI keep the whole answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ScriptedProvider
from formspec_consult.store.agent_events import ToolCallFinished, TurnFinished
from formspec_consult.store.events import EventLog
from tests.agent.engines import consult
from tests.e2e.project import CUSTOMER, DRAFT_PATH

pytestmark = pytest.mark.anyio

BOOKING_PATH = "modules/shop/master/booking/entity.yaml"
ITEM_PATH = "modules/shop/master/booking_item/entity.yaml"
BOOKING = """apiVersion: formspec.dev/v1
kind: Entity
metadata: {name: booking, module: shop}
spec:
  version: v1
  characteristic: master
  display_field: code
  fields:
    - {name: code, type: string, required: true}
    - name: items
      type: relation
      relation: {type: has_many, resource: booking_item}
"""
ITEM = """apiVersion: formspec.dev/v1
kind: Entity
metadata: {name: booking_item, module: shop}
spec:
  version: v1
  characteristic: master
  display_field: gear
  fields:
    - {name: gear, type: string, required: true}
    - name: booking
      type: relation
      relation: {type: belongs_to, resource: booking, on_delete: cascade}
"""


def propose(path: str, content: str, call_id: str) -> dict[str, Any]:
    return {"id": call_id, "name": "propose_spec_file", "arguments": {"path": path, "content": content}}


def sent_results(provider: ScriptedProvider, request: int) -> dict[str, str]:
    """call id -> the tool message the model read in request `request` (without the step budget's
    footer, which the first drafting round of a turn ends with)."""
    return {m["tool_call_id"]: m["content"].split("\n\n[Step budget")[0]
            for m in provider.requests[request] if m["role"] == "tool"}


async def test_a_draft_made_valid_by_a_later_draft_of_the_same_reply_is_told_valid_in_that_reply(
    project: Path,
) -> None:
    reply = {"tool_calls": [propose(BOOKING_PATH, BOOKING, "c1"), propose(ITEM_PATH, ITEM, "c2")]}
    engine, provider, events = await consult(project, [reply, "Both drafted."], "bookings with items")
    read = sent_results(provider, 1)
    booking, item = json.loads(read["c1"]), json.loads(read["c2"])
    assert booking["valid"] is True and item["valid"] is True
    assert "problems" not in booking
    assert ITEM_PATH in booking["judged_with"] and "found 1 problem(s)" in booking["judged_with"]
    assert "Did you mean" not in read["c1"]
    # the person's side says the same: the UI's event and the log carry the final verdict
    finished = {e.call_id: e for e in events if isinstance(e, ToolCallFinished)}
    assert json.loads(finished["c1"].result)["valid"] is True
    logged = [e for e in EventLog.read(engine.session_dir / "events.jsonl") if e["type"] == "tool_result"]
    assert [e["call_id"] for e in logged] == ["c2", "c1"]  # the first waited for the second
    assert json.loads(logged[1]["result"])["valid"] is True
    # and the results reach the model in call order, one per call
    assert [m["tool_call_id"] for m in provider.requests[1] if m["role"] == "tool"] == ["c1", "c2"]


async def test_a_draft_still_broken_after_its_reply_keeps_its_problems_and_says_it_was_judged_with_the_rest(
    project: Path,
) -> None:
    broken = BOOKING.replace("resource: booking_item", "resource: booking_line")
    reply = {"tool_calls": [propose(BOOKING_PATH, broken, "c1"), propose(ITEM_PATH, ITEM, "c2")]}
    _, provider, _ = await consult(project, [reply, "Fixing it."], "bookings with items")
    booking = json.loads(sent_results(provider, 1)["c1"])
    assert booking["valid"] is False and "judged_with" in booking
    assert [p["code"] for p in booking["problems"]] == ["FS-RELATION-RESOURCE"]
    assert "booking_line" in booking["problems"][0]["message"]


async def test_a_proposal_replaced_later_in_the_same_reply_is_not_proposed_again(project: Path) -> None:
    broken = BOOKING.replace("resource: booking_item", "resource: booking_line")
    reply = {"tool_calls": [propose(BOOKING_PATH, broken, "c1"), propose(BOOKING_PATH, BOOKING, "c2"),
                            propose(ITEM_PATH, ITEM, "c3")]}
    engine, provider, _ = await consult(project, [reply, "Done."], "bookings")
    read = sent_results(provider, 1)
    assert json.loads(read["c1"])["valid"] is False and "judged_with" not in json.loads(read["c1"])
    assert json.loads(read["c2"])["valid"] is True  # judged again with the item: the draft that stands
    drafts = engine.session_dir / "draft" / BOOKING_PATH
    assert drafts.read_text(encoding="utf-8") == BOOKING  # the replaced content was not written back


BAD_PATH = "modules/shop/master/bad/entity.yaml"


def withdraw(path: str, call_id: str) -> dict[str, Any]:
    return {"id": call_id, "name": "withdraw_draft", "arguments": {"path": path}}


async def test_an_earlier_valid_draft_counts_the_problems_a_later_draft_of_the_same_reply_brought(
    project: Path,
) -> None:
    reply = {"tool_calls": [propose(DRAFT_PATH, CUSTOMER, "c1"), propose(BAD_PATH, "kind: Entity\n", "c2")]}
    _, provider, _ = await consult(project, [reply, "One is ready."], "customers")
    read = sent_results(provider, 1)
    customer, bad = json.loads(read["c1"]), json.loads(read["c2"])
    assert customer["valid"] is True and bad["valid"] is False
    # its first check saw no other problem; the reply's last word counts the broken sibling's
    count = int(customer["other_drafts"].split()[0])
    assert count >= 1 and "do not block this draft" in customer["other_drafts"]
    assert "judged_with" not in customer  # its own verdict did not change


async def test_problems_a_later_withdrawal_of_the_same_reply_removed_are_no_longer_counted(project: Path) -> None:
    first = {"tool_calls": [propose(BAD_PATH, "kind: Entity\n", "c1")]}
    second = {"tool_calls": [propose(DRAFT_PATH, CUSTOMER, "c2"), withdraw(BAD_PATH, "c3")]}
    engine, provider, _ = await consult(project, [first, second, "Ready."], "customers")
    customer = json.loads(sent_results(provider, 2)["c2"])
    assert customer["valid"] is True and "other_drafts" not in customer  # nothing elsewhere any more
    assert not (engine.session_dir / "draft" / BAD_PATH).exists()  # the withdrawal stands


async def test_an_earlier_valid_draft_a_later_call_of_the_same_reply_broke_is_told_broken(project: Path) -> None:
    first = {"tool_calls": [propose(BOOKING_PATH, BOOKING.replace("resource: booking_item", "resource: customer")
                                    .replace("has_many", "belongs_to"), "c0"),
                            propose(DRAFT_PATH, CUSTOMER, "c1")]}
    item_of_customer = ITEM.replace("resource: booking, on_delete: cascade", "resource: customer")
    second = {"tool_calls": [propose(ITEM_PATH, item_of_customer, "c2"), withdraw(DRAFT_PATH, "c3")]}
    _, provider, _ = await consult(project, [first, second, "Hm."], "bookings")
    item = json.loads(sent_results(provider, 2)["c2"])
    assert item["valid"] is False and [p["code"] for p in item["problems"]] == ["FS-RELATION-RESOURCE"]
    assert "found 0 problem(s)" in item["judged_with"]


async def test_a_proposal_withdrawn_later_in_the_same_reply_is_not_brought_back(project: Path) -> None:
    reply = {"tool_calls": [propose(DRAFT_PATH, CUSTOMER, "c1"), withdraw(f"spec/{DRAFT_PATH}", "c2")]}
    engine, provider, _ = await consult(project, [reply, "Taken back."], "customers")
    assert json.loads(sent_results(provider, 1)["c1"])["valid"] is True
    assert not (engine.session_dir / "draft" / DRAFT_PATH).exists()


async def test_a_passing_answer_is_lean_compact_and_names_each_skill_once_per_session(project: Path) -> None:
    first = {"tool_calls": [propose(DRAFT_PATH, CUSTOMER, "c1")]}
    second = {"tool_calls": [propose(DRAFT_PATH, CUSTOMER.replace("phone", "mobile"), "c2")]}
    _, provider, events = await consult(project, [first, second, "Drafted."], "customers")
    text = sent_results(provider, 1)["c1"]
    answer = json.loads(text)
    assert text == json.dumps(answer, ensure_ascii=False, separators=(",", ":"))  # compact
    assert answer["valid"] is True and "entity-authoring" in answer["skills"]
    assert set(answer) == {"path", "status", "valid", "skills", "next"}
    assert "apply_draft" not in text and "the person" in answer["next"]
    again = json.loads(sent_results(provider, 2)["c2"])
    assert "skills" not in again  # named once per session
    whole = next(e.result for e in events if isinstance(e, ToolCallFinished) and e.call_id == "c1")
    assert len(text) * 3 < len(whole)  # the log and the UI keep the whole answer
    assert json.loads(whole)["draft_path"].endswith(DRAFT_PATH)


async def test_a_valid_draft_beside_a_broken_one_reads_valid_with_the_others_problems_only_counted(
    project: Path,
) -> None:
    bad = {"tool_calls": [propose("modules/shop/master/bad/entity.yaml", "kind: Entity\n", "c1")]}
    good = {"tool_calls": [propose(DRAFT_PATH, CUSTOMER, "c2")]}
    _, provider, _ = await consult(project, [bad, good, "One is ready."], "customers")
    answer = json.loads(sent_results(provider, 2)["c2"])
    assert answer["valid"] is True and "problems" not in answer
    assert "do not block this draft" in answer["other_drafts"]


async def test_the_model_is_told_what_the_person_applied_since_its_last_reply_and_a_resume_reads_the_project_afresh(
    project: Path,
) -> None:
    from formspec_consult.store.rebuild import rebuild_history

    new_module = "apiVersion: formspec.dev/v1\nkind: Module\nmetadata: {name: rent, module: rent}\nspec:\n  version: v1\n"
    reply = {"tool_calls": [propose("modules/rent/module.yaml", new_module, "c1")]}
    provider = ScriptedProvider([reply, "Ready for your review.", "Noted."])
    engine = await Engine.open(
        EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs)
    )
    try:
        with anyio.fail_after(60):
            async for _ in engine.run_turn("a rental module"):
                pass
            await engine.call_tool("apply_draft", {"file": "modules/rent/module.yaml"})  # the person's apply
            async for _ in engine.run_turn("done, what next?"):
                pass
    finally:
        await engine.aclose()
    said = provider.requests[2][-1]["content"]
    assert said == "[Since your last reply the person applied 1 draft (modules/rent/module.yaml).]\n\ndone, what next?"
    log = engine.session_dir / "events.jsonl"
    assert [e["user_text"] for e in EventLog.read(log) if e["type"] == "turn_started"][-1] == "done, what next?"
    assert "rent" not in provider.requests[0][0]["content"].split("### Installed modules")[1].split("###")[0]

    resumed = ScriptedProvider(["Welcome back."])
    again = await Engine.open(EngineOptions(project=project, provider=resumed, in_memory_server=True,
                                            servers=server_specs, resume=engine.session_id))
    try:
        with anyio.fail_after(60):
            async for _ in again.run_turn("hello again"):
                pass
    finally:
        await again.aclose()
    system = resumed.requests[0][0]["content"]
    assert "- rent" in system.split("### Installed modules")[1]  # the context read afresh on resume
    events = list(EventLog.read(log))
    assert [e["reason"] for e in events if e["type"] == "system_prompt"][-1] == "resumed"
    last_request = [e["seq"] for e in events if e["type"] == "request"][-1]
    assert rebuild_history(events, upto_seq=last_request) == resumed.requests[0]  # the log rebuilds what it saw


async def test_a_lean_view_longer_than_the_cap_is_sent_cut_and_read_on_from_where_it_was_cut(project: Path) -> None:
    (project / ".formspec").mkdir(exist_ok=True)
    (project / ".formspec" / "consult.yaml").write_text("tool_result_cap: 300\n", encoding="utf-8")
    broken = CUSTOMER.replace("type: string, required: true", "type: strng, required: yes, feild: 1")
    reply = {"tool_calls": [propose(DRAFT_PATH, broken, "c1")]}
    provider = ScriptedProvider([reply, "Fixing it."])
    engine = await Engine.open(
        EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs)
    )
    try:
        with anyio.fail_after(60):
            events = [event async for event in engine.run_turn("customers")]
            whole = next(e.result for e in events if isinstance(e, ToolCallFinished))
            sent = sent_results(provider, 1)["c1"]
            view, note = sent.split("\n\n[Result cut: ")
            assert view.startswith('{"path":') and len(view) == 300  # the compact view, not the indented answer
            logged = [e for e in EventLog.read(engine.session_dir / "events.jsonl") if e["type"] == "tool_result"][-1]
            assert logged["result"] == whole and logged["shown"].startswith(view)
            assert len(logged["shown"]) < len(whole) and f"of {len(logged['shown'])} characters" in note
            assert f"read_transcript(seq={logged['seq']}, offset=300)" in note
            page = await engine.call_tool("read_transcript", {"seq": logged["seq"], "offset": 300})
            text = page.data["text"]
            assert text and text == logged["shown"][300 : 300 + len(text)]  # it reads on from the cut
    finally:
        await engine.aclose()


async def test_skills_named_before_a_continue_are_not_named_again_though_the_history_no_longer_parses_them(
    project: Path,
) -> None:
    """The skills are named once per session, --continue included: what was named is read from
    every tool message the log holds (a result with the step budget's footer, one compaction took
    out of the history), not only from the history's parsable messages."""
    from formspec_consult.store.records import CompactionRecord

    (project / ".formspec").mkdir(exist_ok=True)
    (project / ".formspec" / "consult.yaml").write_text("max_steps: 3\n", encoding="utf-8")
    first = {"tool_calls": [propose(DRAFT_PATH, CUSTOMER, "c1")]}
    _, provider, _ = await consult(project, [first, "Drafted."], "customers")
    named = json.loads(sent_results(provider, 1)["c1"])["skills"]
    assert "entity-authoring" in named and "[Step budget" in provider.requests[1][-1]["content"]

    again = {"tool_calls": [propose(BOOKING_PATH, BOOKING.replace("has_many, resource: booking_item",
                                                                  "belongs_to, resource: customer"), "c2")]}
    resumed = ScriptedProvider([again, "Drafted too."])
    engine = await Engine.open(EngineOptions(project=project, provider=resumed, in_memory_server=True,
                                             servers=server_specs, continue_latest=True))
    try:
        with anyio.fail_after(60):
            async for _ in engine.run_turn("and bookings"):
                pass
    finally:
        await engine.aclose()
    answer = json.loads(sent_results(resumed, 1)["c2"])
    assert answer["valid"] is True and "skills" not in answer  # named before the --continue
    assert not any(isinstance(e, CompactionRecord) for e in EventLog.records(engine.session_dir / "events.jsonl"))


async def test_a_drafting_turn_is_told_its_step_budget_up_front_and_the_next_turn_that_it_was_reached(
    project: Path,
) -> None:
    (project / ".formspec").mkdir(exist_ok=True)
    (project / ".formspec" / "consult.yaml").write_text("max_steps: 6\n", encoding="utf-8")
    look = {"tool_calls": [{"id": "k1", "name": "list_kind_schemas", "arguments": {"kind": "Entity"}}]}
    drafts = [{"tool_calls": [propose(DRAFT_PATH, CUSTOMER.replace("phone", f"phone{i}"), f"c{i}")]}
              for i in range(5)]
    _, provider, events = await consult(project, [look, *drafts], "customers")
    read = [[m["content"] for m in request if m["role"] == "tool"] for request in provider.requests]
    assert "[Step budget" not in read[1][-1]  # looking is not drafting: no budget yet
    assert read[2][-1].endswith("[Step budget: this turn has 6 requests, 4 left. Draft what fits; say what is "
                                "left for the next turn.]")  # told once, as drafting starts
    assert "[Step budget: this turn has" not in read[3][-1] and "3 requests left" in read[3][-1]
    assert [e.reason for e in events if isinstance(e, TurnFinished)] == ["step_limit"]

    resumed = ScriptedProvider(["Where were we? The customer draft is ready."])
    engine = await Engine.open(EngineOptions(project=project, provider=resumed, in_memory_server=True,
                                             servers=server_specs, continue_latest=True))
    try:
        with anyio.fail_after(60):
            async for _ in engine.run_turn("go on"):
                pass
    finally:
        await engine.aclose()
    said = resumed.requests[0][-1]["content"]
    assert said == ("[Your last turn reached its step budget (6 requests) and was stopped: the tool calls of its "
                    "last reply were not run.]\n\ngo on")
