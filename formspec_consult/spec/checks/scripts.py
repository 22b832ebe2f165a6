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
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from formspec_consult.spec.checks.context import Findings, as_list
from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document

SCRIPT_IMPLS = frozenset({"script_ref", "script"})


def check_scripts(docs: list[Document], root: Path, out: Findings) -> None:
    """Warn about every hook or action whose script file cannot be found."""
    for doc in docs:
        if effective_kind(doc.kind) != "Entity":
            continue
        for key, label in (("hooks", "hook"), ("actions", "action")):
            for i, item in enumerate(as_list(doc.spec.get(key))):
                impl = item.get("impl") if isinstance(item, dict) else None
                if not isinstance(impl, dict) or impl.get("type") not in SCRIPT_IMPLS:
                    continue
                ref = impl.get("ref")
                if isinstance(ref, str) and ref.strip():
                    _check_ref(doc, root, ref.strip(), ("spec", key, i, "impl", "ref"), _who(label, item), out)


def _who(label: str, item: dict[str, Any]) -> str:
    if label == "hook":
        target = item.get("action") or item.get("event")
        return f"the hook on: {item.get('on')} {target}" if target else "a hook"
    return f"action {item.get('name')!r}"


def _check_ref(doc: Document, root: Path, ref: str, path: tuple[Any, ...], who: str, out: Findings) -> None:
    folder, base = _folders(doc, root)
    candidates = _candidates(folder, base, ref)
    if any(c.is_file() for c in candidates):
        return
    expected = _relative(candidates[0], root)
    if ref.endswith(".star"):
        hint = f"Write the ref without `.star`: `ref: {ref.removesuffix('.star')}` (FormSpec adds it)."
    else:
        hint = (f"The script must exist at {expected} (a Starlark file) before this can run. Drafts here are spec "
                "YAML only: ask the person to add the script, or drop the hook/impl until it exists.")
    looked = ", ".join(_relative(c, root) for c in candidates[:3])
    out.warn("FS-SCRIPT-MISSING", doc, path, f"{who} runs script {ref!r}, but no such file exists where FormSpec "
             f"looks ({looked}, …); it would fail each time it runs", hint)


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
