"""Field verifiers: amounts of money (and quantities) that may go negative."""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.model import Document
from formspec_consult.spec.verify.findings import Finding, finding
from formspec_consult.spec.verify.vocabulary import AMOUNT_WORDS, mentions

LOWER_BOUND_RULES = frozenset({"positive", "non_negative", "nonnegative", "non-negative", "unsigned", "min"})
LOWER_BOUND_KEYS = frozenset({"min", "minimum", "gte", "gt", "positive", "non_negative"})


def has_lower_bound(spec_field: dict[str, Any]) -> bool:
    """A rule that bounds it below (`positive`, `{min: 0}`, `"min:0"`, `{name: min, value: 0}`); a `min:` key
    on the field itself counts too, though the gate refuses it (that refusal says what to write)."""
    if spec_field.get("min") is not None:
        return True
    rules = spec_field.get("rules")
    items = list(rules.items()) if isinstance(rules, dict) else rules if isinstance(rules, list) else []
    for item in items:
        if isinstance(item, tuple) and str(item[0]).lower() in LOWER_BOUND_KEYS:
            return True
        if isinstance(item, dict) and (any(str(k).lower() in LOWER_BOUND_KEYS for k in item)
                                       or str(item.get("name", "")).lower() in LOWER_BOUND_KEYS):
            return True
        if isinstance(item, str) and item.split(":")[0].strip().lower() in LOWER_BOUND_RULES:
            return True
    return False


def verify_amounts(doc: Document) -> list[Finding]:
    """A money field, or a number named like an amount, with no lower bound."""
    out: list[Finding] = []
    for i, f in enumerate(doc.spec.get("fields") or []):
        if not isinstance(f, dict) or not isinstance(f.get("name"), str) or f.get("computed"):
            continue
        kind = f.get("type")
        amount_like = kind == "money" or (kind in ("decimal", "integer", "number") and mentions(f["name"], AMOUNT_WORDS))
        if amount_like and not has_lower_bound(f):
            out.append(finding(
                "FSV-AMOUNT-NO-LOWER-BOUND", doc, ("spec", "fields", i),
                f"{f['name']!r} of {doc.name!r} ({kind}) accepts negative values",
                f"Add `{{min: 0}}` to the `rules` of field `{f['name']}` (`positive` instead when zero is not "
                "allowed either), unless a negative amount is meaningful (a refund or a correction)."))
    return out
