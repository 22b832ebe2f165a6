"""transcript.md: the human-readable record, appended live and never rewritten."""

from __future__ import annotations

from pathlib import Path

from formspec_consult.store.agent_events import (
    AssistantDelta,
    AssistantMessage,
    CompactionDone,
    DraftsChanged,
    Notice,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from formspec_consult.store.transcript import RESULT_EXCERPT_CHARS, Transcript


def test_a_turn_reads_as_a_conversation_with_tool_calls_and_result_excerpts(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "s1" / "transcript.md")
    transcript.write_heading("Consultation 20261130-abc", model="scripted/demo", provider="scripted")
    transcript.write(TurnStarted(1, "I run a barbershop."))
    transcript.write(AssistantDelta("Let me"))
    transcript.write(ToolCallStarted("c1", "local", "list_business_templates", {"query": "barber"}))
    transcript.write(ToolCallFinished("c1", "local", "list_business_templates", True, "barbershop: …", 12.4))
    transcript.write(AssistantMessage("Which applies?\nA) Walk-ins\nB) Appointments"))
    transcript.write(UsageUpdated(100, 750, 1000, False))
    transcript.write(TurnFinished("done"))
    text = (tmp_path / "s1" / "transcript.md").read_text(encoding="utf-8")
    assert "# Consultation 20261130-abc" in text and "- **model:** scripted/demo" in text
    assert text.index("I run a barbershop.") < text.index("list_business_templates") < text.index("B) Appointments")
    assert '"query": "barber"' in text and "barbershop: …" in text and "ok in 12 ms" in text
    assert "Let me\n" not in text and "750" not in text  # deltas and usage are not transcript material


def test_long_tool_output_is_excerpted_with_a_pointer_to_the_full_text(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "transcript.md")
    result = "x" * (RESULT_EXCERPT_CHARS + 500)
    transcript.write(ToolCallFinished("c9", "local", "validate_spec", False, result, 3.0))
    text = transcript.path.read_text()
    assert "failed" in text and "500 more characters" in text and "call `c9`" in text
    assert "x" * (RESULT_EXCERPT_CHARS + 1) not in text


def test_backticks_inside_a_tool_output_cannot_break_out_of_its_code_block(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "transcript.md")
    transcript.write(ToolCallFinished("c1", "local", "read_skill", True, "```yaml\nkind: x\n```", 1.0))
    assert "````\n```yaml\nkind: x\n```\n````" in transcript.path.read_text()


def test_compactions_notices_and_cancelled_turns_are_recorded(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "transcript.md")
    transcript.write(CompactionDone("## Goal\nBookings", 12, 6100, 1900, "summarised"))
    transcript.write(Notice("warning", "the registry is unreachable"))
    transcript.write(DraftsChanged(("specs/booking.yaml",)))
    transcript.write(TurnFinished("cancelled"))
    text = transcript.path.read_text()
    assert "summarised: 12 messages, 6,100 → 1,900 tokens" in text and "> ## Goal\n> Bookings" in text
    assert "> **warning:** the registry is unreachable" in text
    assert "specs/booking.yaml" in text and "Turn ended (cancelled)" in text


def test_writing_only_ever_appends_to_what_is_already_there(tmp_path: Path) -> None:
    path = tmp_path / "transcript.md"
    path.write_text("# Earlier session\n\nkept as is\n", encoding="utf-8")
    before = path.read_bytes()
    transcript = Transcript(path)
    transcript.write(TurnStarted(7, "resumed"))
    transcript.write_note("Resumed with model x")
    after = path.read_bytes()
    assert after.startswith(before) and b"resumed" in after and b"_Resumed with model x_" in after
