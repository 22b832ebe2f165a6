"""A draft's change cut into YAML blocks a person can accept or reject one by one.

A block is one unit of a spec document: a top-level key (`apiVersion`, `kind`, `metadata`), each
key of `spec` (`spec.version`, `spec.display_field`), each item of a list of named things
(`spec.fields[phone]`, `spec.actions[approve]`) and, inside a mapping that holds such lists
(`spec.state_machine`), each of its keys and items (`spec.state_machine.states[booked]`,
`spec.state_machine.transitions[booked->done]`). Only blocks that differ between the project's
file and the draft are listed, each with its own small diff.

:func:`compose` builds the file that takes the accepted blocks from the draft and keeps every
other block as the project has it, working on the text (comments and layout stay as written).
It then checks its own result by value — the accepted blocks read as the draft's, the others as
the project's — and refuses (BlockError) when this file's layout does not let the blocks be
separated, rather than apply something else than what the person chose. The gate still decides
whether the composed file is valid.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

from formspec_consult.store.drafts import DraftError

Change = Literal["added", "removed", "changed"]
Step = str | tuple[str, str]  # a mapping key, or (list key, item identity)
IDENTITY_KEYS = ("name", "id", "key", "field")


class BlockError(DraftError):
    """The change cannot be cut into blocks (or put back together as chosen); the message says why."""


@dataclass(frozen=True)
class Block:
    """One changed unit: its id, what happened to it, and its text on each side."""

    id: str
    change: Change
    before: str  # the project's lines of this block ("" when added)
    after: str  # the draft's lines of this block ("" when removed)

    def diff(self) -> str:
        """The block's own unified diff (no file header)."""
        lines = difflib.unified_diff(self.before.splitlines(keepends=True), self.after.splitlines(keepends=True),
                                     n=1, lineterm="\n")
        return "".join(line if line.endswith("\n") else line + "\n" for line in list(lines)[2:])

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "change": self.change, "diff": self.diff()}


@dataclass
class _Unit:
    id: str
    path: tuple[Step, ...]
    start: int  # first line (0-based) in its document's lines
    end: int  # one past its last line
    parent: str  # the id of the container it sits in
    order: int  # its place among its container's units


@dataclass
class _Side:
    lines: list[str]
    units: dict[str, _Unit] = field(default_factory=dict)
    starts: dict[str, int] = field(default_factory=dict)  # container id -> line of its first child


def _document(text: str, what: str) -> yaml.Node | None:
    if not text.strip():
        return None
    try:
        nodes = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise BlockError(f"The {what} is not readable YAML ({exc.__class__.__name__}); review the draft whole.") from exc
    if len(nodes) != 1:
        raise BlockError(f"The {what} holds {len(nodes)} YAML documents; review the draft whole.")
    node = nodes[0]
    if not isinstance(node, yaml.MappingNode) or node.flow_style:
        raise BlockError(f"The {what} is not a block mapping of keys; review the draft whole.")
    return node


def _scalar(node: yaml.Node) -> str | None:
    return str(node.value) if isinstance(node, yaml.ScalarNode) else None


def _item_name(node: yaml.Node) -> str | None:
    """How a list item is named in a block id: its name/id, or `from->to` for a transition."""
    if not isinstance(node, yaml.MappingNode):
        return None
    values = {_scalar(k): v for k, v in node.value}
    for key in IDENTITY_KEYS:
        if key in values and _scalar(values[key]):
            return _scalar(values[key])
    if "from" in values and "to" in values:
        source = values["from"]
        start = ",".join(_scalar(n) or "?" for n in source.value) if isinstance(source, yaml.SequenceNode) \
            else (_scalar(source) or "?")
        via = f":{_scalar(values['via'])}" if "via" in values and _scalar(values["via"]) else ""
        return f"{start}->{_scalar(values['to'])}{via}"
    return None


def _named_list(node: yaml.Node | None) -> bool:
    """A block list whose items are all named mappings: split per item."""
    return (isinstance(node, yaml.SequenceNode) and not node.flow_style and bool(node.value)
            and all(_item_name(item) is not None for item in node.value))


def _splittable_map(node: yaml.Node | None, path: tuple[Step, ...]) -> bool:
    if not isinstance(node, yaml.MappingNode) or node.flow_style:
        return False
    if path in ((), ("spec",)):
        return True
    return len(path) >= 2 and path[0] == "spec" and any(_named_list(v) for _, v in node.value)


def _label(path: tuple[Step, ...]) -> str:
    out = ""
    for step in path:
        if isinstance(step, tuple):
            out += ("." if out else "") + f"{step[0]}[{step[1]}]"
        else:
            out += ("." if out else "") + step
    return out


def _children(node: yaml.Node, path: tuple[Step, ...], end: int) -> list[tuple[tuple[Step, ...], yaml.Node, int, int]]:
    """(path, value node, start line, end line) of each entry of a mapping or item of a named list."""
    if isinstance(node, yaml.MappingNode):
        starts = [k.start_mark.line for k, _ in node.value]
        steps: list[Step] = [_scalar(k) or f"?{i}" for i, (k, _) in enumerate(node.value)]
        values = [v for _, v in node.value]
    else:
        starts = [item.start_mark.line for item in node.value]
        key = path[-1] if path and isinstance(path[-1], str) else "?"
        seen: dict[str, int] = {}
        steps = []
        for item in node.value:
            name = _item_name(item) or "?"
            seen[name] = seen.get(name, 0) + 1
            steps.append((key, name if seen[name] == 1 else f"{name}#{seen[name]}"))
        values = list(node.value)
        path = path[:-1]
    bounds = [*starts[1:], end]
    return [(path + (step,), value, start, stop) for step, value, start, stop in zip(steps, values, starts, bounds, strict=True)]


def _walk(side: _Side, node: yaml.Node, path: tuple[Step, ...], end: int) -> dict[tuple[Step, ...], yaml.Node]:
    """Index every unit below `node` into `side` and return {path: value node} of the leaves."""
    leaves: dict[tuple[Step, ...], yaml.Node] = {}
    container = _label(path) or "<document>"
    children = _children(node, path, end)
    if children:
        side.starts[container] = children[0][2]
    for order, (child_path, value, start, stop) in enumerate(children):
        if not isinstance(child_path[-1], tuple) and _named_list(value):
            leaves.update(_walk(side, value, child_path, stop))
            continue
        if not isinstance(child_path[-1], tuple) and _splittable_map(value, child_path):
            leaves.update(_walk(side, value, child_path, stop))
            continue
        uid = _label(child_path)
        side.units[uid] = _Unit(uid, child_path, start, stop, container, order)
        leaves[child_path] = value
    return leaves


def _read(text: str, what: str) -> tuple[_Side, dict[tuple[Step, ...], Any]]:
    side = _Side(text.splitlines(keepends=True))
    node = _document(text, what)
    if node is None:
        return side, {}
    leaves = _walk(side, node, (), len(side.lines))
    return side, {path: _value(value) for path, value in leaves.items()}


def _value(node: yaml.Node) -> Any:
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _text(side: _Side, unit: _Unit) -> str:
    return "".join(side.lines[unit.start:unit.end])


def _changes(before: str, after: str) -> tuple[_Side, _Side, dict[str, Change]]:
    old, old_values = _read(before, "project's file")
    new, new_values = _read(after, "draft")
    by_path_old = {u.path: u for u in old.units.values()}
    by_path_new = {u.path: u for u in new.units.values()}
    changes: dict[str, Change] = {}
    for path, unit in by_path_new.items():
        if path not in by_path_old:
            changes[unit.id] = "added"
        elif old_values[path] != new_values[path] or _text(old, by_path_old[path]).rstrip() != _text(new, unit).rstrip():
            changes[unit.id] = "changed"
    for path, unit in by_path_old.items():
        if path not in by_path_new:
            changes[unit.id] = "removed"
    return old, new, changes


def split_blocks(before: str, after: str) -> list[Block]:
    """The blocks that differ between the project's file (`before`, "" for a new file) and the
    draft (`after`), in the draft's order (removed ones where they stood)."""
    old, new, changes = _changes(before, after)
    blocks = []
    for uid, change in changes.items():
        was = _text(old, old.units[uid]) if uid in old.units else ""
        now = _text(new, new.units[uid]) if uid in new.units else ""
        blocks.append(Block(uid, change, was, now))
    return blocks


def pick(blocks: Sequence[Block], wanted: Iterable[str]) -> list[str]:
    """Block ids from what a person typed: a number from the list (1-based), an id, or the end of
    one (`phone` for `spec.fields[phone]`, `fields[phone]`). BlockError names what matched nothing
    or more than one."""
    ids = [b.id for b in blocks]
    chosen: list[str] = []
    for raw in wanted:
        word = raw.strip()
        if word.isdigit() and 1 <= int(word) <= len(ids):
            found = [ids[int(word) - 1]]
        elif word in ids:
            found = [word]
        else:
            found = [i for i in ids if i.endswith((f".{word}", f"[{word}]", word)) and word]
        if len(found) != 1:
            listing = ", ".join(f"{n} {i}" for n, i in enumerate(ids, 1))
            how = "matches no block" if not found else f"matches {len(found)} blocks ({', '.join(found)})"
            raise BlockError(f"{word!r} {how}. The blocks: {listing}.")
        if found[0] not in chosen:
            chosen.append(found[0])
    return chosen


def compose(before: str, after: str, accepted: Iterable[str]) -> str:
    """The file with the `accepted` blocks as the draft has them and every other block as the
    project has it. BlockError when an id is unknown, or when the result would not read back as
    chosen (a layout the blocks cannot be separated in)."""
    old, new, changes = _changes(before, after)
    keep = set(accepted)
    unknown = keep - set(changes)
    if unknown:
        raise BlockError(f"No such block: {', '.join(sorted(unknown))} (blocks: {', '.join(changes)}).")
    edits: list[tuple[int, int, list[str], int]] = []  # (start, end, lines, tie-break) on the draft's lines
    for uid, change in changes.items():
        if uid in keep:
            continue
        if change == "changed":
            unit = new.units[uid]
            edits.append((unit.start, unit.end, _ended(old.lines[old.units[uid].start:old.units[uid].end]), 0))
        elif change == "added":
            unit = new.units[uid]
            edits.append((unit.start, unit.end, [], 0))
        else:
            lost = old.units[uid]
            edits.append((*(2 * (_anchor(old, new, lost),)), _ended(old.lines[lost.start:lost.end]), lost.order))
    lines = list(new.lines)
    # bottom up, so earlier line numbers hold; at one line, a replacement before the insertions
    # there, and those last-first, so they end up in the project's order
    for start, end, text, _ in sorted(edits, key=lambda e: (e[0], e[1] > e[0], e[3]), reverse=True):
        if start == end and start > 0 and not lines[start - 1].endswith("\n"):
            lines[start - 1] += "\n"
        lines[start:end] = text
    result = "".join(lines)
    _verify(before, after, result, keep, set(changes))
    return result


def _ended(lines: list[str]) -> list[str]:
    return [*lines[:-1], lines[-1] if lines[-1].endswith("\n") else lines[-1] + "\n"] if lines else []


def _anchor(old: _Side, new: _Side, lost: _Unit) -> int:
    """Where in the draft a removed block the person keeps goes back: after the nearest sibling
    before it that the draft still has, else before the draft's first unit of that container."""
    siblings = sorted((u for u in old.units.values() if u.parent == lost.parent and u.order < lost.order),
                      key=lambda u: u.order, reverse=True)
    for sibling in siblings:
        if sibling.id in new.units:
            return new.units[sibling.id].end
    if lost.parent in new.starts:
        return new.starts[lost.parent]
    raise BlockError(f"The draft removed all of {lost.parent}; keep or drop {lost.id} with the rest of it "
                     "(review the draft whole).")


def _verify(before: str, after: str, result: str, keep: set[str], every: set[str]) -> None:
    try:
        towards_draft = {uid for uid in _changes(before, result)[2]}
        still_missing = {uid for uid in _changes(result, after)[2]}
    except BlockError as exc:
        raise BlockError(f"Those blocks cannot be separated in this file's layout ({exc}). Accept or reject "
                         "the draft whole, or edit it.") from exc
    if not towards_draft <= keep or not still_missing <= every - keep:
        raise BlockError("Those blocks cannot be separated in this file's layout. Accept or reject the draft "
                         "whole, or edit it.")
