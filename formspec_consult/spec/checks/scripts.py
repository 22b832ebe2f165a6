"""Hooks and actions that run a Starlark script must find it where FormSpec looks.

An `impl: {type: script_ref | script, ref: <name>}` names a `.star` file without its suffix.
FormSpec resolves it when the hook or action runs (internal/action/script.go), first next to the
entity's file, then from the spec root:
  <entity folder>/scripts/<ref>.star, <entity folder>/<ref>.star,
  modules/<first part>/scripts/<rest>.star and modules/<ref>.star (for a `module/name` ref),
  <ref>.star, scripts/<last part>.star (from the spec root).
A ref none of these reach fails every time the action runs. FormSpec only finds out then, so the
gate warns (it cannot tell a script the person is about to add from a missing one).

The check looks at the disk on every run (a script can appear without any spec file changing),
so it is a tree check, not a cached per-document one.

When the script is found, FormSpec's honesty scan (`scanHonesty` → `compareUses`, run by `formspec
validate`) compares what it touches with the action's (or hook's) `uses:`; an undeclared use fails:
`ctx.<db|cache|lock|queue|pubsub|storage|kvstore>` needs the primitive under `uses.primitives`, a
cross-module `resource.call/fetch/create("<module>.<entity>…")` needs the target (or `<module>.*`,
`*`) under `uses.resources`, `ctx.secrets.get("<key>")` needs the key under `uses.secrets`.
(Its advisories, a declared but unused entry and a `ctx.environment` branch, are not reported.)
"""

from __future__ import annotations

import ast
from pathlib import Path, PurePosixPath
from typing import Any

from formspec_consult.spec.checks.context import Findings, as_list
from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document

SCRIPT_IMPLS = frozenset({"script_ref", "script"})


#: ctx primitives routed through the datastore resolver (FormSpec's resolverRoutedPrimitives)
ROUTED_PRIMITIVES = frozenset({"db", "cache", "lock", "queue", "pubsub", "storage", "kvstore"})
_RESOURCE_METHODS = frozenset({"resource.call", "resource.fetch", "resource.create"})


def check_scripts(docs: list[Document], root: Path, out: Findings) -> None:
    """Warn about every hook or action whose script file cannot be found; refuse undeclared uses."""
    for doc in docs:
        kind = effective_kind(doc.kind)
        if kind not in ("Entity", "Service"):
            continue
        for key, label in (("hooks", "hook"), ("actions", "action")) if kind == "Entity" else (("actions", "action"),):
            for i, item in enumerate(as_list(doc.spec.get(key))):
                impl = item.get("impl") if isinstance(item, dict) else None
                if not isinstance(impl, dict) or impl.get("type") not in SCRIPT_IMPLS:
                    continue
                ref = impl.get("ref")
                if isinstance(ref, str) and ref.strip():
                    where = ("spec", key, i)
                    # a Service's missing script is not warned about (yet): only its uses are compared
                    found = _check_ref(doc, root, ref.strip(), where + ("impl", "ref"), _who(label, item),
                                       out if kind == "Entity" else Findings())
                    if found is not None:
                        _check_uses(doc, found, item, where, _who(label, item), root, out)


def _who(label: str, item: dict[str, Any]) -> str:
    if label == "hook":
        target = item.get("action") or item.get("event")
        return f"the hook on: {item.get('on')} {target}" if target else "a hook"
    return f"action {item.get('name')!r}"


def _check_ref(doc: Document, root: Path, ref: str, path: tuple[Any, ...], who: str,
               out: Findings) -> Path | None:
    folder, base = _folders(doc, root)
    candidates = _candidates(folder, base, ref)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    expected = _relative(candidates[0], root)
    if ref.endswith(".star"):
        hint = f"Write the ref without `.star`: `ref: {ref.removesuffix('.star')}` (FormSpec adds it)."
    else:
        hint = (f"The script must exist at {expected} (a Starlark file) before this can run. Drafts here are spec "
                "YAML only: ask the person to add the script, or drop the hook/impl until it exists.")
    looked = ", ".join(_relative(c, root) for c in candidates[:3])
    out.warn("FS-SCRIPT-MISSING", doc, path, f"{who} runs script {ref!r}, but no such file exists where FormSpec "
             f"looks ({looked}, …); it would fail each time it runs", hint)
    return None


def _dotted(node: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    return ".".join([node.id, *parts]) if isinstance(node, ast.Name) else ""


def _usage(script: Path) -> tuple[set[str], set[str], set[str]] | None:
    """(primitives, resources, secrets) the script touches; None when it cannot be read as Starlark here."""
    try:
        tree = ast.parse(script.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None  # FormSpec's own parser decides about syntax; this scan only reads what parses
    primitives: set[str] = set()
    resources: set[str] = set()
    secrets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ctx" \
                and node.attr in ROUTED_PRIMITIVES:
            primitives.add(node.attr)
        if not isinstance(node, ast.Call) or not node.args:
            continue
        first = node.args[0]
        if not isinstance(first, ast.Constant) or not isinstance(first.value, str):
            continue
        name = _dotted(node.func)
        if name in _RESOURCE_METHODS:
            resources.add(first.value)
            module, dot, rest = first.value.partition(".")
            if name == "resource.call" and dot and "." in rest:  # module.entity.<record id>
                resources.add(f"{module}.{rest.partition('.')[0]}")
        elif name == "ctx.secrets.get":
            secrets.add(first.value)
    return primitives, resources, secrets


def _declared(target: str, declared: list[str]) -> bool:
    return any(d in ("*", target) or (d.endswith(".*") and (target + ".").startswith(d[:-1])) for d in declared)


def _check_uses(doc: Document, script: Path, item: dict[str, Any], where: tuple[Any, ...], who: str, root: Path,
                out: Findings) -> None:
    usage = _usage(script)
    if usage is None:
        return
    primitives, resources, secrets = usage
    uses: dict[str, Any] = item["uses"] if isinstance(item.get("uses"), dict) else {}
    have = {key: [str(v) for v in as_list(uses.get(key))] for key in ("primitives", "resources", "secrets")}
    missing: list[tuple[str, str]] = [("primitives", p) for p in sorted(primitives) if p not in have["primitives"]]
    missing += [("resources", r) for r in sorted(resources)
                if any(sep in r for sep in "./") and not _declared(r, have["resources"])]
    missing += [("secrets", k) for k in sorted(secrets) if k not in have["secrets"]]
    if not missing:
        return
    listing = ", ".join(f"{key}: {name}" for key, name in missing)
    add = "; ".join(f"`{key}: [{', '.join(n for k, n in missing if k == key)}]`"
                    for key in dict.fromkeys(k for k, _ in missing))
    out.error("FS-SCRIPT-USES", doc, where + (("uses",) if "uses" in item else ()),
              f"{who}: its script {_relative(script, root)} uses what its `uses:` does not declare ({listing}); "
              "FormSpec's honesty scan refuses it", f"Add to the `uses:` of {who} {add} (keep what is already "
              "there), or change the script so it does not use them.")


def _folders(doc: Document, root: Path) -> tuple[Path, Path]:
    """(the entity file's folder, the spec root holding its `modules/`)."""
    rel = PurePosixPath(doc.rel)
    parts = rel.parts
    base = root.joinpath(*parts[:parts.index("modules")]) if "modules" in parts[:-1] else (root / rel).parent
    return (root / rel).parent, base


def _candidates(folder: Path, base: Path, ref: str) -> list[Path]:
    parts = [p for p in ref.split("/") if p]
    found = [folder / "scripts" / f"{ref}.star", folder / f"{ref}.star"]
    if len(parts) >= 2:
        found += [base / "modules" / parts[0] / "scripts" / ("/".join(parts[1:]) + ".star")]
        if len(parts) >= 3:
            found += [base / "modules" / "/".join(parts[:-1]) / "scripts" / f"{parts[-1]}.star"]
    found += [base / "modules" / f"{ref}.star", base / f"{ref}.star"]
    if parts:
        found += [base / "scripts" / f"{parts[-1]}.star"]
    return found


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
