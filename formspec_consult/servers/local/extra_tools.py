"""Transcript read-back (for the engine's compacted histories) and the shared prompt files."""

from __future__ import annotations

import json
import logging
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.prompts.base import Prompt as MCPPrompt
from mcp.server.mcpserver.prompts.base import PromptArgument, UserMessage
from pydantic import Field

from formspec_consult.servers.base import READ_ONLY
from formspec_consult.servers.local.results import Transcript
from formspec_consult.servers.local.state import LocalState, tool_errors
from formspec_consult.store.layout import EVENTS

SNIPPET = 160
#: characters of one page of a long event, JSON-escaped: with the page's other keys it stays under
#: the loop's default result cap (8,000), so a page is never cut again
PAGE = 6000
_log = logging.getLogger(__name__)


def register(server: MCPServer, state: LocalState) -> None:
    """Add ``read_transcript`` and every prompt file to ``server``."""

    @server.tool(title="Read the session transcript", annotations=READ_ONLY, structured_output=True)
    @tool_errors
    def read_transcript(
        seq: int | None = None,
        query: Annotated[
            str | None, Field(description="Text to find.")
        ] = None,
        type: Annotated[
            str | None, Field(description="An event type, e.g. 'tool_result'.")
        ] = None,  # noqa: A002
        limit: Annotated[int, Field(ge=1, le=100)] = 20,
        offset: Annotated[
            int | None, Field(ge=0, description="With seq: where to start.")
        ] = None,
    ) -> Transcript:
        """Earlier events: snippets (with seq) matching query and type, or event seq in full (paged)."""
        from formspec_consult.store.events import EventLog

        log_path = state.session_folder / EVENTS
        events = list(EventLog.records(log_path))
        if seq is not None:
            for event in events:
                if event.seq == seq:
                    return _event_or_page(state.session_id, event, offset)
            last = events[-1].seq if events else None
            raise ToolError(
                f"No event with seq {seq} in this session (last seq: {last}). Search with query instead."
            )
        needle = (query or "").casefold()
        matches = []
        for event in reversed(events):
            if type and event.type != type:
                continue
            text = json.dumps(event.to_json(), ensure_ascii=False)
            where = text.casefold().find(needle) if needle else 0
            if where < 0:
                continue
            start = max(0, where - SNIPPET // 2)
            matches.append(
                {
                    "seq": event.seq,
                    "type": event.type,
                    "ts": event.ts,
                    "snippet": text[start : start + SNIPPET],
                }
            )
        return {
            "session": state.session_id,
            "total_matches": len(matches),
            "events": matches[:limit],
            "hint": "Call read_transcript with seq to read one event in full.",
        }

    _register_prompts(server)


def _event_or_page(session: str, event: Any, offset: int | None) -> Transcript:
    """The event in full when it fits a page, else one page of it.

    A page must fit the loop's result cap (8,000 characters by default) once JSON-escaped, or the
    model would read it cut again: a tool result is paged by its own text (what the model was
    shown), any other event by its JSON. The page says where the next one starts.
    """
    whole = event.to_json()
    if offset is None and len(json.dumps(whole, ensure_ascii=False)) <= PAGE:
        return {"session": session, "event": whole}
    result = getattr(event, "shown", None) or getattr(event, "result", None)  # what the model was shown
    text = result if isinstance(result, str) and result else json.dumps(whole, ensure_ascii=False)
    start = min(offset or 0, len(text))
    end = _page_end(text, start)
    page: Transcript = {"session": session, "seq": event.seq, "type": event.type, "offset": start,
                        "total_chars": len(text), "text": text[start:end]}
    if end < len(text):
        page["hint"] = f"Characters {start}-{end} of {len(text)}. Read on with read_transcript(seq={event.seq}, offset={end})."
    return page


def _page_end(text: str, start: int) -> int:
    """The largest end such that text[start:end], JSON-escaped, is at most PAGE characters."""
    low, high = start, min(len(text), start + PAGE)
    while low < high:
        mid = (low + high + 1) // 2
        if len(json.dumps(text[start:mid], ensure_ascii=False)) <= PAGE:
            low = mid
        else:
            high = mid - 1
    return max(low, min(len(text), start + 1))


def _register_prompts(server: MCPServer) -> None:
    try:
        from formspec_consult.prompting.prompts import list_prompts

        prompts = list_prompts()
    except Exception:  # noqa: BLE001 - a broken prompt file must not take the tools down
        _log.exception("prompt files could not be loaded; serving no MCP prompts")
        return
    for prompt in prompts:
        server.add_prompt(
            MCPPrompt(
                name=prompt.name,
                title=f"{prompt.name} (v{prompt.version})",
                description=prompt.description,
                arguments=[
                    PromptArgument(name=v.name, description=v.description or None, required=v.required)
                    for v in prompt.variables
                ],
                fn=_renderer(prompt),
                context_kwarg=None,
            )
        )


def _renderer(prompt: Any) -> Any:
    def render(**variables: Any) -> list[UserMessage]:
        # MCP prompts have no system role: the system text leads, the user template follows.
        parts = [prompt.render_system(**variables)]
        if prompt.user_template:
            parts.append(prompt.render_user(**variables))
        return [UserMessage("\n".join(parts))]

    return render
