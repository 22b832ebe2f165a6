"""The names of a session folder are spelled in one place, `store/layout.py`.

Every other module takes them from there (`SessionLayout`, `consult_dir`, the constants), so a
renamed file cannot be missed by one reader. The check reads every module's source with `ast`: a
file name of the layout written as a string anywhere, or a folder name of it joined to a path
with `/`, is a second spelling.
"""

from __future__ import annotations

import ast
from pathlib import Path

from formspec_consult.store import layout

PACKAGE = Path(layout.__file__).resolve().parents[1]

# Distinctive enough to be a second spelling wherever they appear as a string.
FILE_NAMES = {
    layout.STATE_DIR, layout.EVENTS, layout.TRANSCRIPT, layout.SUMMARY, layout.MANIFEST,
    layout.EXTERNAL_SESSION, layout.MCP_SERVER_LOG, layout.MCP_REGISTRY_LOG,
}
# Ordinary words: a second spelling only when joined to a path (`folder / "draft"`).
FOLDER_NAMES = {layout.CONSULT_DIR, layout.DRAFT, layout.UNDO, layout.LOCKS, layout.UNDO_META}

# Modules that may spell a name themselves, and why.
EXEMPT = {
    "store/layout.py": "the one place",
    "config/__init__.py": "the project's settings file .formspec/consult.yaml; config imports nothing of ours",
}
# Modules not yet reading the names from store/layout.py: none left; keep it that way.
NOT_YET: set[str] = set()


def _is_name(node: ast.AST, names: set[str]) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names


def spellings(source: str) -> list[str]:
    """`line: name` for each layout name the source spells itself."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if _is_name(node, FILE_NAMES):
            found.append(f"{node.lineno}: {node.value!r}")  # type: ignore[attr-defined]
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            found.extend(
                f"{side.lineno}: {side.value!r}"  # type: ignore[attr-defined]
                for side in (node.left, node.right) if _is_name(side, FOLDER_NAMES)
            )
    return found


def test_the_check_sees_a_name_written_as_a_string_or_joined_to_a_path() -> None:
    assert spellings('log = folder / "events.jsonl"') == ["1: 'events.jsonl'"]
    assert spellings('drafts = folder / "draft"\nword = "draft"') == ["1: 'draft'"]  # a word alone is no path
    assert spellings("from formspec_consult.store.layout import EVENTS\nlog = folder / EVENTS") == []


def test_no_module_spells_a_session_folders_names_but_store_layout() -> None:
    wrong: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in EXEMPT or rel in NOT_YET:
            continue
        wrong.extend(f"{rel}:{where}" for where in spellings(path.read_text(encoding="utf-8")))
    assert wrong == [], "spell these with store/layout.py's names:\n" + "\n".join(wrong)
