"""Registry benchmark: 10,000 generated modules, on SQLite and (when the test server is up) PostgreSQL.

Prints, per backend: search p50/p95 through the store (goal: p50 ≤ 10 ms on SQLite) against the
floor of the bare full-text query in the same run; then 200 concurrent HTTP clients calling
`search_modules_registry` on a registry-serve subprocess for a bounded time (goal: 0 errors).
Loopback only. PostgreSQL URL: $FORMSPEC_BENCH_PG, else tests/.tools/pg.url (make test starts it).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from formspec_consult.registry.db import catalogue_dir, open_store
from formspec_consult.registry.importer import collect
from formspec_consult.registry.models import AiIndex, ModuleRecord
from formspec_consult.registry.text import query_terms

ROOT = Path(__file__).resolve().parents[1]
N_MODULES = 10_000
CLIENTS = 200
LOAD_SECONDS = float(os.environ.get("BENCH_REGISTRY_SECONDS", "8"))
WORKERS = int(os.environ.get("BENCH_REGISTRY_WORKERS", "1"))
QUERIES = [
    "online payment",
    "pembayaran online",
    "aplikasi kasir",
    "stok barang di gudang",
    "kirim pesan WA ke pelanggan",
    "customers book appointments online",
    "loyalty points for repeat customers",
    "slip gaji karyawan",
    "sewa mobil",
    "rekam medis pasien",
    "arisan keluarga",
    "invoice",
    "expired goods",
    "laporan penjualan harian",
    "barcode",
]
FILLER = [
    "fast",
    "simple",
    "reliable",
    "cloud",
    "mobile",
    "offline",
    "multi",
    "user",
    "branch",
    "export",
    "import",
    "sync",
    "report",
    "daily",
    "weekly",
]


def generate(n: int, seed: int = 7) -> list[ModuleRecord]:
    """`n` plausible modules: variations of the bundled ones with shuffled features and filler words."""
    rng = random.Random(seed)
    bases = list(collect(catalogue_dir(), honour_annotations=True).modules.values())
    modules: list[ModuleRecord] = []
    for i in range(n):
        base = rng.choice(bases)
        ai = base.ai_index
        words = " ".join(rng.sample(FILLER, 4))
        modules.append(
            ModuleRecord(
                name=f"{base.name}-{i:05d}",
                description=f"{base.description} Variant {i}: {words}.",
                version=f"{rng.randint(0, 4)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}",
                trust_tier=rng.choice(["official", "verified", "community"]),
                vendor=f"vendor{rng.randint(1, 400)}",
                ai_index=AiIndex(
                    category=ai.category,
                    features=tuple(rng.sample(ai.features, max(1, len(ai.features) - 1))),
                    aliases=tuple(rng.sample(ai.aliases, max(1, len(ai.aliases) - 2))),
                    integration_pattern=ai.integration_pattern,
                    skills_for_ai=ai.skills_for_ai,
                ),
            )
        )
    return modules


def timed(fn: Any, rounds: int) -> list[float]:
    samples = []
    for i in range(rounds):
        query = QUERIES[i % len(QUERIES)]
        start = time.perf_counter()
        fn(query)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def pct(samples: list[float], q: float) -> float:
    return sorted(samples)[min(len(samples) - 1, int(q * len(samples)))]


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def load(host: str, port: int, seconds: float) -> tuple[int, int, list[float]]:
    """CLIENTS concurrent clients, one keep-alive TCP connection each, calling the search tool until
    time is up. Raw HTTP/1.1 on asyncio streams: httpx's per-request cost in one process would
    otherwise be what is measured (it capped the run at ~20 calls/s even against /healthz)."""
    deadline = time.perf_counter() + seconds
    ok = errors = 0
    latencies: list[float] = []

    def request(i: int) -> bytes:
        args = {"query": QUERIES[i % len(QUERIES)], "limit": 5}
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "search_modules_registry", "arguments": args},
            }
        ).encode()
        head = (
            f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        return head.encode() + body

    async def client(k: int) -> None:
        nonlocal ok, errors
        reader, writer = await asyncio.open_connection(host, port)
        i = k
        try:
            while time.perf_counter() < deadline:
                start = time.perf_counter()
                writer.write(request(i))
                await writer.drain()
                status = await reader.readline()
                length = 0
                while (line := await reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    length = int(value) if name.lower() == "content-length" else length
                data = await reader.readexactly(length)
                latencies.append((time.perf_counter() - start) * 1000)
                good = status.split()[1:2] == [b"200"] and json.loads(data)["result"]["isError"] is False
                ok, errors = (ok + 1, errors) if good else (ok, errors + 1)
                i += CLIENTS
        except (OSError, asyncio.IncompleteReadError, ValueError, KeyError):
            errors += 1
        finally:
            writer.close()

    await asyncio.gather(*(client(k) for k in range(CLIENTS)))
    return ok, errors, latencies


def serve_and_load(db_url: str) -> tuple[int, int, list[float]]:
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "formspec_consult",
        "registry-serve",
        "--port",
        str(port),
        "--db",
        db_url,
        "--rate",
        "0",
        "--workers",
        str(WORKERS),
    ]
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while True:  # bounded wait for the server to come up
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("registry-serve did not start") from None
                time.sleep(0.2)
        return asyncio.run(load("127.0.0.1", port, LOAD_SECONDS))
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def bench_backend(label: str, url: str, modules: list[ModuleRecord]) -> None:
    start = time.perf_counter()
    store = open_store(url)
    store.save([], modules)
    print(
        f"[{label}] loaded {len(store.module_names())} modules in {time.perf_counter() - start:.1f} s",
        flush=True,
    )
    try:
        store.search("warm up")
        floor = timed(lambda q: store.raw_search_ids(query_terms(q), 10), 300)  # type: ignore[attr-defined]
        full = timed(lambda q: store.search(q, limit=10), 300)
        f50, s50 = statistics.median(floor), statistics.median(full)
        print(
            f"[{label}] search p50 {s50:.2f} ms  p95 {pct(full, 0.95):.2f} ms  | floor (bare FTS query) p50 {f50:.2f} ms"
            f"  | ratio {s50 / f50:.2f}x",
            flush=True,
        )
        ok, errors, lat = serve_and_load(url)
        print(
            f"[{label}] {CLIENTS} concurrent HTTP clients, {WORKERS} server process(es), {LOAD_SECONDS:.0f} s: {ok} calls, {errors} errors, "
            f"{ok / LOAD_SECONDS:.0f} calls/s, p50 {statistics.median(lat):.1f} ms, p95 {pct(lat, 0.95):.1f} ms",
            flush=True,
        )
    finally:
        store.close()


def main() -> int:
    modules = generate(N_MODULES)
    with tempfile.TemporaryDirectory() as tmp:
        bench_backend("sqlite", f"sqlite:///{Path(tmp) / 'registry.db'}", modules)
    pg = os.environ.get("FORMSPEC_BENCH_PG") or (
        (ROOT / "tests/.tools/pg.url").read_text().strip() if (ROOT / "tests/.tools/pg.url").is_file() else ""
    )
    if not pg:
        print("[postgres] skipped: no server (run bash tests/setup/20-postgres.sh or set FORMSPEC_BENCH_PG)")
        return 0
    import psycopg

    from formspec_consult.registry.postgres_store import split_schema

    url = f"{pg}?schema=bench_{uuid.uuid4().hex[:8]}"
    try:
        bench_backend("postgres", url, modules)
    finally:
        dsn, schema = split_schema(url)
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main())
