"""Module graph checks: `depends`, App activation lists, menu module references, module membership."""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.checks.context import Findings, Index, as_list, module_key
from formspec_consult.spec.kinds import CORE_MODULE, effective_kind
from formspec_consult.spec.model import Document

_MODULELESS = frozenset({"App", "Workspace", "Module"})


def check_module_links(doc: Document, index: Index, out: Findings) -> None:
    """Every module name a document mentions must exist."""
    kind = effective_kind(doc.kind)
    spec = doc.spec
    if kind in ("Module", "App"):
        _check_manifest(doc, kind, spec, index, out)
    if kind not in _MODULELESS and doc.name:
        if not doc.module:
            out.error("FS-MODULE-UNKNOWN", doc, ("metadata",), f"cannot tell which module {kind} {doc.name!r} belongs to",
                      "Set `metadata.module`, or place the file under modules/<module>/.")
        elif not index.has_module(doc.module):
            out.error("FS-MODULE-UNDECLARED", doc, ("metadata",),
                      f"{kind} {doc.name!r} belongs to module {doc.module!r}, which has no module.yaml",
                      f"Create modules/{doc.module}/module.yaml (kind: Module) or fix metadata.module.")


def _check_manifest(doc: Document, kind: str, spec: dict[str, Any], index: Index, out: Findings) -> None:
    known = ", ".join(sorted(index.module_names))
    if kind == "Module":
        deps = as_list(spec.get("depends"))
        for i, dep in enumerate(deps):
            name = dep.get("module") if isinstance(dep, dict) else None
            if not isinstance(name, str):
                continue
            if module_key(name) == module_key(doc.name or ""):
                out.warn("FS-MODULE-SELF-DEPEND", doc, ("spec", "depends", i), f"module {name!r} depends on itself",
                          "Remove the entry.")
            elif not index.has_module(name):
                # FormSpec's validate/check do not resolve `depends`; a missing module shows up when
                # the module is installed or started, so this is advice, not a block
                out.warn("FS-MODULE-DEPENDS", doc, ("spec", "depends", i, "module"),
                         f"depends on module {name!r}, which is not in this project",
                         f"Install or create it, or fix the name (known modules: {known}).")
    if kind == "App":
        mods = as_list(spec.get("modules"))
        declared = sorted(index.module_docs)
        for i, name in enumerate(mods):
            # FormSpec's validateDanglingRefs: an App mounts only modules a `kind: Module` declares
            # (a folder without module.yaml mounts nothing)
            if isinstance(name, str) and module_key(name) not in index.module_docs and module_key(name) != CORE_MODULE:
                folder = index.has_module(name)
                out.error("FS-APP-MODULE", doc, ("spec", "modules", i),
                          f"the App mounts module {name!r}, which no `kind: Module` document declares"
                          + (" (its folder has no module.yaml)" if folder else ""),
                          (f"Add modules/{name}/module.yaml (kind: Module, metadata.name: {name})" if folder else
                           "Fix the name or install the module")
                          + f"; declared modules: {', '.join(declared) or '(none)'}.")
    _check_menu(doc, spec.get("menu"), index, out, ("spec", "menu"))


def _check_menu(doc: Document, items: Any, index: Index, out: Findings, base: tuple[Any, ...]) -> None:
    if not isinstance(items, list):
        return
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        module = item.get("module")
        if isinstance(module, str) and not index.has_module(module):
            out.error("FS-MENU-MODULE", doc, base + (i, "module"), f"menu item names unknown module {module!r}",
                      "Point the menu item at an installed module.")
        _check_menu(doc, item.get("children"), index, out, base + (i, "children"))
