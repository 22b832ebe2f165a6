"""A network failure is said as what it is — refused, DNS, TLS, timeout — not as a provider outage,
even when litellm wraps it as "InternalServerError 500"; refused, DNS and TLS are not retried."""

from __future__ import annotations

import socket
import ssl

import pytest

from formspec_consult.providers.errors import map_error


def _named(name: str, status: int | None = None) -> type[Exception]:
    return type(name, (Exception,), {"status_code": status})


def litellm_like(innermost: BaseException) -> BaseException:
    """The chain litellm raises for a failed connection (seen against 127.0.0.1:9): a 500
    InternalServerError over OpenAI's APIConnectionError over aiohttp's error, over the socket's."""
    noisy = _named("ClientConnectorError")(
        "Cannot connect to host 127.0.0.1:9 ssl:<ssl.SSLContext object at 0x7fbbc4be1010> [Connect call failed]")
    noisy.__cause__ = innermost
    connection = _named("APIConnectionError")("Connection error.")
    connection.__cause__ = noisy
    outer = _named("InternalServerError", 500)("litellm.InternalServerError: OpenAIException - Connection error.")
    outer.__cause__ = connection
    return outer


@pytest.mark.parametrize(("innermost", "said", "advice", "retryable"), [
    (ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 9)"), "was refused — nothing is listening",
     "start the model server", False),
    (socket.gaierror(-2, "Name or service not known"), "was not found (DNS", "check the host name", False),
    (ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number"), "secure (TLS) connection",
     "http:// versus https://", False),
    (TimeoutError("timed out"), "timed out", "raise request_timeout", True),
])
def test_a_network_failure_is_named_as_what_it_is_not_as_error_500(
        innermost: BaseException, said: str, advice: str, retryable: bool) -> None:
    mapped = map_error(litellm_like(innermost), model="openai/fake", account="127.0.0.1",
                       endpoint="http://127.0.0.1:9/v1")
    text = str(mapped)
    assert said in text and advice in text and "http://127.0.0.1:9/v1" in text
    assert "500" not in text and "having trouble" not in text and "SSLContext" not in text
    assert mapped.retryable is retryable


def test_an_answer_from_the_server_is_still_read_by_its_status() -> None:
    mapped = map_error(_named("RateLimitError", 429)("slow down"), model="openai/gpt-4o", account="openai")
    assert "rate limited" in str(mapped) and mapped.retryable
