"""The minimum capability bar: tool calling, and a usable window of at least 16k tokens.

A model below the bar gives a poor consultation, so it is refused with a clear message unless
the user explicitly overrides (``--allow-unvalidated`` / ``allow_unvalidated: true``).
"""

from __future__ import annotations

from dataclasses import dataclass

from formspec_consult.providers.base import Provider, ProviderError

MIN_USABLE_WINDOW = 16_000
OVERRIDE = "pass --allow-unvalidated (or allow_unvalidated: true) to use it anyway"


@dataclass(frozen=True)
class Verdict:
    """The capability assessment `doctor` prints and `check_capability` enforces."""

    ok: bool
    tool_calling: bool | None  # None: unknown to litellm
    context_window: int | None
    usable_window: int | None
    problems: tuple[str, ...] = ()
    known: bool = True


def assess(provider: Provider) -> Verdict:
    """Measure the provider against the bar, without raising."""
    if provider.offline:
        usable: int | None = provider.context_window - provider.max_output_tokens
        return Verdict(True, True, provider.context_window, usable)
    known = provider.known_model
    tool_calling = provider.supports_tool_calling if known else None
    problems: list[str] = []
    try:
        window: int | None = provider.context_window
    except ProviderError as error:
        window = None
        problems.append(str(error))  # its hint is part of str()
    usable = window - provider.max_output_tokens if window is not None else None
    if not known:
        problems.insert(0, f"litellm does not know {provider.model}, so tool calling cannot be confirmed")
    elif tool_calling is False:
        problems.append(f"{provider.model} does not support tool calling")
    if usable is not None and usable < MIN_USABLE_WINDOW:
        problems.append(
            f"usable context window is {usable:,} tokens ({window:,} minus {provider.max_output_tokens:,} "
            f"reserved for output); at least {MIN_USABLE_WINDOW:,} are needed"
        )
    return Verdict(not problems, tool_calling, window, usable, tuple(problems), known)


def check_capability(provider: Provider, *, allow_unvalidated: bool | None = None) -> None:
    """Raise ProviderError if the model is below the bar, unless the override is on.

    `allow_unvalidated` defaults to the provider's own setting (from Settings). With the override,
    a model litellm does not know still needs a context window unless one was configured.
    """
    verdict = assess(provider)
    if verdict.ok:
        return
    override = provider.allow_unvalidated if allow_unvalidated is None else allow_unvalidated
    if override:
        return
    hint, problems = OVERRIDE, verdict.problems
    if not verdict.known:  # the hint says what to set; the unknown window is not said twice
        hint = f"set context_window (--context-window N) for it and {OVERRIDE}"
        problems = problems[:1]
    raise ProviderError(f"{provider.model} is below the minimum capability bar: " + "; ".join(problems), hint=hint)
