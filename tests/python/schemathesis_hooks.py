"""schemathesis hooks for test_schemathesis.py (loaded through SCHEMATHESIS_HOOKS).

schemathesis draws `Idempotency-Key` from a small pool (the document's example first), so
different requests would share a key and the server would rightly answer 422
`idempotency_key_reused` instead of judging their data. Every well-formed key is made unique
here, across the processes that run side by side too (the process id is in the key); a key
the case means to be invalid (empty, longer than 255) is left as drawn."""

from __future__ import annotations

import itertools
import os

import schemathesis

_KEYS = itertools.count(1)


@schemathesis.hook
def before_call(ctx, case, kwargs):
    headers = case.headers or {}
    key = headers.get("Idempotency-Key")
    if isinstance(key, str) and 1 <= len(key) <= 255:
        headers["Idempotency-Key"] = f"schemathesis-{os.getpid()}-{next(_KEYS)}"
