"""Write tools: propose, review, apply, reject and undo drafts of the bound session."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from formspec_consult.servers.base import READ_ONLY
from formspec_consult.servers.local.state import LocalState
from formspec_consult.store.review_results import (
    Applied,
    DiffList,
    DraftBlocks,
    DraftList,
    Edited,
    PartApplied,
    ProjectValidation,
    Proposed,
    Rejected,
    TurnChanges,
    Undone,
    Withdrawn,
)

DRAFT_WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
# Discarding a draft deletes the person's pending work: destructive, though repeating it changes nothing.
DRAFT_DISCARD = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)
# Withdrawing takes back the proposer's own pending draft (one the person applied and undid is
# refused): no work of the person's is lost, so it is not destructive and needs no one's answer.
DRAFT_WITHDRAW = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
PROJECT_WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)

SessionArg = Annotated[
    str | None,
    Field(description="Session id; omit it to use the session this server is bound to (the usual case)."),
]
ForceArg = Annotated[
    bool,
    Field(
        strict=True,  # a boolean: "yes" or "true" as text is refused, never read as true
        description="Override the refusal, only when the person asks.",
    ),
]


def register(server: MCPServer, state: LocalState) -> None:
    """Add the draft tools to ``server``."""

    @server.tool(title="Propose a spec file (draft)", annotations=DRAFT_WRITE, structured_output=True)
    @state.serialised
    def propose_spec_file(
        path: Annotated[
            str,
            Field(
                description=(
                    "Relative to the spec folder: 'apps/<app>.yaml', 'modules/<module>/module.yaml', "
                    "'modules/<module>/<characteristic>/<entity>/entity.yaml', views in "
                    "'…/<entity>/<forms|tables|pages>/<role>.yaml', 'overrides/…' (shadow copy), "
                    "'docs/<name>.md' (overview, domain-model, changelog)."
                )
            ),
        ],
        content: Annotated[str, Field(description="The whole file (YAML; Markdown for docs).")],
        session: SessionArg = None,
    ) -> Proposed:
        """Write a spec file or doc as a DRAFT (never the project), validated with the project: its
        verdict, findings, next step. The only way to write them."""
        return state.review(session).propose(path, content)

    @server.tool(title="List drafts", annotations=READ_ONLY, structured_output=True)
    @state.serialised
    def list_drafts(session: SessionArg = None) -> DraftList:
        """Your drafts: state, problems; and the settled ones."""
        sid, _ = state.session(session)
        review = state.review(session)
        return DraftList(session=sid, drafts=review.list(), settled=review.settled())

    @server.tool(title="Validate the whole project", annotations=READ_ONLY, structured_output=True)
    @state.serialised
    def validate_project(session: SessionArg = None) -> ProjectValidation:
        """The whole project checked: applied files with your pending drafts. Each problem: file,
        line, hint."""
        return state.review(session).validate_project()

    @server.tool(title="Diff drafts", annotations=READ_ONLY, structured_output=True)
    @state.serialised
    def diff_drafts(
        path: Annotated[str | None, Field(description="One draft; omit for all.")] = None,
        session: SessionArg = None,
    ) -> DiffList:
        """Drafts as unified diffs against the real files, with status and validation problems."""
        sid, _ = state.session(session)
        return DiffList(session=sid, drafts=state.review(session).diff(path))

    @server.tool(title="Reject a draft", annotations=DRAFT_DISCARD, structured_output=True)
    @state.serialised
    def reject_draft(
        path: Annotated[str, Field(description="Its spec path.")],
        reason: Annotated[
            str | None, Field(description="The person's reason, told to the consultant with the rejection.")
        ] = None,
        session: SessionArg = None,
    ) -> Rejected:
        """Discard one draft; the project is untouched."""
        return state.review(session).reject(path, reason)

    @server.tool(title="Replace a draft with the person's edit", annotations=DRAFT_WRITE, structured_output=True)
    @state.serialised
    def edit_draft(
        path: Annotated[str, Field(description="The draft's spec path.")],
        content: Annotated[str, Field(description="The person's whole version of the file.")],
        session: SessionArg = None,
    ) -> Edited:
        """For the person's own client: their edited version of a draft becomes the draft (logged
        as their edit) and is validated; the same text changes nothing."""
        return state.review(session).edit(path, content)

    @server.tool(title="Withdraw your own pending draft", annotations=DRAFT_WITHDRAW, structured_output=True)
    @state.serialised
    def withdraw_draft(
        path: Annotated[str, Field(description="Its spec path.")],
        session: SessionArg = None,
    ) -> Withdrawn:
        """Take back your own pending draft (never applied)."""
        return state.review(session).withdraw(path)

    @server.tool(title="Apply a draft to the project", annotations=PROJECT_WRITE, structured_output=True)
    @state.serialised
    def apply_draft(
        file: Annotated[str, Field(description="Its spec path.")],
        force: ForceArg = False,
        session: SessionArg = None,
    ) -> Applied:
        """Apply a draft the person accepted (undoable); refuses an invalid or stale one."""
        return state.review(session).apply(file, force=force)

    @server.tool(title="A draft's change in blocks", annotations=READ_ONLY, structured_output=True)
    @state.serialised
    def list_draft_blocks(
        path: Annotated[str, Field(description="The draft's spec path.")],
        session: SessionArg = None,
    ) -> DraftBlocks:
        """For the person's own client: the draft's change cut into YAML blocks (top-level keys,
        each key of spec, each field, action, state or transition), each with its own diff."""
        return state.review(session).blocks(path)

    @server.tool(title="The drafts one turn proposed", annotations=READ_ONLY, structured_output=True)
    @state.serialised
    def list_turn_changes(
        turn: Annotated[
            int | None,
            Field(strict=True, description="The turn's number; omit it for the latest turn that proposed drafts."),
        ] = None,
        session: SessionArg = None,
    ) -> TurnChanges:
        """For the person's own client: the files one turn proposed (its changeset), each new or
        modified, its added/removed lines, its state (pending, undone, applied, rejected, withdrawn)
        and, under review, whether the gate passes it."""
        return state.review(session).changes(turn)

    @server.tool(title="Apply some blocks of a draft", annotations=PROJECT_WRITE, structured_output=True)
    @state.serialised
    def apply_draft_blocks(
        file: Annotated[str, Field(description="The draft's spec path.")],
        blocks: Annotated[list[str], Field(description="The blocks to apply: ids or 1-based numbers.")],
        reason: Annotated[str | None, Field(description="Why the other blocks were rejected.")] = None,
        session: SessionArg = None,
    ) -> PartApplied:
        """For the person's own client: apply only the chosen blocks (validated as a draft of their
        own, undoable); the other blocks go back to the consultant as a rejection."""
        return state.review(session).apply_blocks(file, blocks, reason)

    @server.tool(title="Undo the last apply", annotations=PROJECT_WRITE, structured_output=True)
    @state.serialised
    def undo_apply(force: ForceArg = False, session: SessionArg = None) -> Undone:
        """Undo the last apply (its exact bytes back); again to undo further."""
        return state.review(session).undo(force=force)
