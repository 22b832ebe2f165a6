"""The tools the consultant is offered: what it needs in its phase, less what it cannot use or need not say.

Every request carries every declaration, so the offer is part of the fixed prefix. It differs from
what the servers list (external MCP clients still get every tool, every argument) in five ways:

- **What the system prompt carries is not offered again.** `read_workspace_manifest`,
  `list_installed_modules`, `list_skills` and the registry's `list_business_templates` gave the
  start-up context the system prompt holds (the template index: `get_business_template` reads
  one). A draft reaches the project only when the person applies it, and the consultant wrote
  it, so their answer is that context and its own drafts; skills are Markdown no draft changes.
  One whose answer the prompt lacks (its call failed at start) is offered in every phase.
- **Draft-phase tools wait for a draft; the template tools retire at it.** `list_drafts`, `validate_project`,
  `withdraw_draft` (the model takes back its own pending draft: unguarded), `reject_draft`, `apply_draft`, `undo_apply` act on the session's drafts and applies,
  `restart_server` runs what they changed: before the first draft they have nothing to act on.
  They are offered from the request after the first draft on (the Draft phase) and then for the
  rest of the session; from then on `get_business_template` is not (a template guides Discovery,
  which the first draft ends; the index stays in the prompt). So the offer changes at most once
  (one new cache prefix, measured by `bench/run.py prefix`; the request log records the new
  declarations). The system prompt says so.
- **Tools the person's review covers are not offered.** `diff_drafts` is the person's view
  (`/diff`; `list_drafts` gives the model each draft's state and problems), `validate_spec`
  checks text `propose_spec_file` checks as a draft with the same gate, and `restart_server`
  answers with the dev server's status (`get_server_status`), which stops with the session
  (`stop_server`).
- **A tool the person's permission can never allow is not offered.** The guarded tools (apply,
  undo, reject, restart, stop) are left out while their rule is `deny`, or `ask` with nobody to
  ask (headless): every call would be refused.
- **Arguments the engine binds are not declared.** Our local server is bound to this session, so
  its `session` argument ("omit it to use the bound session") is left out of the declarations.
  Nor are arguments meant for other clients: `list_kind_schemas(full=true)` (the whole ~80k-character
  JSON Schema, which no capped result can carry; the model reads outlines and drills down by `path`),
  nor page sizes the server's default serves (`limit`), nor a `maxLength` the server enforces.

A call is never refused here: the offer decides what is declared, not what may run (the loop's
permissions decide that). Tools of servers other than ours (the local one, the bundled registry)
pass through as their servers list them.
:meth:`ConsultantOffer.largest_declarations` is the biggest offer this session can make (the
Draft phase, with every tool its permissions could allow): the window-fit check at start counts it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

from formspec_consult.agent.loop.loop import ToolRunner
from formspec_consult.agent.loop.permissions import PERSON_ONLY, Permissions
from formspec_consult.mcp_client.manager import ToolOutcome
from formspec_consult.store.layout import SessionLayout

DRAFT_PHASE_TOOLS = frozenset(
    {"list_drafts", "validate_project", "withdraw_draft", "reject_draft", "apply_draft", "undo_apply", "restart_server"}
)
DISCOVERY_TOOLS = frozenset({"get_business_template", "list_business_templates"})  # until the first draft
# The start-up context calls (agent/engine/context.py START_CALLS): offered only when not carried.
CONTEXT_TOOLS = frozenset({"read_workspace_manifest", "list_installed_modules", "list_skills", "list_business_templates"})
REVIEW_COVERED = frozenset({"diff_drafts", "validate_spec", "get_server_status", "stop_server"})
BOUND_ARGUMENTS = frozenset({"session"})
# `reject_draft(reason)` is the person's reason, which the model is told with the rejection.
CLIENT_ONLY_ARGUMENTS = {
    "list_kind_schemas": frozenset({"full"}),
    "reject_draft": frozenset({"reason"}),
    # a page size the server's default serves: every declaration is in every request's prefix
    "read_transcript": frozenset({"limit"}),
    "search_modules_registry": frozenset({"limit"}),
}
#: schema keywords left out of our declarations: a length limit the server enforces with an error
#: that says so (a name or a query never comes near it), not worth its tokens in every request
UNDECLARED_KEYWORDS = frozenset({"maxLength"})


def session_has_drafted(session_dir: Path) -> Callable[[], bool]:
    """True once the session has written anything under draft/ or undo/ (its folders exist from the
    start, empty): a draft was proposed, or applied."""
    folder = SessionLayout(session_dir)

    def drafted() -> bool:
        return any(_entries(folder.draft)) or any(_entries(folder.undo))

    return drafted


def _entries(folder: Path) -> Iterator[Path]:
    try:
        yield from folder.iterdir()
    except OSError:  # not there (yet): nothing drafted
        return


class ConsultantOffer:
    """The loop's tools: `inner`'s calls (VerifyingTools over the MCPManager), with the consultant's
    declarations (module docstring).

    `ours` are the servers whose tools the offer knows (the local server first, then the bundled
    registry); `carried` the context tools whose answer the system prompt holds (set once the
    prompt is written); `permissions` the loop's (set once the loop is built; None: every tool).
    """

    def __init__(
        self,
        inner: ToolRunner,
        *,
        server_of: Callable[[str], str],
        real_name: Callable[[str], str],
        ours: tuple[str, ...],
        drafted: Callable[[], bool],
        refresh: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        self.inner, self.ours = inner, ours
        self._server_of, self._real_name, self._drafted, self._refresh = server_of, real_name, drafted, refresh
        self.permissions: Permissions | None = None
        self.carried: frozenset[str] = frozenset()
        self.draft_phase = False

    def tool_declarations(self) -> list[dict[str, Any]]:
        """What this request declares."""
        if not self.draft_phase and self._drafted():
            self.draft_phase = True  # once there, for the rest of the session: the offer changes once
        permissions = self.permissions
        return self._offer(draft_phase=self.draft_phase, permitted=permissions.may_run if permissions else _every)

    def reset_phase(self) -> None:
        """After a rewind: the phase is read again from the drafts as they are now (back in
        Discovery when the rewind took every draft and apply back)."""
        self.draft_phase = False

    def largest_declarations(self) -> list[dict[str, Any]]:
        """The biggest offer of this session: the Draft phase, every guarded tool a rule does not
        deny (as though someone were there to ask). No request declares more."""
        permissions = self.permissions
        return self._offer(draft_phase=True, permitted=permissions.not_denied if permissions else _every)

    def _offer(self, *, draft_phase: bool, permitted: Callable[[str], bool]) -> list[dict[str, Any]]:
        offered = []
        for declaration in self.inner.tool_declarations():
            exposed = str(declaration["function"]["name"])
            if self._server_of(exposed) not in self.ours:
                offered.append(declaration)
                continue
            if self._offered(self._real_name(exposed), exposed, draft_phase, permitted):
                hidden = BOUND_ARGUMENTS | CLIENT_ONLY_ARGUMENTS.get(self._real_name(exposed), frozenset())
                offered.append(_without_arguments(declaration, hidden))
        return offered

    def _offered(self, name: str, exposed: str, draft_phase: bool, permitted: Callable[[str], bool]) -> bool:
        if name in REVIEW_COVERED or name in PERSON_ONLY or (name in CONTEXT_TOOLS and name in self.carried):
            return False
        if name in DISCOVERY_TOOLS:
            return not draft_phase
        if name in DRAFT_PHASE_TOOLS and not draft_phase:
            return False
        return permitted(exposed)

    def server_of(self, exposed: str) -> str:
        return self._server_of(exposed)

    async def refresh(self) -> bool:
        """Re-list tools that changed (the loop awaits this before each request)."""
        if self._refresh is None:
            return False
        return bool(await self._refresh())

    async def call(self, exposed: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        return await self.inner.call(exposed, arguments)


def _every(_name: str) -> bool:
    return True


def _without_arguments(declaration: dict[str, Any], hidden: frozenset[str]) -> dict[str, Any]:
    function = declaration["function"]
    parameters = function.get("parameters") or {}
    properties = parameters.get("properties")
    if not isinstance(properties, dict):
        return declaration
    kept = {
        name: {k: v for k, v in schema.items() if k not in UNDECLARED_KEYWORDS} if isinstance(schema, dict) else schema
        for name, schema in properties.items() if name not in hidden
    }
    if kept == properties:
        return declaration
    trimmed = {**parameters, "properties": kept}
    if isinstance(parameters.get("required"), list):
        trimmed["required"] = [name for name in parameters["required"] if name not in hidden]
    return {**declaration, "function": {**function, "parameters": trimmed}}
