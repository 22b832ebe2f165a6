"""No person-facing string outside the catalogues.

An `ast` scan of the modules that speak to the person (the command line, the app, the review
texts): every string literal with words in it that is handed to something that shows it — echo,
print, a stream's write, a click error, a prompt, a toast, a widget or rich Text, a table column,
a conversation entry, a binding's description — must come from the catalogues (`_()`,
`ngettext()`, `N_()`, `.format` on one of those). The few that are not words for the person
(a URL, a unit, a product name) are listed, with the reason, in `untranslated.txt` beside this
file; an entry that no longer matches anything fails too, so the list cannot go stale.

Model-facing text (prompts, tool descriptions and results, the gate's messages) lives in other
modules and is not scanned: it stays English on purpose.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "formspec_consult"
ALLOWLIST = Path(__file__).with_name("untranslated.txt")

PERSON_FACING = sorted(
    [PACKAGE / "cli.py", PACKAGE / "store" / "review_text.py", *(PACKAGE / "commands").glob("*.py"),
     *(PACKAGE / "tui").rglob("*.py")]
    # the lower layers' words for the person: engine notices (phase, rewind, fork, language), slash
    # commands and their usage errors, the permission question, the MCP state line, and the errors
    # of the settings, the providers and the project; the model's words in them stay English
    + [PACKAGE / "agent" / path for path in (
        "commands/run.py", "commands/slash.py", "commands/format.py", "engine/engine.py", "engine/phase.py",
        "engine/replay.py", "engine/language.py", "language/lock.py", "loop/loop.py", "loop/permissions.py")]
    + [PACKAGE / path for path in (
        "config/__init__.py", "providers/base.py", "providers/errors.py", "providers/resolve.py",
        "providers/preflight.py", "providers/keys.py", "store/rewind.py", "store/review_log.py",
        "spec/discovery.py", "replay/recorded_engine.py", "mcp_client/config.py")]
)
# Calls that show their string arguments to the person, by the called name (function or method).
SHOWN_BY = {
    "echo", "secho", "print", "write", "prompt", "confirm", "notify", "_notify", "ClickException", "UsageError",
    "BadParameter", "SetupError", "SkillError", "_fail", "Static", "Label", "Button", "Text", "Tab", "TextScreen",
    "Entry", "add_column", "refresh_status", "DiscoveryHit", "Hit", "update",
    "Notice", "SlashError", "ConfigError", "ProviderError", "ProjectError", "ToolError", "LanguageError",
    "MCPConfigError",
}
SHOWN_KEYWORDS = {"title", "message", "help", "label", "placeholder", "tooltip", "description", "hint", "template",
                  "mcp_note"}
CATALOGUE_CALLS = {"_", "gettext", "ngettext", "pgettext", "N_"}
WORDS = re.compile(r"[A-Za-z]{2,}")
MARKUP = re.compile(r"\[/?[a-z ]*\]")


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _from_catalogue(node: ast.expr) -> bool:
    """`_("…")`, `ngettext(…)`, `N_("…")`, or `.format(…)` called on one of them."""
    if not isinstance(node, ast.Call):
        return False
    if _name(node.func) in CATALOGUE_CALLS:
        return True
    return isinstance(node.func, ast.Attribute) and node.func.attr == "format" and _from_catalogue(node.func.value)


def _literal_text(node: ast.expr) -> str | None:
    """The words of a string literal or f-string (placeholders as {}), None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def _bare_strings(node: ast.expr) -> list[str]:
    """The literals with words in `node` that do not come from the catalogues."""
    if _from_catalogue(node):
        return []
    if isinstance(node, ast.BinOp):  # "… " + _("…") + "\n"
        return _bare_strings(node.left) + _bare_strings(node.right)
    if isinstance(node, ast.IfExp):
        return _bare_strings(node.body) + _bare_strings(node.orelse)
    if isinstance(node, ast.Tuple):  # rich (text, style) pairs
        return _bare_strings(node.elts[0]) if node.elts else []
    text = _literal_text(node)
    if text is not None and WORDS.search(MARKUP.sub("", text)):
        return [text]
    if isinstance(node, ast.JoinedStr):
        return [f for v in node.values if isinstance(v, ast.FormattedValue) for f in _bare_strings(v.value)]
    return []


def bare_strings(path: Path) -> list[str]:
    """"<path>: <text>" for every person-facing literal of the module outside the catalogues."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(ROOT).as_posix()
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        if name == "Binding":  # the description, third: a catalogue mark, translated per instance
            shown = node.args[2:3] + [k.value for k in node.keywords if k.arg == "description"]
        elif name in SHOWN_BY:
            # what is shown is the first argument (Entry(role, text), Notice(level, text): the second;
            # the first is a CSS class, a level), or a keyword such as title=; later ones are severities,
            # styles, ids
            first = node.args[1:2] if name in {"Entry", "Notice"} else node.args[:1]
            shown = first + [k.value for k in node.keywords if k.arg in SHOWN_KEYWORDS]
        else:
            shown = [k.value for k in node.keywords if k.arg in SHOWN_KEYWORDS]
        for argument in shown:
            found += [f"{rel}: {text}" for text in _bare_strings(argument)]
    return found


def allowlist() -> dict[str, str]:
    """The allowed entries ("<path>: <text>") and why each is not in the catalogues."""
    entries = {}
    for line in ALLOWLIST.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            entry, _, why = line.partition("  # ")
            assert why.strip(), f"untranslated.txt: say why {entry!r} is not translated"
            entries[entry.rstrip()] = why
    return entries


def test_every_person_facing_string_comes_from_the_catalogues() -> None:
    allowed = allowlist()
    found = [entry for path in PERSON_FACING for entry in bare_strings(path)]
    missing = sorted({entry.replace("\n", "\\n") for entry in found} - set(allowed))
    assert not missing, (
        "person-facing strings outside the catalogues (wrap them in _() and run `make catalogues`, or list "
        "them with a reason in tests/i18n/untranslated.txt):\n" + "\n".join(missing)
    )


def test_the_allowlist_names_only_strings_that_exist() -> None:
    found = {entry.replace("\n", "\\n") for path in PERSON_FACING for entry in bare_strings(path)}
    stale = sorted(set(allowlist()) - found)
    assert not stale, "entries of tests/i18n/untranslated.txt that match nothing any more:\n" + "\n".join(stale)


def test_the_scan_catches_a_bare_string_and_passes_a_wrapped_one(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import click\n"
        "click.echo('Hello there')\n"
        "click.echo(f'Saved {path} now')\n"
        "click.echo(_('Wrapped words'))\n"
        "click.echo(_('Saved {path}').format(path=p))\n"
        "raise click.ClickException('  ' + 'bare words')\n"
        "app.notify(msg, title='Some title')\n"
        "Binding('a', 'accept', 'Accept')\n"
        "Binding('r', 'reject', N_('Reject'))\n"
        "click.echo(f'{a} → {b}')\n"
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        texts = [entry.removeprefix("m.py: ") for entry in bare_strings(module)]
    finally:
        ROOT = saved
    assert sorted(texts) == sorted(["Hello there", "Saved {} now", "bare words", "Some title", "Accept"])


def test_no_catalogue_string_hides_inside_an_f_string() -> None:
    """Babel's extractor does not read inside f-strings: `f"{_('Keys')}"` would never reach a catalogue."""
    hidden = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FormattedValue):
                hidden += [
                    f"{path.relative_to(ROOT).as_posix()}: {inner.args[0].value!r}"
                    for inner in ast.walk(node.value)
                    if isinstance(inner, ast.Call) and _name(inner.func) in CATALOGUE_CALLS
                    and inner.args and isinstance(inner.args[0], ast.Constant)
                ]
    assert not hidden, "move these out of the f-string so they are extracted:\n" + "\n".join(hidden)
