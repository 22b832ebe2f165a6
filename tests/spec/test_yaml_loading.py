"""The safe loader: plain values, merges, positions, and robustness against arbitrary text."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formspec_consult.spec import Project
from formspec_consult.spec.parse import parse_text
from formspec_consult.spec.yamlload import MAX_ALIASES, YamlLoadError, load_stream


def test_values_are_plain_json_types_and_dates_stay_strings() -> None:
    [doc] = load_stream("a: 1\nb: 1.5\nc: true\nd: ~\ne: 2026-01-31\nf: [x, 'y']\ng: False\n")
    assert doc.value == {"a": 1, "b": 1.5, "c": True, "d": None, "e": "2026-01-31", "f": ["x", "y"], "g": False}


@pytest.mark.parametrize("word", ["no", "yes", "on", "off", "y", "n", "No", "OFF"])
def test_yaml_1_1_boolean_words_stay_text_as_in_formspecs_yaml_1_2_loader(word: str) -> None:
    [doc] = load_stream(f"name: {word}\n{word}: 1\n")
    assert doc.value == {"name": word, word: 1}


@pytest.mark.parametrize("text", ["1:30", "12:30:00", "-1:20.5"])
def test_base_60_numbers_stay_text(text: str) -> None:
    [doc] = load_stream(f"at: {text}\n")
    assert doc.value == {"at": text}


def test_a_field_named_no_validates_as_a_name_not_a_boolean(shop: Project) -> None:
    text = (
        "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: ticket, module: booking}\n"
        "spec:\n  version: v1\n  fields:\n    - {name: no, type: integer}\n    - {name: opens, type: string, default: 9:30}\n"
    )
    result = shop.validate_text(text)
    assert [p for p in result.problems if p.layer in ("parse", "schema")] == []


def test_merge_keys_are_supported_and_explicit_keys_win() -> None:
    [doc] = load_stream("base: &b {x: 1, y: 2}\nthing:\n  <<: *b\n  y: 3\n")
    assert doc.value["thing"] == {"x": 1, "y": 3}


def test_a_few_aliases_are_fine_but_the_budget_is_enforced() -> None:
    ok = "v: &v [1]\n" + "".join(f"k{i}: *v\n" for i in range(MAX_ALIASES))
    assert len(load_stream(ok)[0].value) == MAX_ALIASES + 1
    with pytest.raises(YamlLoadError) as caught:
        load_stream(ok + "extra: *v\n")
    assert caught.value.code == "FS-YAML-ALIAS" and caught.value.line == 1  # the anchor the aliases point at


def test_syntax_errors_carry_line_column_and_hint() -> None:
    with pytest.raises(YamlLoadError) as caught:
        load_stream("a: 1\nb: 'unterminated\n")
    err = caught.value
    assert err.code == "FS-YAML-SYNTAX" and err.line == 3 and err.column is not None and err.hint


def test_empty_documents_between_markers_are_skipped() -> None:
    docs = load_stream("---\n---\na: 1\n---\n")
    assert [d.value for d in docs] == [{"a": 1}]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab:-[]{}&*!#'\"\n\t ,?|>%@`\\0123")), max_size=80))
def test_parsing_arbitrary_text_never_raises(text: str) -> None:
    parsed = parse_text(text, "x.yaml", Path("x.yaml"), "spec")
    for problem in parsed.problems + parsed.warnings:
        assert problem.code.startswith("FS-") and problem.hint
