"""Case files: one business case per YAML file, checked before any run starts.

    id: laundry-kiloan
    language: id                 # en | id
    starter: barbershop          # barbershop | empty (init's starter project) | <path to a project folder>
    template: laundry            # optional: the business template the case exercises
    opening: "Saya punya laundry kiloan di Depok ..."
    owner_facts: ["Pelanggan bayar di muka atau saat ambil", ...]
    expected:
      entities: [{name: laundry-order, aliases: [order, cucian]}, customer]
      states: {laundry-order: [received, washing, ready, {name: collected, success: true}, cancelled]}
      relations: [[laundry-order, customer]]
      modules: [order-status-tracking]
      # an Iterate case (a change request on an applied starter) also says what the change adds:
      fields: {laundry-order: [{name: pickup_note, aliases: [catatan]}]}
      changelog: true            # a dated entry in docs/changelog.md naming the changed files

A state is a name or ``{name, aliases, branch, success}``. An entity's states are its lifecycle
as the business tells it: the main path first, from the initial state to the one the business
calls success (``success: true``, exactly one), then the branches — the states off that path
(cancelled, overdue, …). Which states are branches follows from that structure, never from the
words of their names (in a rental ``returned`` is the happy ending; in a delivery, a failure);
``branch: true|false`` on a state says it outright. A bad file is a :class:`CorpusError` naming
the file and the key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from formspec_consult.resources import package_path

LANGUAGES = ("en", "id")
REQUIRED = ("id", "language", "starter", "opening", "owner_facts", "expected")
OPTIONAL = ("template", "description", "persona")
_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class CorpusError(ValueError):
    """A case file that cannot be used: the message names the file and the key."""


@dataclass(frozen=True)
class Named:
    """An expected entity or state: its name and the other words that count as it."""

    name: str
    aliases: tuple[str, ...] = ()
    branch: bool = False  # a state off the main path (from the case's structure)
    success: bool = False  # the state the business calls success: where the main path ends

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class Expected:
    entities: tuple[Named, ...] = ()
    states: dict[str, tuple[Named, ...]] = field(default_factory=dict)
    relations: tuple[tuple[str, str], ...] = ()
    modules: tuple[str, ...] = ()
    fields: dict[str, tuple[Named, ...]] = field(default_factory=dict)  # Iterate: fields the change adds
    changelog: bool = False  # Iterate: the change is recorded in docs/changelog.md

    @property
    def iterate(self) -> bool:
        """A change request on an applied project: scored for the Iterate phase too."""
        return bool(self.fields) or self.changelog


@dataclass(frozen=True)
class Case:
    id: str
    language: str
    starter: str
    opening: str
    owner_facts: tuple[str, ...]
    expected: Expected
    file: Path
    template: str | None = None
    persona: str = ""

    def starter_path(self) -> Path | None:
        """The starter project folder (None for ``empty``)."""
        if self.starter == "empty":
            return None
        if self.starter == "barbershop":
            return package_path("examples", "barbershop")
        path = Path(self.starter).expanduser()
        return path if path.is_absolute() else (self.file.parent / path).resolve()


def bundled_corpus() -> Path:
    """The corpus shipped in the package."""
    return Path(__file__).resolve().parent / "corpus"


def _fail(file: Path, key: str, message: str) -> CorpusError:
    return CorpusError(f"{file}: {key}: {message}")


def _text(file: Path, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(file, key, "must be non-empty text")
    return value.strip()


def _named(file: Path, key: str, raw: Any, *, state: bool = False) -> tuple[Named, bool | None]:
    """The name and aliases, and for a state its explicit ``branch`` (None: from the structure)."""
    if isinstance(raw, str) and raw.strip():
        return Named(raw.strip()), None
    if isinstance(raw, Mapping):
        allowed = ("name", "aliases", "branch", "success") if state else ("name", "aliases")
        unknown = set(raw) - set(allowed)
        if unknown:
            raise _fail(file, key, f"unknown key(s) {', '.join(sorted(map(str, unknown)))}; use {', '.join(allowed)}")
        name = _text(file, f"{key}.name", raw.get("name"))
        aliases = raw.get("aliases") or []
        if not isinstance(aliases, list) or not all(isinstance(a, str) and a.strip() for a in aliases):
            raise _fail(file, f"{key}.aliases", "must be a list of names")
        for flag in ("branch", "success"):
            if flag in raw and not isinstance(raw[flag], bool):
                raise _fail(file, f"{key}.{flag}", "must be true or false")
        branch = raw.get("branch")
        return Named(name, tuple(a.strip() for a in aliases), bool(branch), bool(raw.get("success"))), branch
    raise _fail(file, key, "must be a name or a mapping with name (and aliases)")


def _lifecycle(file: Path, key: str, items: list[Any]) -> tuple[Named, ...]:
    """An entity's expected states with `branch` from the case's structure: the states listed up
    to the success state are its main path, those after it its branches (unless said outright)."""
    parsed = [_named(file, f"{key}[{i}]", item, state=True) for i, item in enumerate(items)]
    successes = [i for i, (named, _) in enumerate(parsed) if named.success]
    if len(successes) != 1:
        raise _fail(file, key, "mark the one state the business calls success, e.g. "
                               "`{name: returned, success: true}`; list the main path up to it first, then the "
                               "branches" + (f" ({len(successes)} are marked)" if successes else ""))
    end = successes[0]
    if parsed[end][1] is True:
        raise _fail(file, f"{key}[{end}]", "the success state ends the main path, so it cannot be a branch")
    out = []
    for i, (named, explicit) in enumerate(parsed):
        branch = explicit if explicit is not None else i > end
        out.append(Named(named.name, named.aliases, branch, named.success))
    return tuple(out)


def _expected(file: Path, raw: Any) -> Expected:
    if not isinstance(raw, Mapping):
        raise _fail(file, "expected", "must be a mapping with entities, states, relations, modules")
    unknown = set(raw) - {"entities", "states", "relations", "modules", "fields", "changelog"}
    if unknown:
        raise _fail(file, "expected", f"unknown key(s) {', '.join(sorted(map(str, unknown)))}")
    entities_raw = raw.get("entities")
    if not isinstance(entities_raw, list) or not entities_raw:
        raise _fail(file, "expected.entities", "must be a non-empty list")
    entities = tuple(_named(file, f"expected.entities[{i}]", e)[0] for i, e in enumerate(entities_raw))
    known = {e.name for e in entities}
    states_raw = raw.get("states") or {}
    if not isinstance(states_raw, Mapping):
        raise _fail(file, "expected.states", "must map an expected entity to its list of states")
    states: dict[str, tuple[Named, ...]] = {}
    for entity, items in states_raw.items():
        key = f"expected.states.{entity}"
        if entity not in known:
            raise _fail(file, key, f"names no expected entity (expected: {', '.join(sorted(known))})")
        if not isinstance(items, list) or not items:
            raise _fail(file, key, "must be a non-empty list of states")
        states[str(entity)] = _lifecycle(file, key, items)
    relations_raw = raw.get("relations") or []
    if not isinstance(relations_raw, list):
        raise _fail(file, "expected.relations", "must be a list of [entity, entity] pairs")
    relations = []
    for i, pair in enumerate(relations_raw):
        key = f"expected.relations[{i}]"
        if not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(p, str) for p in pair):
            raise _fail(file, key, "must be a pair [entity, entity]")
        for name in pair:
            if name not in known:
                raise _fail(file, key, f"{name!r} is not an expected entity")
        relations.append((pair[0], pair[1]))
    modules = raw.get("modules") or []
    if not isinstance(modules, list) or not all(isinstance(m, str) and m for m in modules):
        raise _fail(file, "expected.modules", "must be a list of module names")
    fields_raw = raw.get("fields") or {}
    if not isinstance(fields_raw, Mapping):
        raise _fail(file, "expected.fields", "must map an expected entity to the fields the change adds")
    fields: dict[str, tuple[Named, ...]] = {}
    for entity, items in fields_raw.items():
        key = f"expected.fields.{entity}"
        if entity not in known:
            raise _fail(file, key, f"names no expected entity (expected: {', '.join(sorted(known))})")
        if not isinstance(items, list) or not items:
            raise _fail(file, key, "must be a non-empty list of field names")
        fields[str(entity)] = tuple(_named(file, f"{key}[{i}]", item)[0] for i, item in enumerate(items))
    changelog = raw.get("changelog", False)
    if not isinstance(changelog, bool):
        raise _fail(file, "expected.changelog", "must be true or false")
    return Expected(entities, states, tuple(relations), tuple(modules), fields, changelog)


def load_case(file: Path) -> Case:
    """Read and check one case file."""
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CorpusError(f"{file}: cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{file}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
                          "save the case file as UTF-8") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        raise CorpusError(f"{file}: not valid YAML{at}; fix the syntax") from None
    except ValueError as exc:  # an integer longer than Python reads (4,300 digits)
        raise CorpusError(f"{file}: holds a value that cannot be read ({exc}); shorten or quote it") from None
    if not isinstance(data, Mapping):
        raise CorpusError(f"{file}: a case is a mapping with {', '.join(REQUIRED)}")
    for key in REQUIRED:
        if key not in data:
            raise _fail(file, key, "missing (every case needs " + ", ".join(REQUIRED) + ")")
    unknown = set(data) - set(REQUIRED) - set(OPTIONAL)
    if unknown:
        raise _fail(file, min(map(str, unknown)), "unknown key; known: " + ", ".join(REQUIRED + OPTIONAL))
    case_id = _text(file, "id", data["id"])
    if not _ID.match(case_id):
        raise _fail(file, "id", "use lower-case letters, digits and dashes")
    language = _text(file, "language", data["language"])
    if language not in LANGUAGES:
        raise _fail(file, "language", f"must be one of {', '.join(LANGUAGES)}")
    facts = data["owner_facts"]
    if not isinstance(facts, list) or not facts or not all(isinstance(f, str) and f.strip() for f in facts):
        raise _fail(file, "owner_facts", "must be a non-empty list of sentences")
    case = Case(
        id=case_id,
        language=language,
        starter=_text(file, "starter", data["starter"]),
        opening=_text(file, "opening", data["opening"]),
        owner_facts=tuple(f.strip() for f in facts),
        expected=_expected(file, data["expected"]),
        file=file,
        template=data.get("template"),
        persona=str(data.get("persona") or ""),
    )
    starter = case.starter_path()
    if starter is not None and not starter.is_dir():
        raise _fail(file, "starter", f"{starter} is not a project folder (use barbershop, empty or a path)")
    return case


def load_corpus(folder: Path | None = None, ids: Iterable[str] = ()) -> list[Case]:
    """Every case in `folder` (default: the bundled corpus), or only `ids`; any bad file fails all."""
    folder = Path(folder) if folder is not None else bundled_corpus()
    if not folder.is_dir():
        raise CorpusError(f"{folder}: no such corpus folder")
    cases = [load_case(file) for file in sorted(folder.glob("*.yaml"))]
    if not cases:
        raise CorpusError(f"{folder}: no case files (*.yaml)")
    seen: dict[str, Path] = {}
    for case in cases:
        if case.id in seen:
            raise _fail(case.file, "id", f"{case.id!r} is also the id of {seen[case.id]}")
        seen[case.id] = case.file
    wanted = list(ids)
    if wanted:
        missing = [i for i in wanted if i not in seen]
        if missing:
            raise CorpusError(f"{folder}: no case with id {', '.join(missing)} (cases: {', '.join(sorted(seen))})")
        cases = [c for c in cases if c.id in wanted]
    return cases
