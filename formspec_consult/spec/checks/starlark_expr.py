"""Reading the Starlark expressions FormSpec evaluates on the server (computed formulas, guards, conditions).

FormSpec evaluates `computed.formula`, a transition's `guard` and an action's `conditions` with
go.starlark.net as one *expression* (no statements). Its CLI never reads them: a formula that does
not parse, or names something the evaluator does not bind, fails at every save — and for a computed
field the failure is swallowed, so the field silently stays empty. This module tells why an
expression would fail, before the person applies it.

Starlark's expression grammar is a subset of Python's, so Python's own parser (`ast`) reads it; the
walk below refuses the Python constructs Starlark lacks (generator expressions, sets, `is`, `**`,
chained comparisons, f-strings, `:=`). Names are resolved the way Starlark's resolver does: every
free name must be bound by the evaluator (record fields, helpers, the Starlark built-ins), names
bound by a comprehension or lambda are local.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

#: go.starlark.net's universe: always bound, whatever the caller passes.
STARLARK_UNIVERSE = frozenset({
    "None", "True", "False", "abs", "all", "any", "bool", "bytes", "dict", "dir", "enumerate", "fail", "float",
    "getattr", "hasattr", "hash", "int", "len", "list", "max", "min", "print", "range", "repr", "reversed",
    "set", "sorted", "str", "tuple", "type", "zip",
})
#: What FormSpec's evaluator adds to every server-side expression (internal/starlark): date and
#: emptiness helpers, a money-aware `sum`, money accessors, and `resource`/`data` (the record, read
#: as `resource.<field>`, which is None when the field is not set instead of failing).
FORMSPEC_HELPERS = frozenset({
    "today", "days_ago", "empty", "sum", "math_pi", "math_e", "amount", "currency", "money_amount",
    "money_currency", "money_zero",
})
RECORD_NAMES = frozenset({"resource", "data"})
#: Fields every record carries besides the declared ones.
SYSTEM_FIELDS = frozenset({"id", "owner", "created_at", "modified", "doc_status", "amends", "amended_by", "version"})

_REFUSED: dict[type, str] = {
    ast.GeneratorExp: "Starlark has no generator expressions: write a list, e.g. `sum([x for x in items])`",
    ast.Set: "Starlark has no set literals `{a, b}`: use a list `[a, b]`",
    ast.SetComp: "Starlark has no set comprehensions: use a list comprehension",
    ast.NamedExpr: "`:=` is not Starlark",
    ast.JoinedStr: "f-strings are not Starlark: join with `+` and `str(...)`",
    ast.Await: "`await` is not Starlark",
    ast.Yield: "`yield` is not Starlark",
    ast.YieldFrom: "`yield` is not Starlark",
}
_C_STYLE = ((re.compile(r"&&"), "`&&` is not Starlark: write `and`"),
            (re.compile(r"\|\|"), "`||` is not Starlark: write `or`"),
            (re.compile(r"===|!=="), "`===` is not Starlark: write `==` (or `!=`)"),
            (re.compile(r"!(?!=)"), "`!` is not Starlark: write `not`"))
_LITERALS = {"true": "True", "false": "False", "null": "None", "nil": "None"}


@dataclass
class Reading:
    """What an expression uses: free names (with whether each is called), `resource.<x>` reads, and
    `<name>.<attr>` reads of other free names."""

    names: dict[str, bool] = field(default_factory=dict)
    record_fields: list[str] = field(default_factory=list)
    attributes: list[tuple[str, str]] = field(default_factory=list)


def syntax_problem(expr: str) -> str | None:
    """Why `expr` is not one Starlark expression (None when it is)."""
    if not expr.strip():
        return "it is empty"
    for pattern, c_style in _C_STYLE:
        if pattern.search(_strip_strings(expr)):
            return c_style
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as exc:
        where = f" near column {exc.offset}" if exc.offset else ""
        return f"it does not parse{where} ({exc.msg})"
    for node in ast.walk(tree):
        why = _REFUSED.get(type(node)) or _operator_problem(node)
        if why:
            return why
    return None


def read_expression(expr: str) -> Reading:
    """The free names and record-field reads of a well-formed expression (`syntax_problem` is None)."""
    reading = Reading()
    _Walker(reading).visit(ast.parse(expr.strip(), mode="eval"))
    return reading


def literal_hint(name: str) -> str | None:
    """`true` → "write True": JSON/JS literals are undefined names in Starlark."""
    fixed = _LITERALS.get(name)
    return f"`{name}` is not a Starlark literal: write `{fixed}`" if fixed else None


def _operator_problem(node: ast.AST) -> str | None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        return "`**` is not Starlark: multiply (`x * x`)"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        return "`@` is not a Starlark operator"
    if isinstance(node, ast.Compare):
        if len(node.ops) > 1:
            return "Starlark does not chain comparisons: write `a < b and b < c`"
        if isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            return "`is` is not Starlark: write `==` / `!=` (e.g. `x == None`)"
    if isinstance(node, ast.Constant) and (node.value is Ellipsis or isinstance(node.value, complex)):
        return "`...` and imaginary numbers are not Starlark"
    return None


def _strip_strings(expr: str) -> str:
    """`expr` with the contents of its string literals blanked (so `"a && b"` is not an operator)."""
    return re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", '""', expr)


class _Walker(ast.NodeVisitor):
    """Collects free names, minding the names comprehensions and lambdas bind."""

    def __init__(self, reading: Reading) -> None:
        self.reading = reading
        self.bound: list[set[str]] = []

    def _is_bound(self, name: str) -> bool:
        return any(name in scope for scope in self.bound)

    def visit_Name(self, node: ast.Name) -> None:
        if not self._is_bound(node.id):
            self.reading.names.setdefault(node.id, False)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and not self._is_bound(node.func.id):
            self.reading.names[node.func.id] = True
        else:
            self.visit(node.func)
        for arg in [*node.args, *[k.value for k in node.keywords]]:
            self.visit(arg)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self._record(node.value):
            self.reading.record_fields.append(node.attr)
        elif isinstance(node.value, ast.Name) and not self._is_bound(node.value.id):
            self.reading.attributes.append((node.value.id, node.attr))
        self.visit(node.value)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        key = node.slice
        if self._record(node.value) and isinstance(key, ast.Constant) and isinstance(key.value, str):
            self.reading.record_fields.append(key.value)
        self.generic_visit(node)

    def _record(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id in RECORD_NAMES and not self._is_bound(node.id)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for default in [*node.args.defaults, *[d for d in node.args.kw_defaults if d is not None]]:
            self.visit(default)
        params = {a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]}
        params |= {a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None}
        self.bound.append(params)
        self.visit(node.body)
        self.bound.pop()

    def _comprehension(self, node: ast.ListComp | ast.DictComp, results: list[ast.AST]) -> None:
        # the first iterable is read outside the comprehension's scope; the rest inside it
        scope: set[str] = set()
        for i, gen in enumerate(node.generators):
            if i == 0:
                self.visit(gen.iter)
                self.bound.append(scope)
            else:
                self.visit(gen.iter)
            scope |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
            for cond in gen.ifs:
                self.visit(cond)
        for result in results:
            self.visit(result)
        self.bound.pop()

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self._comprehension(node, [node.elt])

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comprehension(node, [node.key, node.value])
