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

#: A state that plausibly ends a lifecycle (no way out is expected).
TERMINAL_WORDS = BRANCH_WORDS | frozenset({
    "done", "completed", "complete", "closed", "finished", "paid", "settled", "collected", "delivered",
    "archived", "resolved", "fulfilled", "shipped", "discharged", "graduated", "won", "ended",
    "posted", "served",
    "selesai", "lunas", "diambil", "terkirim", "ditutup", "tutup", "dibayar", "tuntas",
    "lulus", "sembuh", "arsip",
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
    """Whether a state name reads as an end state (done, paid, collected, cancelled, …)."""
    return any(w in TERMINAL_WORDS for w in words(name))


def mentions(name: str, vocabulary: frozenset[str]) -> bool:
    """Whether any word of ``name`` is in ``vocabulary``."""
    return any(w in vocabulary for w in words(name))
