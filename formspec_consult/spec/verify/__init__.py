"""Deterministic named verifiers: what a valid draft may still get wrong about the business.

Validation says whether FormSpec accepts a spec; the verifiers say where it probably does not yet
say what the business means — a transaction lifecycle with no cancelled branch, a state with no
way out, an amount that may go negative, a has_many with nothing holding its key. They run after
validation, never block, and come back as ``findings`` (code, source, line, entity, message, hint)
for the consultant to address. Pure: this package imports nothing of ours outside ``spec/``.

    from formspec_consult.spec.verify import verify_tree
    findings = verify_tree(project.documents(overlay), sources={"spec/modules/x/order.yaml"})
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import Any, Protocol

from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document
from formspec_consult.spec.verify.fields import verify_amounts
from formspec_consult.spec.verify.findings import Finding
from formspec_consult.spec.verify.lifecycle import verify_lifecycle
from formspec_consult.spec.verify.relations import EntityIndex, verify_inverses

__all__ = ["VERIFIER_CODES", "Finding", "verify_overlay", "verify_tree"]

#: Every finding code, with what it means (a test keeps it complete).
VERIFIER_CODES: dict[str, str] = {
    "FSV-LIFECYCLE-NO-BRANCH": "a transaction lifecycle with no cancelled/rejected/lost branch",
    "FSV-STATE-DEAD-END": "a state that does not read as an end state but has no transition out",
    "FSV-STATE-UNREACHABLE": "a state no transition leads to (and not the initial one)",
    "FSV-TRANSACTION-NO-LIFECYCLE": "a transaction entity without a state machine",
    "FSV-DUE-NO-OVERDUE": "an entity with a due date but no overdue state",
    "FSV-AMOUNT-NO-LOWER-BOUND": "a money (or amount-like) field that accepts negative values",
    "FSV-RELATION-NO-INVERSE": "a has_many/has_one whose target has no belongs_to back",
}

_PER_ENTITY: tuple[Callable[[Document], list[Finding]], ...] = (verify_lifecycle, verify_amounts)


def verify_tree(documents: Iterable[Document], sources: Collection[str] | None = None) -> list[Finding]:
    """Run every verifier over the Entity documents of a tree; with `sources` (paths relative to the
    project root), report only findings about documents in those files."""
    docs = list(documents)
    entities = [d for d in docs if effective_kind(d.kind) == "Entity" and d.origin != "vendors"]
    index = EntityIndex([d for d in docs if effective_kind(d.kind) == "Entity"])
    wanted = set(sources) if sources is not None else None
    out: list[Finding] = []
    for doc in entities:
        if wanted is not None and doc.rel not in wanted:
            continue
        for verifier in _PER_ENTITY:
            out.extend(verifier(doc))
        out.extend(verify_inverses(doc, index))
    return sorted(out, key=lambda f: (f.source, f.line or 0, f.code))


class Documented(Protocol):
    """What the verifiers need of a project (``spec.Project`` is one): its parsed documents."""

    def documents(self, overlay: dict[str, str | None] | None = None) -> list[Document]: ...


def verify_overlay(
    project: Documented, overlay: dict[str, str | None], sources: Collection[str]
) -> list[dict[str, Any]]:
    """Findings (as dicts) for the files `sources` of `project` (a ``spec.Project``) with `overlay`."""
    return [f.to_dict() for f in verify_tree(project.documents(overlay), sources)]
