"""FormSpec's `checkRenderers` (`formspec check`, the renderer registry of internal/manifest).

- a VisualSpecKind declares `accepts_slots` only on tier page or app, `implements_slot` only on tier
  component (`ValidateSlotTiers`);
- every value of an App's `renderers:` map and every Page `renderer:` is registered: some `kind:
  Renderer` document of the tree `implements` it (`ValidateRendererResolution`);
- a Page's `renderer:` belongs to the stack family of every App (its `stack_family`, by default
  react-shadcn): the family's name is part of the renderer's (`ValidateStackFamily`).
"""

from __future__ import annotations

from formspec_consult.spec.checks.context import Findings, as_list
from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document

#: FormSpec's spec.DefaultStackFamily
DEFAULT_STACK_FAMILY = "react-shadcn"


def check_renderers(docs: list[Document], out: Findings) -> None:
    """Slot tiers, renderer resolution and stack families across the tree."""
    by_kind: dict[str, list[Document]] = {}
    for doc in docs:
        by_kind.setdefault(effective_kind(doc.kind), []).append(doc)
    for doc in by_kind.get("VisualSpecKind", []):
        tier = doc.spec.get("tier")
        if as_list(doc.spec.get("accepts_slots")) and tier not in ("page", "app"):
            out.error("FS-RENDERER", doc, ("spec", "accepts_slots"),
                      f"VisualSpecKind {doc.name!r} (tier {tier}) declares accepts_slots",
                      "Only a tier page or app kind accepts slots: set `tier: page` (or app), or drop `accepts_slots`.")
        if doc.spec.get("implements_slot") and tier != "component":
            out.error("FS-RENDERER", doc, ("spec", "implements_slot"),
                      f"VisualSpecKind {doc.name!r} (tier {tier}) declares implements_slot",
                      "Only a tier component kind fills a slot: set `tier: component`, or drop `implements_slot`.")
    known = {str(r.spec.get("implements")) for r in by_kind.get("Renderer", []) if r.spec.get("implements")}
    listing = ", ".join(sorted(known)) or "none: the project declares no `kind: Renderer`"
    hint = (f"Name a renderer some `kind: Renderer` document implements ({listing}), or drop the key to use "
            "FormSpec's built-in rendering.")
    apps, pages = by_kind.get("App", []), by_kind.get("Page", [])
    for app in apps:
        renderers = app.spec.get("renderers")
        for implements, renderer in (renderers.items() if isinstance(renderers, dict) else []):
            if renderer not in known:
                out.error("FS-RENDERER", app, ("spec", "renderers", implements),
                          f"App {app.name!r}: renderers[{implements!r}] = {renderer!r} is not a registered renderer",
                          hint)
    for page in pages:
        renderer = page.spec.get("renderer")
        if not isinstance(renderer, str) or not renderer:
            continue
        if renderer not in known:
            out.error("FS-RENDERER", page, ("spec", "renderer"),
                      f"Page {page.name!r}: renderer {renderer!r} is not a registered renderer", hint)
            continue
        for app in apps:
            family = app.spec.get("stack_family") or DEFAULT_STACK_FAMILY
            if str(family) not in renderer:
                out.error("FS-RENDERER", page, ("spec", "renderer"),
                          f"Page {page.name!r}: renderer {renderer!r} is not of App {app.name!r}'s stack family "
                          f"{family!r}", f"Use a renderer of the {family} family, or drop `renderer:`.")
                break
