"""Which lines of a reply are options: only the model's `A) … B) …` choices, a handful at most."""

from __future__ import annotations

import string

from formspec_consult.agent.loop.options import MAX_OPTIONS, find_options, resolve_choice


def test_a_numbered_prose_list_is_never_a_choice() -> None:
    assert find_options("How I work:\n1) I ask about your business\n2) I propose a design\n3) I draft specs") == ()
    assert find_options("Steps:\n1. one\n2. two") == ()


def test_a_long_list_is_prose_however_it_is_labelled() -> None:
    numbered = "\n".join(f"{n}. item {n}" for n in range(1, 31))
    assert find_options(numbered) == ()
    lettered = "\n".join(f"{c}) item {c}" for c in string.ascii_uppercase[: MAX_OPTIONS + 1])
    assert find_options(lettered) == ()
    assert len(find_options("\n".join(f"{c}) item" for c in string.ascii_uppercase[:MAX_OPTIONS]))) == MAX_OPTIONS


def test_a_lettered_list_that_does_not_start_at_a_or_skips_a_letter_is_not_a_choice() -> None:
    assert find_options("B) second\nC) third") == ()
    assert find_options("A) first\nC) third") == ()


def test_options_after_a_numbered_list_are_still_found() -> None:
    text = "1) I ask\n2) I propose\n\nWhich first?\nA) Walk-ins\nB) Bookings"
    assert find_options(text) == ("A) Walk-ins", "B) Bookings")


def test_a_bare_number_no_longer_picks_an_option() -> None:
    options = ("A) Walk-ins", "B) Bookings")
    assert resolve_choice("2", options) == "2"
    assert resolve_choice("b", options) == "[chosen: B) Bookings]"
