"""Session-start context: the deterministic tool calls, and the system prompt that carries them.

The reference client built this context and never sent it. Here the results of
read_workspace_manifest, list_installed_modules, list_skills (and list_business_templates when
the registry is up) are rendered into the consultant system prompt (as compact text:
:mod:`~formspec_consult.agent.engine.context_text`), which is the first message of the history —
logged like any message, so a resumed session sends exactly the same prompt.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from formspec_consult.agent.engine.context_text import RENDERERS, as_text, render_template_index
from formspec_consult.mcp_client.manager import ToolError

if TYPE_CHECKING:
    from formspec_consult.providers.base import Provider
    from formspec_consult.store.events import EventLog
__all__ = [
    "START_CALLS",
    "as_text",
    "collect_context",
    "offer_variables",
    "phase_variables",
    "render_system_prompt",
    "render_template_index",
]

# (tool, prompt variable, required): a required call that fails stops the session start.
START_CALLS: tuple[tuple[str, str, bool], ...] = (
    ("read_workspace_manifest", "workspace_manifest", True),
    ("list_installed_modules", "installed_modules", True),
    ("list_skills", "skills", True),
    ("list_business_templates", "business_templates", False),
)
CallTool = Callable[[str, dict[str, Any]], Awaitable[Any]]


async def collect_context(
    call: CallTool, available: Callable[[str], Awaitable[bool]]
) -> tuple[dict[str, str], list[str]]:
    """Make the start-up calls side by side; return {variable: text} and the problems met.

    Each call waits only for its own server (`available` says, once that server has started or
    failed, whether it offers the tool), so a fast server's calls do not wait for a slow one.
    Results come back in START_CALLS order whatever order they finish in. Optional tools (the
    registry's) that are missing or fail leave their variable empty and add a problem; a required
    one that is missing or fails raises ToolError (the first in START_CALLS order).
    """

    async def one(tool: str, required: bool) -> str | None:
        """The rendered result; None for an optional tool the server does not offer."""
        if not await available(tool):
            if required:
                raise ToolError(f"the local MCP server does not offer '{tool}'")
            return None
        result = await call(tool, {})
        return RENDERERS.get(tool, as_text)(result)

    outcomes = await asyncio.gather(
        *(one(tool, required) for tool, _variable, required in START_CALLS), return_exceptions=True
    )
    values: dict[str, str] = {}
    problems: list[str] = []
    for (tool, variable, required), outcome in zip(START_CALLS, outcomes, strict=True):
        if isinstance(outcome, BaseException):
            if required or not isinstance(outcome, ToolError):
                raise outcome
            problems.append(f"{tool} failed: {outcome}")
        values[variable] = outcome if isinstance(outcome, str) else ""
    return values, problems


def phase_variables(phase: str | None) -> dict[str, str]:
    """The consultant prompt's phase variables: `iterating` (and today's date, which a changelog
    entry carries) in the Iterate phase (agent/engine/phase.py); nothing otherwise."""
    if phase != "iterate":
        return {}
    return {"iterating": "yes", "today": datetime.now(UTC).date().isoformat()}


def offer_variables(offered: Collection[str] | None) -> dict[str, str]:
    """The consultant prompt's offer variables for a request offering the tools `offered` (their
    own names): the prompt names a tool only while it is offered. None: every tool (no variable set)."""
    if offered is None:
        return {}
    names = set(offered)

    def missing(*tools: str) -> str:
        return "" if set(tools) <= names else "yes"

    return {
        "drafting": "yes" if "list_drafts" in names else "",
        "no_template_tool": missing("get_business_template"),
        "no_catalogue_tool": missing("list_business_templates"),
        "no_registry": missing("search_modules_registry", "get_module_detail"),
    }


def render_system_prompt(
    session_id: str,
    context: dict[str, str],
    offered: Collection[str] | None = None,
    phase: str | None = None,
    *,
    reply_language: str = "",
) -> str:
    """The consultant system prompt with the session id and the start-up context filled in, for a
    request that offers the tools `offered` (see :func:`offer_variables`) in `phase`, naming the
    session's `reply_language` once it is set (agent/language/lock.py)."""
    from formspec_consult.prompting.prompts import load_prompt

    prompt = load_prompt("consultant")
    # Strict on purpose: a context variable the prompt does not declare is an error, never dropped.
    return prompt.render_system(
        session_id=session_id,
        reply_language=reply_language,
        **context,
        **offer_variables(offered),
        **phase_variables(phase),
    )


def render_conversation(messages: list[dict[str, Any]]) -> str:
    """Messages as plain text for the summariser (roles, tool calls and results labelled)."""
    lines: list[str] = []
    for message in messages:
        role = message.get("role")
        content = message.get("content") or ""
        if role == "tool":
            lines.append(f"[tool result {message.get('tool_call_id')}]\n{content}")
            continue
        if content:
            lines.append(f"[{role}]\n{content}")
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            lines.append(
                f"[assistant calls {function.get('name')} ({call.get('id')})] {function.get('arguments')}"
            )
    return "\n\n".join(lines)


def make_summariser(
    provider: Provider, log: EventLog | None = None
) -> Callable[[list[dict[str, Any]], str | None], Awaitable[str]]:
    """A compaction summariser that asks the session's own model with the `compress` prompt.

    Its raw reply goes to `log` as a `side_reply` event, so a replay can hand the same reply back.
    """
    from formspec_consult.prompting.prompts import load_prompt
    from formspec_consult.providers.base import Completion
    from formspec_consult.store.records import SideReplyRecord

    prompt = load_prompt("compress")

    async def summarise(messages: list[dict[str, Any]], focus: str | None) -> str:
        request = [
            {"role": "system", "content": prompt.render_system()},
            {
                "role": "user",
                "content": prompt.render_user(conversation=render_conversation(messages), focus=focus or ""),
            },
        ]
        text = ""
        async for item in provider.stream(request, None):
            if isinstance(item, Completion):
                text = item.text
        if log is not None:
            log.write(SideReplyRecord(purpose="compaction", text=text))
        return text

    return summarise
