"""Kind schema outlines: the shape of a kind in a few hundred tokens, with drill-down by path.

A kind's full JSON Schema is ~80,000 characters, almost all of it the `$defs` every kind shares;
a model reading it through a capped tool result never reaches the kind's own keys. An outline is
derived from the same schema the gate validates against (ours or the project's official one):
the keys of a part with their types, enums and required keys (`*`), nested parts expanded while
they fit a budget and otherwise summarised as their key list, each summarised part reachable by
`path` (`fields`, `fields.relation`, or a gate problem's path such as `spec/fields/3/relation`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from formspec_consult.spec.model import ProjectLike
from formspec_consult.spec.schema_registry import RefResolver, resolve, resolve_kind

#: characters of rendered outline (compact JSON) a part may grow to by expanding nested parts
BUDGET = 2400
#: how many enum values are listed before the rest are counted
MAX_ENUM = 24
ENVELOPE = ("apiVersion", "kind", "metadata")
#: parts expanded first when they are there: what every document of their kind is written around
#: (a presentation choice only; what each part holds is always read from the schema)
FIRST = ("fields", "state_machine", "states", "transitions", "sections", "columns", "steps", "menu", "widgets",
         "blocks", "depends", "on")
LEGEND = ("`*` marks a required key, `a|b` the allowed values; `{k1, k2}` is a part shown by its keys: "
          "call again with path set to it (e.g. {example}) for their types.")


class OutlinePathError(ValueError):
    """A drill-down path that names no part of the kind; the message says what exists there."""


@dataclass(frozen=True)
class Outline:
    """One kind's outline (or one part of it, when `path` is set)."""

    kind: str
    source: str
    path: str
    outline: Any
    legend: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "path": self.path, "outline": self.outline, "legend": self.legend,
                "source": self.source}


def kind_outline(kind: str, project: ProjectLike | None = None, path: str | None = None) -> Outline:
    """The outline of `kind` (case-insensitive) or of the part at `path`; OutlinePathError when it names none."""
    canonical = resolve_kind(kind)
    resolution = resolve(canonical, project)
    refs = RefResolver(resolution)
    walker = _Walker(refs)
    doc, scope = refs.root()
    parts = _path_parts(path)
    if scope:  # a schema of `spec` alone: the envelope is FormSpec's, not in this file
        spec_node: Any = doc
        envelope: dict[str, Any] = {}
    else:
        props = walker.props(doc)
        spec_node = props.get("spec", {})
        envelope = {k: props[k] for k in ENVELOPE if k in props}
    if parts and parts[0] == "spec":
        parts = parts[1:]
    if parts and parts[0] in envelope and parts[0] not in walker.props(spec_node):
        node, shown = walker.descend(envelope[parts[0]], parts[1:], [parts[0]])
    else:
        node, shown = walker.descend(spec_node, parts, ["spec"])
    where = ".".join(shown)
    body = walker.outline(node, where)
    example = walker.first_summarised or ("fields.relation" if canonical == "Entity" else "<a key>")
    legend = LEGEND.replace("{example}", json.dumps(example))
    if not parts:
        head = {f"{k}*" if k in walker.required(doc) else k: walker.summary(v, 0) for k, v in envelope.items()}
        body = {**head, "spec*": body} if envelope else body
        where = "(document)" if envelope else "spec"
    return Outline(canonical, resolution.source, where, body, legend)


def _path_parts(path: str | None) -> list[str]:
    """`fields.relation`, `spec/fields/3/relation`, `fields[].relation`, `fields.*.relation` → ["fields", "relation"]."""
    if not path:
        return []
    parts = []
    for raw in re.split(r"[./]", path.strip()):
        part = re.sub(r"\[[^\]]*\]$", "", raw.strip())
        if part in ("", "*", "#", "$", "items") or part.isdigit():
            continue
        parts.append(part)
    return parts


class _Walker:
    """Reads schema nodes ($refs resolved, `allOf` merged) and renders them."""

    def __init__(self, refs: RefResolver) -> None:
        self.refs = refs
        self.first_summarised: str | None = None
        # Our schemas describe only what a model cannot guess (a key's meaning, rule names): their
        # descriptions are shown. An official schema describes most keys at length: not shown.
        self.notes = refs.resolution.file is None

    # -- reading ---------------------------------------------------------------------------

    def node(self, schema: Any) -> dict[str, Any]:
        """`schema` with its `$ref` followed (siblings kept) and `allOf` merged in."""
        seen = 0
        while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and seen < 32:
            target = self.refs.follow(schema["$ref"])
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **siblings} if isinstance(target, dict) else target
            seen += 1
        if not isinstance(schema, dict):
            return {}
        for part in schema.get("allOf") or []:
            part = self.node(part)
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            merged["properties"] = {**(merged.get("properties") or {}), **(part.get("properties") or {})}
            merged["required"] = [*(merged.get("required") or []), *(part.get("required") or [])]
            schema = {**part, **merged}
        out: dict[str, Any] = schema
        return out

    def props(self, schema: Any) -> dict[str, Any]:
        props = self.node(schema).get("properties")
        return props if isinstance(props, dict) else {}

    def required(self, schema: Any) -> set[str]:
        req = self.node(schema).get("required")
        return {r for r in req if isinstance(r, str)} if isinstance(req, list) else set()

    def alternatives(self, schema: dict[str, Any]) -> list[dict[str, Any]]:
        return [self.node(alt) for key in ("anyOf", "oneOf") for alt in schema.get(key) or []]

    def _object_of(self, schema: Any) -> dict[str, Any] | None:
        """The object schema `schema` is, or holds as list items or as its one object alternative."""
        node = self.node(schema)
        if _is_array(node):
            return self._object_of(node.get("items", {}))
        if node.get("properties"):
            return node
        objects = [alt for alt in self.alternatives(node) if alt.get("properties")]
        return objects[0] if len(objects) == 1 else None

    def descend(self, start: Any, parts: list[str], shown: list[str]) -> tuple[Any, list[str]]:
        """The node at `parts` below `start` (lists and maps stepped through), and the path walked."""
        node = start
        for part in parts:
            here = self.node(node)
            while _is_array(here):
                here = self.node(here.get("items", {}))
            props: dict[str, Any] = here["properties"] if isinstance(here.get("properties"), dict) else {}
            extra = here.get("additionalProperties")
            alt_props = {k: v for alt in self.alternatives(here) for k, v in (alt.get("properties") or {}).items()}
            if part in props:
                node = props[part]
            elif part in alt_props:
                node = alt_props[part]
            elif isinstance(extra, dict) and extra and not props:  # a map: `part` is one of its names
                node = extra
            else:
                keys = sorted({*props, *alt_props})
                at = ".".join(shown)
                if not keys:
                    raise OutlinePathError(f"`{part}` is not a part of {at}: {at} has no keys below it "
                                           f"({self.summary(here, 0)}).")
                close = [k for k in keys if k.lower() == part.lower()] or _close(part, keys)
                hint = f" Did you mean `{close[0]}`?" if close else ""
                raise OutlinePathError(f"`{part}` is not a key of {at}; its keys are {', '.join(keys)}.{hint}")
            shown.append(part)
        return node, shown

    # -- rendering -------------------------------------------------------------------------

    def outline(self, schema: Any, where: str) -> Any:
        """`schema` rendered with its own keys typed and nested parts expanded while within BUDGET."""
        expanded: set[str] = {""}
        rendered = self.render(schema, "", expanded)
        if not isinstance(rendered, (dict, list)):
            return rendered
        shapes: set[frozenset[str]] = set()
        for candidate, keys in self._candidates(schema):
            if keys in shapes:
                continue  # the same shape is expanded elsewhere already (a Page's form/table/widget refs)
            trial = self.render(schema, "", expanded | {candidate})
            forced = "." not in candidate and candidate in FIRST
            if forced or len(_compact(trial)) <= BUDGET:
                expanded.add(candidate)
                shapes.add(keys)
                rendered = trial
        parts = self._summarised(schema, "", expanded)
        nested = [p for p in parts if "." in p]  # one inside an expanded part shows the path syntax best
        base = "" if where in ("spec", "") else where.removeprefix("spec.") + "."
        self.first_summarised = base + (nested or parts)[0] if parts else None
        return rendered

    def _candidates(self, schema: Any) -> list[tuple[str, frozenset[str]]]:
        """Nested object parts (dotted path below `schema`, key set) breadth-first, lists of objects first."""
        out: list[tuple[str, frozenset[str]]] = []
        level = [("", schema)]
        for _depth in range(3):
            lists: list[tuple[str, Any]] = []
            objects: list[tuple[str, Any]] = []
            for prefix, node in level:
                obj = self._object_of(node)
                if obj is None:
                    continue
                keys = set(obj.get("properties") or {})
                for key, child in (obj.get("properties") or {}).items():
                    inner = self._object_of(child)
                    if inner is None or set(inner.get("properties") or {}) == keys:
                        continue  # nothing, or the same shape one level down (a menu's children)
                    entry = (f"{prefix}.{key}" if prefix else key, child)
                    (lists if _is_array(self.node(child)) else objects).append(entry)
            for path, child in lists + objects:
                inner = self._object_of(child)
                out.append((path, frozenset((inner or {}).get("properties") or {})))
            level = lists + objects
        return sorted(out, key=lambda c: (c[0].rsplit(".", 1)[-1] not in FIRST, c[0].count(".")))

    def _summarised(self, schema: Any, prefix: str, expanded: set[str]) -> list[str]:
        """Dotted paths of the parts shown only by their keys, in the order they appear."""
        obj = self._object_of(schema)
        out: list[str] = []
        for key, child in ((obj or {}).get("properties") or {}).items():
            path = f"{prefix}.{key}" if prefix else key
            if self._object_of(child) is None:
                continue
            out += self._summarised(child, path, expanded) if path in expanded else [path]
        return out

    def render(self, schema: Any, path: str, expanded: set[str]) -> Any:
        node = self.node(schema)
        if _is_array(node):
            items = node.get("items", {})
            inner = self.render(items, path, expanded) if self._object_of(items) is not None else None
            if isinstance(inner, dict):
                return [inner]
            return "list of " + self.summary(items, 1)
        obj = node if node.get("properties") else None
        if obj is None or path not in expanded:
            return self.summary(node, 0)
        required = self.required(obj)
        out: dict[str, Any] = {}
        for key, child in obj["properties"].items():
            label = f"{key}*" if key in required else key
            child_path = f"{path}.{key}" if path else key
            if self._object_of(child) is not None and child_path in expanded:
                out[label] = self.render(child, child_path, expanded)
            else:
                out[label] = self.summary(child, 0)
                about = self.node(child).get("description") if self.notes else None
                if isinstance(about, str) and about:
                    out[label] += f" — {about}"
        extra = self._shapes(obj)
        if extra:
            out["(shapes)"] = extra
        return out

    def _shapes(self, obj: dict[str, Any]) -> str | None:
        """The `oneOf`/`anyOf` constraints on an object's keys (e.g. a menu item's three shapes)."""
        shapes = []
        for alt in self.alternatives(obj):
            if alt.get("properties") and not alt.get("required"):
                continue
            req = [r for r in alt.get("required") or [] if isinstance(r, str)]
            title = alt.get("title")
            if req or title:
                shapes.append(f"{title or 'shape'}: {', '.join(req) or 'any keys'}")
        return "one of — " + "; ".join(shapes) if shapes else None

    def summary(self, schema: Any, depth: int) -> str:
        """One line for `schema`: its type, allowed values, or key list."""
        node = self.node(schema)
        if "const" in node:
            return f"= {_scalar(node['const'])}"
        enum = node.get("enum")
        if isinstance(enum, list):
            shown = [_scalar(v) for v in enum[:MAX_ENUM]]
            more = f"|… ({len(enum) - MAX_ENUM} more)" if len(enum) > MAX_ENUM else ""
            return "|".join(shown) + more
        alts = self.alternatives(node)
        if alts and not node.get("properties"):
            if depth > 2:
                return "one of several shapes"
            texts = list(dict.fromkeys(self.summary(a, depth + 1) for a in alts))
            return " or ".join(texts)
        if _is_array(node):
            return "list of " + self.summary(node.get("items", {}), depth + 1)
        props = node.get("properties")
        if isinstance(props, dict) and props:
            required = self.required(node)
            return "{" + ", ".join(f"{k}*" if k in required else k for k in props) + "}"
        types = _types(node)
        if "object" in types or (not types and isinstance(node.get("additionalProperties"), dict)):
            extra = node.get("additionalProperties")
            if isinstance(extra, dict) and extra:
                return "map of name → " + self.summary(extra, depth + 1)
            if node.get("maxProperties") == 1:
                return "{one key: its value}"
            return "map" if extra is not False else "{}"
        if not types:
            return "any"
        text = " or ".join(types)
        if isinstance(node.get("pattern"), str):
            text += f" matching {node['pattern']}"
        if node.get("format"):
            text += f" ({node['format']})"
        examples = node.get("examples")
        if isinstance(examples, list) and examples:
            text += ", e.g. " + " or ".join(_scalar(e) for e in examples[:2])
        return text


def _types(node: dict[str, Any]) -> list[str]:
    value = node.get("type")
    types = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    return [t for t in types if t != "null"]


def _is_array(node: dict[str, Any]) -> bool:
    return "array" in _types(node) or (not _types(node) and isinstance(node.get("items"), dict))


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) and value else json.dumps(value)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _close(word: str, options: list[str]) -> list[str]:
    import difflib

    return difflib.get_close_matches(word, options, n=1, cutoff=0.6)


# -- what gate messages say about the schema -----------------------------------------------------

def drill_call(kind: str, path: tuple[Any, ...] | list[Any]) -> str:
    """The list_kind_schemas call that shows the part at a problem's path (`spec/fields/3` → `fields`)."""
    parts = _path_parts("/".join(str(p) for p in path))
    if parts and parts[0] == "spec":
        parts = parts[1:]
    where = f', path="{".".join(parts)}"' if parts else ""
    return f'list_kind_schemas(kind="{kind}"{where})'


class SchemaReader:
    """One-line and small-shape descriptions of nodes of a compiled kind schema (for gate hints)."""

    def __init__(self, resolution: Any) -> None:
        self._walker = _Walker(RefResolver(resolution))

    def summary(self, schema: Any) -> str:
        """`schema` in one line: its type (with pattern and example), allowed values or key list."""
        return self._walker.summary(schema, 0)

    def shape(self, schema: Any, limit: int = 320) -> str:
        """`schema` one level expanded as compact JSON when that stays under `limit`, else its summary."""
        rendered = self._walker.outline(schema, "")
        text = _compact(rendered) if isinstance(rendered, (dict, list)) else str(rendered)
        return text if len(text) <= limit else self.summary(schema)

    def description(self, schema: Any) -> str | None:
        """The schema's own description of a node, when it has a short plain one."""
        text = self._walker.node(schema).get("description")
        if not isinstance(text, str) or not text.strip() or text.lstrip().startswith("@schema"):
            return None
        text = " ".join(text.split())
        return text if len(text) <= 160 else text[:157] + "…"
