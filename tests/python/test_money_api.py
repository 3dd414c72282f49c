"""The API's money against the plain model (`money_oracle.py`): thousands of generated charges,
each with a sequence of payments made at instants around midnight in Brasília, due on weekdays,
weekends, national holidays and the organization's own holidays, created and paid through the
live server's `/v1`; then what the server shows — status, effective due date, amount due and
its parts, paid amount — is compared with what the day-by-day model computes, and so is every
payment the server refused as more than was owed.

The model shares no code with the server: its own holiday rules (checked against ANBIMA's
published calendar in `test_money_oracle.py`), Python's time zone database, a literal loop over
days. Seeded, so that a failure names a case that can be run again (`MONEY_SEED`, `MONEY_CASES`).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import urllib.error
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "clients"))

from harness import Server, cpf, server_binary  # noqa: E402

import money_oracle as oracle  # noqa: E402

SEED = int(os.environ.get("MONEY_SEED", "20261206"))
CASES = int(os.environ.get("MONEY_CASES", "1500"))
ORG = 1


@pytest.fixture(scope="module")
def server():
    s = Server().start()
    yield s
    s.stop()
    s.cleanup()


def token(server: Server) -> str:
    """An API token of organization 1's admin with room for every request of the test."""
    out = subprocess.run(
        [str(server_binary()), "token", "create", "--organization", server.org(ORG)["id"],
         "--person", server.person("admin", ORG)["email"], "--audience", "api",
         "--rate-limit", "1000000/hour", "--label", "money oracle", "--database-url", server.db_url],
        cwd=server.dir, capture_output=True, text=True, timeout=60, check=True)
    return out.stdout.strip().splitlines()[-1].strip()


def today() -> date:
    return oracle.day_of(datetime.now(timezone.utc))


def at_night(day: date, rng: random.Random) -> str:
    """An instant within an hour and a half of midnight at the start of `day` in Brasília, on
    either side: the UTC date and the Brasília date differ for most of them."""
    midnight = datetime(day.year, day.month, day.day, tzinfo=oracle.BRASILIA)
    instant = midnight + timedelta(minutes=rng.randint(-90, 90), seconds=rng.randint(0, 59))
    return instant.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def special_days(first: date, last: date) -> list[date]:
    """The days around which money goes wrong: weekends, national holidays, the ends of months."""
    out, day = [], first
    while day <= last:
        if day.weekday() >= 5 or oracle.holiday(day) or (day + timedelta(days=1)).day == 1:
            out.append(day)
        day += timedelta(days=1)
    return out


def generate(rng: random.Random, now: date, extra: list[date], specials: list[date]) -> dict:
    """One charge: its terms and its payments (day, instant, centavos), in the order made."""
    amount = rng.choice([rng.randint(1, 99), rng.randint(100, 10_000), rng.randint(10_000, 5_000_000),
                         rng.randint(1, 10_000_000_000)])
    due = rng.choice([rng.choice(specials), rng.choice(extra),
                      now - timedelta(days=rng.randint(0, 700)), now + timedelta(days=rng.randint(0, 30))])
    fine_bp, interest_bp = rng.choice([0, 100, 200, rng.randint(0, 200)]), rng.choice([0, 100, 1000, rng.randint(0, 1000)])
    payments = []
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        day = due + timedelta(days=rng.choice([rng.randint(-20, 0), rng.randint(0, 5), rng.randint(0, 120)]))
        day = min(day, now - timedelta(days=1))  # a past night, so that paid_at is never ahead of now
        share = rng.choice([1, 2, 3, 10])
        payments.append((day, max(1, amount // share + rng.randint(-50, 50))))
    return {"amount": amount, "due": due, "fine_bp": fine_bp, "interest_bp": interest_bp, "payments": payments}


def reais(cents: int) -> float:
    return round(cents / 100, 2)


def run_case(server: Server, api: str, customer: str, case: dict, extra: list[date], rng: random.Random) -> str | None:
    """Create and pay one charge through the API and compare it with the model: a description
    of the first disagreement, or None."""
    created = server.rest("/v1/charges", token=api, method="POST", body={
        "customer_id": customer, "description": "Oráculo", "amount": reais(case["amount"]),
        "due_date": case["due"].isoformat(), "fine_percent": case["fine_bp"] / 100,
        "interest_percent": case["interest_bp"] / 100})["data"]
    accepted: list[tuple[date, int]] = []
    for day, cents in case["payments"]:
        instant = at_night(day, rng)
        paid_day = oracle.day_of(datetime.fromisoformat(instant.replace("Z", "+00:00")))
        trial = accepted + [(paid_day, cents)]
        on = max(today(), paid_day)
        over = oracle.excess(case["amount"], case["fine_bp"], case["interest_bp"], case["due"], trial, on, extra)
        settled_before = accepted and sum(oracle.owed(case["amount"], case["fine_bp"], case["interest_bp"],
                                                      case["due"], accepted, today(), extra)) == 0
        try:
            server.rest(f"/v1/charges/{created['id']}/pay", token=api, method="POST",
                        body={"amount": reais(cents), "method": "pix", "paid_at": instant})
            ok = True
        except urllib.error.HTTPError as e:
            ok = False
            if e.code not in (409, 422):
                return f"{created['id']}: paying {cents} at {instant} answered {e.code} {e.read()[:300]!r}"
        expected_ok = over == 0 and not settled_before
        if ok != expected_ok:
            return (f"{created['id']} {case}: paying {cents} at {instant} (day {paid_day}) was "
                    f"{'accepted' if ok else 'refused'}; the model says excess {over}, settled {settled_before}")
        if ok:
            accepted.append((paid_day, cents))
    before = today()
    got = server.rest(f"/v1/charges/{created['id']}", token=api)["data"]
    if today() != before:
        return None  # midnight came between: the next run looks again
    principal, fine, interest = oracle.owed(case["amount"], case["fine_bp"], case["interest_bp"],
                                            case["due"], accepted, before, extra)
    g = oracle.effective_due_date(case["due"], extra)
    total = principal + fine + interest
    status = "paid" if accepted and total == 0 else ("overdue" if before > g else "pending")
    if status == "paid":
        principal = fine = interest = total = 0
    want = {"status": status, "effective_due_date": g.isoformat(), "amount_due": reais(total),
            "principal_due": reais(principal), "fine_due": reais(fine), "interest_due": reais(interest),
            "paid_amount": reais(sum(c for _, c in accepted))}
    seen = {k: got[k] for k in want}
    if seen != want:
        return f"{created['id']} {case} paid {accepted} on {before}: the server shows {seen}, the model {want}"
    return None


def test_the_api_owes_what_the_day_by_day_model_owes(server):
    rng = random.Random(SEED)
    now = today()
    api = token(server)
    # The organization's own holidays: weekdays of the last two years and the next month.
    extra = sorted({now - timedelta(days=rng.randint(-30, 700)) for _ in range(40)})
    extra = [d for d in extra if d.weekday() < 5 and not oracle.holiday(d)]
    server.rest("/v1/calendar", token=api, method="PUT",
                body={"holidays": [{"date": d.isoformat(), "name": "Feriado municipal"} for d in extra]})
    shown = server.rest("/v1/calendar", token=api)["data"]
    assert [h["date"] for h in shown["holidays"]] == [d.isoformat() for d in extra]
    assert shown["today"] == now.isoformat() and shown["time_zone"] == "America/Sao_Paulo"
    customer = server.rest("/v1/customers", token=api, method="POST", body={
        "name": "Oráculo da Silva", "document": cpf(), "email": "oraculo@example.com.br"})["data"]["id"]
    specials = special_days(now - timedelta(days=700), now + timedelta(days=30))
    cases = [(generate(rng, now, extra, specials), random.Random(rng.random())) for _ in range(CASES)]
    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(lambda c: run_case(server, api, customer, c[0], extra, c[1]), cases))
    wrong = [o for o in outcomes if o]
    assert not wrong, f"{len(wrong)} of {CASES} cases disagree (seed {SEED}); the first ones:\n" + "\n".join(wrong[:5])
    paid = sum(1 for c, _ in cases if c["payments"])
    assert paid > CASES // 2, "most cases make payments"
