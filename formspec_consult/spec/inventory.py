"""Module inventory: which modules exist, where, whether active, and their lock entries."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from formspec_consult.spec.lockfile import lock_entry
from formspec_consult.spec.model import Document, ModuleInfo


def module_dirs(root: Path, spec_root: Path) -> dict[str, tuple[str, str]]:
    """name → (source, rel dir) for folders under spec/modules, modules/ and vendors/."""
    found: dict[str, tuple[str, str]] = {}
    for base, source in ((spec_root / "modules", "modules"), (root / "modules", "modules"),
                         (spec_root / "vendors", "vendors"), (root / "vendors", "vendors")):
        try:
            entries = sorted(os.scandir(base), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if _is_dir(entry) and not entry.name.startswith("."):
                found.setdefault(entry.name, (source, Path(entry.path).relative_to(root).as_posix()))
    return found


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """A folder (through links); a link that loops is none (never an error for the whole project)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def build_modules(docs: list[Document], dirs: dict[str, tuple[str, str]], apps: list[Document],
                  lock: dict[str, Any] | None) -> list[ModuleInfo]:
    """One ModuleInfo per module, from Module documents first and bare module folders second."""
    active = {str(m).lower() for app in apps for m in (app.spec.get("modules") or []) if isinstance(m, str)}
    out: dict[str, ModuleInfo] = {}
    for doc in docs:
        if doc.kind != "Module" or not doc.name or doc.origin == "overrides" or doc.name.lower() in out:
            continue
        source = "vendors" if doc.origin == "vendors" else "modules"
        ai_index = doc.spec.get("ai_index")
        out[doc.name.lower()] = _info(doc.name, source, doc.rel.rsplit("/", 1)[0], doc.spec.get("version"),
                                      active, lock, ai_index if isinstance(ai_index, dict) else None)
    for name, (source, rel) in dirs.items():
        if name.lower() not in out:
            out[name.lower()] = _info(name, source, rel, None, active, lock, None)
    return sorted(out.values(), key=lambda m: (m.source, m.name))


def _info(name: str, source: str, rel: str, version: Any, active: set[str], lock: dict[str, Any] | None,
          ai_index: dict[str, Any] | None) -> ModuleInfo:
    entry = lock_entry(lock, name) if source == "vendors" else None
    if version is None and entry is not None:
        version = entry.get("version")
    return ModuleInfo(name=name, source=source, path=rel,  # type: ignore[arg-type]
                      version=None if version is None else str(version), active=name.lower() in active,
                      read_only=source == "vendors", trust_tier=(entry or {}).get("trust_tier"),
                      ai_index=ai_index, lock=entry)
