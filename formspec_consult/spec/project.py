"""`open_project` and `Project`: the read-only view of a FormSpec project the AI layer uses."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from formspec_consult.spec import inventory
from formspec_consult.spec import skills as skill_store
from formspec_consult.spec.discovery import find_root, names_spec_root, read_spec_setting
from formspec_consult.spec.errors import SkillNotFound
from formspec_consult.spec.kinds import SHADOWABLE_KINDS, canonical_kind, effective_kind
from formspec_consult.spec.layout import classify, list_spec_files
from formspec_consult.spec.lock_checks import check_lock
from formspec_consult.spec.lockfile import read_lock
from formspec_consult.spec.model import Document, ModuleInfo, Problem, Skill, ValidationResult
from formspec_consult.spec.naming import naming_conflicts as _naming
from formspec_consult.spec.parse import ParseCache, ParsedFile, paused_gc
from formspec_consult.spec.validate import TreeState, adopt_modules, replacement_notes, run

Overlay = Mapping[str, "str | None"]


def open_project(path: str | Path) -> Project:
    """The project at `path` or the nearest one above it; ProjectError when there is none."""
    return Project(find_root(path))


class Project:
    """A FormSpec project on disk. Reads only; drafts are passed in as an in-memory overlay."""

    def __init__(self, root: Path) -> None:
        self.root = root
        spec_name, self._config_warning = read_spec_setting(root)
        self.spec_root = (root / spec_name).resolve() if spec_name != "." else root
        self.overrides_dir = root / "overrides"
        self._spec_rel = "" if self.spec_root == root else self.spec_root.relative_to(root).as_posix()
        self._spec_named = self._config_warning is None and names_spec_root(root)
        self._cache = ParseCache()

    def __repr__(self) -> str:
        return f"Project({str(self.root)!r})"

    # -- documents ---------------------------------------------------------------------------
    def _files(self, overlay: Overlay | None) -> list[tuple[str, ParsedFile]]:
        rels = list_spec_files(self.root, self.spec_root)
        self._cache.forget_missing(set(rels))
        extra = {_clean(k): v for k, v in (overlay or {}).items()}
        out = []
        with paused_gc():  # parsing allocates many short-lived objects and creates no cycles
            for rel in sorted(set(rels) | set(extra)):
                if rel not in extra:
                    out.append((rel, self._cache.from_disk(self.root, rel, self._spec_rel)))
                elif (text := extra[rel]) is not None:
                    out.append((rel, self._cache.from_text(self.root, rel, text, self._spec_rel)))
        return out

    def documents(self, overlay: Overlay | None = None) -> list[Document]:
        """Every parsed spec document (spec root, root-level modules/vendors, overrides/)."""
        return [doc for _, parsed in self._files(overlay) for doc in parsed.docs]

    def apps(self) -> list[Document]:
        """Every `kind: App` document."""
        return [d for d in self.documents() if d.kind == "App"]

    def lock(self) -> dict[str, Any] | None:
        """The parsed formspec.lock (`{"modules": [...]}`), or None when absent or unreadable."""
        return read_lock(self.root)[0]

    def modules(self) -> list[ModuleInfo]:
        """Modules in modules/ (editable) and vendors/ (read-only) with activation and lock data."""
        docs = self.documents()
        return inventory.build_modules(docs, inventory.module_dirs(self.root, self.spec_root),
                                       [d for d in docs if d.kind == "App"], self.lock())

    def find(self, module: str, kind: str, name: str) -> Document | None:
        """The effective document with this identity (an override wins over its vendor copy)."""
        wanted = (module.lower(), effective_kind(canonical_kind(kind) or kind).lower(), name.lower())
        hits = [d for d in self.documents() if d.identity == wanted]
        shadows = any(d.origin == "vendors" for d in hits) and effective_kind(hits[0].kind) in SHADOWABLE_KINDS \
            if hits else False
        if not shadows:  # an override that shadows nothing (or may not) is not the effective document
            hits = [d for d in hits if d.origin != "overrides"] or hits
        hits.sort(key=lambda d: {"overrides": 0, "modules": 1, "spec": 1, "vendors": 2}[d.origin])
        return hits[0] if hits else None

    # -- validation --------------------------------------------------------------------------
    def _state(self, overlay: Overlay | None) -> TreeState:
        dirs = inventory.module_dirs(self.root, self.spec_root)
        lock, lock_error = read_lock(self.root)
        vendor_dirs = {n: rel for n, (src, rel) in dirs.items() if src == "vendors"}
        warnings = check_lock(self.root, vendor_dirs, lock, lock_error)
        if self._config_warning:
            warnings.append(Problem("FS-CONFIG", "formspec-app.yaml", None, "parse", self._config_warning,
                                    "Fix `spec:` in formspec-app.yaml."))
        problems = []
        if self._spec_named and not self.spec_root.is_dir():
            problems.append(Problem(
                "FS-SPEC-ROOT-MISSING", "formspec-app.yaml", None, "parse",
                f"`spec: {self._spec_rel}` names a folder that does not exist: {self.spec_root}",
                f"Create {self._spec_rel}/ or point `spec:` in formspec-app.yaml at the folder that holds the "
                "spec documents."))
        files = self._files(overlay)
        vendor = {rel for rel, _ in files if classify(rel, self._spec_rel)[0] == "vendors"}
        return TreeState(files, set(dirs), warnings, project_problems=problems, vendor_sources=vendor)

    def validate(self, overlay: Overlay | None = None) -> ValidationResult:
        """Validate the whole tree, with `overlay` (draft texts by project-relative path) applied."""
        return run(self, self._state(overlay))

    def validate_text(self, text: str, source: str = "<input>") -> ValidationResult:
        """Validate one document (or multi-document text) in the context of the tree.

        When `source` is a project-relative path the text stands in for that file. Otherwise a
        document with the same identity as an existing one is checked as its replacement, and a
        document without a module borrows the module of the one existing document of the same
        kind and name (so pasting a file's content back validates as that file would).
        """
        state = self._state({source: text})
        if _is_path(source):
            return run(self, state, only_source=_clean(source))
        at = next(i for i, (r, _) in enumerate(state.files) if r == source)
        own = adopt_modules(state.files[at][1], [p for r, p in state.files if r != source])
        state.files[at] = (source, own)
        state.replaced = {d.identity for d in own.usable}
        result = run(self, state, only_source=source)
        result.warnings += replacement_notes(own, [p for r, p in state.files if r != source])
        return result

    def naming_conflicts(self, name: str, module: str | None = None, kind: str | None = None) -> dict[str, Any]:
        """{name, matches, conflicts, available}; see `naming.naming_conflicts`."""
        return _naming(self.documents(), name, module, kind)

    # -- skills ------------------------------------------------------------------------------
    def skills(self) -> list[Skill]:
        """Bundled skills plus `<root>/.agents/skills` (the project's wins on a name clash)."""
        return skill_store.all_skills(self.root)

    def read_skill(self, name: str) -> str:
        """The raw Markdown of a skill; SkillNotFound lists the known names."""
        found = {s.name.lower(): s for s in self.skills()}
        skill = found.get(name.strip().lower())
        if skill is None:
            raise SkillNotFound(name, sorted(s.name for s in found.values()))
        return skill.path.read_text(encoding="utf-8", errors="replace")

    def skills_for_kind(self, kind: str) -> list[Skill]:
        """Skills that apply to `kind` (or to every kind)."""
        return skill_store.skills_for_kind(self.skills(), kind)


def _is_path(source: str) -> bool:
    return source.endswith((".yaml", ".yml")) and not source.startswith("<")


def _clean(rel: str) -> str:
    """Normalise an overlay key; refuse anything that could leave the project."""
    posix = PurePosixPath(rel.replace("\\", "/"))
    if posix.is_absolute() or ".." in posix.parts or not posix.parts:
        raise ValueError(f"overlay path {rel!r} must be relative to the project root, without '..'")
    return posix.as_posix().removeprefix("./")
