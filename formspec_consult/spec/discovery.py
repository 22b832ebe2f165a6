"""Finding the project root and reading `formspec-app.yaml`."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

from formspec_consult.spec.errors import N_, ProjectError
from formspec_consult.spec.yamlload import YamlLoadError, decode, load_stream

APP_CONFIG = "formspec-app.yaml"


def find_root(start: str | Path) -> Path:
    """Walk up from `start` to the project root.

    The nearest folder holding formspec-app.yaml wins; failing that, the nearest one holding a
    `spec/` folder, then one holding `modules/` (checked in that order so that being inside
    `spec/modules/x` does not mistake `spec/` for the root).
    """
    path = Path(start).expanduser()
    if not path.exists():
        raise ProjectError(template=N_("{path} is not a FormSpec project: the path does not exist. Start a new "
                                       "project there with `formspec-consult init \"Business name\" --dir {folder}`, "
                                       "or pass --project with an existing one"),
                           fields={"path": path, "folder": shlex.quote(str(path))})
    path = path.resolve()
    if path.is_file():
        path = path.parent
    chain = [path, *path.parents]
    tests: tuple[Callable[[Path], bool], ...] = (
        lambda d: (d / APP_CONFIG).is_file(), lambda d: (d / "spec").is_dir(), lambda d: (d / "modules").is_dir()
    )
    for test in tests:
        for folder in chain:
            if test(folder):
                return folder
    # What to do instead: this package's own `init` (FormSpec's `formspec init` may not be installed).
    raise ProjectError(template=N_("{path} is not a FormSpec project: no formspec-app.yaml, spec/ or modules/ folder "
                                   "here or above. Start a new project there with `formspec-consult init \"Business "
                                   "name\" --dir {folder}`, or pass --project with an existing one"),
                       fields={"path": path, "folder": shlex.quote(str(path))})


def read_spec_setting(root: Path) -> tuple[str, str | None]:
    """(spec root name relative to `root`, warning or None) from formspec-app.yaml's `spec:`."""
    config = root / APP_CONFIG
    if not config.is_file():
        return "spec", None
    try:
        docs = load_stream(decode(config.read_bytes()))
    except (YamlLoadError, OSError) as exc:
        return "spec", f"{APP_CONFIG} could not be read ({exc}); using the default spec root `spec`"
    data = docs[0].value if docs else {}
    value = data.get("spec", "spec") if isinstance(data, dict) else "spec"
    if not isinstance(value, str) or not value.strip():
        return "spec", f"{APP_CONFIG}: `spec:` must be a folder name; using `spec`"
    cleaned = Path(value.strip())
    if cleaned.is_absolute() or ".." in cleaned.parts:
        return "spec", f"{APP_CONFIG}: `spec: {value}` leaves the project; using `spec`"
    return cleaned.as_posix(), None


def names_spec_root(root: Path) -> bool:
    """True when formspec-app.yaml sets `spec:` explicitly (so a missing folder is an error)."""
    config = root / APP_CONFIG
    if not config.is_file():
        return False
    try:
        docs = load_stream(decode(config.read_bytes()))
    except (YamlLoadError, OSError):
        return False
    data = docs[0].value if docs else None
    return isinstance(data, dict) and isinstance(data.get("spec"), str) and bool(data["spec"].strip())
