"""Records ↔ plain dictionaries (the JSON stored in the database and returned by the tools).

One shape everywhere: what is stored is what `get_module_detail` returns (before the untrusted
`skills_for_ai` is wrapped), so the two backends cannot drift apart.
"""

from __future__ import annotations

import json
from typing import Any, cast

from formspec_consult.registry.models import (
    AiIndex,
    BusinessTemplate,
    CandidateEntity,
    Dependency,
    ModuleRecord,
    TrustTier,
)


def template_to_dict(template: BusinessTemplate) -> dict[str, Any]:
    """The template as a JSON-ready dictionary."""
    return {
        "pattern": template.pattern,
        "title": template.title,
        "applies_to": list(template.applies_to),
        "description": template.description,
        "probing_questions": list(template.probing_questions),
        "candidate_entities": [
            {"name": e.name, "characteristic": e.characteristic, **({"note": e.note} if e.note else {})}
            for e in template.candidate_entities
        ],
        "suggested_modules": list(template.suggested_modules),
    }


def template_from_dict(data: dict[str, Any]) -> BusinessTemplate:
    """Rebuild a template from `template_to_dict` output (or validated import data)."""
    return BusinessTemplate(
        pattern=data["pattern"],
        title=data.get("title") or data["pattern"].replace("-", " ").capitalize(),
        applies_to=tuple(data.get("applies_to", ())),
        description=data["description"],
        probing_questions=tuple(data.get("probing_questions", ())),
        candidate_entities=tuple(
            CandidateEntity(e["name"], e["characteristic"], e.get("note", ""))
            for e in data.get("candidate_entities", ())
        ),
        suggested_modules=tuple(data.get("suggested_modules", ())),
    )


def module_to_dict(module: ModuleRecord) -> dict[str, Any]:
    """The module as a JSON-ready dictionary (the full record, `skills_for_ai` unwrapped)."""
    ai = module.ai_index
    return {
        "name": module.name,
        "description": module.description,
        "version": module.version,
        "versions": list(module.all_versions),
        "trust_tier": module.trust_tier,
        "vendor": module.vendor,
        "depends": [
            {"module": d.module, **({"version": d.version} if d.version else {})} for d in module.depends
        ],
        "source": module.source,
        "checksum": module.checksum,
        "ai_index": {
            "category": ai.category,
            "features": list(ai.features),
            "aliases": list(ai.aliases),
            "integration_pattern": ai.integration_pattern,
            "skills_for_ai": ai.skills_for_ai,
        },
    }


def module_from_dict(data: dict[str, Any]) -> ModuleRecord:
    """Rebuild a module from `module_to_dict` output."""
    ai = data.get("ai_index") or {}
    return ModuleRecord(
        name=data["name"],
        description=data.get("description", ""),
        version=data["version"],
        versions=tuple(data.get("versions", ())),
        trust_tier=cast(TrustTier, data.get("trust_tier", "community")),
        vendor=data.get("vendor", ""),
        depends=tuple(Dependency(d["module"], d.get("version")) for d in data.get("depends", ())),
        source=data.get("source", ""),
        checksum=data.get("checksum", ""),
        ai_index=AiIndex(
            category=ai.get("category", "other"),
            features=tuple(ai.get("features", ())),
            aliases=tuple(ai.get("aliases", ())),
            integration_pattern=ai.get("integration_pattern", ""),
            skills_for_ai=ai.get("skills_for_ai", ""),
        ),
    )


def dumps(data: dict[str, Any]) -> str:
    """Canonical JSON (sorted keys) so "unchanged" on re-import is a plain string comparison."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
