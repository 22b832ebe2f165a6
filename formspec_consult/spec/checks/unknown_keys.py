"""Unknown `spec` keys: warnings with a "did you mean", and the well-known slips as errors.

Every kind's key set is closed by our built-in schemas (as in FormSpec's own schema), so plain
typos are schema errors with a "did you mean"; this check keeps the slips that deserve a code.
"""

from __future__ import annotations

from formspec_consult.spec.checks.context import Findings
from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document
from formspec_consult.spec.schemas import KIND_SPECS

#: the keys each kind's `spec` may hold, straight from our built-in schemas (which close every
#: kind's key set the way FormSpec's schema does, so an unknown key is already an FS-SCHEMA error)
KNOWN_SPEC_KEYS: dict[str, frozenset[str]] = {
    kind: frozenset(schema["properties"]) for kind, schema in KIND_SPECS.items()
}

#: slips that change meaning: an error, not a warning
KNOWN_SLIPS = {("Module", "depends_on"): ("FS-MODULE-DEPENDS-ON", "the key is `depends`, not `depends_on`",
                                          "Rename it: `depends: [{module: <name>}]`.")}


def check_unknown_keys(doc: Document, out: Findings) -> None:
    """Known slips under `spec` that change meaning get their own error code.

    Other unknown keys are reported by the schema layer (FS-SCHEMA with a "did you mean"); the
    FS-UNKNOWN-KEY warning remains only for kinds whose key set our schemas do not know.
    """
    kind = effective_kind(doc.kind)
    known = KNOWN_SPEC_KEYS.get(kind)
    for key in doc.spec:
        slip = KNOWN_SLIPS.get((kind, key))
        if slip is not None:
            out.error(slip[0], doc, ("spec", key), slip[1], slip[2])
        elif known is None:
            out.warn("FS-UNKNOWN-KEY", doc, ("spec", key), f"unknown {kind} key `spec.{key}`",
                     f'list_kind_schemas(kind="{kind}") shows the known keys.')
