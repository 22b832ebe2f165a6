"""Unknown `spec` keys: warnings with a "did you mean", and the well-known slips as errors.

Our built-in schemas stay lenient at the top of `spec` (FormSpec has keys design/02 does not
list, and a validator stricter than the engine would block valid projects), so typos there
are reported here as warnings instead of being silently accepted.
"""

from __future__ import annotations

import difflib

from formspec_consult.spec.checks.context import Findings
from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document

KNOWN_SPEC_KEYS: dict[str, frozenset[str]] = {
    "Entity": frozenset({
        "version", "plural", "label", "title", "description", "icon", "display_field", "characteristic",
        "lifecycle", "fields", "state_machine", "actions", "events", "hooks", "expose", "indexes",
        "persist", "extend_storage", "permissions", "policies", "rules", "ui", "seed", "audit",
        # pkg/spec EntitySpec, and summary projections
        "auth", "deliver", "backdate_policy", "forward_date_policy", "rate_limit", "soft_deactivate",
        "cache", "sources", "join_key", "rebuild",
    }),
    "Module": frozenset({
        "version", "vendor", "description", "label", "icon", "depends", "datastore", "config", "menu",
        "ai_index", "permissions", "roles", "runtime",
    }),
    "App": frozenset({
        "version", "vendor", "root_url", "title", "description", "modules", "menu", "access",
        "app_renderer", "theme_ref", "publishes", "consumes", "icon",
        # pkg/spec AppSpec
        "stack_family", "persist_backend", "auth_config_ref", "logo", "chrome", "workspaces", "renderers",
    }),
}

#: slips that change meaning: an error, not a warning
KNOWN_SLIPS = {("Module", "depends_on"): ("FS-MODULE-DEPENDS-ON", "the key is `depends`, not `depends_on`",
                                          "Rename it: `depends: [{module: <name>}]`.")}


def check_unknown_keys(doc: Document, out: Findings) -> None:
    """Warn about unknown keys directly under `spec` (errors for known slips)."""
    kind = effective_kind(doc.kind)
    known = KNOWN_SPEC_KEYS.get(kind)
    if known is None:
        return
    for key in doc.spec:
        if key in known:
            continue
        slip = KNOWN_SLIPS.get((kind, key))
        if slip is not None:
            out.error(slip[0], doc, ("spec", key), slip[1], slip[2])
            continue
        close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.75)
        hint = f"Did you mean `{close[0]}`?" if close else f"list_kind_schemas({kind}) shows the known keys."
        out.warn("FS-UNKNOWN-KEY", doc, ("spec", key), f"unknown {kind} key `spec.{key}`", hint)
