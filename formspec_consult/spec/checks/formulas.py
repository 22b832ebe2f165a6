"""The server-side expressions of an Entity: computed formulas, transition guards, action conditions.

Each is one Starlark expression FormSpec evaluates with the record's fields bound as names (see
`starlark_expr`). What each evaluator binds besides the fields (FormSpec's internal/starlark and
internal/action):
- `computed.formula`: the fields of the record (in a child field: of its row), `resource`/`data`,
  `backdate_limit_days` (the entity's backdate_policy.max_days_back, 3 by default), the helpers. A formula that fails leaves the field empty on every save, without an error.
- `state_machine.transitions[].guard` (a string, or `{expression, message}`): also `sum_line(field)`,
  `sum_line_<field>`, `item_count`, `line_count`. A guard that fails refuses the transition.
- `actions[].conditions[]` and a transition's `conditions` (`script` or `expression`): also `params` and `param_<name>`. A condition
  that fails refuses the action.
A bare field name is bound only when the record has a value for it; `resource.<field>` reads None
instead, so the hints teach that form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from formspec_consult.spec.checks.context import Findings, as_list
from formspec_consult.spec.checks.starlark_expr import (
    FORMSPEC_HELPERS,
    RECORD_NAMES,
    STARLARK_UNIVERSE,
    SYSTEM_FIELDS,
    literal_hint,
    read_expression,
    syntax_problem,
)
from formspec_consult.spec.model import Document

_LIST_METHODS = frozenset({"append", "clear", "extend", "index", "insert", "pop", "remove"})
_COMPUTED_NAMES = frozenset({"backdate_limit_days"})  # the entity's backdate_policy.max_days_back (default 3)
_GUARD_NAMES = frozenset({"sum_line", "item_count", "line_count"})
_CONDITION_NAMES = frozenset({"params"})
#: the functions a hint offers (FormSpec's helpers first, then the common Starlark built-ins)
_FUNCTIONS = ("sum, empty, today, days_ago, amount, currency, money_zero, len, min, max, abs, int, float, str, "
              "sorted, any, all")


@dataclass(frozen=True)
class _Scope:
    """What one expression may name: record fields, extra names, and name prefixes."""

    what: str  # "computed formula of field 'total'" — the subject of the messages
    fields: frozenset[str]
    extra: frozenset[str] = frozenset()
    prefixes: tuple[str, ...] = ()
    rows: frozenset[str] = frozenset()  # child fields: lists of row dicts

    def knows(self, name: str) -> bool:
        return (name in self.fields or name in SYSTEM_FIELDS or name in self.extra or name in RECORD_NAMES
                or name in FORMSPEC_HELPERS or name in STARLARK_UNIVERSE
                or any(name.startswith(p) for p in self.prefixes))


def check_formulas(doc: Document, out: Findings) -> None:
    """Syntax and names of every computed formula, transition guard and action condition."""
    spec = doc.spec
    fields = [(i, f) for i, f in enumerate(as_list(spec.get("fields"))) if isinstance(f, dict)]
    names = frozenset(str(f["name"]) for _, f in fields if isinstance(f.get("name"), str))
    lists = frozenset(str(f["name"]) for _, f in fields if f.get("type") == "child" and isinstance(f.get("name"), str))
    soft = spec.get("soft_deactivate")
    if isinstance(soft, dict) and soft.get("enabled"):
        names |= {"is_active"}  # the engine adds it
    for i, f in fields:
        base = ("spec", "fields", i)
        _computed(doc, f, base, _Scope(f"computed formula of field {f.get('name')!r}", names, _COMPUTED_NAMES, rows=lists), out)
        child = f.get("child")
        if isinstance(child, dict):
            rows = [(j, cf) for j, cf in enumerate(as_list(child.get("fields"))) if isinstance(cf, dict)]
            row_names = frozenset(str(cf["name"]) for _, cf in rows if isinstance(cf.get("name"), str))
            for j, cf in rows:
                # a row's formula sees the row; the parent's fields are allowed too, to stay on the safe side
                scope = _Scope(f"computed formula of {f.get('name')}.{cf.get('name')}", row_names | names, _COMPUTED_NAMES, rows=lists)
                _computed(doc, cf, base + ("child", "fields", j), scope, out)
    _guards(doc, spec, names, lists, out)
    _conditions(doc, spec, names, lists, out)


def _computed(doc: Document, f: dict[str, Any], base: tuple[Any, ...], scope: _Scope, out: Findings) -> None:
    computed = f.get("computed")
    formula = computed.get("formula") if isinstance(computed, dict) else None
    if isinstance(formula, str):
        _check(doc, formula, base + ("computed", "formula"), scope, ("FS-FORMULA-SYNTAX", "FS-FORMULA-NAME"), out)


def _guards(doc: Document, spec: dict[str, Any], names: frozenset[str], rows: frozenset[str], out: Findings) -> None:
    sm = spec.get("state_machine")
    if not isinstance(sm, dict):
        return
    for i, tr in enumerate(as_list(sm.get("transitions"))):
        if not isinstance(tr, dict) or tr.get("guard") is None:
            continue
        guard = tr["guard"]
        path: tuple[Any, ...] = ("spec", "state_machine", "transitions", i, "guard")
        if isinstance(guard, dict):
            guard, path = guard.get("expression"), path + ("expression",)
        if isinstance(guard, str):
            scope = _Scope(f"guard of the transition {tr.get('from')} → {tr.get('to')}", names, _GUARD_NAMES,
                           ("sum_line_",), rows)
            _check(doc, guard, path, scope, ("FS-GUARD-SYNTAX", "FS-GUARD-NAME"), out)


def _conditions(doc: Document, spec: dict[str, Any], names: frozenset[str], rows: frozenset[str],
                out: Findings) -> None:
    sm = spec.get("state_machine")
    owners: list[tuple[tuple[Any, ...], str, dict[str, Any]]]
    owners = [(("spec", "actions", i), f"action {a.get('name')!r}", a)
              for i, a in enumerate(as_list(spec.get("actions"))) if isinstance(a, dict)]
    owners += [(("spec", "state_machine", "transitions", i), f"transition via {t.get('via')!r}", t)
               for i, t in enumerate(as_list(sm.get("transitions") if isinstance(sm, dict) else None))
               if isinstance(t, dict)]
    for base, owner, decl in owners:
        for j, cond in enumerate(as_list(decl.get("conditions"))):
            if not isinstance(cond, dict) or cond.get("field"):  # {field, expression} is a legacy shorthand
                continue
            key = "expression" if isinstance(cond.get("expression"), str) and cond["expression"] else "script"
            expr = cond.get(key)
            if isinstance(expr, str) and expr:
                scope = _Scope(f"condition of {owner}", names, _CONDITION_NAMES, ("param_",), rows)
                _check(doc, expr, base + ("conditions", j, key), scope,
                       ("FS-CONDITION-SYNTAX", "FS-CONDITION-NAME"), out)


def _check(doc: Document, expr: str, path: tuple[Any, ...], scope: _Scope, codes: tuple[str, str],
           out: Findings) -> None:
    syntax_code, name_code = codes
    listing = ", ".join(sorted(scope.fields)) or "(no fields yet)"
    problem = syntax_problem(expr)
    if problem:
        out.error(syntax_code, doc, path, f"the {scope.what} {expr!r} is not a Starlark expression: {problem}",
                  "Write one Starlark (Python-like) expression over the record's fields, e.g. "
                  "`quantity * unit_price` or `sum([i[\"line_total\"] for i in items])`; "
                  "operators: + - * / % == != < <= > >= and or not, `x if c else y`.")
        return
    reading = read_expression(expr)
    for name, called in reading.names.items():
        if scope.knows(name):
            continue
        literal = literal_hint(name)
        if literal:
            hint = literal + "."
        elif called:
            more = "".join(f", {n}" for n in sorted(scope.extra) if n.startswith("sum_"))
            hint = f"Functions available: {_FUNCTIONS}{more} (and the other Starlark built-ins)."
        else:
            more = "".join(f"; also {n}" for n in sorted(scope.extra) if not n.startswith("sum_"))
            hint = (f"Name a field of this record ({listing}){more}; `resource.<field>` reads a field that may be "
                    "empty without failing.")
        kind = "function" if called else "name"
        out.error(name_code, doc, path, f"the {scope.what} {expr!r} uses the {kind} {name!r}, which FormSpec "
                  "does not bind there (it fails on every evaluation)", hint)
    for name, attr in dict.fromkeys(reading.attributes):
        if name in scope.rows and attr not in _LIST_METHODS:
            out.error("FS-STARLARK-ROWS", doc, path, f"the {scope.what} {expr!r} reads {name}.{attr}, but {name!r} is "
                      "a child field: a list of rows, which has no field "
                      f"{attr!r} (it fails on every evaluation)",
                      f"Go through the rows: `sum([r[\"{attr}\"] for r in {name}])`, or `len({name})` to count them.")
    for name in dict.fromkeys(reading.record_fields):
        if name not in scope.fields and name not in SYSTEM_FIELDS:
            out.error(name_code, doc, path, f"the {scope.what} {expr!r} reads resource.{name}, but this record "
                      f"has no field {name!r} (it is always None)", f"Name a field of this record: {listing}.")
