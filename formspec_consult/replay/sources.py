"""Where recordings and projects come from: a path, a session id of the project, or the bundle."""

from __future__ import annotations

import os
from pathlib import Path

from formspec_consult.replay.recording import RecordingError
from formspec_consult.resources import data_dir, package_path
from formspec_consult.store.layout import SessionLayout, consult_dir, project_of_session

EXAMPLE_SESSION = "barbershop-queue"


def bundled_sessions() -> Path:
    """The folder of example sessions shipped with the package (`transcripts-example/`)."""
    return data_dir("transcripts-example")


def find_session(name: str, project: Path | None = None) -> Path:
    """A session folder from a path, an id under `<project>/.formspec/consult/`, or a bundled name."""
    given = Path(name).expanduser()
    if given.exists():
        return given
    root = project or Path.cwd()
    for candidate in (consult_dir(root) / name, bundled_sessions() / name):
        if SessionLayout(candidate).events.is_file():
            return candidate
    raise RecordingError(
        f"No session '{name}': give a session folder, a session id of this project "
        f"(see `formspec-consult sessions`), or '{EXAMPLE_SESSION}' for the bundled example."
    )


def project_of(session: Path) -> Path:
    """The project a session belongs to: the folder above `.formspec/consult/<id>`, else the
    bundled barbershop example (the example sessions were recorded on a copy of it)."""
    return project_of_session(session) or package_path("examples", "barbershop")


def isolated_registry(folder: Path) -> None:
    """Point the registry at a database inside `folder` unless the user chose one."""
    os.environ.setdefault("FORMSPEC_REGISTRY_DB", f"sqlite:///{folder / 'registry.db'}")
