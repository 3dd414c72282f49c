"""schemathesis hooks for test_schemathesis.py (loaded through SCHEMATHESIS_HOOKS).

schemathesis draws `Idempotency-Key` from a small pool (the document's example first), so
different requests would share a key and the server would rightly answer 422
`idempotency_key_reused` instead of judging their data. Every well-formed key is made unique
here, across the processes that run side by side too (the process id is in the key); a key
the case means to be invalid (empty, longer than 255) is left as drawn.

A list's `fields` leaves out of each item what was not asked for, which the item schema (the
whole object, as every other answer has it) cannot say; the document's description of the
parameter says it. So schemathesis, which checks answers against the item schema, asks lists
without it; tests/integration/fields.rs checks what it does."""

from __future__ import annotations

import itertools
import os

import schemathesis

_KEYS = itertools.count(1)


@schemathesis.hook
def before_call(ctx, case, kwargs):
    if case.query:
        case.query.pop("fields", None)
    headers = case.headers or {}
    key = headers.get("Idempotency-Key")
    if isinstance(key, str) and 1 <= len(key) <= 255:
        headers["Idempotency-Key"] = f"schemathesis-{os.getpid()}-{next(_KEYS)}"
