"""`python -m formspec_consult.spec [PATH] [--text]`: validate a project and print the result.

Prints the JSON result (or a short text report with --text); exits 0 when ok, 1 when there are
problems, 2 when PATH is not a FormSpec project.
"""

from __future__ import annotations

import json
import sys

from formspec_consult.spec import ProjectError, ValidationResult, open_project


def _text(result: ValidationResult) -> str:
    lines = []
    for label, items in (("error", result.problems), ("warning", result.warnings)):
        for p in items:
            where = f"{p.source}:{p.line}" + (f":{p.column}" if p.column else "") if p.line else p.source
            lines.append(f"{where}: {label} {p.code}: {p.message}\n    hint: {p.hint}")
    lines.append(f"{'ok' if result.ok else 'NOT OK'}: {len(result.problems)} problem(s), "
                 f"{len(result.warnings)} warning(s)")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Entry point; returns the exit status."""
    as_text = "--text" in argv
    paths = [a for a in argv if a != "--text"]
    try:
        project = open_project(paths[0] if paths else ".")
    except ProjectError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    result = project.validate()
    print(_text(result) if as_text else json.dumps(result.to_dict(), indent=2))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
