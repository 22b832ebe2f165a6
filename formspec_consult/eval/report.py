"""Run ids, the run report, the summary table and ``compare``.

A run id encodes what decides the result: UTC time, prompt name and version, provider, model —
``2026-12-01T09-30-00__consultant-1.0.0__openai__gpt-4o-mini``.
"""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table


class ReportError(ValueError):
    """A run to compare cannot be found or read."""


def run_id(when: datetime, prompt: str, version: str, provider: str, model: str) -> str:
    def clean(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9.\-]+", "-", text).strip("-") or "none"

    return "__".join(
        [when.strftime("%Y-%m-%dT%H-%M-%S"), clean(f"{prompt}-{version}"), clean(provider), clean(model)]
    )


def totals(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean score over all cases (a failed case counts 0), sums of cost."""
    scores = [c["score"]["score"] if c["status"] == "ok" else 0.0 for c in cases]
    costs = [c["cost"] for c in cases if c.get("cost")]
    money = [c["cost"] for c in costs if c.get("cost") is not None]

    def mean(part: str, key: str) -> float | None:  # over the cases that have the part (iterate: only Iterate cases)
        values = [c["score"][part][key] for c in cases
                  if c["status"] == "ok" and part in c["score"] and c["score"][part][key] is not None]
        return round(sum(values) / len(values), 3) if values else None

    return {
        "cases": len(cases),
        "failed": sum(1 for c in cases if c["status"] != "ok"),
        "score": round(sum(scores) / len(scores), 3) if scores else 0.0,
        "validity": mean("validity", "score"),
        "entities": mean("coverage", "entities"),
        "states": mean("coverage", "states"),
        "branch_states": mean("coverage", "branch_states"),
        "relations": mean("coverage", "relations"),
        "modules": mean("modules", "score"),
        "discipline": mean("discipline", "score"),
        "iterate": mean("iterate", "score"),
        "prompt_tokens": sum(c["prompt_tokens"] for c in costs),
        "cached_tokens": sum(c["cached_tokens"] for c in costs),
        "completion_tokens": sum(c["completion_tokens"] for c in costs),
        "cost": round(sum(money), 6) if money else None,
        "turns": sum(c["turns"] for c in costs),
        "seconds": round(sum(c["seconds"] for c in costs), 2),
    }


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.0f}%"


def _k(tokens: int) -> str:
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)


def summary_table(report: dict[str, Any]) -> Table:
    table = Table(title=f"eval {report['run_id']} (verify: {report['verify']})")
    for column in ("case", "score", "valid", "ent", "states", "branch", "rel", "mod", "disc", "iter", "turns",
                   "tokens", "cost", "s"):
        table.add_column(column, justify="left" if column == "case" else "right")
    for case in report["cases"]:
        if case["status"] != "ok":
            table.add_row(f"{case['id']} ({case['language']})", "[red]failed[/red]", *[""] * 12)
            continue
        s, c = case["score"], case["cost"]
        table.add_row(
            f"{case['id']} ({case['language']})", _pct(s["score"]), _pct(s["validity"]["score"]),
            _pct(s["coverage"]["entities"]), _pct(s["coverage"]["states"]), _pct(s["coverage"]["branch_states"]),
            _pct(s["coverage"]["relations"]), _pct(s["modules"]["score"]), _pct(s["discipline"]["score"]),
            _pct(s["iterate"]["score"] if "iterate" in s else None), str(c["turns"]), _k(c["prompt_tokens"] + c["completion_tokens"]),
            "–" if c["cost"] is None else f"${c['cost']:.4f}", f"{c['seconds']:.1f}",
        )
    t = report["totals"]
    table.add_row(
        "[b]total[/b]", f"[b]{_pct(t['score'])}[/b]", _pct(t["validity"]), _pct(t["entities"]),
        _pct(t["states"]), _pct(t["branch_states"]), _pct(t["relations"]), _pct(t["modules"]),
        _pct(t["discipline"]), _pct(t.get("iterate")), str(t["turns"]), _k(t["prompt_tokens"] + t["completion_tokens"]),
        "–" if t["cost"] is None else f"${t['cost']:.4f}", f"{t['seconds']:.1f}",
    )
    return table


def find_report(ref: str, out: Path) -> dict[str, Any]:
    """A report by run id (in `<out>/reports/`) or by path; ReportError says what exists."""
    path = Path(ref)
    if not path.is_file():
        path = out / "reports" / f"{ref.removesuffix('.json')}.json"
    if not path.is_file():
        known = sorted(p.stem for p in (out / "reports").glob("*.json")) if (out / "reports").is_dir() else []
        listing = ", ".join(known[-5:]) or "none"
        raise ReportError(f"no report {ref!r} (looked in {out / 'reports'}; latest runs: {listing})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReportError(f"{path}: not a readable report ({exc})") from None
    if not isinstance(data, dict) or "cases" not in data:
        raise ReportError(f"{path}: not an eval report (no cases)")
    return data


_COMPARED = (("score", ("score",)), ("valid", ("validity", "score")), ("entities", ("coverage", "entities")),
             ("states", ("coverage", "states")), ("branch", ("coverage", "branch_states")),
             ("relations", ("coverage", "relations")), ("modules", ("modules", "score")),
             ("discipline", ("discipline", "score")))


def _get(case: dict[str, Any] | None, path: tuple[str, ...]) -> float | None:
    if case is None or case.get("status") != "ok":
        return None
    value: Any = case["score"]
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, (int, float)) else None


def compare(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Per case (and in total): each score in run A, in run B and the change B − A."""
    by_a = {c["id"]: c for c in a["cases"]}
    by_b = {c["id"]: c for c in b["cases"]}
    rows = []
    for case_id in sorted(set(by_a) | set(by_b)):
        row: dict[str, Any] = {"case": case_id, "in": "both" if case_id in by_a and case_id in by_b else
                               ("A only" if case_id in by_a else "B only")}
        for label, path in _COMPARED:
            va, vb = _get(by_a.get(case_id), path), _get(by_b.get(case_id), path)
            row[label] = {"a": va, "b": vb, "delta": None if va is None or vb is None else round(vb - va, 3)}
        rows.append(row)
    return rows


def compare_table(a: dict[str, Any], b: dict[str, Any], rows: list[dict[str, Any]]) -> Table:
    table = Table(title=f"A = {a['run_id']}\nB = {b['run_id']}")
    table.add_column("case")
    for label, _ in _COMPARED:
        table.add_column(f"{label} Δ", justify="right")
    for row in rows:
        cells = []
        for label, _ in _COMPARED:
            d = row[label]["delta"]
            cells.append("–" if d is None else f"[green]+{d * 100:.0f}[/green]" if d > 0 else
                         f"[red]{d * 100:.0f}[/red]" if d < 0 else "0")
        table.add_row(row["case"] + ("" if row["in"] == "both" else f" ({row['in']})"), *cells)
    ta, tb = a.get("totals", {}), b.get("totals", {})
    total_cells = []
    for label, _ in _COMPARED:
        key = {"valid": "validity", "branch": "branch_states"}.get(label, label)
        va, vb = ta.get(key), tb.get(key)
        total_cells.append("–" if va is None or vb is None else f"{(vb - va) * 100:+.0f}")
    table.add_row("[b]total[/b]", *total_cells)
    return table


def console(stderr: bool = False) -> Console:
    """A console for the tables: the terminal's width, or a wide one when the output is a file."""
    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr, highlight=False, width=None if stream.isatty() else 150)
