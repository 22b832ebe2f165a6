"""Where documents live: which folders to scan, and what a path says about origin and module."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from formspec_consult.spec.kinds import CHARACTERISTICS

SKIP_DIRS = frozenset({"node_modules", "impl", "__pycache__"})
_NOT_MODULES = frozenset({"apps", "workspaces", "schemas"})
ORIGIN_DIRS = ("modules", "vendors", "overrides")
_ROOT_FILES = frozenset({"formspec-app.yaml", "formspec-app.yml", "formspec.lock"})


def walk_yaml(folder: Path, skip: frozenset[str] = frozenset()) -> Iterator[str]:
    """Every YAML file path below `folder`, skipping hidden dirs, node_modules, impl/ and `skip`.

    Works on plain strings: this runs on every validation, and pathlib costs ~10x here.
    """
    stack = [str(folder)]
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                if name not in SKIP_DIRS and entry.path not in skip:
                    stack.append(entry.path)
            elif name.endswith((".yaml", ".yml")) and _file_or_broken_link(entry):
                yield entry.path  # a looping link too: reading it reports one problem of that file


def _file_or_broken_link(entry: os.DirEntry[str]) -> bool:
    """A regular file (through links), or a link that cannot be followed (a loop): the parse
    then reports that one file instead of the whole walk failing."""
    try:
        return entry.is_file()
    except OSError:
        return entry.is_symlink()


def scan_roots(root: Path, spec_root: Path) -> list[Path]:
    """The folders whose YAML files are spec documents: spec root + root-level modules/vendors/overrides."""
    roots = [spec_root]
    for name in ORIGIN_DIRS:
        folder = root / name
        if folder.is_dir() and not _inside(folder, spec_root):
            roots.append(folder)
    return roots


def list_spec_files(root: Path, spec_root: Path) -> list[str]:
    """POSIX paths (relative to the project root) of every spec document file, sorted."""
    roots = scan_roots(root, spec_root)
    # when the spec root is the project root, the other scan roots are its children
    skip = frozenset(str(r) for r in roots[1:] if _inside(r, spec_root))
    prefix = len(str(root)) + 1
    found: set[str] = set()
    for folder in roots:
        for path in walk_yaml(folder, skip if folder == spec_root else frozenset()):
            rel = path[prefix:].replace(os.sep, "/")
            if rel not in _ROOT_FILES:
                found.add(rel)
    return sorted(found)


def _inside(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def classify(rel: str, spec_rel: str) -> tuple[str, str | None]:
    """(origin, module inferred from the path) for a file `rel` relative to the project root.

    `spec_rel` is the spec root relative to the project root ("" when they coincide).
    """
    parts = rel.split("/")
    if parts[0] in ORIGIN_DIRS:
        return parts[0], parts[1] if len(parts) > 2 else None
    if spec_rel and rel.startswith(spec_rel + "/"):
        parts = rel[len(spec_rel) + 1:].split("/")
    elif spec_rel:
        return "spec", None
    if parts[0] in ("modules", "vendors"):
        return parts[0], parts[1] if len(parts) > 2 else None
    if len(parts) > 2 and parts[1] in CHARACTERISTICS and parts[0] not in _NOT_MODULES:
        return "spec", parts[0]  # older flat layout: <module>/master/customer.yaml
    if len(parts) > 1 and parts[0] not in _NOT_MODULES:
        return "spec", parts[0]
    return "spec", None
