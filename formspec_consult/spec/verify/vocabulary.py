"""Words the verifiers recognise in state names, in English and Indonesian.

A state name is split into words (``no_show`` → ``no``, ``show``), and matched word by word, so
``order_cancelled`` and ``dibatalkan`` are both read as a cancellation.
"""

from __future__ import annotations

import re

#: A lifecycle branch: the business case where the normal flow does not happen.
BRANCH_WORDS = frozenset({
    # English
    "cancel", "cancelled", "canceled", "cancellation", "rejected", "reject", "declined", "lost", "void",
    "voided", "failed", "failure", "refunded", "refund", "returned", "expired", "overdue", "reopened",
    "noshow", "abandoned", "withdrawn", "disputed", "aborted", "terminated", "suspended", "written",
    # Indonesian
    "batal", "dibatalkan", "pembatalan", "ditolak", "tolak", "hilang", "gagal", "kedaluwarsa",
    "kadaluarsa", "terlambat", "telat", "dikembalikan", "retur", "hangus", "ditarik",
})

#: Branch states a record goes on from (a late payment is still paid, a reopened job is done again):
#: not an end, though they are a branch.
GOES_ON_WORDS = frozenset({"overdue", "reopened", "suspended", "disputed", "terlambat", "telat", "menunggak"})

#: A state that plausibly ends a lifecycle (no way out is expected), in English and Indonesian.
TERMINAL_WORDS = (BRANCH_WORDS - GOES_ON_WORDS) | frozenset({
    # English
    "done", "completed", "complete", "closed", "finished", "paid", "settled", "collected", "delivered",
    "archived", "resolved", "fulfilled", "shipped", "discharged", "graduated", "won", "ended",
    "posted", "served", "received", "left", "departed", "walkout", "absent", "missed", "pickedup",
    "checkedout", "succeeded", "dismissed", "expelled", "deceased", "sold",
    # Indonesian
    "selesai", "lunas", "diambil", "terkirim", "ditutup", "tutup", "dibayar", "tuntas", "lulus",
    "sembuh", "arsip", "diterima", "diserahkan", "pulang", "pergi", "absen", "mangkir", "tidakhadir",
    "berhasil", "sukses", "berakhir", "terjual", "keluar", "dikeluarkan", "meninggal", "dibatalkan",
    "batal", "ditolak",
})

#: A state that waits for something to happen next: never an end, whatever else its name says.
WAITING_WORDS = GOES_ON_WORDS | frozenset({
    # English
    "pending", "waiting", "hold", "onhold", "paused", "draft", "open", "queued", "progress", "inprogress",
    "processing", "scheduled", "booked", "ordered", "confirmed", "ready", "started", "new", "submitted",
    # Indonesian
    "menunggu", "tertunda", "ditunda", "ditahan", "proses", "diproses", "antri", "antre", "baru",
    "dipesan", "dikonfirmasi", "siap", "dikerjakan", "dijadwalkan", "diajukan",
})

#: Field names that usually hold a due date (a lifecycle with one often needs an overdue branch).
DUE_WORDS = frozenset({"due", "deadline", "jatuh", "tempo", "expires", "expiry"})

#: Field names that usually hold an amount of money or a quantity that must not go negative.
AMOUNT_WORDS = frozenset({
    "price", "amount", "total", "cost", "fee", "rate", "deposit", "balance", "subtotal", "discount",
    "tax", "tip", "salary", "wage", "commission", "quantity", "qty", "weight",
    "harga", "jumlah", "biaya", "tarif", "ongkos", "saldo", "setoran", "iuran", "berat", "gaji",
    "komisi", "diskon", "pajak", "denda", "uang",
})

_SPLIT = re.compile(r"[^a-z0-9]+")


def words(name: str) -> list[str]:
    """Lower-case words of an identifier or label (``no_show`` → ``["no", "show", "noshow"]``)."""
    parts = [p for p in _SPLIT.split(name.lower()) if p]
    return parts + ["".join(parts)] if len(parts) > 1 else parts


def is_branch(name: str) -> bool:
    """Whether a state name reads as a branch (cancelled, rejected, lost, overdue, …)."""
    return any(w in BRANCH_WORDS for w in words(name))


def is_terminal(name: str) -> bool:
    """Whether a state name reads as an end state (done, paid, collected, cancelled, selesai, lunas,
    batal, …); a name that says it waits (`waiting_payment`, `menunggu_lunas`) does not."""
    found = words(name)
    return any(w in TERMINAL_WORDS for w in found) and not any(w in WAITING_WORDS for w in found)


def is_waiting(name: str) -> bool:
    """Whether a state name says it waits for a next step (pending, on_hold, overdue, menunggu, …)."""
    return any(w in WAITING_WORDS for w in words(name))


def mentions(name: str, vocabulary: frozenset[str]) -> bool:
    """Whether any word of ``name`` is in ``vocabulary``."""
    return any(w in vocabulary for w in words(name))
