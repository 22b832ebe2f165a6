"""The tools the consultant is offered: every MCP tool, less what it cannot use yet or need not say.

Every request carries every declaration, so the offer is part of the fixed prefix. It differs from
what the servers list (external MCP clients still get every tool, every argument) in two ways:

- **Draft-phase tools wait for a draft.** `list_drafts`, `diff_drafts`, `reject_draft`,
  `apply_draft` and `undo_apply` act on the session's drafts and applies: before the first draft
  of the session they have nothing to act on. The dev-server tools (`restart_server`,
  `get_server_status`, `stop_server`) run what the drafts changed; Discovery and Proposal do not
  need them. `read_workspace_manifest`, `list_installed_modules` and `list_skills` gave the
  start-up context the system prompt carries; until an apply can change the project their answer
  is that context again. `validate_spec` checks text without drafting it: before the first draft
  `propose_spec_file` is the way in (it runs the same gate), after it the consultation-workflow
  skill's quick checks use it. All of them are offered from the request after the first draft
  on (the Draft phase) and then for the rest of the session, so the offer changes at most once
  (one new cache prefix; the request log records the new declarations). The system prompt says so.
- **Arguments the engine binds are not declared.** Our local server is bound to this session, so
  its `session` argument ("omit it to use the bound session") is left out of the declarations.

A call is never refused here: the offer decides what is declared, not what may run (the loop's
permissions decide that). Tools of other servers pass through as their servers list them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

from formspec_consult.agent.loop.loop import ToolRunner
from formspec_consult.mcp_client.manager import ToolOutcome
from formspec_consult.store.layout import SessionLayout

DRAFT_PHASE_TOOLS = frozenset({
    "list_drafts", "diff_drafts", "reject_draft", "apply_draft", "undo_apply",
    "restart_server", "get_server_status", "stop_server",
    "read_workspace_manifest", "list_installed_modules", "list_skills", "validate_spec",
})
BOUND_ARGUMENTS = frozenset({"session"})


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
    declarations (module docstring)."""

    def __init__(
        self,
        inner: ToolRunner,
        *,
        server_of: Callable[[str], str],
        real_name: Callable[[str], str],
        local: str,
        drafted: Callable[[], bool],
        refresh: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        self.inner, self.local = inner, local
        self._server_of, self._real_name, self._drafted, self._refresh = server_of, real_name, drafted, refresh
        self.draft_phase = False

    def tool_declarations(self) -> list[dict[str, Any]]:
        if not self.draft_phase and self._drafted():
            self.draft_phase = True  # once there, for the rest of the session: the offer changes once
        offered = []
        for declaration in self.inner.tool_declarations():
            exposed = str(declaration["function"]["name"])
            if self._server_of(exposed) != self.local:
                offered.append(declaration)
                continue
            name = self._real_name(exposed)
            if name in DRAFT_PHASE_TOOLS and not self.draft_phase:
                continue
            offered.append(_without_bound_arguments(declaration))
        return offered

    def server_of(self, exposed: str) -> str:
        return self._server_of(exposed)

    async def refresh(self) -> bool:
        """Re-list tools that changed (the loop awaits this before each request)."""
        if self._refresh is None:
            return False
        return bool(await self._refresh())

    async def call(self, exposed: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        return await self.inner.call(exposed, arguments)


def _without_bound_arguments(declaration: dict[str, Any]) -> dict[str, Any]:
    function = declaration["function"]
    parameters = function.get("parameters") or {}
    properties = parameters.get("properties")
    if not isinstance(properties, dict) or not BOUND_ARGUMENTS & set(properties):
        return declaration
    kept = {name: schema for name, schema in properties.items() if name not in BOUND_ARGUMENTS}
    trimmed = {**parameters, "properties": kept}
    if isinstance(parameters.get("required"), list):
        trimmed["required"] = [name for name in parameters["required"] if name not in BOUND_ARGUMENTS]
    return {**declaration, "function": {**function, "parameters": trimmed}}
