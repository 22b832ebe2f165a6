"""The per-client token bucket behind the registry's 429s, on a fake clock."""

from __future__ import annotations

from formspec_consult.servers.registry_guard import TokenBucket


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_is_allowed_then_refused_until_tokens_refill() -> None:
    clock = FakeClock()
    bucket = TokenBucket(rate=2.0, burst=3, clock=clock)
    assert [bucket.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = bucket.take("a")
    assert 0.49 < wait <= 0.5
    clock.now += 0.5
    assert bucket.take("a") == 0.0
    assert bucket.take("a") > 0


def test_clients_have_separate_buckets() -> None:
    bucket = TokenBucket(rate=1.0, burst=1, clock=FakeClock())
    assert bucket.take("a") == 0.0 and bucket.take("a") > 0
    assert bucket.take("b") == 0.0


def test_refill_never_exceeds_the_burst() -> None:
    clock = FakeClock()
    bucket = TokenBucket(rate=10.0, burst=2, clock=clock)
    bucket.take("a")
    clock.now += 3600
    assert [bucket.take("a") == 0.0 for _ in range(3)] == [True, True, False]
