"""Option detection and picking, slash-command parsing, tool argument and result handling."""

from __future__ import annotations

import pytest

from formspec_consult.agent.commands.slash import SlashCommand, SlashError, parse_slash
from formspec_consult.agent.loop.options import find_options, resolve_choice
from formspec_consult.agent.loop.tools import ArgumentsError, cap_result, drafts_touched, parse_arguments


def test_two_or_more_consecutive_lettered_lines_are_options() -> None:
    text = "Pick one:\n\nA) Walk-ins\nB) Appointments\n\nTell me more."
    assert find_options(text) == ("A) Walk-ins", "B) Appointments")


def test_numbered_and_bulleted_bold_options_are_found_and_the_last_block_wins() -> None:
    text = "1. first idea\n2. second idea\n\nNow:\n- **a)** Keep it\n- **b)** Drop it"
    assert find_options(text) == ("A) Keep it", "B) Drop it")


def test_a_single_option_line_or_a_gapped_list_is_not_a_choice() -> None:
    assert find_options("A) only one\nthen prose") == ()
    assert find_options("1. step\n3. step") == ()


def test_a_bare_letter_becomes_the_full_chosen_option() -> None:
    options = ("A) Walk-ins", "B) Appointments by phone")
    assert resolve_choice("b", options) == "[chosen: B) Appointments by phone]"
    assert resolve_choice(" B) ", options) == "[chosen: B) Appointments by phone]"


def test_typing_an_options_whole_text_picks_it_too() -> None:
    options = ("A) Walk-ins", "B) Appointments by phone")
    assert resolve_choice("appointments by phone", options) == "[chosen: B) Appointments by phone]"


def test_anything_but_a_bare_pick_is_sent_unchanged() -> None:
    options = ("A) Walk-ins", "B) Appointments")
    assert resolve_choice("B but on weekends only", options) == "B but on weekends only"
    assert resolve_choice("C", options) == "C"
    assert resolve_choice("A", ()) == "A"


def test_slash_commands_parse_with_arguments_and_plain_text_is_not_a_command() -> None:
    assert parse_slash("/apply modules/x.yaml") == SlashCommand("apply", ("modules/x.yaml",))
    assert parse_slash("/compact keep the pricing rules").arg_text == "keep the pricing rules"  # type: ignore[union-attr]
    assert parse_slash("hello /diff") is None
    assert parse_slash("//diff is a path") is None


def test_an_unknown_command_lists_the_known_ones() -> None:
    with pytest.raises(SlashError, match=r"Unknown command /dif\. Commands: /diff /apply"):
        parse_slash("/dif")


def test_reject_without_a_path_says_how_to_use_it() -> None:
    with pytest.raises(SlashError, match="Usage: /reject <draft path>"):
        parse_slash("/reject")


def test_tool_arguments_must_be_a_json_object() -> None:
    assert parse_arguments('{"a": 1}') == {"a": 1}
    assert parse_arguments("") == {}
    with pytest.raises(ArgumentsError, match="must be a JSON object, got list"):
        parse_arguments("[1]")


def test_a_result_under_the_cap_is_untouched_and_over_it_says_where_the_rest_is() -> None:
    assert cap_result("short", 10, 7) == "short"
    capped = cap_result("y" * 30, 10, 7)
    assert capped.startswith("y" * 10 + "\n") and "10 of 30 characters" in capped
    assert "read_transcript(seq=7, offset=10)" in capped
    unlogged = cap_result("y" * 30, 10, 0, "c1")  # no seq known: find it by the call's id, then read on
    assert 'read_transcript(query="c1", type="tool_result")' in unlogged and "offset=10" in unlogged


def test_only_successful_draft_tools_report_changed_drafts() -> None:
    assert drafts_touched("propose_spec_file", {"path": "a.yaml"}, True) == ("a.yaml",)
    assert drafts_touched("propose_spec_file", {"path": "a.yaml"}, False) is None
    assert drafts_touched("read_skill", {"name": "x"}, True) is None
