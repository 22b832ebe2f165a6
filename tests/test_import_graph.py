"""The documented layering, checked statically over EVERY import of the package.

Imports at module level, inside functions and under ``TYPE_CHECKING`` all count, and so does a
module named in a string for `importlib` (the CLI's lazy commands): a lazy import hides a
dependency from the interpreter, not from the design. The rules are read from the two tables of
`docs/architecture.md` (the layers and what each may import; the heavy libraries and the layers
that may import them), so a new dependency either fits them or the document changes first.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "formspec_consult"
ROOT = "formspec_consult"
NAMED_MODULE = re.compile(rf"{ROOT}(\.\w+)+(:\w+)?")

DOC = PACKAGE.parent / "docs" / "architecture.md"
CELL_NAME = re.compile(r"`([\w.]+?)/?`")


def _table(heading: str) -> list[tuple[str, str]]:
    """(first cell, last cell) of each row of the Markdown table whose header row is `heading`."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = lines.index(heading) + 2  # past the header and the |---| line
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        rows.append((cells[0], cells[-1]))
    return rows


def _names(cell: str) -> list[str]:
    """The layer names written in backticks (`spec/`, `cli.py`, `config`), as layer names."""
    return [name.removesuffix(".py") for name in CELL_NAME.findall(cell)]


@cache
def documented_rules() -> dict[str, frozenset[str]]:
    """Each layer and the layers it may import, read from docs/architecture.md's layer table.

    "nothing of ours" is no layer; "`x` and below" is x and everything x may import; "everything"
    is every layer; what follows " — " only says what is excluded. A layer that may import some
    layer of ours may also read the package's `__version__` (the package root, "" here), as the
    document says under the table.
    """
    direct: dict[str, set[str] | str] = {}
    for layers, allowed in _table("| layer | what it is | may import |"):
        stated = allowed.split(" — ")[0]
        rule: set[str] | str
        if stated.startswith("nothing of ours"):
            rule = set()
        elif stated == "everything":
            rule = "everything"
        elif stated.endswith(" and below"):
            rule = "below:" + _names(stated)[0]
        else:
            rule = set(_names(stated))
        for name in _names(layers):
            direct[name] = rule

    def resolve(name: str) -> set[str]:
        rule = direct[name]
        if rule == "everything":
            return {n for n in direct if n not in {name, "cli", "__main__"}}
        if isinstance(rule, str):
            base = rule.removeprefix("below:")
            return {base} | resolve(base)
        return set(rule)

    shared = {"errors"}  # every layer may raise a UserError (errors.py imports nothing), as the document says
    return {
        name: frozenset(resolve(name) | ({""} if direct[name] else set()) | (shared - {name}))
        for name in direct
    }


@cache
def documented_libraries() -> dict[str, frozenset[str]]:
    """Each third-party library of the library table and the only layers that may import it."""
    rules: dict[str, frozenset[str]] = {}
    for libraries, layers in _table("| library | imported only in |"):
        for library in _names(libraries):
            rules[library] = frozenset(_names(layers))
    return rules


ALLOWED = documented_rules()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


IMPORT_CALLS = frozenset({"import_module", "__import__"})


def _module_constants(tree: ast.Module) -> dict[str, str]:
    """The module-level names bound to a string constant (`NAME = "litellm"`)."""
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and isinstance(node.value.value, str):
                    found[target.id] = node.value.value
    return found


def dynamic_imports(tree: ast.Module, module: str) -> tuple[set[str], list[str]]:
    """The modules named by `importlib.import_module(...)` / `__import__(...)` calls, and the calls
    whose module cannot be told (to be refused).

    The argument may be a string, a module-level name bound to one, or an f-string: `{__name__}` is
    this module, a name bound to a constant is its value, and any other part may be any string
    constant of this module (so `f"{__name__}.{home}"` with `home` from a table of the module's own
    names is every module that table names); a part that names nothing there cannot be told.
    """
    constants = _module_constants(tree)
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    found: set[str] = set()
    unknown: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name not in IMPORT_CALLS:
            continue
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            found.add(arg.value)
        elif isinstance(arg, ast.Name) and arg.id in constants:
            found.add(constants[arg.id])
        elif isinstance(arg, ast.JoinedStr):
            candidates = [""]
            for part in arg.values:
                if isinstance(part, ast.Constant):
                    candidates = [c + str(part.value) for c in candidates]
                elif isinstance(part, ast.FormattedValue):
                    ident = part.value.id if isinstance(part.value, ast.Name) else ""
                    fill = {module} if ident == "__name__" else {constants[ident]} if ident in constants else strings
                    candidates = [c + f for c in candidates for f in fill]
            named = {c for c in candidates if c.split(".")[0] != ROOT or _exists(c)}
            if named and all(c.split(".")[0] == ROOT for c in named):
                found |= named
            else:
                unknown.append(f"{module}:{node.lineno} {ast.unparse(node)}")
        elif name == "import_module" and isinstance(arg, ast.Name):
            # a parameter (launch._preload's modules, cli's "module:attr" targets): its values are
            # string constants elsewhere, read as named modules (NAMED_MODULE) where they are written
            continue
        else:
            unknown.append(f"{module}:{node.lineno} {ast.unparse(node)}")
    return found, unknown


@cache
def _dynamic() -> dict[str, tuple[set[str], list[str]]]:
    return {
        _module_name(path): dynamic_imports(ast.parse(path.read_text(encoding="utf-8"), str(path)), _module_name(path))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


@cache
def import_graph() -> dict[str, set[str]]:
    """module -> the modules of ours it imports, anywhere in its source."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                # `import pkg.mod` from inside pkg only runs pkg's __init__ on the way: no dependency
                targets.update(
                    alias.name for alias in node.names
                    if alias.name.split(".")[0] == ROOT and not _is_parent(alias.name, module)
                )
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    name = ".".join([*base, node.module] if node.module else base)
                else:
                    name = node.module or ""
                if name.split(".")[0] != ROOT:
                    continue
                if not _is_parent(name, module):
                    targets.add(name)
                for alias in node.names:
                    # `from pkg import mod` imports the module pkg.mod when there is one; any other
                    # name comes from pkg itself, a dependency even when pkg is this module's parent
                    sub = f"{name}.{alias.name}"
                    targets.add(sub if _exists(sub) else name)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and NAMED_MODULE.fullmatch(node.value):
                # a module named in a string is imported by name later (importlib, "module:attr" targets)
                targets.add(node.value.partition(":")[0])
        targets |= {name for name in _dynamic()[module][0] if name.split(".")[0] == ROOT}
        graph[module] = {t for t in targets if t != module and _exists(t)}
    return graph


@cache
def library_imports() -> dict[str, set[str]]:
    """module -> the top-level names of the third-party (and standard) modules it imports, anywhere."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names.add(node.module.split(".")[0])
        module = _module_name(path)
        names |= {name.split(".")[0] for name in _dynamic()[module][0]}
        found[module] = names - {ROOT}
    return found


def _is_parent(package: str, module: str) -> bool:
    """True when `package` is one of the packages `module` sits in (not merely a name prefix)."""
    return module.startswith(package + ".")


def _exists(module: str) -> bool:
    rel = Path(*module.split(".")[1:])
    return (PACKAGE / rel).with_suffix(".py").is_file() or (PACKAGE / rel / "__init__.py").is_file()


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_lazy_and_type_checking_imports() -> None:
    graph = import_graph()
    assert len(graph) > 100
    # commands/launch.py imports the app inside run_app, the engine port at module level
    assert "formspec_consult.tui.app" in graph["formspec_consult.commands.launch"]
    assert "formspec_consult.agent.engine.port" in graph["formspec_consult.commands.launch"]


def test_the_graph_sees_modules_imported_by_name() -> None:
    graph = import_graph()
    # cli.py loads its subcommands with importlib from "module:attr" strings
    assert "formspec_consult.commands.review" in graph["formspec_consult.cli"]
    assert "formspec_consult.agent.engine.engine" in graph["formspec_consult.commands.launch"]


def test_the_graph_tells_a_parent_package_from_a_name_prefix() -> None:
    graph = import_graph()
    # tui/slash_router.py imports tui/slash.py: "slash" is a prefix of "slash_router", not its package
    assert "formspec_consult.tui.slash" in graph["formspec_consult.tui.slash_router"]
    # names taken from a module's own parent package are a dependency on that package's __init__
    assert "formspec_consult.spec" in graph["formspec_consult.spec.__main__"]
    assert "formspec_consult" in graph["formspec_consult.mcp_client.connection"]
    # `from formspec_consult.spec import inventory` is an import of the submodule, not of spec/__init__
    assert "formspec_consult.spec" not in graph["formspec_consult.spec.project"]
    assert "formspec_consult.spec.inventory" in graph["formspec_consult.spec.project"]


def test_every_layer_of_the_package_is_named_in_the_rules() -> None:
    layers = {layer(module) for module in import_graph()} - {""}
    assert layers <= set(ALLOWED), f"layers without rules: {sorted(layers - set(ALLOWED))}"


@pytest.mark.parametrize("source_layer", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below_it(source_layer: str) -> None:
    wrong = sorted(
        f"{module} -> {target}"
        for module, targets in import_graph().items()
        if layer(module) == source_layer
        for target in targets
        if layer(target) != source_layer and layer(target) not in ALLOWED[source_layer]
    )
    assert wrong == [], "imports against docs/architecture.md:\n" + "\n".join(wrong)


def test_the_layers_form_no_cycle() -> None:
    packages: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        packages.setdefault(layer(module), set()).update(layer(t) for t in targets if layer(t) != layer(module))
    packages.pop("", None)
    assert _cycles(packages) == []


def test_no_two_modules_import_each_other_even_lazily() -> None:
    assert _cycles(import_graph()) == []


def test_the_rules_are_read_from_the_architecture_document() -> None:
    assert ALLOWED["spec"] == frozenset({"errors"})  # "nothing of ours", but every layer may raise a UserError
    assert ALLOWED["store"] == {"", "spec", "errors", "i18n"}
    assert ALLOWED["i18n"] == frozenset({"errors"})
    assert "servers" not in ALLOWED["agent"]  # "… — never `servers`" excludes, it does not allow
    assert ALLOWED["replay"] == ALLOWED["agent"] | {"agent"}  # "`agent` and below"
    assert ALLOWED["commands"] >= {"tui", "servers", "eval"} and "cli" not in ALLOWED["commands"]
    assert documented_libraries()["litellm"] == {"providers"}


@pytest.mark.parametrize("library", sorted(documented_libraries()))
def test_a_heavy_library_is_imported_only_by_its_layers(library: str) -> None:
    layers = documented_libraries()[library]
    wrong = sorted(
        module for module, names in library_imports().items() if library in names and layer(module) not in layers
    )
    assert wrong == [], f"{library} imported outside {sorted(layers)} (docs/architecture.md):\n" + "\n".join(wrong)


def test_the_rules_themselves_have_no_cycle() -> None:
    rules = {name: {d for d in deps if d} for name, deps in ALLOWED.items()}
    assert _cycles(rules) == []


def test_every_import_by_name_can_be_told() -> None:
    unknown = [call for _found, calls in _dynamic().values() for call in calls]
    assert unknown == [], "imports whose module the graph cannot tell (name it in a constant):\n" + "\n".join(unknown)


def test_imports_by_a_constant_or_an_f_string_are_seen() -> None:
    source = (
        "import importlib\n"
        "LIB = 'litellm'\n"
        "TABLE = {'a': 'engine'}\n"
        "importlib.import_module(LIB)\n"
        "__import__('textual.app')\n"
        "importlib.import_module(f'formspec_consult.agent.engine.{TABLE[x]}')\n"
        "importlib.import_module(f'{__name__}.engine')\n"
    )
    found, unknown = dynamic_imports(ast.parse(source), "formspec_consult.agent.engine")
    assert {"litellm", "textual.app", "formspec_consult.agent.engine.engine"} <= found and unknown == []
    _, unknown = dynamic_imports(ast.parse("import importlib\nimportlib.import_module(f'lite{x}')\n"), "m")
    assert unknown  # a third-party name put together at run time is refused, not passed over
    # the package's own lazy table: spec/__init__ loads its names' homes with an f-string
    assert "formspec_consult.spec.project" in import_graph()["formspec_consult.spec"]
