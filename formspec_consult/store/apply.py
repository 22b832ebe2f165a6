"""Apply a draft to the project and undo it, with the validation gate and exact-byte backups."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from formspec_consult.store import gate
from formspec_consult.store.atomic import ABSENT, sha256_of, write_atomic
from formspec_consult.store.drafts import DraftStore, decode_draft
from formspec_consult.store.layout import state_dir
from formspec_consult.store.locks import target_lock
from formspec_consult.store.paths import SpecPath, is_doc
from formspec_consult.store.review_results import Applied, Undone
from formspec_consult.store.undo import UndoEntry, UndoStack

if TYPE_CHECKING:
    from formspec_consult.spec.project import Project


class ReviewedSession(Protocol):
    """What an apply needs of a session's review (store.review.SessionReview provides it)."""

    project: Project
    store: DraftStore
    undo_stack: UndoStack

    def _check(self, project_rel: str) -> gate.GateResult: ...


class ApplyRefused(ValueError):
    """The draft fails the gate or its target changed; the message says how to proceed."""


def apply_one(review: ReviewedSession, path: object, *, force: bool = False) -> Applied:
    """Move a draft into the project.

    Refuses (unless ``force``) a draft that fails validation, whose target changed since it was
    proposed, or whose record of the target is missing (``drafts.json`` lost or damaged). The
    check, the validation and the write are one critical section across processes (a lock per
    target file in ``.formspec/locks/``), and the bytes validated are exactly the bytes written.
    Pushes the previous bytes onto the undo stack first, writes atomically, takes the draft out of
    review (its record stays, state ``applied``) and revalidates the real tree.
    """
    store = review.store
    spec_path = store.find(path)
    formspec_dir = state_dir(Path(review.project.root))
    with target_lock(formspec_dir, spec_path.project_rel):
        return _apply_locked(review, spec_path, force=force)


def _apply_locked(review: ReviewedSession, spec_path: SpecPath, *, force: bool) -> Applied:
    store = review.store
    draft = store.read_bytes(spec_path.rel)  # read once: these bytes are validated and written
    text = decode_draft(spec_path.rel, draft)
    record = store.record(spec_path.rel)
    current = sha256_of(spec_path.target)
    if record is None and not force:
        raise ApplyRefused(
            f"There is no record of the file {spec_path.rel} was proposed against (the session's "
            "drafts.json is missing or damaged), so apply cannot tell whether it changed meanwhile. "
            "Propose the draft again with propose_spec_file, or pass force: true to overwrite."
        )
    if record is not None and record.target_sha256 != current and not force:
        what = (
            "was created"
            if record.target_sha256 == ABSENT
            else ("was deleted" if current == ABSENT else "was edited")
        )
        raise ApplyRefused(
            f"{spec_path.rel} {what} after this draft was proposed, so applying would overwrite those "
            "changes. Propose the draft again from the current file, or pass force: true to overwrite."
        )
    if not force:
        if is_doc(spec_path.rel):  # an owner document: checked against the spec drafts, not overlaid on them
            overlay, docs = store.overlay(), {**store.docs_overlay(), spec_path.project_rel: text}
        else:
            overlay, docs = {**store.overlay(), spec_path.project_rel: text}, store.docs_overlay()
        result = gate.check(review.project, overlay, spec_path.project_rel, docs)
        if not result.passes:
            first = result.blocking[0]
            raise ApplyRefused(
                f"{spec_path.rel} fails validation ({len(result.blocking)} problem(s); first: "
                f"{first.get('message')}). Fix the draft with propose_spec_file, or pass force: true "
                "to apply it anyway."
            )
    before = spec_path.target.read_bytes() if current != ABSENT else None
    root = Path(review.project.root)
    created = tuple(
        parent.relative_to(root).as_posix()
        for parent in spec_path.target.parents
        if root in parent.parents and not parent.exists()
    )
    entry = review.undo_stack.push(spec_path.rel, spec_path.project_rel, before, draft, created)
    try:
        write_atomic(spec_path.target, draft)
    except OSError as exc:
        review.undo_stack.drop(entry)
        raise ApplyRefused(
            f"Could not write {spec_path.rel}: {exc.strerror or exc}. Nothing was changed."
        ) from exc
    store.settle(spec_path.rel, "applied")
    return Applied(
        path=spec_path.rel,
        file=spec_path.project_rel,
        backup=review.undo_stack.entry_dir(entry).relative_to(root).as_posix(),
        previous="backed up" if before is not None else "did not exist",
        undo_step=entry.seq,
        forced=force,
        validation=review.project.validate(None),
    )


def undo_last(review: ReviewedSession, *, force: bool = False) -> Undone:
    """Restore the file touched by the newest apply to its exact previous bytes, and put the draft
    that apply wrote back for review (state ``undone``, its exact bytes) so it can be accepted
    again — unless a newer draft of the same file is already under review, which is kept."""
    root = Path(review.project.root)
    newest = review.undo_stack.entries()
    if newest and newest[-1].group:
        return _undo_group(review, root, force=force)
    draft = ["not kept"]

    def put_back(entry: UndoEntry, applied: bytes | None) -> None:
        store = review.store
        if store.draft_file(entry.rel).is_file():
            draft[0] = "newer draft kept"
        elif applied is not None:
            store.restore(store.roots.resolve(entry.rel), applied)
            draft[0] = "back for review"

    with target_lock(state_dir(root), newest[-1].project_rel) if newest else contextlib.nullcontext():
        entry, outcome = review.undo_stack.restore(root, force=force, before_drop=put_back)
    return Undone(
        path=entry.rel,
        file=entry.project_rel,
        outcome=outcome,
        draft=draft[0],
        undo_step=entry.seq,
        remaining_steps=len(review.undo_stack.entries()),
        validation=review.project.validate(None),
    )


def _undo_group(review: ReviewedSession, root: Path, *, force: bool) -> Undone:
    """Undo a step of several writes (a module install) at once: no draft comes back for review."""
    group = review.undo_stack.newest_group()
    app = group[0].project_rel  # the last write of an install is its App manifest
    with target_lock(state_dir(root), app):
        entries = review.undo_stack.restore_group(root, force=force)
    written = sorted(e.project_rel for e in entries)
    return Undone(
        path=entries[0].group,
        file=", ".join(written),
        outcome="every file it wrote restored or removed",
        draft="not kept",
        undo_step=entries[-1].seq,
        remaining_steps=len(review.undo_stack.entries()),
        validation=review.project.validate(None),
    )
