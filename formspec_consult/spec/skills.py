"""Skills: Markdown files with YAML frontmatter, bundled with us or in `<project>/.agents/skills/`."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from formspec_consult.spec.kinds import CORE_SPEC_VERSION, canonical_kind, effective_kind, version_tuple
from formspec_consult.spec.model import Skill
from formspec_consult.spec.yamlload import YamlLoadError, load_stream

BUNDLED_DIR = Path(__file__).resolve().parent.parent / "skills"
MAX_SKILL_BYTES = 256 * 1024


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(frontmatter mapping, body). No frontmatter → ({}, text). Bad YAML raises YamlLoadError."""
    if not text.startswith("---"):
        return {}, text
    lines = text.splitlines(keepends=True)
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            docs = load_stream("".join(lines[1:i]))
            data = docs[0].value if docs else {}
            if not isinstance(data, dict):
                raise YamlLoadError("FS-SKILL-FRONTMATTER", "frontmatter is not a mapping")
            return data, "".join(lines[i + 1:])
    raise YamlLoadError("FS-SKILL-FRONTMATTER", "frontmatter has no closing `---` line")


def load_skill(path: Path, source: str) -> Skill:
    """Read one SKILL.md; unreadable frontmatter yields a skill whose description says so."""
    folder_name = path.parent.name
    try:
        raw = path.read_bytes()[:MAX_SKILL_BYTES]
        meta, _ = split_frontmatter(raw.decode("utf-8", errors="replace"))
    except (OSError, YamlLoadError) as exc:
        return Skill(folder_name, f"(unreadable skill: {getattr(exc, 'message', exc)})", None, None,
                     source, path, stale=True)  # type: ignore[arg-type]
    kinds = meta.get("applies_to_kind")
    if isinstance(kinds, str):
        kinds = [kinds]
    kinds = [str(k) for k in kinds] if isinstance(kinds, list) and kinds else None
    minimum = meta.get("min_core_spec_version")
    minimum = str(minimum) if minimum is not None else None
    stale = minimum is not None and version_tuple(minimum) > version_tuple(CORE_SPEC_VERSION)
    name = _name if isinstance(_name := meta.get("name"), str) and _name else folder_name
    description = _description if isinstance(_description := meta.get("description"), str) else ""
    return Skill(name, description.strip(), kinds, minimum, source, path, stale)  # type: ignore[arg-type]


# (SKILL.md path, source) -> ((mtime_ns, size), skill). list_skills runs on every grounding step;
# re-reading and re-parsing every file's frontmatter each time was most of its round trip.
_LOADED: dict[tuple[str, str], tuple[tuple[int, int], Skill]] = {}


def _scan(folder: Path, source: str) -> list[Skill]:
    try:
        entries = sorted(e.name for e in os.scandir(folder) if e.is_dir() and not e.name.startswith("."))
    except OSError:
        return []
    base = os.fspath(folder)
    found = []
    for name in entries:
        file = os.path.join(base, name, "SKILL.md")
        try:
            info = os.stat(file)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        key, stamp = (file, source), (info.st_mtime_ns, info.st_size)
        cached = _LOADED.get(key)
        if cached is None or cached[0] != stamp:
            cached = (stamp, load_skill(Path(file), source))
            _LOADED[key] = cached
        found.append(cached[1])  # Skill is frozen, so one instance can be shared
    return found


def all_skills(project_root: Path | None) -> list[Skill]:
    """Bundled skills plus the project's; a project skill replaces a bundled one of the same name."""
    merged = {s.name.lower(): s for s in _scan(BUNDLED_DIR, "bundled")}
    if project_root is not None:
        merged.update({s.name.lower(): s for s in _scan(project_root / ".agents" / "skills", "project")})
    return sorted(merged.values(), key=lambda s: s.name)


def skills_for_kind(skills: list[Skill], kind: str) -> list[Skill]:
    """Skills whose applies_to_kind names `kind` (case-insensitive, aliases resolved) or is absent."""
    wanted = effective_kind(canonical_kind(kind) or kind).lower()
    return [s for s in skills if s.applies_to_kind is None
            or wanted in {effective_kind(canonical_kind(k) or k).lower() for k in s.applies_to_kind}]
