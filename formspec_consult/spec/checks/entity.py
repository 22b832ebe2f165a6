"""Engine rules of one Entity that need no other document (fields, natural key, actions)."""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.checks.approvals import check_transition_rules
from formspec_consult.spec.checks.context import Findings, as_list
from formspec_consult.spec.checks.state_machine import check_state_machine
from formspec_consult.spec.kinds import RESERVED_FIELD_NAMES
from formspec_consult.spec.model import Document

_RESET_PLACEHOLDERS = {"yearly": ("{year}", "{period}"), "monthly": ("{month}", "{period}"),
                       "daily": ("{day}", "{period}")}
_SYSTEM_FIELDS = RESERVED_FIELD_NAMES | {"id", "name"}


def fields_of(spec: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """(index, field) for every well-formed field mapping of an entity spec."""
    raw = spec.get("fields")
    if not isinstance(raw, list):
        return []
    return [(i, f) for i, f in enumerate(raw) if isinstance(f, dict) and isinstance(f.get("name"), str)]


def check_entity(doc: Document, out: Findings) -> None:
    """Every single-document Entity rule of design/02."""
    spec = doc.spec
    fields = fields_of(spec)
    _check_fields(doc, fields, out, ("spec", "fields"))
    _check_natural_key(doc, fields, out)
    _check_transaction_date(doc, spec, fields, out)
    names = {f["name"] for _, f in fields}
    display = spec.get("display_field")
    if isinstance(display, str) and display not in names and display not in _SYSTEM_FIELDS:
        out.error("FS-DISPLAY-FIELD", doc, ("spec", "display_field"),
                  f"display_field {display!r} is not a field of this entity",
                  f"Name one of its fields: {', '.join(sorted(names)) or '(no fields yet)'}.")
    _check_actions(doc, spec, out)
    check_state_machine(doc, spec, fields, out)
    check_transition_rules(doc, out)


def _check_fields(doc: Document, fields: list[tuple[int, dict[str, Any]]], out: Findings,
                  base: tuple[Any, ...]) -> None:
    seen: set[str] = set()
    for i, f in fields:
        name = f["name"]
        where = base + (i, "name")
        if name in seen:
            out.error("FS-FIELD-DUPLICATE", doc, where, f"field {name!r} is declared twice",
                      "Field names must be unique within an entity; rename or merge the copies.")
        seen.add(name)
        if name in RESERVED_FIELD_NAMES:
            out.error("FS-FIELD-RESERVED", doc, where, f"field name {name!r} is reserved by the engine",
                      f"Pick another name (reserved: {', '.join(sorted(RESERVED_FIELD_NAMES))}).")
        kind = f.get("type")
        if kind == "enum" and not f.get("enum_values"):
            out.error("FS-ENUM-VALUES", doc, base + (i,), f"enum field {name!r} has no enum_values",
                      "List the allowed values: `enum_values: [draft, confirmed]`.")
        if kind == "relation" and not isinstance(f.get("relation"), dict):
            out.error("FS-RELATION-MISSING", doc, base + (i,), f"relation field {name!r} has no `relation:` block",
                      "Add `relation: {type: belongs_to, resource: <module>.<entity>}`.")
        if kind == "number":
            out.warn("FS-FIELD-TYPE-DEPRECATED", doc, base + (i, "type"), f"field {name!r} uses deprecated type number",
                     "Use integer, decimal or money.")
        _check_options(doc, f, base + (i,), out)
        child = f.get("child")
        if isinstance(child, dict):
            _check_fields(doc, fields_of(child), out, base + (i, "child", "fields"))


#: types whose field may carry a labelled `options` set (FormSpec's isOptionScalarType)
_OPTION_TYPES = ("json", "string", "integer", "decimal", "percent", "date", "datetime", "time", "boolean", "uuid")
_OPTION_TYPE_HINTS = {
    "enum": "An enum lists its values in `enum_values`; drop `options`.",
    "text": "Free-form prose is no choice set: use `type: string` with options, or drop them.",
    "richtext": "Free-form prose is no choice set: use `type: string` with options, or drop them.",
}


def _option_key(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _check_options(doc: Document, f: dict[str, Any], where: tuple[Any, ...], out: Findings) -> None:
    """FormSpec's validateFieldOptions: `options` shape and the `multiple` cardinality."""
    name, kind = f["name"], f.get("type")
    options = f.get("options")
    has_options = isinstance(options, list) and len(options) > 0
    allowed = ", ".join(_OPTION_TYPES)
    if has_options and kind not in _OPTION_TYPES:
        out.error("FS-FIELD-OPTIONS", doc, where + ("options",), f"field {name!r}: `options` is not valid on a "
                  f"{kind!r} field", _OPTION_TYPE_HINTS.get(str(kind), f"`options` fit the types {allowed}; "
                  "money, file, relation and child fields render through their own widgets — drop `options`."))
        return
    seen: dict[str, int] = {}
    for j, option in enumerate(as_list(options)):
        value = option.get("value") if isinstance(option, dict) else None
        at = where + ("options", j)
        if value is None or value == "":
            out.error("FS-FIELD-OPTIONS", doc, at, f"field {name!r}: options[{j}] has no `value`",
                      "Every option needs the value it stores: `{value: <scalar>, label: <caption>}`.")
            return
        if not isinstance(value, (str, int, float, bool)):
            out.error("FS-FIELD-OPTIONS", doc, at, f"field {name!r}: options[{j}] value is not a string, number "
                      "or boolean", "An option's value is one scalar (a chip shows one label); write lists as "
                      "separate options.")
            return
        key = _option_key(value)
        if key in seen:
            out.error("FS-FIELD-OPTIONS", doc, at, f"field {name!r}: options[{j}] repeats the value {key!r} of "
                      f"options[{seen[key]}]", "Each option value appears once (1 and \"1\" are the same value).")
            return
        seen[key] = j
    multiple = f.get("multiple")
    if "multiple" not in f or multiple is None:
        if has_options and kind in ("json", "string"):
            out.error("FS-FIELD-OPTIONS", doc, where + ("options",), f"field {name!r}: `multiple` is required on a "
                      f"{kind} field with `options`", "A json or string field holds one value or a set: add "
                      "`multiple: true` for a set of choices or `multiple: false` for one.")
        return
    if not has_options:
        out.error("FS-FIELD-OPTIONS", doc, where + ("multiple",), f"field {name!r}: `multiple` only means "
                  "something with `options`", "Declare the choices under `options:` ({value, label} each), or "
                  "drop `multiple`.")
    elif multiple is True and kind not in ("json", "string"):
        out.error("FS-FIELD-OPTIONS", doc, where + ("multiple",), f"field {name!r}: `multiple: true` is not valid "
                  f"on a {kind!r} field, which stores one value", "Use `type: json` (or string) to hold a set, or "
                  "`multiple: false` for one choice.")


def _check_natural_key_entry(doc: Document, i: int, f: dict[str, Any], out: Findings) -> None:
    """FormSpec's ValidateEntitySpec (natural key): `unique: false` contradicts it; auto_generated needs a rule."""
    where = ("spec", "fields", i)
    if f.get("unique") is False:
        out.error("FS-NATURAL-KEY-UNIQUE", doc, where + ("unique",),
                  f"field {f['name']!r} is a natural_key with `unique: false`; a natural key is always unique",
                  "Remove the `unique` key (natural_key implies it), or drop `natural_key`.")
    rule = f.get("natural_key_rule")
    generates = isinstance(rule, dict) and rule.get("strategy") != "custom"
    if f.get("natural_key_entry") == "auto_generated" and not generates:
        out.error("FS-NATURAL-KEY-ENTRY", doc, where + ("natural_key_entry",),
                  f"field {f['name']!r}: natural_key_entry auto_generated, but nothing generates the key",
                  "Add `natural_key_rule: {strategy: sequence, format: \"<PREFIX>-{seq:05d}\"}` to the field, or "
                  "write `natural_key_entry: user_entry` (a person types it).")


def _check_natural_key(doc: Document, fields: list[tuple[int, dict[str, Any]]], out: Findings) -> None:
    keys = [(i, f) for i, f in fields if f.get("natural_key") is True]
    for i, f in keys[1:]:
        out.error("FS-NATURAL-KEY-ONE", doc, ("spec", "fields", i, "natural_key"),
                  f"field {f['name']!r} is a second natural_key (first: {keys[0][1]['name']!r})",
                  "An entity has at most one natural_key field; remove the flag from all but one.")
    for i, f in keys:
        _check_natural_key_entry(doc, i, f, out)
    names = {f["name"] for _, f in fields}
    for i, f in fields:
        rule = f.get("natural_key_rule")
        if not isinstance(rule, dict):
            continue
        where = ("spec", "fields", i, "natural_key_rule")
        if f.get("natural_key") is not True:
            out.error("FS-NATURAL-KEY-RULE", doc, where,
                      f"field {f['name']!r} has natural_key_rule but not natural_key: true",
                      "Add `natural_key: true` to the field, or drop the rule.")
        reset = str(rule.get("reset", "never"))
        # FormSpec's default format (used when none is written) carries {period}
        fmt = rule["format"] if isinstance(rule.get("format"), str) and rule["format"] else "{prefix}-{period}-{seq:05d}"
        wanted = _RESET_PLACEHOLDERS.get(reset)
        if wanted and not any(p in fmt for p in wanted):
            out.error("FS-NATURAL-KEY-RESET", doc, where + ("reset",),
                      f"reset: {reset} needs a {wanted[0]} or {{period}} placeholder in format {fmt!r}",
                      f"e.g. `format: \"INV-{wanted[0]}-{{seq:05d}}\"`, or use `reset: never`.")
        scope = rule.get("scope_field")
        if isinstance(scope, str) and scope not in names:
            out.error("FS-NATURAL-KEY-SCOPE", doc, where + ("scope_field",),
                      f"scope_field {scope!r} is not a field of this entity", "Name an existing field.")


def _check_transaction_date(doc: Document, spec: dict[str, Any], fields: list[tuple[int, dict[str, Any]]],
                            out: Findings) -> None:
    if spec.get("characteristic") != "transaction":
        return
    match = next((f for _, f in fields if f["name"] == "transaction_date"), None)
    if match is None or match.get("type") not in ("date", "datetime"):
        found = "" if match is None else f" (it is of type {match.get('type')!r})"
        out.error("FS-TRANSACTION-DATE", doc, ("spec", "characteristic"),
                  f"a transaction entity needs a `transaction_date` field of type date or datetime{found}",
                  "Add `- {name: transaction_date, type: date, required: true}` to fields.")


def _event_names(spec: dict[str, Any]) -> set[str]:
    raw = as_list(spec.get("events"))
    return {e if isinstance(e, str) else str(e.get("name")) for e in raw if isinstance(e, (str, dict))}


def _check_actions(doc: Document, spec: dict[str, Any], out: Findings) -> None:
    actions = as_list(spec.get("actions"))
    events = _event_names(spec)
    seen: set[str] = set()
    for i, action in enumerate(actions):
        if not isinstance(action, dict) or not isinstance(action.get("name"), str):
            continue
        if action["name"] in seen:
            out.error("FS-ACTION-DUPLICATE", doc, ("spec", "actions", i, "name"),
                      f"action {action['name']!r} is declared twice", "Action names must be unique.")
        seen.add(action["name"])
        emits = action.get("emits")
        for event in [emits] if isinstance(emits, str) else emits if isinstance(emits, list) else []:
            if event not in events:
                out.error("FS-EMITS-UNDECLARED", doc, ("spec", "actions", i, "emits"),
                          f"action {action['name']!r} emits {event!r}, which is not in `events`",
                          f"Declare it: `events: [{{name: {event}}}]`, or fix the name.")

