"""Session folders: ids, creation, listing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from formspec_consult.store.folder import (
    SessionError,
    ensure_session,
    existing_session,
    latest_session,
    list_sessions,
    new_session_id,
    session_dir,
)


def test_new_session_ids_are_sortable_timestamps() -> None:
    early = new_session_id(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    late = new_session_id(datetime(2026, 11, 30, 21, 0, 0, tzinfo=UTC))
    assert early.startswith("20260102-030405-") and len(early) == 20
    assert sorted([late, early]) == [early, late]


def test_ensure_session_creates_draft_and_undo_folders(tmp_path: Path) -> None:
    sid, folder = ensure_session(tmp_path / "consult")
    assert folder == session_dir(tmp_path / "consult", sid)
    assert (folder / "draft").is_dir() and (folder / "undo").is_dir()
    again, same = ensure_session(tmp_path / "consult", sid)
    assert (again, same) == (sid, folder)


def test_sessions_are_listed_newest_last(tmp_path: Path) -> None:
    consult = tmp_path / "consult"
    ensure_session(consult, "20260101-000000-aaaa")
    ensure_session(consult, "20261130-120000-bbbb")
    ensure_session(consult, "20260601-000000-cccc")
    assert [s.id for s in list_sessions(consult)] == [
        "20260101-000000-aaaa",
        "20260601-000000-cccc",
        "20261130-120000-bbbb",
    ]
    assert latest_session(consult) == "20261130-120000-bbbb"
    assert list_sessions(consult)[0].created == datetime(2026, 1, 1, tzinfo=UTC)


def test_no_sessions_means_no_latest(tmp_path: Path) -> None:
    assert list_sessions(tmp_path / "none") == []
    assert latest_session(tmp_path / "none") is None


@pytest.mark.parametrize("bad", ["../x", "a/b", "", ".hidden", "x" * 80, "a..b"])
def test_unsafe_session_ids_are_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(SessionError, match="not a valid session id"):
        ensure_session(tmp_path, bad)
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_session_is_an_error_naming_the_known_ones(tmp_path: Path) -> None:
    ensure_session(tmp_path, "20260101-000000-aaaa")
    with pytest.raises(SessionError, match="20260101-000000-aaaa"):
        existing_session(tmp_path, "nope")
