"""Facts about FormSpec kinds, versions and reserved names (from design/02)."""

from __future__ import annotations

#: The spec version this core implements; skills needing a newer one are flagged stale.
CORE_SPEC_VERSION = "1.0.0"

STABLE_API_VERSIONS = frozenset({"formspec.dev/v1"})
LEGACY_API_VERSIONS = frozenset({"forma.dev/v1alpha1"})

_KINDS_34 = ["Api", "App", "ApprovalInbox", "Calendar", "Config", "Dashboard", "Datastore", "Entity", "Environment", "Form", "Integrator", "Kanban", "KindDefinition", "Listing", "Migration", "Mockup", "Module", "NotificationCenter", "Page", "PersistBackend", "Policy", "Print", "Renderer", "Report", "Service", "Subscription", "Table", "Theme", "Timeline", "VisualSpecKind", "Webhook", "Widget", "Wizard", "Workflow"]
#: Every kind a document may declare: the 34 standard kinds, Workspace, Seed and the alias Document.
KNOWN_KINDS: tuple[str, ...] = tuple(_KINDS_34) + ("Workspace", "Seed", "Document")
_BY_LOWER = {k.lower(): k for k in KNOWN_KINDS}

#: Deprecated aliases and the kind they stand for.
KIND_ALIASES = {"Document": "Entity"}

#: Kinds FormSpec's newest loader no longer lists (its `formspec validate` says "unknown kind"),
#: with what took their place. Accepted with a warning: projects written for the FormSpec release
#: that had them (its own examples up to ecdf8bd3) must keep validating.
RETIRED_KINDS = {
    "Workflow": "an approval now lives on the transition it gates: "
                "`state_machine.transitions[].approval: {steps: [{name: check, permission: check}]}` "
                "on the Entity (roles or a named duty per step)",
    "Migration": "storage changes are declared on the Entity: `renamed_from`, `removed` (with `reason`) or "
                 "`accept_data_loss` on a field, and `persist.raw_ddl` for DDL the spec cannot express",
}

#: Presentation kinds an `overrides/<module>/` copy may shadow. Data-shaping kinds (Entity,
#: Module, Policy, Workflow, Api, …) are deliberately absent: changing them would change the
#: vendor's storage or behaviour behind its back — Entity Extension (`extend_storage`) is the
#: supported way to add to a vendor entity.
SHADOWABLE_KINDS = frozenset({
    "Form", "Table", "Page", "Listing", "Dashboard", "Print", "Kanban", "Calendar", "Timeline",
    "Widget", "Wizard", "Theme", "Mockup", "Report", "ApprovalInbox", "NotificationCenter",
})

CORE_MODULE = "formspec.core"
#: Entities formspec.core always provides (relations may point at them from any module).
CORE_ENTITIES = frozenset({
    "user", "role", "session", "setting", "permission", "group", "tenant", "file", "audit_log",
    "notification",
})

RESERVED_FIELD_NAMES = frozenset({
    "owner", "created_at", "modified", "doc_status", "amends", "amended_by", "version",
})
RESERVED_ACTIONS = frozenset({
    "create", "update", "submit", "cancel", "delete", "amend", "create-submit", "amend-submit",
})
CHARACTERISTICS = ("master", "transaction", "reference", "summary")
METADATA_KEYS = ("name", "module", "description", "labels", "annotations")
TOP_LEVEL_KEYS = ("apiVersion", "kind", "metadata", "spec")


def known_kinds() -> list[str]:
    """The 34 kinds plus Workspace, Seed and the deprecated alias Document."""
    return list(KNOWN_KINDS)


def canonical_kind(kind: str) -> str | None:
    """The properly-cased kind name for `kind` (case-insensitive), or None when unknown."""
    return _BY_LOWER.get(kind.lower()) if isinstance(kind, str) else None


def effective_kind(kind: str) -> str:
    """The kind used for identity and checks: deprecated aliases resolve to their target."""
    return KIND_ALIASES.get(kind, kind)


def version_tuple(text: str) -> tuple[int, ...]:
    """`"1.2.3"` → `(1, 2, 3)`; non-numeric parts count as 0 so odd strings never crash."""
    parts = []
    for piece in str(text).lstrip("vV").split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)
