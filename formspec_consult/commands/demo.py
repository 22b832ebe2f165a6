"""`formspec-consult demo`: the offline demo — no key, no network.

Copies the bundled barbershop project to a working folder and plays the example session in the
app with the replay provider: the consultant's words come from the recording, while every tool
call, the validation gate, apply and undo run for real against the local server on that copy.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import click

from formspec_consult.i18n import N_, _

if TYPE_CHECKING:
    from formspec_consult.replay.recording import Recording


@click.command()
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default=None,
              help=N_("Working folder to keep the demo project in (default: a temporary folder, removed on exit)."))
@click.option("--speed", type=float, default=1.0, show_default=True, help=N_("Playback speed."))
@click.option("--paused", is_flag=True, help=N_("Start paused (space plays, n steps)."))
def demo(folder: Path | None, speed: float, paused: bool) -> None:
    """Watch a consultation on an example barbershop project, offline."""
    if folder is None:  # nothing is left behind: the temporary folder goes when the demo ends
        with tempfile.TemporaryDirectory(prefix="formspec-consult-demo-") as tmp:
            _play(Path(tmp), speed, paused)
        click.echo(_("The demo project was removed; `formspec-consult demo --dir DIR` keeps it."))
        return
    _play(folder, speed, paused)
    click.echo(_("The demo project and its session stay in {folder}.").format(folder=folder / 'barbershop'))


def _play(work: Path, speed: float, paused: bool) -> None:
    from formspec_consult.replay.recording import RecordingError, load
    from formspec_consult.replay.sources import EXAMPLE_SESSION, bundled_sessions, isolated_registry
    from formspec_consult.resources import package_path

    project = work / "barbershop"
    if project.exists():
        raise click.ClickException(_("{project} already exists; pass another --dir or remove it.").format(project=project))
    try:
        recording = load(bundled_sessions() / EXAMPLE_SESSION)
    except (RecordingError, FileNotFoundError) as exc:
        raise click.ClickException(_("The bundled example session is missing: {exc}").format(exc=exc)) from exc
    work.mkdir(parents=True, exist_ok=True)
    shutil.copytree(package_path("examples", "barbershop"), project)
    isolated_registry(work)
    click.echo(_("Demo project: {project}  (space play/pause · n step · +/- speed · ctrl+q quit; at the review step, a accepts the draft)").format(project=project))
    run_demo(project, recording, speed=speed, autoplay=not paused)


def run_demo(project: Path, recording: Recording, *, speed: float = 1.0, autoplay: bool = True,
             in_memory_server: bool = False) -> None:
    """Play `recording` on `project` in the app with the replay provider and real tools."""
    from formspec_consult.commands.launch import engine_factory_for
    from formspec_consult.providers import ReplayProvider
    from formspec_consult.tui.replay.player import PlayerApp

    provider = ReplayProvider.from_events(recording.raw, source="the example session")
    factory = engine_factory_for({"project": str(project)}, provider=provider, in_memory_server=in_memory_server)
    # The demo waits at the review step until the viewer accepts the draft (a) or goes on (space).
    PlayerApp(factory, recording.steps, autoplay=autoplay, speed=speed,
              review_hold=None).run()
