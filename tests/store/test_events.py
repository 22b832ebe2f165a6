"""The session event log: append-only, crash-tolerant, secret-free, rebuildable."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from formspec_consult.store.events import SCHEMA_VERSION, EventLog, EventLogError, rebuild_history


@pytest.fixture
def log_path(tmp_path: Path) -> Path:
    return tmp_path / "proj" / ".formspec" / "consult" / "s1" / "events.jsonl"


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_append_creates_parents_and_writes_one_versioned_line_per_event(log_path: Path) -> None:
    log = EventLog(log_path)
    first = log.append("session_started", session_id="s1", model="m", provider="scripted")
    second = log.append("notice", level="info", message="hello")
    assert [json.loads(line) for line in lines(log_path)] == [first, second]
    assert (first["v"], first["seq"], first["type"]) == (SCHEMA_VERSION, 1, "session_started")
    assert second["seq"] == 2 and second["ts"].endswith("Z")
    assert log.last_seq == 2


def test_every_event_is_fsynced_before_append_returns(log_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = EventLog(log_path)
    synced: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    log.append("notice", level="info", message="a")
    log.append("notice", level="info", message="b")
    assert len(synced) == 2


def test_reopening_a_log_continues_the_sequence(log_path: Path) -> None:
    EventLog(log_path).append("notice", level="info", message="a")
    reopened = EventLog(log_path)
    assert reopened.last_seq == 1
    assert reopened.append("notice", level="info", message="b")["seq"] == 2


def test_a_torn_last_line_is_skipped_with_a_warning_and_the_log_goes_on(
    log_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    log = EventLog(log_path)
    log.append("message", message={"role": "user", "content": "kept"})
    log.close()
    with log_path.open("ab") as handle:  # what kill -9 in the middle of a write leaves behind
        handle.write(b'{"v":1,"seq":2,"type":"message","message":{"role":"us')
    with caplog.at_level(logging.WARNING):
        events = list(EventLog.read(log_path))
    assert [e["seq"] for e in events] == [1]
    assert "torn" in caplog.text
    resumed = EventLog(log_path)
    assert resumed.last_seq == 1
    resumed.append("message", message={"role": "user", "content": "after the crash"})
    assert [m["content"] for m in rebuild_history(EventLog.read(log_path))] == ["kept", "after the crash"]


def test_reading_a_missing_log_yields_nothing(tmp_path: Path) -> None:
    assert list(EventLog.read(tmp_path / "nope.jsonl")) == []


def test_credential_like_fields_are_never_written_at_any_depth(
    log_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    log = EventLog(log_path)
    with caplog.at_level(logging.WARNING):
        event = log.append(
            "request",
            api_key="sk-live-abcdef123456",
            headers={"Authorization": "Bearer abc", "x-api-key": "k", "Accept": "json"},
            access_token="t",
            tokens=1234,
            message_count=3,
        )
    text = log_path.read_text()
    for secret in ("sk-live-abcdef123456", "Bearer abc", "access_token", "x-api-key"):
        assert secret not in text
    assert event["tokens"] == 1234 and event["headers"] == {"Accept": "json"}
    assert "api_key" in caplog.text and "headers.Authorization" in caplog.text


def test_registered_secret_values_are_masked_inside_any_text(log_path: Path) -> None:
    log = EventLog(log_path)
    log.add_secret("sk-ant-verysecretvalue")
    log.append("notice", level="error", message="401 for key sk-ant-verysecretvalue")
    assert "verysecret" not in log_path.read_text()
    assert "[redacted]" in log_path.read_text()


def test_bad_events_are_refused_and_nothing_is_written(log_path: Path) -> None:
    log = EventLog(log_path)
    with pytest.raises(EventLogError, match="reserved"):
        log.append("notice", seq=5)
    with pytest.raises(EventLogError, match="snake_case"):
        log.append("Not A Type")
    with pytest.raises(EventLogError, match="not JSON-serialisable"):
        log.append("notice", message=object())
    assert log_path.read_text() == "" and log.last_seq == 0


def test_rebuild_up_to_a_request_gives_what_that_request_sent(log_path: Path) -> None:
    log = EventLog(log_path)
    log.append("message", message={"role": "system", "content": "sys"})
    log.append("message", message={"role": "user", "content": "hi"})
    request = log.append("request", message_count=2, tokens=10, estimated=True, tools_sha256="x")
    log.append("message", message={"role": "assistant", "content": "hello"})
    events = list(EventLog.read(log_path))
    assert rebuild_history(events, upto_seq=request["seq"]) == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "hi"},
    ]
    assert len(rebuild_history(events)) == 3


def test_a_closed_log_refuses_appends(log_path: Path) -> None:
    with EventLog(log_path) as log:
        log.append("notice", level="info", message="a")
    with pytest.raises(EventLogError, match="closed"):
        log.append("notice", level="info", message="b")


WRITER = """
import sys
from pathlib import Path
from formspec_consult.store.events import EventLog
log = EventLog(Path(sys.argv[1]))
n = 0
while True:
    n += 1
    log.append("tool_result", call_id=f"c{n}", ok=True, result="x" * 20000, duration_ms=1.0)
    if n == 20:
        print("writing", flush=True)  # the test kills us mid-stream from here on
"""


@pytest.mark.slow
def test_kill_9_while_writing_loses_at_most_the_event_being_written(log_path: Path) -> None:
    process = subprocess.Popen([sys.executable, "-c", WRITER, str(log_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "writing"
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        process.stdout.close()  # type: ignore[union-attr]
    events = list(EventLog.read(log_path))
    assert len(events) >= 20
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))  # nothing lost in between
    resumed = EventLog(log_path)
    assert resumed.append("session_resumed", model="m", provider="p")["seq"] == len(events) + 1
    assert list(EventLog.read(log_path))[-1]["type"] == "session_resumed"
