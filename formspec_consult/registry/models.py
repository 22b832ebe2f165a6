"""The registry's records: business templates, published modules and search hits.

Plain dataclasses (no MCP, no database) so the store, the importer and the server share them.
The MCP tools turn them into TypedDict-shaped dictionaries via `as_*` helpers in
`formspec_consult.servers.registry_tools`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

TrustTier = Literal["official", "verified", "community"]
TRUST_TIERS: tuple[TrustTier, ...] = ("official", "verified", "community")


@dataclass(frozen=True)
class CandidateEntity:
    """An entity a business of this kind usually needs, with its FormSpec characteristic."""

    name: str
    characteristic: str  # master | transaction | reference | summary
    note: str = ""


@dataclass(frozen=True)
class BusinessTemplate:
    """A business pattern: what to ask and which entities to consider (no AI inside)."""

    pattern: str
    title: str
    applies_to: tuple[str, ...]
    description: str
    probing_questions: tuple[str, ...]
    candidate_entities: tuple[CandidateEntity, ...]
    suggested_modules: tuple[str, ...] = ()


@dataclass(frozen=True)
class Dependency:
    """A module this module needs, with an optional version constraint."""

    module: str
    version: str | None = None


@dataclass(frozen=True)
class AiIndex:
    """The `ai_index` block of a Module document."""

    category: str
    features: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    integration_pattern: str = ""
    skills_for_ai: str = ""


@dataclass(frozen=True)
class ModuleRecord:
    """One published module as the registry knows it."""

    name: str
    description: str
    version: str
    ai_index: AiIndex
    trust_tier: TrustTier = "community"
    vendor: str = ""
    versions: tuple[str, ...] = ()
    depends: tuple[Dependency, ...] = ()
    source: str = ""
    checksum: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def all_versions(self) -> tuple[str, ...]:
        """Every published version, newest (the current one) first, without duplicates."""
        seen: dict[str, None] = {self.version: None}
        for version in self.versions:
            seen.setdefault(version, None)
        return tuple(seen)


@dataclass(frozen=True)
class SearchHit:
    """A ranked search result: the module, its score (higher is better) and a short snippet."""

    module: ModuleRecord
    score: float
    snippet: str
