"""Name availability: which documents already use a name, and which would clash."""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.kinds import CORE_ENTITIES, CORE_MODULE, effective_kind
from formspec_consult.spec.model import Document


def naming_conflicts(docs: list[Document], name: str, module: str | None = None,
                     kind: str | None = None) -> dict[str, Any]:
    """{name, matches, conflicts, available}, case-insensitive.

    `matches`: every document with that name, any kind, any module. `conflicts`: matches with the
    same kind in the same module (when `module`/`kind` are given; otherwise any), plus
    formspec.core's reserved entity names. `available` is True when there is no conflict.
    """
    wanted = name.strip().lower()
    want_kind = effective_kind(kind).lower() if kind else None
    want_module = module.lower() if module else None
    matches: list[dict[str, Any]] = []
    conflicts: list[dict[str, Any]] = []
    for doc in docs:
        if (doc.name or "").lower() != wanted:
            continue
        row = {"module": doc.module, "kind": doc.kind, "name": doc.name, "path": doc.rel}
        matches.append(row)
        same_kind = want_kind is None or effective_kind(doc.kind).lower() == want_kind
        same_module = want_module is None or (doc.module or "").lower() == want_module
        if same_kind and same_module:
            conflicts.append({**row, "reason": "same name and kind in the same module"})
    if wanted in CORE_ENTITIES and want_kind in (None, "entity"):
        conflicts.append({"module": CORE_MODULE, "kind": "Entity", "name": wanted, "path": None,
                          "reason": f"reserved: {CORE_MODULE} already provides this entity"})
    return {"name": name, "matches": matches, "conflicts": conflicts, "available": not conflicts}
