"""Official FormSpec schemas: `<project>/schemas/` first, then the user cache.

`formspec init` writes the official JSON Schemas into the project; the CLI also caches them
under the user cache folder. File naming varies, so matching is lenient.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsonschema import Draft202012Validator, validators

from formspec_consult.spec.kinds import canonical_kind, known_kinds

if TYPE_CHECKING:
    from formspec_consult.spec.project import Project


def user_cache_schema_dir() -> Path:
    """`<user cache>/formspec/schemas`, where the FormSpec CLI caches official schemas."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("formspec")) / "schemas"


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


_FOLDERS: dict[str, tuple[int, dict[str, Path]]] = {}


def _official_candidates(folder: Path) -> dict[str, Path]:
    """Map normalised kind → schema file in `folder` (cached until the folder changes).

    Matching is lenient: `entity.schema.json`, `Entity.json`, `entity-schema.json` all name
    Entity; a file whose name says nothing is matched by its `title` or `properties.kind.const`.
    """
    try:
        stamp = folder.stat().st_mtime_ns
    except OSError:
        return {}
    hit = _FOLDERS.get(str(folder))
    if hit is not None and hit[0] == stamp:
        return hit[1]
    found: dict[str, Path] = {}
    unnamed: list[Path] = []
    known = {_norm(k) for k in known_kinds()}
    for name in sorted(e.name for e in os.scandir(folder) if e.is_file() and e.name.endswith(".json")):
        stem = re.sub(r"[._-]?schema$", "", name[: -len(".json")], flags=re.IGNORECASE)
        if _norm(stem) in known:
            found.setdefault(_norm(stem), folder / name)
        else:
            unnamed.append(folder / name)
    for path in unnamed:
        kind = _declared_kind(path)
        if kind:
            found.setdefault(_norm(kind), path)
    _FOLDERS[str(folder)] = (stamp, found)
    return found


def _declared_kind(path: Path) -> str | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    kind = ((data.get("properties") or {}).get("kind") or {}).get("const") if isinstance(
        data.get("properties"), dict) else None
    title = data.get("title")
    for candidate in (kind, title):
        if isinstance(candidate, str) and canonical_kind(candidate):
            return candidate
    return None


def official_schema_path(kind: str, project: Project | None) -> tuple[Path, str] | None:
    """The official schema file for `kind` and a sentence naming where it came from."""
    folders: list[tuple[Path, str]] = []
    if project is not None:
        folders.append((project.root / "schemas", f"official schema from {project.root}/schemas/"))
    folders.append((user_cache_schema_dir(), f"official schema from the user cache {user_cache_schema_dir()}/"))
    for folder, prefix in folders:
        match = _official_candidates(folder).get(_norm(kind))
        if match is not None:
            return match, prefix + match.name
    return None


@lru_cache(maxsize=256)
def load_official(path: str, mtime_ns: int) -> dict[str, Any]:
    """Read and check an official schema (cached per file and mtime); raises when unusable."""
    schema = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(schema, dict):
        raise ValueError("the schema file does not hold a JSON object")
    validators.validator_for(schema, default=Draft202012Validator).check_schema(schema)
    return schema
