"""Screen-reader mode through its front end over the real Engine (scripted provider): labelled
lines said once, options said as a choice, tables as sentences, diffs as numbered lines, a
permission as a numbered question; and how it is turned on (flag, ACCESSIBLE, the setting)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import anyio
import pytest

from formspec_consult.agent.engine.engine import EngineOptions
from formspec_consult.commands.screen_reader import run_screen_reader, screen_reader_source
from formspec_consult.commands.spoken_text import diff_text, reply_text
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ScriptedProvider
from tests.e2e.project import CUSTOMER, DRAFT_PATH

pytestmark = pytest.mark.anyio

TABLE_REPLY = ("Here is what I would record for each customer:\n\n| Field | Type |\n|---|---|\n| name | string |\n"
               "| phone | string |\n\nShould we keep visits too?\nA) Yes, each visit with its date\nB) No, not yet")


async def session(project: Path, replies: list[Any], typed: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    lines = iter(typed)

    async def read_line(prompt: str) -> str | None:
        out.write(prompt)
        line = next(lines, None)
        out.write(f"{line}\n" if line is not None else "\n")
        return line

    options = EngineOptions(project=project, provider=ScriptedProvider(replies), in_memory_server=True,
                            servers=server_specs)
    with anyio.fail_after(60):
        code = await run_screen_reader(options, "--screen-reader", read_line=read_line, stream=out)
    return code, out.getvalue()


async def test_a_turn_is_said_once_in_labelled_plain_lines(project: Path) -> None:
    code, said = await session(project, [TABLE_REPLY], ["we keep a list of our customers", "/quit"])
    assert code == 0
    lines = said.splitlines()
    assert lines[0] == "Screen reader mode is on (via --screen-reader). Connecting to the consultant."
    assert lines[1].startswith("Connected: session ")
    assert said.count("The consultant is working.") == 1 and said.count("Done. Your turn.") == 1
    assert "Consultant: Here is what I would record for each customer:" in lines
    assert "A table of 2 rows, columns Field, Type." in lines
    assert "Row 2: Field is phone; Type is string." in lines
    assert "2 options: type A or B to choose one." in lines
    assert not any(ch in said for ch in "|─│┌┐└┘━⠋⠙⠹●■▶")  # no rules, boxes or spinners
    assert lines[-1].startswith("Session ") and "--continue" in lines[-1]


async def test_a_draft_diff_is_said_as_numbered_lines(project: Path) -> None:
    propose = {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}}]}
    _, said = await session(project, [propose, "The customer entity is drafted."],
                            ["draft the customer entity please", "/diff", "/quit"])
    assert "Tool propose_spec_file: done." in said
    assert f"Drafts changed: {DRAFT_PATH}. Type /diff to hear the changes, /apply to accept." in said
    assert f"Note: Draft {DRAFT_PATH} (new, valid)." in said
    assert "1. Line 1 added: apiVersion: formspec.dev/v1" in said and "2. Line 2 added: kind: Entity" in said
    assert "+" not in "".join(line[:1] for line in said.splitlines())  # no diff signs read out


async def test_a_permission_is_a_numbered_question_answered_with_a_number(project: Path) -> None:
    propose = {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}}]}
    apply = {"tool_calls": [{"name": "apply_draft", "arguments": {"file": DRAFT_PATH}}]}
    _, said = await session(project, [propose, apply, "Applied."], ["draft and apply the customer", "3", "/quit"])
    assert f"Permission required: The consultant wants to apply the draft {DRAFT_PATH}." in said
    assert "1. Allow it once.\n2. Allow it for the rest of this session.\n3. Decline.\n" in said
    assert "Type 1, 2 or 3 and press Enter: 3\nDeclined." in said
    assert not (project / "spec" / DRAFT_PATH).exists()  # the person declined: nothing reached the project


def test_the_mode_is_on_by_flag_accessible_or_setting_and_says_which() -> None:
    assert screen_reader_source(True, False, {}) == "--screen-reader"
    assert screen_reader_source(False, False, {"ACCESSIBLE": "1"}) == "ACCESSIBLE"
    assert screen_reader_source(False, False, {"ACCESSIBLE": "0"}) is None
    assert screen_reader_source(False, True, {}) == "the screen_reader setting"
    assert screen_reader_source(False, False, {"ACCESSIBLE": ""}) is None


def test_markdown_marks_are_dropped_and_code_is_announced() -> None:
    said = reply_text("## Plan\n**Two** entities, *one* view:\n```yaml\nkind: Entity\n```")
    assert said.splitlines() == ["Plan:", "Two entities, one view:", "Code block (yaml):", "kind: Entity",
                                 "End of code block."]


def test_a_removed_line_and_a_problem_are_said_in_words() -> None:
    said = diff_text("=== a.yaml (changed, INVALID) ===\n  ! fields[0].type: unknown type\n--- a\n+++ b\n"
                     "@@ -3,2 +3,2 @@\n name: x\n-type: strin\n+type: string")
    assert said.splitlines() == ["Draft a.yaml (changed, INVALID).", "Problem: fields[0].type: unknown type",
                                 "Changes from line 3:", "1. Removed: type: strin", "2. Line 4 added: type: string"]
