"""Path rules for every write into a FormSpec project (pure; no I/O beyond ``resolve``).

Tool paths are POSIX paths relative to the *spec root* (``modules/<module>/…``). A path whose
first segment is ``overrides`` addresses the project's ``overrides/`` folder instead, and
``docs/<name>.md`` an owner document in the project's ``docs/`` folder (overview, domain model,
changelog: Markdown, reviewed like a spec file). Anything
that could escape the project, touch read-only vendor code or our own state is refused with a
message that tells the caller what to do instead.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from formspec_consult.store.layout import STATE_DIR

MAX_PATH_CHARS = 512
MAX_SEGMENT_CHARS = 255
YAML_SUFFIXES = (".yaml", ".yml")
#: owner documents: Markdown files directly in the project's docs/ folder ("docs/overview.md")
DOCS_DIR = "docs"
_DOC_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*\.md$")
_DRIVE = re.compile(r"^[A-Za-z]:")

VENDORS_MESSAGE = (
    "'{path}' is inside vendors/, which is read-only (vendored modules are replaced on update). "
    "To add fields or validation to a vendor entity, propose an Entity Extension in your own module "
    "(a kind: Entity with extend_storage.target pointing at the vendor entity); for presentation "
    "changes, propose a shadow copy under overrides/<module>/…"
)


#: file names FormSpec's CLI reads as its own dev/serve config at the project root (`spec: spec`,
#: `dsn`, …): never a manifest, and not ours to write
CLI_CONFIG_NAMES = frozenset({"formspec-app.yaml", "formspec-app.yml", "formspec-sidecar.yaml", "formspec-sidecar.yml"})
CLI_CONFIG_MESSAGE = (
    "'{path}' is refused: {name} is the FormSpec CLI's dev/serve config at the project root (where "
    "the spec folder, database and runtime are), not a manifest, and FormSpec reads no kind from it. "
    "Spec paths are relative to the spec folder: an App manifest goes in 'apps/<app>.yaml' (the file "
    "spec/apps/<app>.yaml), a module's in 'modules/<module>/module.yaml'."
)
#: folders FormSpec's loader skips when it walks the spec folder for manifests (besides hidden ones)
SKIPPED_FOLDERS = frozenset({"impl", "node_modules"})
SKIPPED_MESSAGE = (
    "'{path}' is inside {folder}/, a folder FormSpec's loader skips ({why}): a spec file there is never "
    "read. Put it where its module is, e.g. 'modules/<module>/<characteristic>/<entity>/entity.yaml'."
)


class PathRefused(ValueError):
    """A write path breaks a rule; the message says which and what to do instead."""


@dataclass(frozen=True)
class SpecPath:
    """A checked write path.

    ``rel`` is the normalised tool path (relative to the spec root, ``overrides/…`` kept as is),
    ``target`` the absolute file it addresses, ``project_rel`` the POSIX path of ``target``
    relative to the project root (the key the spec core's overlay uses).
    """

    rel: str
    target: Path
    project_rel: str


def normalise(raw: object) -> str:
    """Check the text of a tool path and return its normalised POSIX form (no filesystem access)."""
    if not isinstance(raw, str):
        raise PathRefused("The path must be a string such as 'modules/<module>/entities/<name>.yaml'.")
    path = raw.strip()
    if not path:
        raise PathRefused(
            "The path is empty; give a spec path such as 'modules/<module>/entities/<name>.yaml'."
        )
    if len(path) > MAX_PATH_CHARS:
        raise PathRefused(f"The path is {len(path)} characters long; the limit is {MAX_PATH_CHARS}.")
    if any(unicodedata.category(ch) == "Cc" for ch in path):
        raise PathRefused("The path contains control characters (e.g. NUL or a newline); use a plain path.")
    if "\\" in path:
        raise PathRefused(
            f"The path {path!r} contains a backslash; use forward slashes ('modules/x/y.yaml')."
        )
    if path.startswith(("/", "~")) or _DRIVE.match(path):
        raise PathRefused(
            f"The path {path!r} is absolute; give it relative to the spec root, e.g. 'modules/<module>/…'."
        )
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if not parts:
        raise PathRefused(
            f"The path {path!r} names no file; give e.g. 'modules/<module>/entities/<name>.yaml'."
        )
    for part in parts:
        _check_segment(path, part)
    if parts[-1].lower() in CLI_CONFIG_NAMES:
        raise PathRefused(CLI_CONFIG_MESSAGE.format(path=path, name=parts[-1]))
    for part in parts[:-1]:
        if part.lower() in SKIPPED_FOLDERS:
            why = "build-time code" if part.lower() == "impl" else "installed packages"
            raise PathRefused(SKIPPED_MESSAGE.format(path=path, folder=part, why=why))
    clean = "/".join(parts)
    if clean.lower().endswith(".md"):
        if len(parts) == 2 and parts[0] == DOCS_DIR and _DOC_NAME.match(parts[1]):
            return clean
        raise PathRefused(
            f"The path {clean!r} is not a spec file or an owner document: owner documents are "
            "'docs/<name>.md' (lower-case, e.g. 'docs/overview.md'); spec files end in .yaml or .yml."
        )
    if not clean.lower().endswith(YAML_SUFFIXES):
        raise PathRefused(
            f"The path {clean!r} is not a spec file; spec files end in .yaml or .yml "
            "(owner documents are 'docs/<name>.md')."
        )
    return clean


def is_doc(rel: str) -> bool:
    """Whether a normalised tool path names an owner document (``docs/<name>.md``)."""
    parts = rel.split("/")
    return len(parts) == 2 and parts[0] == DOCS_DIR and bool(_DOC_NAME.match(parts[1]))


def _check_segment(path: str, part: str) -> None:
    if part == "..":
        raise PathRefused(f"The path {path!r} contains '..'; paths must stay inside the spec tree.")
    if part.lower() == "vendors":
        raise PathRefused(VENDORS_MESSAGE.format(path=path))
    if part.startswith("."):
        # Covers .formspec/ (our own state, drafts, undo) and other hidden tool folders.
        raise PathRefused(
            f"The path {path!r} has a hidden segment {part!r}; spec files never live in hidden "
            "folders, and .formspec/ holds formspec-consult's own state."
        )
    if len(part) > MAX_SEGMENT_CHARS:
        raise PathRefused(f"A segment of {path!r} is longer than {MAX_SEGMENT_CHARS} characters.")


def resolve(raw: object, *, project_root: Path, spec_root: Path, overrides_dir: Path) -> SpecPath:
    """Check ``raw`` and map it onto the project, refusing symlinks that lead outside it."""
    rel = normalise(raw)
    first, _, rest = rel.partition("/")
    spec_dir = _spec_dir(project_root, spec_root)
    if spec_dir and rel.startswith(spec_dir + "/") and not (spec_root / first).exists():
        # A project-relative path ("spec/modules/…", as file listings show) means the same file.
        rel = rel[len(spec_dir) + 1 :]
        first, _, rest = rel.partition("/")
    if is_doc(rel):
        target = project_root / DOCS_DIR / rest
    elif first == "overrides":
        if not rest:
            raise PathRefused("'overrides' alone names no file; use 'overrides/<module>/<file>.yaml'.")
        target = overrides_dir.joinpath(*PurePosixPath(rest).parts)
    else:
        target = spec_root.joinpath(*PurePosixPath(rel).parts)
        parts = PurePosixPath(rel).parts
        if parts[0] == "modules" and len(parts) > 2 and not (spec_root / "modules" / parts[1]).is_dir():
            # A module kept at <project>/modules/<m>/ (beside the spec root) is written in place.
            if (project_root / "modules" / parts[1]).is_dir():
                target = project_root.joinpath(*parts)
    root = project_root.resolve()
    real = _real_path(target)
    if real != root and root not in real.parents:
        raise PathRefused(
            f"The path {rel!r} leads outside the project (through a symlink); refusing to write."
        )
    real_rel = real.relative_to(root)
    if real_rel.parts and real_rel.parts[0] in ("vendors", STATE_DIR):
        if real_rel.parts[0] == "vendors":
            raise PathRefused(VENDORS_MESSAGE.format(path=rel))
        raise PathRefused(f"The path {rel!r} leads into {STATE_DIR}/ (through a symlink); refusing to write.")
    if "vendors" in (part.lower() for part in real_rel.parts):
        raise PathRefused(VENDORS_MESSAGE.format(path=rel))
    if target.is_dir():
        raise PathRefused(f"The path {rel!r} is a folder; give the path of a .yaml file.")
    try:
        project_rel = target.relative_to(project_root).as_posix()
    except ValueError:
        project_rel = real_rel.as_posix()
    return SpecPath(rel=rel, target=target, project_rel=project_rel)


def tool_path(project_rel: str, *, project_root: Path, spec_root: Path) -> str:
    """The tool path (relative to the spec root) of a file given relative to the project root."""
    spec_dir = _spec_dir(project_root, spec_root)
    if spec_dir and project_rel.startswith(spec_dir + "/"):
        return project_rel[len(spec_dir) + 1 :]
    return project_rel


def _spec_dir(project_root: Path, spec_root: Path) -> str:
    """The spec root relative to the project root ("" when they are the same folder)."""
    for root, spec in ((project_root, spec_root), (project_root.resolve(), spec_root.resolve())):
        try:
            rel = spec.relative_to(root).as_posix()
        except ValueError:
            continue
        return "" if rel == "." else rel
    return ""


def _real_path(target: Path) -> Path:
    """Resolve symlinks of ``target`` (which may not exist yet) to an absolute real path."""
    return Path(os.path.realpath(target))
