"""Role grants written in a Seed: FormSpec's `validateSeedRoleGrants` and `validateGrantScopeSources`.

A Seed block whose entity is the role entity (`role`, or `<module>.role`) may give each role record
`grants`, a list of page grants the runtime reads loosely (an unknown key is dropped silently).
FormSpec's `formspec validate` therefore checks the raw shape (`auth.ValidateGrantListShape`):
- `grants` is a list of objects; each has a `page` and `actions` and/or `tabs`;
- a tab entry has `tab` and `actions`; an action entry has `name`;
- `row_scopes` (a misspelling) is refused: the restriction would be ignored and the action granted
  on every row; a `row_scope` is a list of filters held to the rules of an Entity's row_scope
  (`spec.ValidateRowScopeFilters`, see row_filters.py; every value a string).
And across documents: a grant's `from: session` row scope without `attr` must name an attribute
something provides (a built-in identity attribute, or a dimension/field an `assignments` entry names).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from formspec_consult.spec.checks.context import Findings, as_list
from formspec_consult.spec.checks.entity_data import BUILTIN_SESSION_ATTRS
from formspec_consult.spec.checks.row_filters import filter_problem
from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document

_SHAPE_HINT = ("Write grants as `grants: [{page: <page>, actions: [{name: <action>, row_scope: [{field: <field>, "
               "from: session}]}]}]` (a tab: `{tab: <label>, actions: [...]}`).")
_FILTER_KEYS = ("field", "op", "value", "from", "attr", "param")


def _is_role_entity(name: Any) -> bool:
    return isinstance(name, str) and (name == "role" or name.endswith(".role"))


def _role_records(doc: Document) -> Iterator[tuple[tuple[Any, ...], str, dict[str, Any]]]:
    """(path, role name, record) of every role record a Seed declares."""
    for i, block in enumerate(as_list(doc.spec.get("entities"))):
        if not isinstance(block, dict) or not _is_role_entity(block.get("entity")):
            continue
        for j, record in enumerate(as_list(block.get("records"))):
            if isinstance(record, dict):
                name = record.get("name")
                label = name if isinstance(name, str) and name.strip() else "<unnamed>"
                yield ("spec", "entities", i, "records", j), label, record


def check_seed_grants(doc: Document, out: Findings) -> None:
    """validateSeedRoleGrants: the first shape defect of each Seed (FormSpec reports one per file)."""
    for base, role, record in _role_records(doc):
        if record.get("grants") is None:
            continue
        problem = _grants_problem(record["grants"])
        if problem is not None:
            path, message, hint = problem
            out.error("FS-SEED-GRANT", doc, base + ("grants",) + path, f"seed role {role!r}: {message}", hint)
            return


def _grants_problem(raw: Any) -> tuple[tuple[Any, ...], str, str] | None:
    if not isinstance(raw, list):
        return (), "`grants` must be a list of page grants", _SHAPE_HINT
    for i, grant in enumerate(raw):
        if not isinstance(grant, dict):
            return (i,), f"grants[{i}] must be an object with `page` and `actions`", _SHAPE_HINT
        if not str(grant.get("page") or "").strip():
            return (i,), f"grants[{i}] has no `page`", "Name the page (view) the grant opens, e.g. `page: orders`."
        if "actions" not in grant and "tabs" not in grant:
            return (i,), f"grants[{i}] declares neither `actions` nor `tabs`", _SHAPE_HINT
        for key in ("actions", "tabs"):
            if key in grant:
                problem = _group_problem(grant[key], (i, key), f"grants[{i}].{key}")
                if problem is not None:
                    return problem
    return None


def _group_problem(raw: Any, path: tuple[Any, ...], label: str) -> tuple[tuple[Any, ...], str, str] | None:
    if not isinstance(raw, list):
        return path, f"{label} must be a list", _SHAPE_HINT
    for j, entry in enumerate(raw):
        here, name = path + (j,), f"{label}[{j}]"
        if not isinstance(entry, dict):
            return here, f"{name} must be an object", _SHAPE_HINT
        if "tab" in entry:
            if not str(entry.get("tab") or "").strip():
                return here, f"{name} has an empty `tab`", "Give the tab its label, e.g. `tab: Details`."
            if "actions" not in entry:
                return here, f"{name} (a tab) declares no `actions`", _SHAPE_HINT
            problem = _group_problem(entry["actions"], here + ("actions",), f"{name}.actions")
            if problem is not None:
                return problem
            continue
        problem = _action_problem(entry, here, name)
        if problem is not None:
            return problem
    return None


def _action_problem(entry: dict[str, Any], path: tuple[Any, ...], label: str) -> tuple[tuple[Any, ...], str, str] | None:
    if not str(entry.get("name") or "").strip():
        return path, f"{label} has no `name`", "Name the action the grant allows, e.g. `name: list`."
    if "row_scopes" in entry:
        return path + ("row_scopes",), (f"{label}: unknown key `row_scopes`; as written the restriction is ignored "
                                        "and the action is granted on every row"), "Rename it `row_scope`."
    if "row_scope" not in entry:
        return None
    filters = entry["row_scope"]
    if not isinstance(filters, list):
        return path + ("row_scope",), f"{label}.row_scope must be a list of filters", (
            "Write `row_scope: [{field: <field>, from: session}]`.")
    for k, item in enumerate(filters):
        where = path + ("row_scope", k)
        if not isinstance(item, dict):
            return where, f"{label}.row_scope[{k}] must be an object", "Write `{field: <field>, from: session}`."
        wrong = next((key for key in _FILTER_KEYS if key in item and not isinstance(item[key], str)), None)
        if wrong:
            return where + (wrong,), f"{label}.row_scope[{k}]: `{wrong}` must be a string", (
                f"Quote the value, e.g. `{wrong}: \"{item[wrong]}\"`.")
        problem = filter_problem(f"{label}.row_scope[{k}]", item, None)
        if problem is not None:
            key, message, hint = problem
            return where + ((key,) if key and key in item else ()), message, hint
    return None


def check_grant_scope_sources(docs: list[Document], out: Findings) -> None:
    """validateGrantScopeSources: a grant's implicit `from: session` attribute has a source."""
    names: set[str] = set()
    for doc in docs:
        if effective_kind(doc.kind) == "Entity":
            for entry in as_list(doc.spec.get("assignments")):
                if isinstance(entry, dict):
                    names |= {v for v in (entry.get("dimension"), entry.get("field")) if isinstance(v, str) and v}
    for doc in docs:
        if effective_kind(doc.kind) != "Seed":
            continue
        reported = False
        for base, role, record in _role_records(doc):
            for path, page, action, entry in _session_scopes(record.get("grants")):
                field = entry.get("field")
                if entry.get("attr") or not isinstance(field, str) or field in BUILTIN_SESSION_ATTRS or field in names:
                    continue
                out.error("FS-GRANT-SCOPE-SOURCE", doc, base + ("grants",) + path,
                          f"seed role {role!r}: the grant on {page}/{action} bounds {field!r} by the login's "
                          f"{field!r} attribute, which nothing provides: every read would be refused",
                          f"Declare `assignments: [{{dimension: <name>, field: {field}, principal_field: <field naming "
                          "the login>}]` on the entity that records who belongs where, or write `attr: <token "
                          "attribute>` on this row_scope entry.")
                reported = True
                break
            if reported:
                break


def _session_scopes(raw: Any) -> Iterator[tuple[tuple[Any, ...], str, str, dict[str, Any]]]:
    """(path, page, action, entry) of every well-formed `from: session` row scope entry of a grants value."""
    for i, grant in enumerate(as_list(raw)):
        if not isinstance(grant, dict):
            continue
        page = str(grant.get("page") or "")
        groups: list[tuple[tuple[Any, ...], Any]] = [((i, "actions"), grant.get("actions"))]
        groups += [((i, "tabs", t, "actions"), tab.get("actions")) for t, tab in enumerate(as_list(grant.get("tabs")))
                   if isinstance(tab, dict)]
        for path, actions in groups:
            for a, action in enumerate(as_list(actions)):
                if not isinstance(action, dict) or not isinstance(action.get("name"), str) or not action["name"]:
                    continue
                for k, entry in enumerate(as_list(action.get("row_scope"))):
                    if isinstance(entry, dict) and entry.get("from") == "session":
                        yield path + (a, "row_scope", k), page, action["name"], entry
