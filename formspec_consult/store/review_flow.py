"""The review workflow every client runs: list, diff, propose, reject, apply (one, the only one,
or every valid one) and undo.

It goes through the local MCP server's tools with one ``call`` function (the engine's
``call_tool``, or the CLI's short-lived server), so MCP stays the only path to the project and
the server — which records every apply, undo and reject in the session — stays the only writer.
The TUI's diff pane, the slash commands and ``formspec-consult diff|apply|reject|undo`` all use
it: "apply all" and its refusals are decided here, once.
"""

from __future__ import annotations

import builtins
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from formspec_consult.store.review_results import (
    Applied,
    ChangeRow,
    DiffList,
    DraftBlocks,
    DraftDiff,
    DraftList,
    DraftRow,
    Edited,
    PartApplied,
    ProjectValidation,
    Proposed,
    Rejected,
    ToolResult,
    TurnChanges,
    Undone,
    Withdrawn,
)

Call = Callable[[str, dict[str, Any]], Awaitable[ToolResult]]


class ReviewError(ValueError):
    """A review request that cannot run as asked; the message says what to do."""


@dataclass(frozen=True)
class ApplyAll:
    """What "apply every valid draft" did."""

    applied: tuple[Applied, ...]  # the applies, in order
    skipped: tuple[str, ...]  # drafts left for review: they fail validation
    failed: tuple[tuple[str, str], ...] = ()  # (path, why) for applies the server refused

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(result.path for result in self.applied)


@dataclass(frozen=True)
class RejectAll:
    """What rejecting a turn's changeset did."""

    rejected: tuple[Rejected, ...]
    failed: tuple[tuple[str, str], ...] = ()  # (path, why) for rejects the server refused

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(result.path for result in self.rejected)


class ReviewFlow:
    """Review actions on the session a local server is bound to; every answer is read once into
    its record (store.review_results), and an answer that is not the tool's result is refused
    with a ToolResultError naming the field."""

    def __init__(self, call: Call) -> None:
        self._call = call

    async def drafts(self) -> builtins.list[DraftRow]:
        """Every draft under review: path, status, state, valid, problem count, target_changed."""
        return list((await self.overview()).drafts)

    async def overview(self) -> DraftList:
        """Every draft of the session, with those already applied or rejected."""
        return DraftList.from_result(await self._call("list_drafts", {}))

    async def validate_project(self) -> ProjectValidation:
        """The whole project checked: the applied files with the session's pending drafts over them."""
        return ProjectValidation.from_result(await self._call("validate_project", {}))

    async def diffs(self, path: str | None = None) -> builtins.list[DraftDiff]:
        """Unified diffs of every draft (or of the one at ``path``) with their problems."""
        return list(DiffList.from_result(await self._call("diff_drafts", {"path": path} if path else {})).drafts)

    async def propose(self, path: str, content: str) -> Proposed:
        return Proposed.from_result(await self._call("propose_spec_file", {"path": path, "content": content}))

    async def reject(self, path: str, reason: str | None = None) -> Rejected:
        """Discard a draft; the person's `reason` (optional) reaches the model with the rejection."""
        arguments: dict[str, Any] = {"path": path}
        if reason and reason.strip():
            arguments["reason"] = reason.strip()
        return Rejected.from_result(await self._call("reject_draft", arguments))

    async def edit(self, path: str, content: str) -> Edited:
        """The person's version of a draft becomes the draft (the server logs it as their edit)."""
        return Edited.from_result(await self._call("edit_draft", {"path": path, "content": content}))

    async def blocks(self, path: str) -> DraftBlocks:
        """The draft's change cut into blocks, each with its own diff."""
        return DraftBlocks.from_result(await self._call("list_draft_blocks", {"path": path}))

    async def apply_blocks(self, path: str, blocks: Sequence[str], reason: str | None = None) -> PartApplied:
        """Apply only `blocks` of the draft (the gate checks them as a draft of their own); the rest
        goes back to the model as a rejection, with the person's `reason`."""
        arguments: dict[str, Any] = {"file": path, "blocks": list(blocks)}
        if reason and reason.strip():
            arguments["reason"] = reason.strip()
        return PartApplied.from_result(await self._call("apply_draft_blocks", arguments))

    async def withdraw(self, path: str) -> Withdrawn:
        """Take back a pending draft (one the person applied and undid is refused: reject it)."""
        return Withdrawn.from_result(await self._call("withdraw_draft", {"path": path}))

    async def apply(self, path: str, *, force: bool = False) -> Applied:
        arguments: dict[str, Any] = {"file": path}
        if force:
            arguments["force"] = True
        return Applied.from_result(await self._call("apply_draft", arguments))

    async def sole_draft(self) -> str:
        """The path of the session's only draft; ReviewError when there are none or several."""
        drafts = await self.drafts()
        if not drafts:
            raise ReviewError("There is no draft to apply: every draft of this session was applied or rejected.")
        if len(drafts) > 1:
            listing = ", ".join(d.path for d in drafts)
            raise ReviewError(f"Say which draft to apply, or apply them all (drafts: {listing}).")
        return drafts[0].path

    async def apply_all(self, *, force: bool = False) -> ApplyAll:
        """Apply every draft that passes validation; the others stay for review."""
        return await self._apply_valid(await self.drafts(), force=force)

    async def _apply_valid(self, drafts: Sequence[DraftRow | ChangeRow], *, force: bool = False) -> ApplyAll:
        """Apply each of `drafts` that passes the gate, each with its own apply; the others stay
        for review. An apply the server refuses (its target changed meanwhile, …) is reported and
        the rest still run."""
        applied: list[Applied] = []
        failed: list[tuple[str, str]] = []
        for draft in drafts:
            if not draft.valid:
                continue
            try:
                applied.append(await self.apply(draft.path, force=force))
            except Exception as exc:  # each apply is atomic: one refusal must not stop the others
                failed.append((draft.path, str(exc)))
        skipped = tuple(d.path for d in drafts if not d.valid)
        return ApplyAll(tuple(applied), skipped, tuple(failed))

    async def changes(self, turn: int | None = None) -> TurnChanges:
        """The turn changeset: the files turn `turn` proposed (default: the latest that proposed any)."""
        return TurnChanges.from_result(await self._call("list_turn_changes", {} if turn is None else {"turn": turn}))

    async def accept_turn(self, turn: int | None = None) -> tuple[TurnChanges, ApplyAll]:
        """Accept a turn's changeset: each of its drafts still under review that passes the gate is
        applied with its own apply (its own event and undo step); the others stay for review. The
        set is the one the person was shown: read again here, so a draft settled meanwhile is left."""
        changes = await self.changes(turn)
        return changes, await self._apply_valid(changes.open)

    async def reject_turn(self, turn: int | None = None, reason: str | None = None) -> tuple[TurnChanges, RejectAll]:
        """Reject a turn's changeset: each of its drafts still under review is rejected with its own
        reject (the person's `reason` told to the model with each); the project is untouched."""
        changes = await self.changes(turn)
        rejected: list[Rejected] = []
        failed: list[tuple[str, str]] = []
        for row in changes.open:
            try:
                rejected.append(await self.reject(row.path, reason))
            except Exception as exc:
                failed.append((row.path, str(exc)))
        return changes, RejectAll(tuple(rejected), tuple(failed))

    async def undo(self, *, force: bool = False) -> Undone:
        return Undone.from_result(await self._call("undo_apply", {"force": True} if force else {}))
