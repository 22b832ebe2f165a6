import socket

import pytest

from tests.conftest import NetworkBlocked


def test_connecting_to_a_public_address_is_refused() -> None:
    with socket.socket() as sock, pytest.raises(NetworkBlocked):
        sock.connect(("93.184.216.34", 80))


def test_resolving_a_public_name_is_refused() -> None:
    with pytest.raises(NetworkBlocked):
        socket.getaddrinfo("api.openai.com", 443)


def test_loopback_is_allowed() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.socket() as client:
            client.connect(server.getsockname())
