"""The command palette (ctrl+p): every slash command, runnable from a fuzzy search."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from formspec_consult.i18n import _
from formspec_consult.tui.slash import SLASH_COMMANDS, SlashSpec


class SlashCommandsProvider(Provider):
    """Offers `/diff`, `/undo`, … as palette commands; picking one runs it like typed input.

    Commands that need an argument (`/reject <path>`) are put into the input instead, ready to
    complete.
    """

    def _run(self, spec: SlashSpec) -> None:
        runner = getattr(self.app, "run_slash_from_palette", None)
        if runner is not None:
            runner(spec)

    async def discover(self) -> Hits:
        for spec in SLASH_COMMANDS:
            yield DiscoveryHit(_(spec.usage), partial(self._run, spec), help=_(spec.help))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for spec in SLASH_COMMANDS:
            score = matcher.match(f"{spec.usage} {_(spec.usage)} {_(spec.help)}")
            if score > 0:
                yield Hit(score, matcher.highlight(_(spec.usage)), partial(self._run, spec), help=_(spec.help))
