"""The status bar: model, session, context used vs threshold vs window, cost, compactions."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from textual.reactive import reactive
from textual.widgets import Static

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
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)


def render_status(info: StatusInfo) -> str:
    """The bar's markup, e.g. `ready │ gpt-4o │ session s-1 │ context 12.0k reported · 13% of 90.0k to
    compaction · window 120.0k │ $0.0123 │ 1 compaction`."""
    parts = [f"[b]{escape(info.state)}[/b]"]
    if info.model:
        parts.append(escape(info.model) + (" (starting…)" if info.loading else ""))
    if info.session:
        parts.append(f"session {escape(info.session)}")
    if info.phase:
        parts.append(f"phase {escape(info.phase.capitalize())}")
    if info.window_tokens:
        pct = 100 * info.context_tokens / info.threshold_tokens if info.threshold_tokens else 0
        source = "reported" if info.reported else "estimated"
        # used, how full against the compaction threshold, the usable window: each one named
        parts.append(
            f"context {_k(info.context_tokens)} {source} · {pct:.0f}% of {_k(info.threshold_tokens)} to compaction"
            f" · window {_k(info.window_tokens)}"
        )
    parts.append(f"${info.cost:.4f}" if info.cost is not None else "cost n/a")
    parts.append(f"{info.compactions} compaction{'s' if info.compactions != 1 else ''}")
    return " │ ".join(parts)


class StatusBar(Static):
    """One line at the bottom of the screen."""

    info: reactive[StatusInfo] = reactive(StatusInfo)

    def watch_info(self, info: StatusInfo) -> None:
        self.update(render_status(info))
        near = info.threshold_tokens and info.context_tokens >= 0.9 * info.threshold_tokens
        self.set_class(bool(near), "near-threshold")
