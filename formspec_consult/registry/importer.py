"""`registry import`: load modules and templates from a file or folder into a store.

Everything is parsed and validated first; only then is the whole batch written in one
transaction, so a bad file means nothing is written. Re-importing the same files is a no-op
(upsert, with "unchanged" reported).

Trust tier: the operator decides (`--trust-tier`), else the project's `formspec.lock` entry,
else `community`. A publisher cannot promote itself: tier annotations inside imported files are
ignored (they are honoured only for the bundled catalogue).
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from formspec_consult.registry.documents import CatalogueError, parse_file
from formspec_consult.registry.models import BusinessTemplate, ModuleRecord, TrustTier
from formspec_consult.registry.schemas import LOCK_SCHEMA
from formspec_consult.registry.store import RegistryStore, SaveResult

_SKIP_DIRS = {"node_modules", "impl", "__pycache__"}


@dataclass
class Batch:
    """Validated records ready to be saved, with the file each came from."""

    modules: dict[str, ModuleRecord] = field(default_factory=dict)
    templates: dict[str, BusinessTemplate] = field(default_factory=dict)
    origin: dict[str, Path] = field(default_factory=dict)


def _yaml_files(folder: Path) -> list[Path]:
    found: list[Path] = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).parts
        if any(p.startswith(".") or p in _SKIP_DIRS for p in rel[:-1]) or rel[-1].startswith("."):
            continue
        if path.suffix in (".yaml", ".yml") and path.is_file():
            found.append(path)
    return found


def _find_lock(start: Path) -> dict[str, dict[str, Any]]:
    """Entries of the nearest formspec.lock in `start` or up to two folders above, by name and alias."""
    for folder in [start, *list(start.parents)[:2]]:
        lock = folder / "formspec.lock"
        if lock.is_file():
            try:
                data = yaml.safe_load(lock.read_text(encoding="utf-8"))
                jsonschema.validate(data, LOCK_SCHEMA)
            except (yaml.YAMLError, jsonschema.ValidationError, ValueError) as exc:  # ValueError: not UTF-8, huge int
                detail = exc.message if isinstance(exc, jsonschema.ValidationError) else str(exc)
                raise CatalogueError(lock, f"is not a valid formspec.lock: {detail}") from exc
            entries: dict[str, dict[str, Any]] = {}
            for entry in data["modules"]:
                entries[entry["name"]] = entry
                if entry.get("alias"):
                    entries[entry["alias"]] = entry
            return entries
    return {}


def tree_checksum(folder: Path) -> str:
    """FormSpec's module checksum: sha256 over sorted relative paths, each `path NUL content NUL`."""
    digest = hashlib.sha256()
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    for path in sorted(files, key=lambda p: p.relative_to(folder).as_posix()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return f"sha256:{digest.hexdigest()}"


def _with_lock_facts(
    module: ModuleRecord, path: Path, lock: dict[str, dict[str, Any]], tier: TrustTier | None
) -> ModuleRecord:
    entry = lock.get(module.name, {})
    versions = module.versions
    if entry.get("version") and entry["version"] != module.version and entry["version"] not in versions:
        versions = (*versions, entry["version"])
    checksum = entry.get("checksum") or (
        tree_checksum(path.parent) if path.name in ("module.yaml", "module.yml") else ""
    )
    return dataclasses.replace(
        module,
        versions=versions,
        trust_tier=tier or entry.get("trust_tier") or "community",
        source=entry.get("source") or module.source,
        checksum=checksum,
    )


def collect(target: Path, *, trust_tier: TrustTier | None = None, honour_annotations: bool = False) -> Batch:
    """Parse and validate every registry document under `target` (a file or a folder)."""
    if not target.exists():
        raise CatalogueError(
            target, "does not exist; give a module.yaml, a template file or a folder of them"
        )
    files = [target] if target.is_file() else _yaml_files(target)
    lock = _find_lock(target if target.is_dir() else target.parent)
    batch = Batch()
    for path in files:
        parsed = parse_file(path, honour_annotations=honour_annotations)
        for module in parsed.modules:
            if module.name in batch.modules:
                raise CatalogueError(
                    path, f"module {module.name!r} is also defined in {batch.origin['m:' + module.name]}"
                )
            if not honour_annotations:
                module = _with_lock_facts(module, path, lock, trust_tier)
            elif trust_tier:
                module = dataclasses.replace(module, trust_tier=trust_tier)
            batch.modules[module.name] = module
            batch.origin["m:" + module.name] = path
        for template in parsed.templates:
            if template.pattern in batch.templates:
                raise CatalogueError(
                    path,
                    f"template {template.pattern!r} is also defined in {batch.origin['t:' + template.pattern]}",
                )
            batch.templates[template.pattern] = template
            batch.origin["t:" + template.pattern] = path
    if not batch.modules and not batch.templates:
        raise CatalogueError(
            target,
            "contains no Module document (kind: Module with spec.ai_index) and no business template (pattern: …)",
        )
    return batch


def import_path(
    store: RegistryStore[Any], target: Path, *, trust_tier: TrustTier | None = None
) -> SaveResult:
    """Validate everything under `target`, then upsert it into `store` in one transaction."""
    batch = collect(target, trust_tier=trust_tier)
    return store.save(list(batch.templates.values()), list(batch.modules.values()))
