"""A network failure names the endpoint it could not use and the underlying cause."""

from __future__ import annotations

from formspec_consult.providers.errors import map_error


class APIConnectionError(Exception):
    pass


class ServiceUnavailableError(Exception):
    status_code = 500


def test_a_connection_failure_names_the_url_and_the_refused_connection() -> None:
    try:
        try:
            raise ConnectionRefusedError(111, "Connection refused")
        except ConnectionRefusedError as inner:
            raise APIConnectionError("Connection error.") from inner
    except APIConnectionError as exc:
        mapped = map_error(exc, model="openai/gpt-4o", account="openai", endpoint="http://10.0.0.5:8000/v1")
    assert "http://10.0.0.5:8000/v1" in str(mapped) and "Connection refused" in str(mapped)
    assert "\n" not in str(mapped)


def test_a_server_error_without_a_custom_endpoint_names_the_providers_api() -> None:
    mapped = map_error(ServiceUnavailableError("upstream overloaded"), model="anthropic/claude-x", account="anthropic")
    assert "anthropic's API" in str(mapped) and "500" in str(mapped) and "upstream overloaded" in str(mapped)
