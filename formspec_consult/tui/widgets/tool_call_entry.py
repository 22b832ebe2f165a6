"""One tool call in the tool pane: a Collapsible whose title line says what was called.

The title shows status, tool, a preview of the arguments, server and duration; the full
arguments and the result sit inside, collapsed by default. One entry is four widgets, so a
long session's hundred entries stay cheap to lay out.
"""

from __future__ import annotations

import json
from typing import Any

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Collapsible, Static

from formspec_consult.i18n import N_, _, format_number
from formspec_consult.store.tool_status import gate_refused  # noqa: F401 - re-exported

# Results can be huge (a whole schema); the pane shows a capped copy, the log keeps all of it.
RESULT_PREVIEW_CHARS = 4000
_ICONS = {"running": "…", "ok": "✓", "error": "✗", "refused": "!"}
_STATUS_WORDS = (N_("running"), N_("ok"), N_("error"), N_("refused"))  # said by the header


def format_arguments(arguments: dict[str, Any], limit: int = 60) -> str:
    """Arguments as one compact line, each value shortened to `limit` characters."""
    parts = []
    for key, value in arguments.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        text = text.replace("\n", "⏎")
        parts.append(f"{key}={text[:limit] + '…' if len(text) > limit else text}")
    return ", ".join(parts)


def arguments_yaml(arguments: dict[str, Any]) -> str:
    """Arguments as YAML, multi-line text (a spec file's content) as a block, so YAML reads as YAML."""
    import yaml

    class _Dumper(yaml.SafeDumper):
        pass

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    _Dumper.add_representer(str, text)
    try:
        return yaml.dump(arguments, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000).rstrip()
    except yaml.YAMLError:
        return json.dumps(arguments, ensure_ascii=False, indent=2, default=str)


class ToolCallEntry(Collapsible):
    """A call that is running (`status="running"`) or finished (`ok` / `refused` / `error`)."""

    status: reactive[str] = reactive("running")

    def __init__(self, call_id: str, server: str, name: str, arguments: dict[str, Any]) -> None:
        self._body = Static(self._body_text(arguments, None), classes="tool-body", markup=False)
        # Born with the classes it shows collapsed ("-collapsed" is what Collapsible adds on mount):
        # a class changed after mount restyles the entry's whole subtree, and a resumed session
        # mounts sixty entries at once.
        super().__init__(self._body, title="", collapsed=True, classes="tool-call running -collapsed")
        self.call_id = call_id
        self.server = server
        self.tool_name = name
        self.arguments = arguments
        self.result = ""
        self.duration_ms: float | None = None
        self.title = self.header()  # type: ignore[assignment]  # Collapsible renders Content titles

    @staticmethod
    def _body_text(arguments: dict[str, Any], result: str | None) -> str:
        args = arguments_yaml(arguments) if arguments else _("(no arguments)")
        if result is None:
            return _("arguments:") + f"\n{args}\n\n" + _("(running…)")
        shown = result if len(result) <= RESULT_PREVIEW_CHARS else result[:RESULT_PREVIEW_CHARS] + "\n… " + _("(truncated)")
        size = _("result ({n} chars):").format(n=format_number(len(result)))
        return _("arguments:") + f"\n{args}\n\n{size}\n{shown}"

    def header(self) -> Content:
        """The title line: icon, tool, status and duration, server, then an arguments preview
        last, since that is what a narrow pane cuts off. Built from parts, never parsed as
        markup: tool names, servers and arguments come from servers and the model (a cut
        `[/…` once read as a closing tag and failed the turn)."""
        duration = f" {format_number(self.duration_ms / 1000, decimals=2)}s" if self.duration_ms is not None else ""
        return Content.assemble(
            f"{_ICONS.get(self.status, '?')} ",
            (self.tool_name, "bold"),
            " ",
            (f"{_(self.status)}{duration}", "italic"),
            " ",
            (self.server, "dim"),
            " ",
            format_arguments(self.arguments, 24),
        )

    def watch_status(self, old: str, new: str) -> None:
        # One atomic change, none at all when the class is already right (the watcher also runs
        # once on mount): every restyle of a mounted entry costs a stylesheet pass over its subtree.
        if old != new:
            self.update_classes({old: False, new: True})
        else:
            self.add_class(new)

    def finish(self, ok: bool, result: str, duration_ms: float) -> None:
        """Mark the call finished and keep its result, collapsed."""
        self.result = result
        self.duration_ms = duration_ms
        # A draft the validation gate refused is a success of the tool but worth seeing at a glance.
        self.status = ("refused" if gate_refused(result) else "ok") if ok else "error"
        self._body.update(self._body_text(self.arguments, result))
        self.title = self.header()  # type: ignore[assignment]  # Collapsible renders Content titles
