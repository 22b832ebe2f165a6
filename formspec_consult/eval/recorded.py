"""Recorded consultants for ``--offline``: one scripted-provider script per bundled case.

``corpus/recorded/<case>.yaml`` is a list of the consultant's replies in the scripted provider's
format (text, tool_calls). To keep the recordings readable, a ``propose_spec_file`` call may give
``entity:`` (a compact entity) or ``module:`` instead of ``content``; it is rendered to the full
YAML text here, so the engine, the gate and the scorer see ordinary drafts:

    entity: {name: laundry_order, module: laundry, characteristic: transaction,
             fields: [{name: weight_kg, type: decimal, min: 0}],  # min/max become rules
             states: [received, washing, ready, collected, cancelled],
             transitions: [[received, washing, start_wash], [received, cancelled, cancel]]}

A state machine gets its enum ``status`` field, and a transaction its ``transaction_date``, when
they are not listed. A transition's ``via`` is an action of its own (FormSpec reads it so), so it
is not declared again under ``actions:`` (the gate refuses that duplicate, FS-ACTION-TRANSITION-DUPLICATE).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from formspec_consult.eval.corpus import CorpusError, bundled_corpus

API = "formspec.dev/v1"


def recording_path(case_id: str, corpus: Path | None = None) -> Path:
    return (corpus or bundled_corpus()) / "recorded" / f"{case_id}.yaml"


def render_entity(raw: Mapping[str, Any]) -> str:
    """The YAML text of a compact entity (see the module docstring)."""
    name, module = str(raw["name"]), raw.get("module")
    fields = [_field(f) for f in raw.get("fields") or []]
    names = {f.get("name") for f in fields}
    spec: dict[str, Any] = {"version": "v1", "plural": raw.get("plural", f"{name}s")}
    for key in ("characteristic", "lifecycle", "display_field"):
        if raw.get(key):
            spec[key] = raw[key]
    if raw.get("characteristic") == "transaction" and "transaction_date" not in names:
        fields.insert(0, {"name": "transaction_date", "type": "date", "required": True})
    states = [str(s) for s in raw.get("states") or []]
    transitions = [list(t) for t in raw.get("transitions") or []]
    if states and "status" not in names:
        fields.append({"name": "status", "type": "enum", "enum_values": states, "default": states[0]})
    spec["fields"] = fields
    if states:
        spec["state_machine"] = {
            "field": "status",
            "initial": states[0],
            "states": [{"name": s, "label": s.replace("_", " ").capitalize()} for s in states],
            "transitions": [{"from": t[0], "to": t[1], "via": t[2]} for t in transitions],
        }
    metadata: dict[str, Any] = {"name": name}
    if module:
        metadata["module"] = module
    return _dump({"apiVersion": API, "kind": "Entity", "metadata": metadata, "spec": spec})


def _field(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A compact field as FormSpec spells it: `min`/`max` bounds become validation rules."""
    field = dict(raw)
    bounds = [{key: field.pop(key)} for key in ("min", "max") if key in field]
    if bounds:
        field["rules"] = [*field.get("rules", []), *bounds]
    return field


def render_module(raw: Mapping[str, Any]) -> str:
    """The YAML text of a compact module: name, label (as its description), depends."""
    spec: dict[str, Any] = {"version": "v1"}
    if raw.get("depends"):
        spec["depends"] = [{"module": m} for m in raw["depends"]]
    metadata: dict[str, Any] = {"name": raw["name"]}
    if raw.get("label"):  # a Module has no `label`; metadata.description carries the words
        metadata["description"] = raw["label"]
    return _dump({"apiVersion": API, "kind": "Module", "metadata": metadata, "spec": spec})


def _dump(doc: dict[str, Any]) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, default_flow_style=None, width=110)


def _expand_call(call: Any) -> Any:
    if not isinstance(call, Mapping) or call.get("name") != "propose_spec_file":
        return call
    arguments = dict(call.get("arguments") or {})
    if "entity" in arguments:
        arguments["content"] = render_entity(arguments.pop("entity"))
    elif "module" in arguments:
        arguments["content"] = render_module(arguments.pop("module"))
    return {**call, "arguments": arguments}


def load_recording(case_id: str, corpus: Path | None = None) -> list[Any]:
    """The consultant's replies for `case_id`, drafts rendered; CorpusError when there is none."""
    path = recording_path(case_id, corpus)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CorpusError(f"{path}: no recorded consultant for case {case_id!r}; --offline needs one") from None
    except OSError as exc:
        raise CorpusError(f"{path}: cannot be read ({exc.strerror})") from None
    except (yaml.YAMLError, ValueError):  # ValueError: not UTF-8, or an integer too long to read
        raise CorpusError(f"{path}: not valid UTF-8 YAML; fix the recording") from None
    if not isinstance(data, list):
        raise CorpusError(f"{path}: a recording is a list of replies")
    out = []
    for reply in data:
        if isinstance(reply, Mapping) and reply.get("tool_calls"):
            reply = {**reply, "tool_calls": [_expand_call(c) for c in reply["tool_calls"]]}
        out.append(reply)
    return out
