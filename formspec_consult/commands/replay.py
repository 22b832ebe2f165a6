"""`formspec-consult replay <session>`: play a recorded session through the app, read-only.

Keys: space play/pause, n step, +/- speed. `--check` replays it headless through the real engine
and local server on a fresh copy of the project and reports the first divergence (exit 1), naming
the line of the recording's events.jsonl; the verdict is on stdout, the servers' logs on stderr.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from formspec_consult.i18n import N_, _

if TYPE_CHECKING:
    from formspec_consult.replay.recording import Recording


@click.command()
@click.argument("session")
@click.option("--check", is_flag=True, help=N_("Replay headless and report any divergence from the recording."))
@click.option("--speed", type=float, default=1.0, show_default=True, help=N_("Playback speed (0 = no pauses)."))
@click.option("--paused", is_flag=True, help=N_("Start paused (press space to play, n to step)."))
@click.option("--project", type=click.Path(file_okay=False, path_type=Path), default=None,
              help=N_("Project to check against (default: the session's own project, or the bundled example)."))
@click.pass_context
def replay(ctx: click.Context, session: str, check: bool, speed: float, paused: bool, project: Path | None) -> None:
    """Replay a recorded SESSION (a folder, a session id, or 'barbershop-queue')."""
    from formspec_consult.replay.recording import RecordingError, load
    from formspec_consult.replay.sources import find_session, project_of

    # `formspec-consult --project DIR replay …` means the same as `replay --project DIR …`
    project = project or ((ctx.obj or {}).get("project") if ctx.obj else None)

    try:
        folder = find_session(session, project)
        recording = load(folder)
    except RecordingError as exc:
        raise click.ClickException(str(exc)) from exc
    if check:
        _check(recording, project or project_of(folder))
        return
    from formspec_consult.replay.recorded_engine import RecordedEngine
    from formspec_consult.tui.replay.player import PlayerApp

    engine = RecordedEngine(recording, speed=speed)

    async def factory(resume: str | None, *, model: str | None = None) -> RecordedEngine:
        return engine  # a replay has one engine: the recording

    PlayerApp(factory, recording.steps, autoplay=not paused, speed=speed).run()


def _check(recording: Recording, project: Path) -> None:
    import tempfile

    import anyio

    from formspec_consult.commands.wiring import server_specs
    from formspec_consult.replay.check import check
    from formspec_consult.replay.sources import isolated_registry

    if not project.is_dir():
        raise click.ClickException(_("Project folder not found: {project}; pass --project DIR.").format(project=project))
    with tempfile.TemporaryDirectory(prefix="formspec-check-") as tmp:
        isolated_registry(Path(tmp))
        divergence, steps = anyio.run(check, recording, project, server_specs)
    # The verdict is the command's output (stdout); the servers' log lines stay on stderr.
    if divergence is None:
        click.echo(_("ok: {steps} steps replayed, no divergence from the recording").format(steps=steps))
        return
    click.echo(_("DIVERGED at {where}").format(where=divergence.describe()))
    raise SystemExit(1)
