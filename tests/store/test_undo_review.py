"""Apply and undo through the session review core: exact bytes, stacking, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from formspec_consult.store.apply import ApplyRefused
from formspec_consult.store.drafts import DraftError
from formspec_consult.store.folder import ensure_session
from formspec_consult.store.layout import consult_dir
from formspec_consult.store.review import SessionReview
from formspec_consult.store.undo import UndoError
from tests.servers.fake_project import FakeProject

TARGET = "modules/shop/entities/item.yaml"


@pytest.fixture
def review(tmp_path: Path) -> SessionReview:
    project = FakeProject(tmp_path)
    _, folder = ensure_session(consult_dir(project.root), "s1")
    return SessionReview(project, folder)


def _target(review: SessionReview) -> Path:
    return review.project.spec_root / TARGET


@pytest.mark.parametrize(
    "original",
    [
        b"kind: Entity\r\nname: a\r\n",
        b"kind: Entity\nname: a",
        "kind: Entity\nname: caf\u00e9 \u2615\n".encode(),
    ],
    ids=["crlf", "no-trailing-newline", "non-ascii"],
)
def test_apply_then_undo_restores_the_original_bytes(review: SessionReview, original: bytes) -> None:
    _target(review).parent.mkdir(parents=True)
    _target(review).write_bytes(original)
    review.propose(TARGET, "kind: Entity\nname: b\n")
    result = review.apply(TARGET)
    assert result.previous == "backed up"
    assert _target(review).read_bytes() == b"kind: Entity\nname: b\n"
    assert review.store.rels() == []
    undone = review.undo()
    assert undone.outcome == "restored"
    assert _target(review).read_bytes() == original


def test_undo_of_a_new_file_deletes_it(review: SessionReview) -> None:
    review.propose(TARGET, "kind: Entity\n")
    assert review.apply(TARGET).previous == "did not exist"
    assert review.undo().outcome == "deleted"
    assert not _target(review).exists()


def test_stacked_applies_of_one_path_undo_newest_first(review: SessionReview) -> None:
    for n in range(1, 4):
        review.propose(TARGET, f"kind: Entity\nversion: {n}\n")
        review.apply(TARGET)
    assert [e.seq for e in review.undo_stack.entries()] == [1, 2, 3]
    review.undo()
    assert _target(review).read_text() == "kind: Entity\nversion: 2\n"
    review.undo()
    assert _target(review).read_text() == "kind: Entity\nversion: 1\n"
    review.undo()
    assert not _target(review).exists()
    with pytest.raises(UndoError, match="nothing to undo"):
        review.undo()


def test_a_draft_failing_the_gate_is_refused_unless_forced(review: SessionReview) -> None:
    proposed = review.propose(TARGET, "kind: Entity\nbroken: true\n")
    assert proposed.validation.ok is False and proposed.blocking_problems == 1
    with pytest.raises(ApplyRefused, match="fails validation"):
        review.apply(TARGET)
    assert not _target(review).exists()
    assert review.apply(TARGET, force=True).forced is True
    assert _target(review).exists()


def test_a_target_changed_since_the_proposal_is_refused_unless_forced(review: SessionReview) -> None:
    _target(review).parent.mkdir(parents=True)
    _target(review).write_text("kind: Entity\nv: 1\n")
    review.propose(TARGET, "kind: Entity\nv: 2\n")
    _target(review).write_text("kind: Entity\nv: edited elsewhere\n")
    with pytest.raises(ApplyRefused, match="was edited after this draft was proposed"):
        review.apply(TARGET)
    assert _target(review).read_text() == "kind: Entity\nv: edited elsewhere\n"
    review.apply(TARGET, force=True)
    assert _target(review).read_text() == "kind: Entity\nv: 2\n"


def test_undo_refuses_when_the_file_changed_after_apply(review: SessionReview) -> None:
    review.propose(TARGET, "kind: Entity\nv: 1\n")
    review.apply(TARGET)
    _target(review).write_text("kind: Entity\nv: hand edit\n")
    with pytest.raises(UndoError, match="was edited after it was applied"):
        review.undo()
    assert _target(review).read_text() == "kind: Entity\nv: hand edit\n"
    assert review.undo(force=True).outcome == "deleted"


def test_an_old_problem_elsewhere_does_not_block_a_good_draft(review: SessionReview) -> None:
    other = review.project.spec_root / "modules/shop/old.yaml"
    other.parent.mkdir(parents=True)
    other.write_text("broken: true\n")
    review.propose(TARGET, "kind: Entity\n")
    assert [row.to_json() for row in review.list()] == [
        {"path": TARGET, "status": "new", "state": "pending", "valid": True, "problems": 0, "target_changed": False}
    ]
    review.apply(TARGET)


def test_reject_removes_the_draft_and_keeps_the_project(review: SessionReview) -> None:
    review.propose(TARGET, "kind: Entity\n")
    assert review.reject(TARGET).to_json() == {"rejected": TARGET, "remaining": []}
    assert not _target(review).exists()
    with pytest.raises(DraftError, match="no draft"):
        review.reject(TARGET)


def test_diff_marks_new_and_modified_drafts(review: SessionReview) -> None:
    _target(review).parent.mkdir(parents=True)
    _target(review).write_text("kind: Entity\nname: a\n")
    review.propose(TARGET, "kind: Entity\nname: b")
    review.propose("modules/shop/new.yaml", "kind: Form\n")
    diffs = {d.path: d for d in review.diff()}
    assert diffs[TARGET].status == "modified"
    assert "-name: a\n+name: b\n\\ No newline at end of file\n" in diffs[TARGET].diff
    assert diffs["modules/shop/new.yaml"].diff.startswith("--- /dev/null\n+++ b/modules/shop/new.yaml")


def test_undo_of_a_new_file_removes_the_folders_apply_created(review: SessionReview) -> None:
    keep = review.project.spec_root / "modules" / "kept_empty"
    keep.mkdir(parents=True)
    review.propose("modules/fresh/master/thing/entity.yaml", "kind: Entity\n")
    review.apply("modules/fresh/master/thing/entity.yaml")
    review.undo()
    assert not (review.project.spec_root / "modules" / "fresh").exists()
    assert keep.is_dir() and (review.project.spec_root / "modules").is_dir()


def test_proposing_the_current_content_says_there_is_nothing_to_apply(review: SessionReview) -> None:
    _target(review).parent.mkdir(parents=True)
    _target(review).write_text("kind: Entity\n")
    result = review.propose(TARGET, "kind: Entity\n")
    assert result.status == "unchanged" and "nothing to apply" in result.next


def test_an_undone_draft_is_back_for_review_with_its_exact_bytes_and_can_be_accepted_again(review: SessionReview) -> None:
    draft = "kind: Entity\r\nname: caf\u00e9\n"  # CRLF and non-ASCII: the bytes must survive the round trip
    _target(review).parent.mkdir(parents=True)
    _target(review).write_bytes(b"kind: Entity\nname: a\n")
    review.propose(TARGET, draft)
    review.apply(TARGET)
    assert review.list() == () and [r.state for r in review.settled()] == ["applied"]

    undone = review.undo()

    assert undone.draft == "back for review"
    assert _target(review).read_bytes() == b"kind: Entity\nname: a\n"
    assert review.store.read_bytes(TARGET) == draft.encode()
    assert [(row.path, row.state, row.target_changed) for row in review.list()] == [(TARGET, "undone", False)]
    assert review.settled() == ()
    review.apply(TARGET)
    assert _target(review).read_bytes() == draft.encode()
    assert [r.state for r in review.settled()] == ["applied"]
    review.undo()
    assert _target(review).read_bytes() == b"kind: Entity\nname: a\n"


def test_undo_keeps_a_newer_draft_of_the_same_file_under_review(review: SessionReview) -> None:
    review.propose(TARGET, "kind: Entity\nversion: 1\n")
    review.apply(TARGET)
    review.propose(TARGET, "kind: Entity\nversion: 2\n")

    assert review.undo().draft == "newer draft kept"
    assert review.store.read_text(TARGET) == "kind: Entity\nversion: 2\n"


def test_a_forced_undo_of_an_edited_file_still_puts_the_applied_draft_back(review: SessionReview) -> None:
    review.propose(TARGET, "kind: Entity\nname: b\n")
    review.apply(TARGET)
    _target(review).write_text("kind: Entity\nname: edited by hand\n")

    assert review.undo(force=True).draft == "back for review"
    assert review.store.read_text(TARGET) == "kind: Entity\nname: b\n"


def test_a_rejected_draft_is_listed_as_settled_until_it_is_proposed_again(review: SessionReview) -> None:
    review.propose(TARGET, "kind: Entity\n")
    review.reject(TARGET)
    assert review.list() == () and [(r.path, r.state) for r in review.settled()] == [(TARGET, "rejected")]
    review.propose(TARGET, "kind: Entity\nname: again\n")
    assert review.settled() == () and [row.state for row in review.list()] == ["pending"]


def test_a_draft_state_edited_by_hand_into_nonsense_reads_as_under_review_and_still_applies(review: SessionReview) -> None:
    review.propose(TARGET, "kind: Entity\nname: a\n")
    manifest = review.folder / "drafts.json"
    payload = json.loads(manifest.read_text())
    for record in payload["drafts"].values():
        record["state"] = "exploded"  # not a state any version writes
    manifest.write_text(json.dumps(payload))
    assert [row.state for row in review.list()] == ["pending"]
    review.apply(TARGET)
    assert _target(review).read_text() == "kind: Entity\nname: a\n"
