"""The status bar: model, session, context used vs threshold vs window, cost, compactions."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from textual.reactive import reactive
from textual.widgets import Static

from formspec_consult.agent.engine.phase import phase_title
from formspec_consult.i18n import N_, _, format_money, format_number, format_percent, ngettext

if TYPE_CHECKING:
    from formspec_consult.agent.engine.status import EngineStatus


@dataclass(frozen=True)
class StatusInfo:
    """Everything the bar shows; the app replaces it as events arrive."""

    state: str = "connecting…"
    model: str = ""
    session: str = ""
    context_tokens: int = 0
    threshold_tokens: int = 0
    window_tokens: int = 0
    reported: bool = False
    cost: float | None = None
    compactions: int = 0
    loading: bool = False  # the model layer is still loading: typing and reviewing already work
    phase: str = ""  # discovery | draft | iterate; "" while unknown

    @classmethod
    def from_engine(cls, status: EngineStatus, state: str = "ready") -> StatusInfo:
        """Build from `Engine.status()`; `state` is the app's own (ready, thinking…, …)."""
        return cls(
            state=state,
            model=status.model,
            session=status.session,
            context_tokens=status.context_tokens,
            threshold_tokens=status.threshold_tokens,
            window_tokens=status.window_tokens,
            reported=status.reported,
            cost=status.cost,
            compactions=status.compactions,
            loading=status.model_loading,
            phase=status.phase,
        )

    def with_(self, **changes: Any) -> StatusInfo:
        """A copy with some fields changed."""
        return replace(self, **changes)


def _k(tokens: int) -> str:
    return format_number(tokens / 1000, decimals=1) + "k" if tokens >= 1000 else format_number(tokens)


# The states the bar shows (set in English by the app and the presenter, said in the person's language).
_STATES = (N_("ready"), N_("thinking…"), N_("connecting…"), N_("not started"), N_("loading the session…"),
           N_("closing…"))


def state_words(state: str) -> str:
    """A state of the bar in the interface language ("running TOOL…" names the tool)."""
    if state.startswith("running ") and state.endswith("…"):
        return _("running {tool}…").format(tool=state.removeprefix("running ").removesuffix("…"))
    return _(state)


def render_status(info: StatusInfo) -> str:
    """The bar's markup, e.g. `ready │ gpt-4o │ session s-1 │ context 12.0k reported · 13% of 90.0k to
    compaction · window 120.0k │ $0.0123 │ 1 compaction`."""
    parts = [f"[b]{escape(state_words(info.state))}[/b]"]
    if info.model:
        parts.append(escape(info.model) + (" " + _("(starting…)") if info.loading else ""))
    if info.session:
        parts.append(escape(_("session {id}").format(id=info.session)))
    if info.phase:
        parts.append(escape(_("phase {phase}").format(phase=phase_title(info.phase))))
    if info.window_tokens:
        share = info.context_tokens / info.threshold_tokens if info.threshold_tokens else 0
        source = _("reported") if info.reported else _("estimated")
        # used, how full against the compaction threshold, the usable window: each one named
        parts.append(escape(_(
            "context {used} {source} · {share} of {threshold} to compaction · window {window}"
        ).format(used=_k(info.context_tokens), source=source, share=format_percent(share),
                 threshold=_k(info.threshold_tokens), window=_k(info.window_tokens))))
    parts.append(escape(format_money(info.cost, decimals=4)) if info.cost is not None else _("cost n/a"))
    parts.append(ngettext("{n} compaction", "{n} compactions", info.compactions).format(n=info.compactions))
    return " │ ".join(parts)


class StatusBar(Static):
    """One line at the bottom of the screen."""

    info: reactive[StatusInfo] = reactive(StatusInfo)

    def watch_info(self, info: StatusInfo) -> None:
        self.update(render_status(info))
        near = info.threshold_tokens and info.context_tokens >= 0.9 * info.threshold_tokens
        self.set_class(bool(near), "near-threshold")
