"""Identity rules: (module, kind, name) is unique; overrides only shadow vendor presentation docs."""

from __future__ import annotations

from formspec_consult.spec.checks.context import Findings
from formspec_consult.spec.kinds import SHADOWABLE_KINDS, effective_kind
from formspec_consult.spec.model import Document


def apply_overrides(docs: list[Document], out: Findings) -> list[Document]:
    """The effective document set: valid overrides replace the vendor document they shadow."""
    vendors = {d.identity: d for d in docs if d.origin == "vendors"}
    shadowed: set[tuple[str, str, str]] = set()
    for doc in docs:
        if doc.origin != "overrides":
            continue
        kind = effective_kind(doc.kind)
        if kind not in SHADOWABLE_KINDS:
            hint = ("To add fields to a vendor entity, write your own Entity with "
                    "`extend_storage: {target: <module>/<entity>}` in one of your modules."
                    if kind == "Entity" else
                    f"Only presentation kinds can be overridden ({', '.join(sorted(SHADOWABLE_KINDS))}).")
            out.error("FS-OVERRIDE-KIND", doc, ("kind",), f"a {kind} cannot be overridden", hint)
        elif doc.identity not in vendors:
            out.error("FS-OVERRIDE-TARGET", doc, ("metadata", "name"),
                      f"override of {kind} {doc.module}/{doc.name}, but no vendor module has that document",
                      "An override must match a vendor document's module, kind and metadata.name exactly.")
        else:
            shadowed.add(doc.identity)
    return [d for d in docs if not (d.origin == "vendors" and d.identity in shadowed)
            and not (d.origin == "overrides" and d.identity not in shadowed)]


def check_duplicates(docs: list[Document], out: Findings) -> None:
    """Two effective documents may not share (module, kind, name); each copy gets the problem."""
    groups: dict[tuple[str, str, str], list[Document]] = {}
    for doc in docs:
        if doc.name:
            groups.setdefault(doc.identity, []).append(doc)
    for group in groups.values():
        if len(group) < 2:
            continue
        for doc in group:
            others = ", ".join(f"{o.rel}:{o.line}" for o in group if o is not doc)
            module = f"module {doc.module!r}" if doc.module else "the project"
            out.error("FS-IDENTITY-DUPLICATE", doc, ("metadata", "name"),
                      f"{effective_kind(doc.kind)} {doc.name!r} is also declared in {module} at {others}",
                      "Identity is (module, kind, metadata.name), not the file name: rename one of them, "
                      "or edit the existing file instead.")
