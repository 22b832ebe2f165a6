"""Storage declarations FormSpec's engine validates in one document: file storage, partial indexes, seeds.

- `spec.ValidateStorageSpec`: a file field's `storage.allowed_types` entries are a bare extension
  (`jpg`), a dotted one (`.jpg`), a MIME type (`image/jpeg`) or a MIME wildcard (`image/*`), lower
  case; `max_count`/`max_size_mb` are not negative.
- `validateIndexDecls` / `ParseIndexWhere`: an index `where` is a closed grammar — terms
  `<field> <op> <literal>` or `<field> IS [NOT] NULL` joined by AND, over the entity's fields and
  the system columns, on an index that has fields.
- `spec.ValidateSeedSpec`: a Seed names at least one entity, each once, each with records.
- `spec.ValidateRawDDL`: each `persist.raw_ddl` entry is named once, has `ddl` or `ddl_by` (postgres,
  sqlite; not both, none empty) and a `reason`, and holds schema DDL only (no INSERT/UPDATE/DELETE/
  SELECT/TRUNCATE, no DROP).
"""

from __future__ import annotations

import re
from typing import Any

from formspec_consult.spec.checks.context import Findings, as_list
from formspec_consult.spec.model import Document

_EXT = re.compile(r"^[a-z0-9]{1,12}$")
_DOTTED = re.compile(r"^\.[a-z0-9]{1,12}$")
_MIME = re.compile(r"^[a-z][a-z0-9-]*/[a-z0-9][a-z0-9.+-]*$")
_MIME_WILD = re.compile(r"^[a-z][a-z0-9-]*/\*$")
_TYPES_HINT = "Write a bare extension (`jpg`), `.jpg`, a MIME type (`image/jpeg`) or a MIME wildcard (`image/*`), lower case."

#: columns every entity table has, which a partial-index predicate may name without a field
SYSTEM_COLUMNS = frozenset({"deleted_at", "doc_status", "is_active", "id", "tenant_id", "version", "created_at",
                            "created_by", "updated_at", "updated_by", "transaction_date"})
_OPS = ("!=", "<>", ">=", "<=", "=", ">", "<")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_BARE = re.compile(r"^[A-Za-z0-9_\-.:/]+$")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_WHERE_HINT = ("A partial-index `where` is `<field> <op> <literal>` (op: = != <> > >= < <=; literal: 'text', a "
               "number, true/false, or a bare word) or `<field> IS NULL` / `IS NOT NULL`, joined by AND, over the "
               "entity's fields or system columns, e.g. `where: \"status = 'open'\"`. Free SQL goes in "
               "`persist.raw_ddl`.")


def check_storage_rules(doc: Document, out: Findings) -> None:
    """File storage and partial-index rules of one Entity."""
    spec = doc.spec
    fields = [(i, f) for i, f in enumerate(as_list(spec.get("fields"))) if isinstance(f, dict)]
    for i, f in fields:
        _check_picker_map(doc, f, ("spec", "fields", i), out)
        storage = f.get("storage")
        if f.get("type") in ("file", "attachment") and isinstance(storage, dict):
            _check_storage(doc, str(f.get("name")), storage, ("spec", "fields", i, "storage"), out)
    names = {str(f.get("name")) for _, f in fields}
    persist = spec.get("persist")
    if isinstance(persist, dict):
        _check_raw_ddl(doc, persist.get("raw_ddl"), out)
    sites: list[tuple[str, Any, tuple[str, ...]]] = [("indexes", spec.get("indexes"), ("spec", "indexes"))]
    if isinstance(persist, dict):
        sites.append(("persist.indexes", persist.get("indexes"), ("spec", "persist", "indexes")))
    for label, indexes, base in sites:
        for j, index in enumerate(as_list(indexes)):
            where = index.get("where") if isinstance(index, dict) else None
            if not isinstance(where, str) or not where.strip():
                continue
            problem = ("`where` is only meaningful on an index with fields" if not as_list(index.get("fields"))
                       else _where_problem(where, names))
            if problem:
                out.error("FS-INDEX-WHERE", doc, base + (j, "where"), f"{label}[{j}]: {problem}", _WHERE_HINT)
                return


def _check_storage(doc: Document, name: str, storage: dict[str, Any], base: tuple[Any, ...], out: Findings) -> None:
    for k, raw in enumerate(as_list(storage.get("allowed_types"))):
        text = str(raw).strip()
        where = base + ("allowed_types", k)
        if not text:
            out.error("FS-FIELD-STORAGE", doc, where, f"field {name!r}: storage.allowed_types[{k}] is empty",
                      "Remove the entry or name a type. " + _TYPES_HINT)
            return
        if text != text.lower():
            out.error("FS-FIELD-STORAGE", doc, where, f"field {name!r}: storage.allowed_types[{k}] ({text}) must be "
                      "lower case", f"Write `{text.lower()}` (types are compared case-insensitively).")
            return
        if not any(p.match(text) for p in (_EXT, _DOTTED, _MIME_WILD, _MIME)):
            out.error("FS-FIELD-STORAGE", doc, where, f"field {name!r}: storage.allowed_types[{k}] ({text}) is not a "
                      "form FormSpec's upload matchers understand", _TYPES_HINT)
            return
    for key in ("max_count", "max_size_mb"):
        value = storage.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
            out.error("FS-FIELD-STORAGE", doc, base + (key,), f"field {name!r}: storage.{key} is negative",
                      f"Give `{key}` a positive number.")
            return


def _split_and(text: str) -> list[str]:
    parts, current, quoted, i = [], "", False, 0
    while i < len(text):
        c = text[i]
        if c == "'":
            if quoted and text[i + 1:i + 2] == "'":
                current += "''"
                i += 2
                continue
            quoted = not quoted
        elif not quoted and text[i:i + 4].upper() == " AND" and (i + 4 >= len(text) or text[i + 4] in " \t\n()"):
            parts.append(current.strip())
            current, i = "", i + 4
            continue
        current += c
        i += 1
    parts.append(current.strip())
    return parts


def _field_problem(field: str, names: set[str]) -> str | None:
    if not field:
        return "missing field name"
    if not _IDENT.match(field):
        return f"{field!r} is not a valid field name"
    if field in names or field in SYSTEM_COLUMNS:
        return None
    return f"unknown field {field!r}: the predicate may name the entity's fields ({', '.join(sorted(names))}) " \
           "or system columns"


def _literal_problem(raw: str) -> str | None:
    if not raw:
        return "missing comparison value"
    if raw[0] == "'":
        i = 1
        while i < len(raw):
            if raw[i] == "'":
                if raw[i + 1:i + 2] == "'":
                    i += 2
                    continue
                return None if i == len(raw) - 1 else f"unexpected text after the string literal in {raw}"
            i += 1
        return f"unterminated string literal {raw}"
    if raw.lower() in ("true", "false", "null") or _NUMBER.match(raw) or _BARE.match(raw):
        return None
    return f"unsupported literal {raw}"


def _where_problem(where: str, names: set[str]) -> str | None:
    """The first reason FormSpec's ParseIndexWhere refuses `where`, else None."""
    for term in _split_and(where.strip()):
        upper = term.upper()
        for suffix in (" IS NOT NULL", " IS NULL"):
            at = upper.find(suffix)
            if at > 0 and at + len(suffix) == len(term):
                problem = _field_problem(term[:at].strip(), names)
                if problem:
                    return problem
                break
        else:
            for op in _OPS:
                at = term.find(op)
                if at <= 0:
                    continue
                problem = _field_problem(term[:at].strip(), names) or _literal_problem(term[at + len(op):].strip())
                if problem:
                    return f"where {term!r}: {problem}"
                break
            else:
                return f"unsupported predicate {term!r}"
    return None


def check_seed(doc: Document, out: Findings) -> None:
    """FormSpec's ValidateSeedSpec: entities listed, each named once, each with records."""
    blocks = doc.spec.get("entities")
    if not as_list(blocks):
        out.error("FS-SEED-SPEC", doc, ("spec",), "a Seed must list at least one entity under `entities`",
                  "Write `entities: [{entity: <entity of this module>, records: [{...}, ...]}]`.")
        return
    seen: set[str] = set()
    for i, block in enumerate(as_list(blocks)):
        if not isinstance(block, dict):
            continue
        entity = block.get("entity")
        if not isinstance(entity, str) or not entity:
            out.error("FS-SEED-SPEC", doc, ("spec", "entities", i), f"entities[{i}] has no `entity`",
                      "Name the entity the records go into (its name inside this module, e.g. `entity: ticket`).")
            return
        if entity in seen:
            out.error("FS-SEED-SPEC", doc, ("spec", "entities", i, "entity"), f"entity {entity!r} is seeded in two "
                      "blocks", "Merge the records into one block per entity.")
            return
        seen.add(entity)
        if not as_list(block.get("records")):
            out.error("FS-SEED-SPEC", doc, ("spec", "entities", i), f"entities[{i}] ({entity}) has no records",
                      "List the records (`records: [{field: value, ...}]`) or drop the block.")
            return


RAW_DDL_DIALECTS = ("postgres", "sqlite")
_DATA_STATEMENTS = ("INSERT", "UPDATE", "DELETE", "SELECT", "TRUNCATE")


def _ddl_only(statement: str) -> str | None:
    """What FormSpec's ValidateDDLOnly refuses in `statement` (None when it is schema DDL)."""
    words = statement.split()
    first = words[0].upper() if words else ""
    if first in _DATA_STATEMENTS:
        return f"{first} is a data statement"
    if first == "DROP":
        return f"DROP {words[1].upper() if len(words) > 1 else ''}".strip() + " drops storage"
    return None


def _check_raw_ddl(doc: Document, decls: Any, out: Findings) -> None:
    """FormSpec's ValidateRawDDL over `persist.raw_ddl` (the first broken entry, as FormSpec stops there)."""
    seen: set[str] = set()
    for i, d in enumerate(as_list(decls)):
        if not isinstance(d, dict):
            continue
        where = ("spec", "persist", "raw_ddl", i)
        name = str(d.get("name") or "").strip()
        ddl: str = d["ddl"] if isinstance(d.get("ddl"), str) else ""
        by: dict[str, Any] = d["ddl_by"] if isinstance(d.get("ddl_by"), dict) else {}
        problem: tuple[tuple[Any, ...], str, str] | None = None
        if not name:
            problem = (), f"raw_ddl[{i}] has no `name`", "Name the statement, e.g. `name: order-number-index`."
        elif name in seen:
            problem = ("name",), f"raw_ddl name {name!r} is used twice", "Give each raw_ddl entry its own name."
        elif not ddl and not by:
            problem = (), f"raw_ddl {name!r} declares no DDL", ("Write `ddl: <one statement for every driver>`, or "
                                                                "`ddl_by: {postgres: <statement>, sqlite: <statement>}`.")
        elif ddl and by:
            problem = ("ddl_by",), f"raw_ddl {name!r} has both `ddl` and `ddl_by`", (
                "Keep `ddl` when the statement is portable, or `ddl_by` when each driver needs its own, not both.")
        elif not str(d.get("reason") or "").strip():
            problem = (), f"raw_ddl {name!r} has no `reason`", (
                "Add `reason: <why the spec language cannot express it>`: storage DDL must say why it is needed.")
        else:
            unknown = [k for k in by if k not in RAW_DDL_DIALECTS]
            empty = [k for k, v in by.items() if not str(v or "").strip()]
            refused = next(((k, r) for k, r in [("ddl", _ddl_only(ddl))] + [(f"ddl_by.{k}", _ddl_only(str(v)))
                                                                             for k, v in by.items()] if r), None)
            if unknown:
                problem = ("ddl_by", unknown[0]), f"raw_ddl {name!r}: ddl_by names dialect {unknown[0]!r}", (
                    f"Use the dialects FormSpec runs: {', '.join(RAW_DDL_DIALECTS)}.")
            elif empty:
                problem = ("ddl_by", empty[0]), f"raw_ddl {name!r}: ddl_by.{empty[0]} is empty", (
                    "Give it a statement, or remove the entry.")
            elif refused:
                which, reason = refused
                problem = (which.split(".")[0],), f"raw_ddl {name!r}: {which} is refused: {reason}", (
                    "raw_ddl holds schema DDL only (CREATE INDEX, CREATE TRIGGER, ALTER TABLE ... ADD ...); run data "
                    "repairs once outside the spec, and never drop storage from a manifest.")
        seen.add(name)
        if problem:
            path, message, hint = problem
            out.error("FS-RAW-DDL", doc, where + path, message, hint)
            return


_PICKER_MAP_KEYS = ("ref_field", "name_field", "price_field", "quantity_field", "note_field")


def _check_picker_map(doc: Document, f: dict[str, Any], base: tuple[Any, ...], out: Findings) -> None:
    """FormSpec's ValidateEntitySpec (child picker): `picker.map.*` names fields of the child row."""
    child = f.get("child")
    if f.get("type") != "child" or not isinstance(child, dict) or not isinstance(child.get("picker"), dict):
        return
    picker = child["picker"]
    name = f.get("name")
    mapping = picker.get("map") if isinstance(picker.get("map"), dict) else {}
    display = picker.get("display") if isinstance(picker.get("display"), dict) else {}
    problem = _picker_problem(picker, mapping, display)
    if problem:
        out.error("FS-CHILD-PICKER", doc, base + ("child", "picker") + problem[0],
                  f"child field {name!r} picker: {problem[1]}", problem[2])
        return
    row = sorted(str(cf.get("name")) for cf in as_list(child.get("fields")) if isinstance(cf, dict))
    for key in _PICKER_MAP_KEYS:
        target = mapping.get(key)
        if isinstance(target, str) and target and target not in row:
            out.error("FS-CHILD-PICKER", doc, base + ("child", "picker", "map", key),
                      f"child field {f.get('name')!r} picker.map.{key}: {target!r} is not a field of this child",
                      f"The picker writes into the child row: name one of its fields ({', '.join(row) or 'none yet'}),"
                      " or add the field under `child.fields`.")
            return


def _picker_problem(picker: dict[str, Any], mapping: dict[str, Any],
                    display: dict[str, Any]) -> tuple[tuple[str, ...], str, str] | None:
    """(path, message, hint) of the first rule of FormSpec's ValidatePickerDecl the picker breaks."""
    if not picker.get("entity"):
        return ((), "`entity` is required (the entity rows are picked from)",
                "Add `entity: <module>.<entity>` naming the entity to pick from.")
    if not mapping.get("ref_field"):
        return (("map",), "`map.ref_field` is required (the row's relation field pointing at the picked record)",
                "Add `map: {ref_field: <relation field of the child row>}`.")
    columns = display.get("columns")
    if isinstance(columns, int) and columns != 0 and not 2 <= columns <= 4:
        return (("display", "columns"), f"`display.columns` must be 2–4, got {columns}", "Use 2, 3 or 4.")
    if display.get("price_entity") and not (display.get("price_match_field") and display.get("price_field")):
        return (("display",), "`price_entity` needs `price_match_field` and `price_field`",
                "Name the price entity's field holding the source id and its money field.")
    maximum = mapping.get("max_quantity")
    if isinstance(maximum, int) and maximum < 0:
        return (("map", "max_quantity"), "`map.max_quantity` must be positive", "Give a positive upper bound.")
    if mapping.get("quantity_field") and not maximum:
        return (("map",), "`map.max_quantity` is required with `quantity_field`",
                "Add `max_quantity: <n>`: a picked amount is always bounded.")
    return None
