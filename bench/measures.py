"""The codebase measures of issue 26, computed with `ast` (kept out of the package).

    .venv/bin/python bench/measures.py [--json]

- the largest module (lines) and the largest function (lines, nested ones counted on their own);
- `Any` in signatures per 1,000 lines: names `Any` in parameter and return annotations;
- `# type: ignore` comments in the package and in the tests;
- test files defining a fixture named `project`;
- files that spell the names a new write tool / validation rule / pane with a key must be added to
  (the places that list every one of them: see PLACES below).
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "formspec_consult"
TESTS = ROOT / "tests"

# What a new one has to be added to: files of the package spelling a sibling's name (an existing
# write tool, an existing validation rule's code, an existing pane's id).
PLACES = {
    "write tool (like reject_draft)": "reject_draft",
    "validation rule (like FSV-LIFECYCLE-NO-BRANCH)": "FSV-LIFECYCLE-NO-BRANCH",
    "pane with a key (like the diff pane)": "diff-pane",
}


def py_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if ".tools" not in p.parts)


def annotation_anys(node: ast.AST | None) -> int:
    if node is None:
        return 0
    return sum(
        1
        for sub in ast.walk(node)
        if (isinstance(sub, ast.Name) and sub.id == "Any")
        or (isinstance(sub, ast.Attribute) and sub.attr == "Any")
    ) + sum(
        len(re.findall(r"\bAny\b", sub.value))  # a quoted annotation
        for sub in ast.walk(node)
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str)
    )


def measure() -> dict[str, object]:
    files = py_files(PACKAGE)
    total_lines = 0
    largest_module = ("", 0)
    largest_function = ("", 0)
    anys = 0
    ignores = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        total_lines += lines
        rel = str(path.relative_to(ROOT))
        if lines > largest_module[1]:
            largest_module = (rel, lines)
        ignores += text.count("# type: ignore")
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > largest_function[1]:
                    largest_function = (f"{rel}:{node.lineno} {node.name}", size)
                args = node.args
                every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
                every += [a for a in (args.vararg, args.kwarg) if a is not None]
                anys += sum(annotation_anys(a.annotation) for a in every) + annotation_anys(node.returns)
    test_ignores = sum(p.read_text(encoding="utf-8").count("# type: ignore") for p in py_files(TESTS))
    project_fixtures = []
    for path in py_files(TESTS):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "project":
                if any("fixture" in ast.unparse(d) for d in node.decorator_list):
                    project_fixtures.append(str(path.relative_to(ROOT)))
    places = {}
    for what, needle in PLACES.items():
        places[what] = sorted(
            str(p.relative_to(ROOT)) for p in files if needle in p.read_text(encoding="utf-8")
        )
    return {
        "package_lines": total_lines,
        "largest_module": largest_module,
        "largest_function": largest_function,
        "any_in_signatures": anys,
        "any_per_1000_lines": round(1000 * anys / total_lines, 2),
        "type_ignore_package": ignores,
        "type_ignore_tests": test_ignores,
        "project_fixtures": len(project_fixtures),
        "project_fixture_files": project_fixtures,
        "files_naming_a_sibling": places,
    }


def main() -> None:
    found = measure()
    if "--json" in sys.argv:
        print(json.dumps(found, indent=2))
        return
    print(f"package lines            {found['package_lines']}")
    print(f"largest module           {found['largest_module'][0]} ({found['largest_module'][1]} lines)")
    print(f"largest function         {found['largest_function'][0]} ({found['largest_function'][1]} lines)")
    print(f"Any in signatures        {found['any_in_signatures']} ({found['any_per_1000_lines']} per 1,000 lines)")
    print(f"# type: ignore           {found['type_ignore_package']} in the package, {found['type_ignore_tests']} in tests")
    print(f"fixtures named project   {found['project_fixtures']}")
    for what, where in found["files_naming_a_sibling"].items():  # type: ignore[attr-defined]
        print(f"files naming a {what}: {len(where)}")
        for path in where:
            print(f"    {path}")


if __name__ == "__main__":
    main()
