"""The model-visible history: logged changes, atomic blocks, pairing checked and repaired."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.agent.history.history import History, HistoryError, Message
from formspec_consult.agent.history.pairing import CANCELLED_RESULT
from formspec_consult.providers.base import ToolCall
from formspec_consult.store.events import EventLog, rebuild_history

SYSTEM = {"role": "system", "content": "You are a consultant."}


def call(call_id: str, name: str = "list_skills") -> Message:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


@pytest.fixture
def log(tmp_path: Path) -> EventLog:
    return EventLog(tmp_path / "events.jsonl")


def replayed(log: EventLog) -> list[Message]:
    return rebuild_history(EventLog.read(log.path))


def test_every_change_is_logged_so_the_log_rebuilds_the_same_messages(log: EventLog) -> None:
    history = History(log=log, messages=[SYSTEM])
    history.add_user("We cut hair.")
    history.add_assistant("", [call("c1")])
    history.add_tool_result("c1", "skills: …")
    history.add_assistant("A) Walk-ins\nB) Appointments", None)
    assert replayed(log) == history.messages
    assert history.messages[2]["content"] == ""  # a string beside tool calls, never null


def test_tool_calls_are_normalised_to_the_openai_shape() -> None:
    history = History()
    history.add_user("go")
    history.add_assistant("ok", [{"id": "a", "name": "read_skill", "arguments": {"name": "x"}}, ToolCall("b", "t", "{}")])
    calls = history.messages[-1]["tool_calls"]
    assert calls[0] == {"id": "a", "type": "function", "function": {"name": "read_skill", "arguments": '{"name": "x"}'}}
    assert calls[1]["function"] == {"name": "t", "arguments": "{}"}


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ({"role": "robot", "content": "x"}, "role"),
        ({"role": "tool", "content": "x"}, "tool_call_id"),
        ({"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "x"}}]}, "id and a name"),
        ({"role": "user", "content": {1, 2}}, "JSON"),
    ],
)
def test_invalid_messages_are_refused_and_nothing_is_logged(log: EventLog, message: Message, error: str) -> None:
    history = History(log=log)
    with pytest.raises(HistoryError, match=error):
        history.append(message)
    assert history.messages == [] and log.last_seq == 0


def test_blocks_keep_an_assistant_message_with_all_its_tool_results() -> None:
    history = History(messages=[SYSTEM])
    history.add_user("hi")
    history.add_assistant("", [call("c1"), call("c2")])
    history.add_tool_result("c1", "one")
    history.add_tool_result("c2", "two")
    history.add_assistant("done", None)
    history.add_user("next")
    kinds = [(b.kind, b.start, b.end, b.turn) for b in history.blocks()]
    assert kinds == [("head", 0, 1, -1), ("user", 1, 2, 0), ("assistant", 2, 5, 0), ("assistant", 5, 6, 0), ("user", 6, 7, 1)]


def test_pairing_check_names_an_unanswered_call() -> None:
    history = History(messages=[SYSTEM, {"role": "user", "content": "hi"}])
    history.add_assistant("", [call("c1"), call("c2")])
    history.add_tool_result("c1", "one")
    with pytest.raises(HistoryError, match=r"c2 .*no result"):
        history.check_pairing()


def test_pairing_check_names_an_orphaned_or_misplaced_result() -> None:
    history = History(messages=[SYSTEM, {"role": "user", "content": "hi"}])
    history.add_tool_result("ghost", "who called me?")
    with pytest.raises(HistoryError, match=r"ghost .*does not follow its call"):
        history.check_pairing()
    history = History(messages=[SYSTEM, {"role": "user", "content": "hi"}])
    history.add_assistant("", [call("c1")])
    history.add_user("interrupting")
    history.add_tool_result("c1", "late")
    with pytest.raises(HistoryError, match="c1"):
        history.check_pairing()


def test_pairing_check_rejects_a_second_result_for_one_call() -> None:
    history = History(messages=[{"role": "user", "content": "hi"}])
    history.add_assistant("", [call("c1")])
    history.add_tool_result("c1", "one")
    history.add_tool_result("c1", "again")
    with pytest.raises(HistoryError, match="second result"):
        history.check_pairing()


def test_repair_after_a_cancelled_turn_answers_every_open_call_and_is_logged(log: EventLog) -> None:
    history = History(log=log, messages=[SYSTEM, {"role": "user", "content": "hi"}])
    history.add_assistant("", [call("c1"), call("c2", "propose_spec_file")])
    history.add_tool_result("c1", "one")
    actions = history.repair_pairing()
    assert actions == ["added a 'cancelled' result for tool call c2 (propose_spec_file)"]
    assert history.messages[-1] == {"role": "tool", "tool_call_id": "c2", "content": CANCELLED_RESULT}
    history.check_pairing()
    assert replayed(log) == history.messages
    assert history.repair_pairing() == []  # nothing left to do, nothing logged
    assert log.last_seq == 5


def test_repair_moves_a_misplaced_result_back_and_drops_orphans(log: EventLog) -> None:
    history = History(log=log, messages=[SYSTEM, {"role": "user", "content": "hi"}])
    history.add_assistant("", [call("c1")])
    history.add_user("interrupting")
    history.add_tool_result("c1", "late but real")
    history.add_tool_result("ghost", "nobody asked")
    actions = history.repair_pairing()
    assert len(actions) == 2 and any("moved" in a for a in actions) and any("dropped" in a for a in actions)
    assert [m.get("content") for m in history.messages[2:]] == ["", "late but real", "interrupting"]
    history.check_pairing()
    assert replayed(log) == history.messages


def test_restore_rebuilds_without_logging_again_and_keeps_logging_new_changes(log: EventLog) -> None:
    history = History(log=log, messages=[SYSTEM])
    history.add_user("hi")
    restored = History.restore(EventLog.read(log.path), log=log)
    assert restored.messages == history.messages and log.last_seq == 2
    restored.add_assistant("hello", None)
    assert replayed(log) == restored.messages


def test_last_user_index_ignores_compaction_summaries() -> None:
    history = History(messages=[SYSTEM, {"role": "user", "content": "real"}])
    history.append({"role": "user", "content": "[Summary of the earlier conversation]\n\nx"})
    assert history.last_user_index() == 1
