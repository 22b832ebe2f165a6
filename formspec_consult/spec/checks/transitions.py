"""What a state machine cannot do in FormSpec: move on its own; and what a relation `snapshot` copies.

FormSpec's state machine (internal/entity/state_machine.go) changes state only when an action
named by a transition's `via` runs (a button, an API call, or a script calling the action). There
is no timer, schedule or data trigger on a transition: keys such as `after:`, `when:` or
`trigger:` are refused by the schema, and a model that wrote one needs to hear what to do
instead, not only that the key is unknown.

A `belongs_to` relation may carry `snapshot: [{from, as}]`: when the record is created or
submitted, FormSpec copies the related record's `from` field into this record's `as` field (`as`
defaults to `from`), so later changes to the related record (a price) leave old records alone.
"""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.checks.context import Findings, Index, as_list
from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document

#: keys a writer reaches for when a transition should happen by itself
_AUTOMATIC_KEYS = ("trigger", "auto", "automatic", "after", "when", "schedule", "cron", "timeout", "delay", "at", "on",
                   "event", "condition")
_SYSTEM_FIELDS = frozenset({"id", "owner", "created_at", "modified", "doc_status", "version"})


def check_automatic_transitions(doc: Document, out: Findings) -> None:
    """A transition written to fire by itself is refused with how FormSpec does it instead."""
    sm = doc.spec.get("state_machine")
    if not isinstance(sm, dict):
        return
    for i, tr in enumerate(as_list(sm.get("transitions"))):
        if not isinstance(tr, dict):
            continue
        keys = [k for k in _AUTOMATIC_KEYS if k in tr]
        if not keys:
            continue
        via = tr.get("via") or tr.get("action")
        out.error("FS-SM-AUTOMATIC", doc, ("spec", "state_machine", "transitions", i, keys[0]),
                  f"the transition {tr.get('from')} → {tr.get('to')} has `{keys[0]}:`, but FormSpec has no automatic "
                  "transitions: a state changes only when the transition's `via` action runs",
                  f"Drop `{keys[0]}:`; {'keep `via: ' + str(via) + '`' if via else 'give it `via: <action name>` (the via is an action of its own)'}"
                  " and run that action from a button, or from another action's hook script. A condition that must "
                  "hold goes in `guard: {expression: \"resource.due_date < today()\"}`; for \"overdue\" a date field "
                  "plus a list filter shows it without a state.")


def check_snapshots(docs: list[Document], index: Index, out: Findings) -> None:
    """Each `snapshot` copies a field the related entity has into a field this record declares."""
    for doc in docs:
        if effective_kind(doc.kind) != "Entity":
            continue
        fields = [(i, f) for i, f in enumerate(as_list(doc.spec.get("fields"))) if isinstance(f, dict)]
        own = _names(f for _, f in fields)
        for i, f in fields:
            _check_field(doc, f, ("spec", "fields", i), own, index, out)
            child = f.get("child")
            if isinstance(child, dict):
                rows = [(j, cf) for j, cf in enumerate(as_list(child.get("fields"))) if isinstance(cf, dict)]
                for j, cf in rows:
                    _check_field(doc, cf, ("spec", "fields", i, "child", "fields", j), _names(r for _, r in rows),
                                 index, out)


def _names(fields: Any) -> frozenset[str]:
    return frozenset(f["name"] for f in fields if isinstance(f.get("name"), str))


def _check_field(doc: Document, f: dict[str, Any], base: tuple[Any, ...], own: frozenset[str], index: Index,
                 out: Findings) -> None:
    rel = f.get("relation")
    if not isinstance(rel, dict) or not as_list(rel.get("snapshot")):
        return
    where = base + ("relation", "snapshot")
    if rel.get("type") != "belongs_to":
        out.warn("FS-SNAPSHOT-FIELD", doc, where, f"relation {f.get('name')!r} is {rel.get('type')!r}: FormSpec copies "
                 "snapshot fields only through a belongs_to relation", "Move `snapshot:` to the belongs_to side.")
        return
    resource = rel.get("resource")
    key = index.entity_key(resource, doc.module) if isinstance(resource, str) else None
    theirs = index.field_names(key) if key is not None else None
    for j, item in enumerate(as_list(rel.get("snapshot"))):
        if not isinstance(item, dict) or not isinstance(item.get("from"), str):
            continue
        source = item["from"]
        target = item["as"] if isinstance(item.get("as"), str) else source
        if target not in own:
            out.warn("FS-SNAPSHOT-FIELD", doc, where + (j,), f"snapshot copies {resource}.{source} into {target!r}, "
                     "which this record does not declare", f"Declare the field that keeps the copy: "
                     f"`- {{name: {target}, type: <same type as {source}>, read_only: true}}`, or set `as:`.")
        if theirs is not None and source not in theirs and source not in _SYSTEM_FIELDS:
            out.warn("FS-SNAPSHOT-FIELD", doc, where + (j, "from"), f"snapshot copies {source!r}, which {resource} "
                     "does not have", f"Name a field of {resource}: {', '.join(sorted(theirs)) or '(none)'}.")
