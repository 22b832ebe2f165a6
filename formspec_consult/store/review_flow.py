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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


class ReviewError(ValueError):
    """A review request that cannot run as asked; the message says what to do."""


@dataclass(frozen=True)
class ApplyAll:
    """What "apply every valid draft" did."""

    applied: tuple[dict[str, Any], ...]  # the apply_draft results, in order
    skipped: tuple[str, ...]  # drafts left for review: they fail validation
    failed: tuple[tuple[str, str], ...] = ()  # (path, why) for applies the server refused

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(str(result.get("applied")) for result in self.applied)


@dataclass(frozen=True)
class DraftsOverview:
    """Every draft of the session: those under review and those that left it."""

    live: tuple[dict[str, Any], ...]  # list_drafts rows: path, status, state (pending|undone), valid, …
    settled: tuple[dict[str, Any], ...]  # path, file, state (applied|rejected), at

    def by_state(self) -> dict[str, int]:
        """How many drafts are in each state (pending, undone, applied, rejected)."""
        counts: dict[str, int] = {}
        for row in (*self.live, *self.settled):
            state = str(row.get("state") or "pending")
            counts[state] = counts.get(state, 0) + 1
        return counts


class ReviewFlow:
    """Review actions on the session a local server is bound to."""

    def __init__(self, call: Call) -> None:
        self._call = call

    async def drafts(self) -> builtins.list[dict[str, Any]]:
        """Every draft under review: path, status, state, valid, problems, target_changed."""
        return list((await self.overview()).live)

    async def overview(self) -> DraftsOverview:
        """Every draft of the session, with those already applied or rejected."""
        result = await self._call("list_drafts", {})
        return DraftsOverview(tuple(result.get("drafts") or ()), tuple(result.get("settled") or ()))

    async def diffs(self, path: str | None = None) -> builtins.list[dict[str, Any]]:
        """Unified diffs of every draft (or of the one at ``path``) with their problems."""
        return list((await self._call("diff_drafts", {"path": path} if path else {})).get("drafts", []))

    async def propose(self, path: str, content: str) -> dict[str, Any]:
        return await self._call("propose_spec_file", {"path": path, "content": content})

    async def reject(self, path: str) -> dict[str, Any]:
        return await self._call("reject_draft", {"path": path})

    async def apply(self, path: str, *, force: bool = False) -> dict[str, Any]:
        arguments: dict[str, Any] = {"file": path}
        if force:
            arguments["force"] = True
        return await self._call("apply_draft", arguments)

    async def sole_draft(self) -> str:
        """The path of the session's only draft; ReviewError when there are none or several."""
        drafts = await self.drafts()
        if len(drafts) != 1:
            listing = ", ".join(str(d.get("path")) for d in drafts) or "none"
            raise ReviewError(f"Say which draft to apply, or apply them all (drafts: {listing}).")
        return str(drafts[0].get("path"))

    async def apply_all(self, *, force: bool = False) -> ApplyAll:
        """Apply every draft that passes validation; the others stay for review. An apply the
        server refuses (its target changed meanwhile, …) is reported and the rest still run."""
        drafts = await self.drafts()
        applied: list[dict[str, Any]] = []
        failed: list[tuple[str, str]] = []
        for draft in drafts:
            if not draft.get("valid"):
                continue
            path = str(draft.get("path"))
            try:
                applied.append(await self.apply(path, force=force))
            except Exception as exc:  # each apply is atomic: one refusal must not stop the others
                failed.append((path, str(exc)))
        skipped = tuple(str(d.get("path")) for d in drafts if not d.get("valid"))
        return ApplyAll(tuple(applied), skipped, tuple(failed))

    async def undo(self, *, force: bool = False) -> dict[str, Any]:
        return await self._call("undo_apply", {"force": True} if force else {})
