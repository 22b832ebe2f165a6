"""Streamed chunks reassemble exactly, however the provider splits text and tool arguments."""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from formspec_consult.providers.stream_assembly import StreamAssembler


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in pairwise(points) if b > a]


arguments = st.dictionaries(st.text(min_size=1, max_size=8), st.one_of(st.integers(), st.text(max_size=20)), max_size=4)


@given(
    text=st.text(max_size=200),
    text_cuts=st.lists(st.integers(min_value=0), max_size=12),
    calls=st.lists(st.tuples(st.from_regex(r"[a-z_]{1,12}", fullmatch=True), arguments), max_size=3),
    arg_cuts=st.lists(st.integers(min_value=0), max_size=8),
)
def test_any_fragmentation_reassembles_the_same_text_and_tool_calls(
    text: str, text_cuts: list[int], calls: list[tuple[str, dict[str, Any]]], arg_cuts: list[int]
) -> None:
    chunks: list[dict[str, Any]] = [{"choices": [{"delta": {"content": piece}}]} for piece in _split(text, text_cuts)]
    for index, (name, args) in enumerate(calls):
        chunks.append({"choices": [{"delta": {"tool_calls": [
            {"index": index, "id": f"id{index}", "function": {"name": name, "arguments": ""}}]}}]})
        for piece in _split(json.dumps(args), arg_cuts):
            chunks.append({"choices": [{"delta": {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}}]})
    chunks.append({"choices": [{"delta": {}, "finish_reason": "tool_calls" if calls else "stop"}]})
    chunks.append({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2,
                                            "prompt_tokens_details": {"cached_tokens": 1}}})
    assembler = StreamAssembler()
    streamed = "".join(assembler.feed(chunk) for chunk in chunks)
    assert streamed == assembler.text == text
    assert [(c.id, c.name, json.loads(c.arguments)) for c in assembler.tool_calls()] == [
        (f"id{i}", name, args) for i, (name, args) in enumerate(calls)
    ]
    assert assembler.usage is not None and (assembler.usage.prompt_tokens, assembler.usage.cached_tokens) == (5, 1)


def test_a_tool_call_without_an_id_gets_a_unique_one_and_empty_arguments_become_an_object() -> None:
    first, second = StreamAssembler(), StreamAssembler()
    for assembler in (first, second):
        assembler.feed({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"name": "list_skills"}}]}}]})
    (a,), (b,) = first.tool_calls(), second.tool_calls()
    assert a.arguments == "{}" and a.id.startswith("call_") and a.id != b.id


def test_anthropic_style_cache_reads_are_counted_as_cached_tokens() -> None:
    assembler = StreamAssembler()
    assembler.feed({"choices": [], "usage": {"prompt_tokens": 900, "completion_tokens": 10,
                                             "cache_read_input_tokens": 800}})
    assert assembler.usage is not None and assembler.usage.cached_tokens == 800
