"""A verifier finding: advice about a draft that validates but may not say what the business means."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from formspec_consult.spec.model import Document


@dataclass(frozen=True)
class Finding:
    """One finding of a named verifier; `code` is stable (see ``VERIFIER_CODES``)."""

    code: str
    source: str
    line: int | None
    entity: str | None
    message: str
    hint: str

    def to_dict(self) -> dict[str, Any]:
        """{code, source, line, entity, message, hint}."""
        return {"code": self.code, "source": self.source, "line": self.line, "entity": self.entity,
                "message": self.message, "hint": self.hint}


def finding(code: str, doc: Document, path: tuple[Any, ...], message: str, hint: str) -> Finding:
    """A finding at the node `path` of `doc` (the line is resolved lazily by the document)."""
    return Finding(code, doc.rel, doc.line_of(path), doc.name, message, hint)
