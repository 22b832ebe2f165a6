"""Mapping litellm's exceptions to ProviderError with a one-line hint, and retry timing.

litellm is never imported here: exceptions are recognised by class name and status code, so this
module stays cheap and the mapping works for any exception litellm (or the OpenAI SDK) raises.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Any

from formspec_consult.i18n import _
from formspec_consult.providers.base import ProviderError
from formspec_consult.providers.keys import redact_url

RETRYABLE_NAMES = {
    "RateLimitError", "InternalServerError", "ServiceUnavailableError", "BadGatewayError",
    "APIConnectionError", "Timeout", "APITimeoutError", "TimeoutError",
}


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded exponential backoff with jitter; Retry-After wins when it asks for longer."""

    attempts: int = 4  # total tries, the first included
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_retry_after: float = 120.0  # refuse to honour absurd Retry-After values beyond this

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before try number `attempt + 1` (attempt counts from 1)."""
        backoff = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        backoff = backoff * (0.5 + random.random() / 2)  # jitter: spread clients that failed together
        if retry_after is not None:
            return max(backoff, min(retry_after, self.max_retry_after))
        return backoff


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an exception carries, if any."""
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def retry_after_of(exc: BaseException) -> float | None:
    """Seconds from a Retry-After header on the exception's response, if there is one."""
    candidates: list[Any] = [getattr(exc, "litellm_response_headers", None), getattr(exc, "headers", None)]
    response = getattr(exc, "response", None)
    candidates.append(getattr(response, "headers", None))
    for headers in candidates:
        if not headers:
            continue
        try:
            value = headers.get("retry-after") or headers.get("Retry-After")
        except AttributeError:
            continue
        if value is None:
            continue
        try:
            return max(0.0, float(value))
        except ValueError:
            try:
                from datetime import datetime

                return max(0.0, (parsedate_to_datetime(str(value)) - datetime.now(UTC)).total_seconds())
            except (TypeError, ValueError):
                continue
    return None


def is_retryable(exc: BaseException) -> bool:
    """Rate limits, 5xx, timeouts and connection errors are worth another try; 4xx are not."""
    if type(exc).__name__ in RETRYABLE_NAMES:
        return True
    status = status_of(exc)
    return status is not None and (status >= 500 or status in {408, 429})


def _short(exc: BaseException) -> str:
    text = str(getattr(exc, "message", None) or exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    return line if len(line) <= 300 else line[:300] + "…"


def _cause(exc: BaseException) -> str:
    """The underlying reason (a refused connection, a DNS failure), when the exception chains one."""
    inner = exc.__cause__ or exc.__context__
    seen = 0
    while inner is not None and seen < 5:
        text = str(inner).strip().splitlines()
        if text and text[0] not in str(exc):
            line = text[0] if len(text[0]) <= 200 else text[0][:200] + "…"
            return f"; cause: {type(inner).__name__}: {line}"
        inner, seen = inner.__cause__ or inner.__context__, seen + 1
    return ""


# Network failures by what they are, found in the exception's chain: litellm wraps a refused
# connection as "InternalServerError 500 … Connection error." (a provider outage, read as such),
# with aiohttp's "ssl:<ssl.SSLContext object at 0x…>" inside. Matched by class name, innermost
# first, so neither litellm nor aiohttp is imported here.
_NETWORK_KINDS = (
    ("refused", {"ConnectionRefusedError"}),
    ("dns", {"gaierror", "ClientConnectorDNSError"}),
    ("tls", {"SSLError", "SSLCertVerificationError", "ClientConnectorCertificateError", "ClientSSLError",
             "ClientConnectorSSLError", "SSLZeroReturnError"}),
    ("timeout", {"TimeoutError", "ConnectTimeout", "ReadTimeout", "ServerTimeoutError", "APITimeoutError",
                 "Timeout", "ConnectionTimeoutError", "SocketTimeoutError"}),
    ("reset", {"ConnectionResetError", "ServerDisconnectedError", "RemoteProtocolError"}),
)
_NOISE = re.compile(r"\s*ssl:<ssl\.SSLContext object at 0x[0-9a-f]+>|\s*ssl:(?:default|None|True|False)\b")


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    inner: BaseException | None = exc
    while inner is not None and len(out) < 10 and inner not in out:
        out.append(inner)
        inner = inner.__cause__ or inner.__context__
    return out


def network_failure(exc: BaseException) -> tuple[str, str] | None:
    """(kind, the innermost reason) when the chain holds a network failure: "refused", "dns",
    "tls", "timeout" or "reset"; None for anything else (an answer from the server)."""
    chain = _chain(exc)
    for inner in reversed(chain):  # innermost first: the socket's own word
        name = type(inner).__name__
        for kind, names in _NETWORK_KINDS:
            if name in names:
                text = _NOISE.sub("", str(inner).strip().splitlines()[0] if str(inner).strip() else name)
                return kind, text[:200]
    return None


def _network_error(kind: str, reason: str, model: str, where: str) -> ProviderError:
    if kind == "refused":
        return ProviderError(_("{model}: the connection{where} was refused — nothing is listening there ({reason})")
                             .format(model=model, where=where, reason=reason),
                             hint=_("start the model server, or check the address and port of --base-url"))
    if kind == "dns":
        return ProviderError(_("{model}: the host{where} was not found (DNS: {reason})")
                             .format(model=model, where=where, reason=reason),
                             hint=_("check the host name in --base-url, and that this machine is online"))
    if kind == "tls":
        return ProviderError(_("{model}: the secure (TLS) connection{where} failed ({reason})")
                             .format(model=model, where=where, reason=reason),
                             hint=_("check http:// versus https:// in --base-url, and the server's certificate"))
    if kind == "timeout":
        return ProviderError(_("{model}: the request{where} timed out ({reason})").format(
                             model=model, where=where, reason=reason),
                             hint=_("the server is slow or unreachable; retry, or raise request_timeout"),
                             retryable=True)
    return ProviderError(_("{model}: the connection{where} was closed by the server ({reason})")
                         .format(model=model, where=where, reason=reason),
                         hint=_("retry; if it keeps happening, check the server's log"), retryable=True)


def map_error(exc: BaseException, *, model: str, account: str, endpoint: str | None = None) -> ProviderError:
    """Turn any provider exception into a ProviderError whose hint says what to do; network
    failures name the endpoint (`endpoint`, else the provider's own API) and the cause; in the
    person's language (the names, causes and details are the provider's own)."""
    if isinstance(exc, ProviderError):
        return exc
    name, status, detail = type(exc).__name__, status_of(exc), _short(exc)
    where = (_(" at {endpoint}").format(endpoint=redact_url(endpoint)) if endpoint
             else _(" ({account}'s API)").format(account=account))
    cause = _cause(exc)
    retryable = is_retryable(exc)
    auth = f"`formspec-consult auth set {account}`"
    network = network_failure(exc)
    if network is not None:  # said as what it is, before any status litellm gave the wrapper
        return _network_error(*network, model, where)
    if name == "ContextWindowExceededError":
        hint = _("the conversation is too long for this model: run /compact, or lower context_window")
        return ProviderError(_("{model}: context window exceeded ({detail})").format(model=model, detail=detail),
                             hint=hint)
    if name in {"AuthenticationError", "CallerCredentialAuthenticationError"} or status == 401:
        return ProviderError(_("{model}: the API key was rejected").format(model=model),
                             hint=_("store a valid key with {command}").format(command=auth))
    if name == "PermissionDeniedError" or status == 403:
        return ProviderError(_("{model}: access denied ({detail})").format(model=model, detail=detail),
                             hint=_("check that your key may use this model"))
    if name == "NotFoundError" or status == 404:
        hint = _("check the model name (`formspec-consult doctor`) and, for a custom endpoint, --base-url")
        return ProviderError(_("model not found: {model} ({detail})").format(model=model, detail=detail), hint=hint)
    if name in {"RateLimitError", "CallerCredentialRateLimitError"} or status == 429:
        return ProviderError(_("{model}: rate limited ({detail})").format(model=model, detail=detail),
                             hint=_("wait a minute and retry, or check your plan's limits"), retryable=True)
    if name in {"PaymentRequiredError", "BudgetExceededError"} or status == 402:
        return ProviderError(_("{model}: out of credit or budget").format(model=model),
                             hint=_("top up the account behind this key"))
    if name == "ContentPolicyViolationError":
        return ProviderError(_("{model}: the provider refused the request (content policy)").format(model=model),
                             hint=_("rephrase and retry"))
    if name in {"Timeout", "APITimeoutError", "TimeoutError"}:
        return ProviderError(_("{model}: the request to the provider{where} timed out{cause}").format(
                             model=model, where=where, cause=cause),
                             hint=_("the provider is slow or unreachable; retry"), retryable=True)
    if name == "APIConnectionError":
        hint = _("check your connection and the endpoint (--base-url); is the server running?")
        return ProviderError(_("{model}: cannot reach the provider{where} ({detail}){cause}").format(
                             model=model, where=where, detail=detail, cause=cause), hint=hint, retryable=True)
    if retryable:
        return ProviderError(_("{model}: the provider{where} answered with error {status} ({detail}){cause}")
                             .format(model=model, where=where, status=status or "", detail=detail, cause=cause)
                             .replace("  ", " "), hint=_("the provider is having trouble; retry in a moment"),
                             retryable=True)
    if name in {"BadRequestError", "UnprocessableEntityError", "UnsupportedParamsError"} or status in {400, 422}:
        hint = _("the provider refused the request; run `formspec-consult doctor` to check the model")
        return ProviderError(_("{model}: bad request ({detail})").format(model=model, detail=detail), hint=hint)
    return ProviderError(f"{model}: {name}: {detail}", hint=_("run `formspec-consult doctor` to check the setup"))


# litellm's wording for a stream that closed with no finish_reason: a cut, not the server's word.
NO_FINISH_REASON = "finish_reason"
_WRAPPER = re.compile(r"^(?:litellm\.\w+: |\w+(?:Error|Exception)(?: - |: ))+")


def server_detail(exc: BaseException) -> str | None:
    """What the model server itself said when its stream failed partway, without litellm's
    wrapper classes ("litellm.MidStreamFallbackError: … OpenAIException - <message>"); None when
    the stream merely ended (no finish_reason) and the server said nothing."""
    first = _short(exc).split(" Original exception:")[0].strip()
    detail = _WRAPPER.sub("", first).strip()
    if not detail or (NO_FINISH_REASON in detail and "ended" in detail.lower()):
        return None
    return detail


CONTEXT_WORDS = re.compile(r"context (?:window|length|size)|too many tokens|exceed", re.IGNORECASE)


def is_context_overflow(text: str) -> bool:
    """Whether a server's message says the prompt did not fit its context window."""
    return bool(CONTEXT_WORDS.search(text))
