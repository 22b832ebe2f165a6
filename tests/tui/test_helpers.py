"""The app's pure helpers: draft views, status line, options, slash parsing, sessions, logs."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from formspec_consult.agent.engine.status import EngineStatus
from formspec_consult.mcp_client.status import ServerStatus
from formspec_consult.replay.check import signature
from formspec_consult.spec.model import Problem
from formspec_consult.store.records import record_from_json
from formspec_consult.store.review_results import DraftDiff, DraftRow
from formspec_consult.store.tool_status import gate_refused
from formspec_consult.tui.drafts import parse_drafts
from formspec_consult.tui.session_list import list_sessions
from formspec_consult.tui.slash import SLASH_COMMANDS, SlashError, help_text, parse_slash
from formspec_consult.tui.slash_router import pick_log, server_logs
from formspec_consult.tui.widgets.assistant_block import display_markdown
from formspec_consult.tui.widgets.choice_bar import option_letter
from formspec_consult.tui.widgets.status_bar import StatusInfo, render_status
from formspec_consult.tui.widgets.tool_call_entry import format_arguments
from formspec_consult.tui.widgets.tool_calls import describe_mcp


def test_drafts_merge_the_listing_with_the_diffs_and_show_the_gates_problems_with_line_and_hint() -> None:
    listing = [DraftRow(path="b.yaml", status="modified", state="undone", valid=False, problems=2, target_changed=False),
               DraftRow(path="a.yaml", status="new", state="pending", valid=True, problems=0, target_changed=None)]
    problems = (Problem("FS-TYPE", "spec/b.yaml", 3, "schema", "unknown type", "use string"),
                Problem("FS-REF", "spec/b.yaml", None, "structural", "no such entity"))
    diffs = [DraftDiff(path="b.yaml", status="modified", state="undone", valid=False, problems=problems,
                       target_changed=False, diff="-x\n+y\n")]
    a, b = parse_drafts(listing, diffs)
    assert (a.path, a.badges, a.diff, a.problems) == ("a.yaml", ("new",), "", ())
    assert b.badges == ("modified", "undone", "invalid") and b.diff == "-x\n+y\n"
    assert b.problems == ("line 3: unknown type\n    → use string", "no such entity")
    assert parse_drafts([]) == []


def test_the_status_line_marks_estimated_figures_and_a_missing_cost() -> None:
    line = render_status(StatusInfo(state="ready", model="m", session="s", context_tokens=45_000,
                                    threshold_tokens=90_000, window_tokens=120_000, reported=False))
    assert "context 45.0k estimated · 50% of 90.0k to compaction · window 120.0k" in line and "cost n/a" in line and "0 compactions" in line
    assert "1 compaction" in render_status(StatusInfo(compactions=1, cost=0.5)) and "$0.5000" in render_status(StatusInfo(cost=0.5))


def test_the_status_line_and_the_status_screen_name_the_phase_once_it_is_known() -> None:
    from formspec_consult.agent.engine.status import EngineStatus
    from formspec_consult.tui.status_text import status_text

    status = EngineStatus(model="m", provider="p", session="s", turn=2, phase="iterate")
    assert "session s │ phase Iterate" in render_status(StatusInfo.from_engine(status))
    assert "turn 2, phase **Iterate**" in status_text(status)
    assert "phase" not in render_status(StatusInfo(session="s"))  # a stand-in engine that knows none


@pytest.mark.parametrize(("option", "index", "letter"), [("B) Monthly", 0, "B"), ("(c) x", 0, "C"), ("free text", 3, "D")])
def test_option_letters_come_from_the_label_or_the_position(option: str, index: int, letter: str) -> None:
    assert option_letter(option, index) == letter


def test_option_lines_keep_their_own_lines_in_markdown() -> None:
    assert display_markdown("Pick:\nA) one\nB) two") == "Pick:\nA) one  \nB) two"
    assert display_markdown("plain\ntext") == "plain\ntext"


def test_the_apps_slash_parsing_is_the_engines_and_lets_double_slash_through() -> None:
    call = parse_slash("/Apply  modules/a.yaml ")
    assert call is not None and (call.name, call.args) == ("apply", ("modules/a.yaml",))
    with pytest.raises(SlashError, match="Unknown command /nope"):
        parse_slash("/nope")
    assert parse_slash("//not a command") is None and parse_slash("hello") is None and parse_slash("/") is None
    assert all(f"/{spec.name}" in help_text() for spec in SLASH_COMMANDS)


def test_sessions_are_listed_newest_first_with_their_first_message(tmp_path: Path) -> None:
    base = tmp_path / ".formspec" / "consult"
    for name, mtime, text in [("old", 1_000_000, "# Consultation old\n\n- **model:** x\n\n## You (turn 1)\n\nI sell bread\n"),
                              ("new", 2_000_000, "")]:
        (base / name).mkdir(parents=True)
        (base / name / "transcript.md").write_text(text, encoding="utf-8")
        os.utime(base / name / "transcript.md", (mtime, mtime))
    (base / "not-a-session").mkdir()
    found = list_sessions(tmp_path)
    assert [s.session_id for s in found] == ["new", "old"]
    assert found[1].title == "I sell bread" and found[0].title == "(no messages yet)"
    assert list_sessions(tmp_path / "elsewhere") == []


def _status(*servers: ServerStatus, note: str | None = None) -> EngineStatus:
    return EngineStatus(model="m", provider="p", session="s", mcp=servers, mcp_note=note)


def test_the_log_opened_is_the_server_in_trouble_else_the_first_and_never_a_guess(tmp_path: Path) -> None:
    local, registry = tmp_path / "mcp-server.log", tmp_path / "mcp-registry.log"
    formspec = ServerStatus("formspec", "running", log=str(local))
    running = ServerStatus("registry", "running", log=str(registry))
    assert pick_log(_status(formspec, running)) == ("formspec", local)
    dead = replace(running, state="dead")
    assert pick_log(_status(formspec, dead)) == ("registry", registry)
    assert pick_log(_status(formspec, dead), "formspec") == ("formspec", local)
    assert pick_log(_status(formspec, dead), "nope") is None
    assert pick_log(_status(ServerStatus("formspec", "running"))) == ("formspec", None)
    assert pick_log(_status()) is None and server_logs(_status(note="replay (no servers)")) == []


def test_server_state_and_tool_arguments_read_as_one_line() -> None:
    state = describe_mcp(_status(ServerStatus("formspec", "dead", error="exit 1", restarts=2)))
    assert state == "MCP  formspec: dead, 2 restarts — exit 1"
    running = describe_mcp(_status(ServerStatus("formspec", "running", tools=18, error="lost the session once")))
    assert running == "MCP  formspec: running (18 tools) — lost the session once"  # an error is said in any state
    assert describe_mcp(_status(note="replay (no servers)")) == "MCP  replay (no servers)"
    assert describe_mcp(None) == "MCP: not connected"
    assert format_arguments({"path": "a.yaml", "content": "x" * 100}, 10) == "path=a.yaml, content=xxxxxxxxxx…"


def test_a_refused_draft_is_told_apart_from_a_failed_call() -> None:
    assert gate_refused('{"written": true, "validation": {"ok": false}, "blocking_problems": 2}')
    assert not gate_refused('{"written": true, "validation": {"ok": false}, "blocking_problems": 0}')
    assert not gate_refused('{"applied": "a.yaml", "validation": {"ok": false}}')  # a problem elsewhere
    assert not gate_refused('{"validation": {"ok": true}}') and not gate_refused("not json")


def test_divergence_signatures_ignore_ids_times_and_durations() -> None:
    # Records, as the log is read (dicts were passed before: nothing of them was compared, so the
    # first assertion held for any two logs).
    a = [record_from_json({"type": "tool_result", "seq": 1, "ts": "t1", "call_id": "c1", "duration_ms": 3, "name": "n",
                           "result": "draft in .formspec/consult/20261130-221754-2032/draft"})]
    b = [record_from_json({"type": "tool_result", "seq": 9, "ts": "t2", "call_id": "c9", "duration_ms": 7, "name": "n",
                           "result": "draft in .formspec/consult/20261201-090000-abcd/draft"})]
    c = [record_from_json({"type": "tool_result", "seq": 1, "ts": "t1", "call_id": "c1", "duration_ms": 3, "name": "n",
                           "result": "refused"})]
    assert signature(a) == signature(b) != signature(c)
    assert signature([record_from_json({"type": "usage", "context_tokens": 1})]) == []
