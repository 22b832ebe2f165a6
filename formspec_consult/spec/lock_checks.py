"""Project-level checks of vendored modules against formspec.lock (warnings: vendors are read-only)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from formspec_consult.spec.lockfile import LOCK_NAME, TRUST_TIERS, lock_entry, module_checksum
from formspec_consult.spec.model import Problem

_CHECKSUMS: dict[str, tuple[tuple[Any, ...], str]] = {}


def _tree_stamp(folder: Path) -> tuple[Any, ...]:
    stamp = []
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            try:
                st = os.stat(os.path.join(dirpath, name))
            except OSError:
                continue
            stamp.append((dirpath, name, st.st_mtime_ns, st.st_size))
    return tuple(sorted(stamp))


def cached_checksum(folder: Path) -> str:
    """module_checksum, recomputed only when a file in the tree changed."""
    stamp = _tree_stamp(folder)
    hit = _CHECKSUMS.get(str(folder))
    if hit is None or hit[0] != stamp:
        hit = (stamp, module_checksum(folder))
        _CHECKSUMS[str(folder)] = hit
    return hit[1]


def check_lock(root: Path, vendor_dirs: dict[str, str], lock: dict[str, Any] | None,
               lock_error: str | None) -> list[Problem]:
    """Warnings: unreadable lock, unlocked vendor modules, checksum drift, entries without a folder."""
    out: list[Problem] = []
    if lock_error:
        out.append(Problem("FS-LOCK-INVALID", LOCK_NAME, None, "parse", lock_error,
                           "Reinstall the vendor modules with `formspec module install`."))
        return out
    for name, rel in sorted(vendor_dirs.items()):
        entry = lock_entry(lock, name)
        if entry is None:
            out.append(Problem("FS-VENDOR-UNLOCKED", rel, None, "structural",
                               f"vendor module {name!r} is not recorded in {LOCK_NAME}",
                               "Install vendor modules with `formspec module install` so they are locked."))
            continue
        recorded = entry.get("checksum")
        if isinstance(recorded, str) and recorded != cached_checksum(root / rel):
            out.append(Problem("FS-LOCK-CHECKSUM", rel, None, "structural",
                               f"vendor module {name!r} differs from its {LOCK_NAME} checksum",
                               "Vendor files are read-only: reinstall the module, and put changes in "
                               "overrides/ or an Entity Extension instead."))
        tier = entry.get("trust_tier")
        if tier is not None and tier not in TRUST_TIERS:
            out.append(Problem("FS-LOCK-TRUST-TIER", LOCK_NAME, None, "structural",
                               f"module {name!r} has unknown trust_tier {tier!r}",
                               f"Use one of: {', '.join(TRUST_TIERS)}."))
    for entry in (lock or {}).get("modules", []):
        name = str(entry.get("alias") or entry.get("name") or "")
        if name and name not in vendor_dirs:
            out.append(Problem("FS-LOCK-MISSING", LOCK_NAME, None, "structural",
                               f"{LOCK_NAME} lists module {name!r}, but vendors/{name} is missing",
                               "Run `formspec module install` to restore it, or remove the entry."))
    return out
