"""Where a kind's JSON Schema comes from: official FormSpec schemas first, ours otherwise.

`formspec init` / `formspec schema fetch` write FormSpec's official schemas into the project as
`schemas/formspec.schema.json` (a root whose `$defs` hold every shared shape) plus
`schemas/kinds/<Kind>.schema.json` (one spec fragment per kind, `$ref`-ing the root's `$defs`).
The CLI keeps the same layout per spec version in `<user cache>/formspec/schemas/<version>/`.
The CLI merges a fragment with the root before validating; `merge_official` does the same.

Older or hand-made projects may instead hold one flat file per kind (`schemas/entity.schema.json`,
`Entity.json`, …); those are still matched leniently when the folder has no official root.

The search order for a kind is: the project's `schemas/`, the user cache for the document's spec
version, the user cache's flat files, then our built-in schema. Each candidate is checked in
full when it is loaded (JSON, meta-schema, every `$ref` resolvable), so an unusable one is
known before any document is validated and the same choice holds for every document.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from formspec_consult.spec.kinds import canonical_kind, effective_kind, known_kinds
from formspec_consult.spec.model import ProjectLike
from formspec_consult.spec.schemas import document_schema

ROOT_FILE = "formspec.schema.json"
KINDS_DIR = "kinds"


class UnusableSchema(Exception):
    """An official schema file exists but cannot be used; the message says why."""

    def __init__(self, file: Path, reason: str) -> None:
        super().__init__(reason)
        self.file = file
        self.reason = reason


@dataclass(frozen=True)
class Found:
    """A usable official schema for one kind."""

    schema: dict[str, Any]
    source: str
    #: the file that defines the kind (fragment or flat file); the root for messages
    file: Path
    #: every file it was built from, with a stamp, for cache keys
    stamps: tuple[tuple[str, int, int], ...]
    #: () when it describes the whole document, ("spec",) when only `spec`
    scope: tuple[str, ...] = ()
    #: True for flat files, whose relative `$ref`s may point at sibling files
    flat: bool = False


def user_cache_schema_dir() -> Path:
    """`<user cache>/formspec/schemas`, where the FormSpec CLI caches official schemas."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("formspec")) / "schemas"


def spec_version(api_version: str | None) -> str | None:
    """The schema version of an apiVersion: `formspec.dev/v1` → `v1` (None when unrecognisable)."""
    if not isinstance(api_version, str) or "/" not in api_version:
        return None
    version = api_version.rsplit("/", 1)[1].strip()
    return version if re.fullmatch(r"v[0-9][A-Za-z0-9.]*", version) else None


def _stamp(path: Path) -> tuple[str, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (str(path), st.st_mtime_ns, st.st_size)


def candidate_folders(project: ProjectLike | None, api_version: str | None) -> list[tuple[Path, str]]:
    """(folder, sentence naming it) in search order."""
    out: list[tuple[Path, str]] = []
    if project is not None:
        out.append((project.root / "schemas", f"official schema from {project.root}/schemas/"))
    cache = user_cache_schema_dir()
    version = spec_version(api_version)
    if version:
        out.append((cache / version, f"official schema from the user cache {cache / version}/"))
    out.append((cache, f"official schema from the user cache {cache}/"))
    return out


def is_official_layout(folder: Path) -> bool:
    """True when `folder` holds FormSpec's layout (a root schema or a `kinds/` folder)."""
    return (folder / ROOT_FILE).is_file() or (folder / KINDS_DIR).is_dir()


def locate(kind: str, folder: Path, label: str) -> Found | None:
    """The usable official schema for `kind` in `folder`; None when it has none; UnusableSchema when broken."""
    if is_official_layout(folder):
        return _from_layout(kind, folder, label)
    flat = _flat_candidates(folder).get(_norm(kind))
    if flat is None:
        return None
    stamp = _stamp(flat)
    if stamp is None:
        return None
    schema = _load_json(flat, stamp[1], stamp[2])
    return Found(schema, label + flat.name, flat, (stamp,), _flat_scope(schema), flat=True)


def _from_layout(kind: str, folder: Path, label: str) -> Found | None:
    fragment_path = None
    for name in dict.fromkeys((kind, effective_kind(kind))):
        candidate = folder / KINDS_DIR / f"{name}.schema.json"
        if candidate.is_file():
            fragment_path = candidate
            break
    if fragment_path is None:
        return None
    root_path = folder / ROOT_FILE
    root_stamp, frag_stamp = _stamp(root_path), _stamp(fragment_path)
    if root_stamp is None:
        raise UnusableSchema(root_path, f"{ROOT_FILE} is missing beside {KINDS_DIR}/ (its $defs are needed)")
    assert frag_stamp is not None
    defs = _root_defs(root_path, root_stamp[1], root_stamp[2])
    fragment = _load_json(fragment_path, frag_stamp[1], frag_stamp[2])
    kinds = sorted({kind, effective_kind(kind)}) if kind != effective_kind(kind) else [kind]
    merged = document_schema(defs, fragment, kinds)
    source = f"{label} ({ROOT_FILE} + {KINDS_DIR}/{fragment_path.name})"
    return Found(merged, source, fragment_path, (root_stamp, frag_stamp))


@lru_cache(maxsize=64)
def _root_defs(path: Path, mtime_ns: int, size: int) -> dict[str, Any]:
    root = _load_json(path, mtime_ns, size)
    defs = root.get("$defs")
    if not isinstance(defs, dict) or not defs:
        raise UnusableSchema(path, f"{ROOT_FILE} has no `$defs` object")
    return defs


@lru_cache(maxsize=512)
def _load_json(path: Path, mtime_ns: int, size: int) -> dict[str, Any]:
    """A schema file's JSON object (cached per file identity); UnusableSchema when it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UnusableSchema(path, f"cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise UnusableSchema(path, f"is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise UnusableSchema(path, "does not hold a JSON object")
    return data


def _flat_scope(schema: dict[str, Any]) -> tuple[str, ...]:
    """A flat schema whose properties name none of the envelope keys describes `spec` only."""
    props = schema.get("properties")
    if isinstance(props, dict) and props and not ({"apiVersion", "kind", "metadata", "spec"} & set(props)):
        return ("spec",)
    return ()


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


_FOLDERS: dict[str, tuple[int, dict[str, Path]]] = {}


def _flat_candidates(folder: Path) -> dict[str, Path]:
    """Map normalised kind → flat schema file in `folder` (cached until the folder changes).

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
    props = data.get("properties")
    kind = ((props.get("kind") or {}).get("const")) if isinstance(props, dict) and isinstance(
        props.get("kind"), dict) else None
    for candidate in (kind, data.get("title")):
        if isinstance(candidate, str) and canonical_kind(candidate):
            return candidate
    return None
