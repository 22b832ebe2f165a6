"""Build the engine factory the app uses from the command line's options.

Nothing heavy is imported here: the engine module (and litellm behind it) is imported in a
worker thread once the first frame is on screen, so the event loop keeps painting meanwhile.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formspec_consult.agent.engine.port import EngineFactory, EngineLike
from formspec_consult.i18n import _

# Modules worth importing off the event loop before the engine opens; a missing one is skipped.
# litellm is not among them: the engine imports it in a thread of its own while the MCP servers
# start (side by side), instead of before them.
PRELOAD = ("formspec_consult.agent.engine.engine",)

if TYPE_CHECKING:
    from formspec_consult.config.trust import TrustRequest
    from formspec_consult.providers.base import Provider


def _preload(modules: tuple[str, ...]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            continue


def engine_factory_for(
    options: Mapping[str, Any],
    *,
    provider: Provider | None = None,
    in_memory_server: bool = False,
    preload: tuple[str, ...] = PRELOAD,
) -> EngineFactory:
    """A factory opening `Engine` with these CLI options; `resume` overrides --resume/--continue.

    `provider` injects an offline provider (demo, replay); then litellm is not preloaded.
    `in_memory_server` runs the local MCP server in-process (tests).
    """

    async def factory(resume: str | None, *, model: str | None = None) -> EngineLike:
        await asyncio.to_thread(_preload, preload)
        from formspec_consult.agent.engine.engine import Engine
        from formspec_consult.commands.wiring import engine_options

        # The same CLI → EngineOptions mapping as headless mode; a resume picked in the app wins.
        base = engine_options({**options, "model": model} if model else options)
        project = options.get("project")
        opened = replace(
            base,
            project=Path(project) if project else None,
            resume=resume or base.resume,
            continue_latest=base.continue_latest and resume is None,
            fork=base.fork and resume is None,  # --fork forks once, at the start; a picked session opens as is
            provider=provider,
            in_memory_server=in_memory_server,
        )
        # The app opens before the model layer has loaded: the person reads, reviews and types
        # meanwhile; a message sent in between is queued until the model is there (tui/app.py).
        return await Engine.open(opened, wait_for_model=False)

    return factory


def pending_trust(options: Mapping[str, Any]) -> TrustRequest | None:
    """What the project's settings ask for that the app must ask about before it opens the engine;
    None when trusted (or `--trust-project`), when there is nothing to ask, or outside a project."""
    if options.get("trust_project"):
        return None
    from formspec_consult.config import ConfigError, trust_request
    from formspec_consult.spec import ProjectError
    from formspec_consult.spec.discovery import find_root

    try:
        return trust_request(find_root(options.get("project") or Path.cwd()))
    except (ProjectError, ConfigError):  # said by the engine's start, in the app
        return None


def run_app(options: Mapping[str, Any]) -> int:
    """Run the app for the CLI's options (`project`, `model`, `resume`, `continue_`, …); return the
    exit code: 2 when the consultation could not start (its reason is printed in the shell)."""
    import asyncio

    from formspec_consult.tui.app import ConsultApp

    app = ConsultApp(engine_factory_for(options), trust_request=pending_trust(options))
    app.close_engine_on_unmount = False  # closed below, once the terminal is back: quitting is instant

    async def run() -> None:
        try:
            await app.run_async()
        finally:
            hint = app.resume_hint()
            if hint:  # the terminal is back: say how to come back to the session
                print(hint, flush=True)
            await app.close_engine()

    asyncio.run(run())
    if app.start_failure:  # the terminal is back: say it once more where the shell keeps it
        print(_("Could not start: {start_failure}").format(start_failure=app.start_failure), file=sys.stderr, flush=True)
        return 2
    return 0
