"""`formspec.lock`: reading it and the module-tree checksum it records."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from formspec_consult.spec.yamlload import YamlLoadError, decode, load_stream

LOCK_NAME = "formspec.lock"
TRUST_TIERS = ("official", "verified", "community")


def module_checksum(folder: Path) -> str:
    """`sha256:<hex>` over a module tree: sorted POSIX relative paths, each hashed as path NUL content NUL.

    Every regular file counts (hidden ones too: a vendor tree is hashed exactly as installed);
    symlinks are skipped so a link cannot smuggle outside content into the hash.
    """
    files: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
        for name in filenames:
            path = Path(dirpath, name)
            if path.is_file() and not path.is_symlink():
                files.append((path.relative_to(folder).as_posix(), path))
    digest = hashlib.sha256()
    for rel, path in sorted(files):
        digest.update(rel.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()


def read_lock(root: Path) -> tuple[dict[str, Any] | None, str | None]:
    """(parsed lock, error message). (None, None) when there is no lock file."""
    path = root / LOCK_NAME
    if not path.is_file():
        return None, None
    try:
        docs = load_stream(decode(path.read_bytes()))
    except YamlLoadError as exc:
        where = f" (line {exc.line})" if exc.line else ""
        return None, f"{LOCK_NAME}{where}: {exc.message}"
    except OSError as exc:
        return None, f"{LOCK_NAME}: cannot read ({exc.strerror})"
    data = docs[0].value if docs else {}
    if not isinstance(data, dict) or not isinstance(data.get("modules", []), list):
        return None, f"{LOCK_NAME}: expected a mapping with a `modules:` list"
    data.setdefault("modules", [])
    data["modules"] = [m for m in data["modules"] if isinstance(m, dict)]
    return data, None


def lock_entry(lock: dict[str, Any] | None, module: str) -> dict[str, Any] | None:
    """The lock entry installing `module` (matched on alias first, then name)."""
    if not lock:
        return None
    for key in ("alias", "name"):
        for entry in lock.get("modules", []):
            if str(entry.get(key, "")).lower() == module.lower():
                found: dict[str, Any] = entry
                return found
    return None
