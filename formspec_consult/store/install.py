"""Installing a registry module into the project the way FormSpec does, undoable as one step.

FormSpec's `formspec module install` copies a module's tree to `vendors/<name>/`, records it in
`formspec.lock` (source, name, version, the tree's checksum, trust tier, when) and adds a marker
block to the App manifest's `modules:` list (`# >>> formspec:vendor <source> @<version>`, the
entry, `# <<< formspec:vendor`; the entry commented out means installed but inactive). This does
the same with files the caller hands over (the local server's: the bundled registry's shipped
module), and only ever adds: an existing `vendors/<name>`, lock entry, module of that name or App
entry is refused before anything is written. Every file written is one entry of the session's
undo stack, all under one group, so `undo_apply` takes the whole install back at once (exact
bytes of the lock and the App, the new files and folders removed). A failure part-way puts back
what was written.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import yaml

from formspec_consult.spec.lockfile import LOCK_NAME, TRUST_TIERS, lock_entry, module_checksum, read_lock
from formspec_consult.store.atomic import remove_file, sha256_of, write_atomic
from formspec_consult.store.layout import state_dir
from formspec_consult.store.locks import target_lock

if TYPE_CHECKING:
    from formspec_consult.store.review import SessionReview
    from formspec_consult.store.undo import UndoEntry

VENDORS = "vendors"
MARK_BEGIN, MARK_END = ">>> formspec:vendor", "<<< formspec:vendor"
_NAME = re.compile(r"^[a-z][a-z0-9._-]{0,99}$")
_KEY_LINE = re.compile(r"^(\s*)modules:\s*(.*)$")


class InstallRefused(ValueError):
    """The install cannot run as asked; nothing was written. The message says what to do."""


def install_group(name: str) -> str:
    return f"install {name}"


def install_module(
    review: SessionReview,
    *,
    name: str,
    version: str,
    source: str,
    files: dict[str, bytes],
    trust_tier: str = "community",
    activate: bool = True,
) -> dict[str, Any]:
    """Install `files` (the module's tree, POSIX relative paths) as `vendors/<name>/`; see the module doc."""
    root = Path(review.project.root)
    _check_request(name, files, trust_tier)
    app_doc = _app_manifest(review)
    app_path = root / app_doc
    with target_lock(state_dir(root), app_doc):
        plan = _plan(review, root, name, version, source, files, trust_tier, activate, app_path)
        written = _write(review, root, name, plan)
    return {
        "installed": name,
        "version": version,
        "source": source,
        "folder": f"{VENDORS}/{name}",
        "files": sorted(files),
        "checksum": plan["checksum"],
        "lock": LOCK_NAME,
        "app": app_doc,
        "active": activate,
        "undo_steps": written,
        "validation": review.project.validate(None).to_dict(),
    }


def _check_request(name: str, files: dict[str, bytes], trust_tier: str) -> None:
    if not _NAME.match(name):
        raise InstallRefused(f"{name!r} is not a module name: use the name search_modules_registry gave.")
    if "module.yaml" not in files:
        raise InstallRefused(f"The files of {name} have no module.yaml at their top, so they are not a module.")
    if trust_tier not in TRUST_TIERS:
        raise InstallRefused(f"Trust tier {trust_tier!r} is not one of {', '.join(TRUST_TIERS)}.")
    for rel in files:
        parts = PurePosixPath(rel).parts
        if not parts or rel.startswith("/") or "\\" in rel or any(p in ("", ".", "..") for p in parts):
            raise InstallRefused(f"The module's file {rel!r} would land outside vendors/{name}/; nothing was written.")


def _app_manifest(review: SessionReview) -> str:
    apps = [doc for doc in review.project.apps() if doc.origin != VENDORS]
    if not apps:
        raise InstallRefused(
            "The project has no App manifest to list the module in (spec/apps/<app>.yaml). Propose the App "
            "first, then install the module; nothing was written."
        )
    return apps[0].rel


def _plan(review: SessionReview, root: Path, name: str, version: str, source: str, files: dict[str, bytes],
          trust_tier: str, activate: bool, app_path: Path) -> dict[str, Any]:
    """Everything to write, decided before anything is: refusals leave the project as it was."""
    vendors = root / VENDORS
    target = vendors / name
    if vendors.is_symlink() or (vendors.exists() and not vendors.is_dir()):
        raise InstallRefused(f"{VENDORS} is not a plain folder of this project; nothing was written.")
    if target.exists() or target.is_symlink():
        raise InstallRefused(
            f"{VENDORS}/{name} already exists, so {name} is installed (or a folder is in its way): nothing was "
            "written. Use the installed module, or ask the person to remove it first."
        )
    own = [m for m in review.project.modules() if m.name == name]
    if own:
        raise InstallRefused(f"The project already has a module named {name}; nothing was written.")
    lock, lock_error = read_lock(root)
    if lock_error:
        raise InstallRefused(f"{lock_error}. Fix formspec.lock first; nothing was written.")
    if lock_entry(lock, name) is not None:
        raise InstallRefused(f"formspec.lock already records {name}; nothing was written.")
    if app_path.is_symlink():
        raise InstallRefused(f"The App manifest {app_path.name} is a symbolic link; nothing was written.")
    app_before = app_path.read_bytes()
    app_after = add_vendor_marker(app_before.decode("utf-8"), source, version, name, activate).encode("utf-8")
    checksum = tree_checksum_of(files)
    lock_path = root / LOCK_NAME
    if lock_path.is_symlink():
        raise InstallRefused(f"{LOCK_NAME} is a symbolic link; nothing was written.")
    lock_before = lock_path.read_bytes() if lock_path.is_file() else None
    entry = {"source": source, "name": name, "version": version, "checksum": checksum, "trust_tier": trust_tier,
             "installed_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
    modules = [*((lock or {}).get("modules") or []), entry]
    modules.sort(key=lambda m: str(m.get("alias") or m.get("name") or ""))
    lock_after = ("# Written by `formspec module install`; do not edit by hand.\n"
                  + yaml.safe_dump({**(lock or {}), "modules": modules}, sort_keys=False, allow_unicode=True))
    return {"app": (app_path, app_before, app_after), "lock": (lock_path, lock_before, lock_after.encode("utf-8")),
            "checksum": checksum, "files": files}


def tree_checksum_of(files: dict[str, bytes]) -> str:
    """FormSpec's tree checksum of files not yet on disk (spec.lockfile.module_checksum's rule)."""
    import hashlib

    digest = hashlib.sha256()
    for rel in sorted(files):
        digest.update(rel.encode("utf-8") + b"\0" + files[rel] + b"\0")
    return "sha256:" + digest.hexdigest()


def _write(review: SessionReview, root: Path, name: str, plan: dict[str, Any]) -> int:
    """Write the files, the lock and the App, each pushed on the undo stack under one group."""
    stack, group = review.undo_stack, install_group(name)
    pushed: list[UndoEntry] = []
    writes: list[tuple[Path, bytes | None, bytes]] = [
        *((root / VENDORS / name / rel, None, data) for rel, data in sorted(plan["files"].items())),
        plan["lock"], plan["app"],
    ]
    try:
        for path, before, after in writes:
            project_rel = path.relative_to(root).as_posix()
            created = tuple(p.relative_to(root).as_posix() for p in path.parents if root in p.parents and not p.exists())
            pushed.append(stack.push(project_rel, project_rel, before, after, created, group=group))
            if before is None and path.exists():
                raise InstallRefused(f"{project_rel} appeared meanwhile; nothing was left written.")
            write_atomic(path, after)
        if module_checksum(root / VENDORS / name) != plan["checksum"]:
            raise InstallRefused(f"The files written to {VENDORS}/{name} do not match their checksum; nothing was left.")
    except BaseException:
        for entry in reversed(pushed):
            _put_back(root, entry, stack)
        raise
    return len(pushed)


def _put_back(root: Path, entry: UndoEntry, stack: Any) -> None:
    """Undo one write of a failed install (best effort: the earlier bytes, or no file)."""
    target = root.joinpath(*entry.project_rel.split("/"))
    if entry.existed:
        before = stack.entry_dir(entry) / "before"
        if before.is_file():
            write_atomic(target, before.read_bytes())
    elif sha256_of(target) == entry.after_sha256:
        remove_file(target)
    for rel_dir in entry.created_dirs:
        folder = root.joinpath(*rel_dir.split("/"))
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    stack.drop(entry)


def add_vendor_marker(text: str, source: str, version: str, name: str, active: bool) -> str:
    """The App manifest `text` with a FormSpec vendor marker block for `name` at the end of its
    `modules:` list (a flow list such as `modules: [shop]` is rewritten as a block list first).
    InstallRefused when the App has no `modules:` key under `spec:`, or lists `name` already."""
    data = yaml.safe_load(text)
    spec = data.get("spec") if isinstance(data, dict) else None
    if not isinstance(spec, dict) or "modules" not in spec:
        raise InstallRefused("The App manifest has no `spec.modules` list to add the module to; add "
                             "`modules: []` under spec (a proposal), then install again. Nothing was written.")
    if name in (spec.get("modules") or []):
        raise InstallRefused(f"The App already lists {name} under modules; nothing was written.")
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(newline)
    found = [(i, m) for i, m in ((i, _KEY_LINE.match(line)) for i, line in enumerate(lines)) if m and m.group(1)]
    if not found:  # spec's keys are indented: a top-level `modules:` is not the App's
        raise InstallRefused("The App manifest's `modules:` list could not be found as a line of its own; "
                             "nothing was written.")
    at, match = found[0]
    key_indent, rest = match.group(1), match.group(2).split(" #", 1)[0].strip()
    item_indent = key_indent + "  "
    end = at + 1
    if rest:  # a flow list (`modules: []`, `modules: [shop]`): the same entries as a block list
        listed = yaml.safe_load(rest) or []
        lines[at:at + 1] = [f"{key_indent}modules:", *(f"{item_indent}- {item}" for item in listed)]
        end = at + 1 + len(listed)
    else:
        first = True
        for i in range(at + 1, len(lines)):
            line = lines[i]
            if not line.strip():
                continue
            indent = line[: len(line) - len(line.lstrip())]
            if len(indent) <= len(key_indent) and not line.lstrip().startswith("- "):
                break  # the next key of spec: the list ended
            if line.lstrip().startswith("- ") and first:
                item_indent, first = indent, False
            end = i + 1
    entry = f"{item_indent}- {name}" if active else f"{item_indent}# - {name}"
    block = [f"{item_indent}# {MARK_BEGIN} {source} @{version}", entry, f"{item_indent}# {MARK_END}"]
    out = newline.join([*lines[:end], *block, *lines[end:]])
    check = yaml.safe_load(out)
    listed_after = (check.get("spec") or {}).get("modules") or []
    if (name in listed_after) != active or [m for m in listed_after if m != name] != list(spec.get("modules") or []):
        raise InstallRefused("The App manifest's modules list has a shape the marker cannot be added to safely; "
                             "nothing was written.")
    return out
