"""The money arithmetic of a day without a server: the oracle (`money_oracle.py`) against a
published calendar and hand-worked cases, and the test PSP's `due_on` (`tests/pix_psp/server.py`,
loaded as a module) against the oracle for thousands of generated cobvs."""

from __future__ import annotations

import importlib.util
import random
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
ANBIMA = REPO / "tests" / "data" / "anbima-holidays-2025-2030.txt"
DAY = timedelta(days=1)


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


oracle = load("money_oracle", HERE / "money_oracle.py")
psp = load("test_psp_server", REPO / "tests" / "pix_psp" / "server.py")


def anbima() -> set[date]:
    return {date.fromisoformat(line) for line in ANBIMA.read_text().splitlines()
            if line and not line.startswith("#")}


def days(first: date, last: date):
    while first <= last:
        yield first
        first += DAY


def cobv(original_cents: int, due: date, validity: int = 30, fine_bp: int = 0,
         interest_bp: int = 0) -> dict:
    """A cobv as our service writes it: multa modalidade 2 and juros modalidade 3, when > 0."""
    valor = {"original": f"{original_cents // 100}.{original_cents % 100:02d}"}
    if fine_bp:
        valor["multa"] = {"modalidade": 2, "valorPerc": f"{fine_bp // 100}.{fine_bp % 100:02d}"}
    if interest_bp:
        valor["juros"] = {"modalidade": 3, "valorPerc": f"{interest_bp // 100}.{interest_bp % 100:02d}"}
    return {"calendario": {"dataDeVencimento": due.isoformat(), "validadeAposVencimento": validity},
            "valor": valor}


def in_cents(parts: dict[str, Decimal] | None) -> dict[str, int] | None:
    return None if parts is None else {name: int(value * 100) for name, value in parts.items()}


# --- the calendar ---------------------------------------------------------------------------------

def test_the_oracle_s_holidays_are_anbima_s_from_2025_to_2030():
    listed = anbima()
    assert len(listed) == 78
    assert {d for d in days(date(2025, 1, 1), date(2030, 12, 31)) if oracle.holiday(d)} == listed
    # So every weekday of those years is a business day exactly when ANBIMA does not list it.
    assert all(oracle.business_day(d) == (d not in listed)
               for d in days(date(2025, 1, 1), date(2030, 12, 31)) if d.weekday() < 5)


def test_the_psp_s_holidays_are_anbima_s_from_2025_to_2030():
    listed = anbima()
    assert {d for d in days(date(2025, 1, 1), date(2030, 12, 31)) if psp.national_holiday(d)} == listed


def test_the_two_easter_algorithms_agree_over_the_gregorian_calendar():
    # Meeus' anonymous algorithm in the oracle, Gauss's (Lichtenberg's form) in the PSP: written
    # apart so that one slip does not hide in both.
    assert all(oracle.easter(year) == psp.easter(year) for year in range(1583, 4100))
    assert [oracle.easter(y) for y in (2024, 2025, 2026, 2038)] == [
        date(2024, 3, 31), date(2025, 4, 20), date(2026, 4, 5), date(2038, 4, 25)]


def test_black_consciousness_day_is_a_holiday_only_from_2024():
    assert not oracle.holiday(date(2023, 11, 20)) and oracle.holiday(date(2024, 11, 20))
    assert not psp.national_holiday(date(2023, 11, 20)) and psp.national_holiday(date(2024, 11, 20))


def test_a_pix_at_half_past_ten_at_night_in_brasilia_is_on_that_day_not_the_next_utc_one():
    # 01:30 UTC on the 11th is 22:30 on the 10th in Brasília (UTC-3).
    assert oracle.day_of("2026-03-11T01:30:00Z") == date(2026, 3, 10)
    at = datetime(2026, 3, 11, 1, 30, tzinfo=timezone.utc)
    assert oracle.day_of(at) == psp.brasilia_day(at) == date(2026, 3, 10)
    # Under the summer time Brazil kept until 2019 (UTC-2), 02:30 UTC was already the next day:
    # a fixed -03:00 would put it on Nov 30.
    assert oracle.day_of("2018-12-01T02:30:00Z") == date(2018, 12, 1)
    assert psp.brasilia_day(datetime(2018, 12, 1, 2, 30, tzinfo=timezone.utc)) == date(2018, 12, 1)
    with pytest.raises(ValueError):
        oracle.day_of(datetime(2026, 3, 11, 1, 30))


def test_a_charge_due_on_the_day_of_a_late_evening_pix_is_paid_on_time():
    due = date(2026, 3, 10)  # a Tuesday
    paid_on = oracle.day_of("2026-03-11T01:30:00Z")
    # Paid in full on the due day: no fine, no interest, nothing left.
    assert oracle.owed(10_000, 200, 100, due, [(paid_on, 10_000)], date(2026, 4, 10)) == (0, 0, 0)
    assert in_cents(psp.due_on(cobv(10_000, due, fine_bp=200, interest_bp=100), paid_on)) == {
        "original": 10_000}


# --- what a charge owes: hand-worked ----------------------------------------------------------------

def test_the_bug_report_s_case_owes_sixty_one_thirty_five_days_after_the_due_date():
    due = date(2026, 3, 10)  # a Tuesday, a business day: G = D
    # R$ 90,00, R$ 30,00 paid before the due date: principal 60,00 from then on.
    # Fine fixed at the end of G: 6000 x 200 / 10000 = 120 (R$ 1,20).
    # Interest over [G, G+5): 5 x 6000 x 100 = 3 000 000; / 300 000 = 10 (R$ 0,10).
    owed = oracle.owed(9_000, 200, 100, due, [(date(2026, 3, 5), 3_000)], due + 5 * DAY)
    assert owed == (6_000, 120, 10)
    assert sum(owed) == 6_130


def test_the_whole_balance_paid_on_the_due_date_settles_with_no_fine_or_interest():
    due = date(2026, 3, 10)
    payments = [(date(2026, 3, 5), 3_000), (due, 6_000)]
    assert oracle.owed(9_000, 200, 100, due, payments, due + 30 * DAY) == (0, 0, 0)
    assert oracle.excess(9_000, 200, 100, due, payments, due + 30 * DAY) == 0


def test_nothing_is_owed_beyond_the_principal_on_the_due_date_itself():
    due = date(2026, 3, 10)
    # Unpaid at the end of G: the fine is fixed but not yet owed, and no day of interest ran.
    assert oracle.owed(9_000, 200, 100, due, [], due) == (9_000, 0, 0)


def test_a_charge_due_on_a_saturday_paid_in_full_on_monday_owes_no_fine_or_interest():
    saturday = date(2026, 3, 14)
    monday, tuesday = date(2026, 3, 16), date(2026, 3, 17)
    assert oracle.effective_due_date(saturday) == monday
    assert oracle.owed(10_000, 200, 100, saturday, [(monday, 10_000)], monday) == (0, 0, 0)
    assert oracle.owed(10_000, 200, 100, saturday, [(monday, 10_000)], tuesday) == (0, 0, 0)
    # The PSP moves the due date alike: on Monday the cobv asks the original only.
    terms = cobv(10_000, saturday, fine_bp=200, interest_bp=100)
    assert in_cents(psp.due_on(terms, monday)) == {"original": 10_000}


def test_a_charge_due_on_a_saturday_owes_on_tuesday_the_fine_and_one_day_of_interest():
    saturday, tuesday = date(2026, 3, 14), date(2026, 3, 17)
    # G is Monday. Fine: 10000 x 200 / 10000 = 200. Interest over [Mon, Tue): 10000 x 100 =
    # 1 000 000; / 300 000 = 3.33 -> 3. (Counted from D, three days, it would be 10.)
    assert oracle.owed(10_000, 200, 100, saturday, [], tuesday) == (10_000, 200, 3)
    terms = cobv(10_000, saturday, fine_bp=200, interest_bp=100)
    assert in_cents(psp.due_on(terms, tuesday)) == {"original": 10_000, "multa": 200, "juros": 3}
    # Paying R$ 100,00 that Tuesday pays the interest and the fine first: 97,97 of principal.
    assert oracle.owed(10_000, 200, 100, saturday, [(tuesday, 10_000)], tuesday) == (203, 0, 0)


def test_a_due_date_on_good_friday_moves_to_monday():
    good_friday = date(2026, 4, 3)
    assert oracle.effective_due_date(good_friday) == date(2026, 4, 6)
    assert psp.next_business_day(good_friday) == date(2026, 4, 6)


def test_a_late_partial_payment_pays_interest_then_fine_then_principal_and_lowers_the_base():
    due = date(2026, 3, 10)
    paid_on, later = due + 10 * DAY, due + 20 * DAY
    # R$ 100,00, 2 % fine, 3 % a month. On paid_on, before paying: fine 200, interest over ten
    # days 10 x 10000 x 300 = 30 000 000; / 300 000 = 100. The R$ 50,00 pays 100 of interest,
    # 200 of fine and 4700 of principal: 5300 left.
    assert oracle.owed(10_000, 200, 300, due, [], paid_on) == (10_000, 200, 100)
    assert oracle.owed(10_000, 200, 300, due, [(paid_on, 5_000)], paid_on) == (5_300, 0, 0)
    # Ten more days on the lower base, from paid_on's own interval on:
    # N = 30 000 000 + 10 x 5300 x 300 = 45 900 000; / 300 000 = 153; 153 - 100 paid = 53.
    assert oracle.owed(10_000, 200, 300, due, [(paid_on, 5_000)], later) == (5_300, 0, 53)


def test_a_payment_smaller_than_the_interest_leaves_fine_and_principal_untouched():
    due = date(2026, 3, 10)
    paid_on = due + 10 * DAY
    # Interest accrued 100, fine 200: R$ 0,60 pays 60 of the interest and nothing else.
    assert oracle.owed(10_000, 200, 300, due, [(paid_on, 60)], paid_on) == (10_000, 200, 40)


def test_interest_is_rounded_once_over_the_total_not_day_by_day():
    due = date(2026, 3, 10)
    # 1000 x 100 a day = 100 000 / 300 000 = 0.33: rounded each day it would stay 0 forever;
    # over 30 days it is 3 000 000 / 300 000 = 10.
    assert oracle.owed(1_000, 0, 100, due, [], due + 30 * DAY) == (1_000, 0, 10)


def test_an_over_payment_is_detected():
    due = date(2026, 3, 10)
    # On time: R$ 120,00 for R$ 100,00 is R$ 20,00 too much.
    assert oracle.owed(10_000, 200, 300, due, [(due, 12_000)], due + 5 * DAY) == (0, 0, 0)
    assert oracle.excess(10_000, 200, 300, due, [(due, 12_000)], due + 5 * DAY) == 2_000
    # Ten days late, 110,00 pays interest 100, fine 200, principal 10000: 700 too much.
    late = [(due + 10 * DAY, 11_000)]
    assert oracle.owed(10_000, 200, 300, due, late, due + 10 * DAY) == (0, 0, 0)
    assert oracle.excess(10_000, 200, 300, due, late, due + 10 * DAY) == 700
    # Two payments on one day: the second finds nothing left to pay.
    twice = [(due, 10_000), (due, 10_000)]
    assert oracle.excess(10_000, 200, 300, due, twice, due) == 10_000


def test_an_organization_holiday_extends_the_effective_due_date():
    due = date(2026, 3, 10)  # a Tuesday
    own = {due}  # say, the city's anniversary
    assert oracle.effective_due_date(due, own) == due + DAY
    # On Wednesday the charge is still on time; on Thursday it owes the fine and one day.
    assert oracle.owed(10_000, 200, 100, due, [], due + DAY, own) == (10_000, 0, 0)
    assert oracle.owed(10_000, 200, 100, due, [], due + 2 * DAY, own) == (10_000, 200, 3)
    # Without that holiday Wednesday is already late.
    assert oracle.owed(10_000, 200, 100, due, [], due + DAY) == (10_000, 200, 3)
    # A holiday of its own on a Friday moves the due date past the weekend.
    assert oracle.effective_due_date(date(2026, 3, 13), {date(2026, 3, 13)}) == date(2026, 3, 16)


def test_the_psp_does_not_know_an_organization_s_holiday_so_its_cobv_must_carry_g():
    due = date(2026, 3, 10)
    own = {due}
    g = oracle.effective_due_date(due, own)
    # A cobv due on D asks the fine on Wednesday, which the charge does not owe yet...
    assert in_cents(psp.due_on(cobv(10_000, due, fine_bp=200, interest_bp=100), g)) == {
        "original": 10_000, "multa": 200, "juros": 3}
    # ... a cobv due on G asks what the charge owes.
    assert in_cents(psp.due_on(cobv(10_000, g, fine_bp=200, interest_bp=100), g)) == {"original": 10_000}
    assert oracle.owed(10_000, 200, 100, due, [], g, own) == (10_000, 0, 0)


# --- what the PSP asks: hand-worked -----------------------------------------------------------------

def test_the_psp_rounds_each_component_on_its_own():
    due = date(2026, 3, 10)
    # R$ 10,20, 2 % fine, 1 % a month, ten days late: fine 20.4 -> 20, interest
    # 10 x 1020 x 100 / 300 000 = 3.4 -> 3: 1043. Rounding the sum once would give 1044.
    assert in_cents(psp.due_on(cobv(1_020, due, fine_bp=200, interest_bp=100), due + 10 * DAY)) == {
        "original": 1_020, "multa": 20, "juros": 3}
    assert oracle.owed(1_020, 200, 100, due, [], due + 10 * DAY) == (1_020, 20, 3)


def test_the_psp_rounds_interest_of_exactly_half_a_centavo_up_even_on_the_largest_amount():
    due = date(2026, 3, 10)
    # R$ 1,00 at 1 % a month for 15 days: 15 x 100 x 100 / 300 000 = 0.5 -> 1.
    assert in_cents(psp.due_on(cobv(100, due, interest_bp=100), due + 15 * DAY)) == {
        "original": 100, "juros": 1}
    assert oracle.owed(100, 0, 100, due, [], due + 15 * DAY) == (100, 0, 1)
    # R$ 9.565.187.933,35 (`valor` allows ten digits of reais) at 10 % a month for 30 days:
    # 30 x 956518793335 x 1000 / 300 000 = 95651879333.5 -> 95651879334. Dividing by 30
    # before multiplying by the days rounds to 28 digits on the way and ends at ...33.
    big = 956_518_793_335
    assert in_cents(psp.due_on(cobv(big, due, interest_bp=1_000), due + 30 * DAY)) == {
        "original": big, "juros": 95_651_879_334}
    assert oracle.owed(big, 0, 1_000, due, [], due + 30 * DAY) == (big, 0, 95_651_879_334)


@pytest.mark.parametrize("due, validity, last", [
    # BACEN's examples in `calendario.validadeAposVencimento`: counted in calendar days from
    # the moved due date, and a last day that is not a business day moves to the next one.
    (date(2020, 10, 20), 4, date(2020, 10, 26)),   # A: Tue + 4 is a Saturday
    (date(2020, 12, 25), 0, date(2020, 12, 28)),   # B: Christmas moves to Monday
    (date(2020, 12, 25), 1, date(2020, 12, 29)),   # C
    (date(2020, 12, 25), 3, date(2020, 12, 31)),   # D
    (date(2020, 12, 25), 4, date(2021, 1, 4)),     # E: Mon + 4 is New Year's Day
    (date(2021, 8, 27), 5, date(2021, 9, 1)),      # F
    (date(2021, 8, 28), 5, date(2021, 9, 6)),      # G: from Monday; + 5 is a Saturday
])
def test_a_cobv_is_payable_through_its_last_valid_day_as_the_document_s_examples_say(due, validity, last):
    terms = cobv(10_000, due, validity, fine_bp=200, interest_bp=100)
    assert all(psp.due_on(terms, day) is not None for day in days(due - 3 * DAY, last))
    assert psp.due_on(terms, last + DAY) is None


# --- the PSP against the oracle ---------------------------------------------------------------------

def awkward_due_dates() -> list[date]:
    """Business days next to weekends and holidays and at the ends of months, 2025-2030."""
    listed = anbima()
    found = set()
    for day in days(date(2025, 1, 1), date(2030, 12, 31)):
        if not oracle.business_day(day):
            continue
        near_holiday = any(day + k * DAY in listed for k in (-3, -2, -1, 1, 2, 3))
        month_end = (day + 3 * DAY).month != day.month or (day - 3 * DAY).month != day.month
        if day.weekday() in (0, 4) or near_holiday or month_end:
            found.add(day)
    return sorted(found)


def generated_cases(seed: int, count: int, business_days_only: bool):
    """Random cobvs with the charge each mirrors: (A, f, r, D, payments, V, P). Amounts from a
    centavo to the ten digits of reais `valor` allows, fines up to 2 %, interest up to 10 % a month; payments before
    the due date, when there are some, leave the cobv's original at the balance."""
    rng = random.Random(seed)
    awkward = awkward_due_dates()
    start, span = date(2025, 1, 1), (date(2030, 12, 31) - date(2025, 1, 1)).days
    for _ in range(count):
        if business_days_only:
            due = rng.choice(awkward) if rng.random() < 0.7 else oracle.effective_due_date(
                start + rng.randrange(span) * DAY)
        else:
            due = start + rng.randrange(span) * DAY
        original = rng.choice([rng.randint(1, 999), rng.randint(1_000, 1_000_000),
                               rng.randint(1_000_000, 1_000_000_000),
                               rng.randint(1_000_000_000, 999_999_000_000)])
        fine_bp, interest_bp = rng.choice([0, rng.randint(1, 200), 200]), rng.choice([0, rng.randint(1, 1000)])
        validity = rng.randint(0, 60)
        paid_on = due + rng.randint(-5, validity + 8) * DAY
        payments = []
        if rng.random() < 0.5:
            for _ in range(rng.randint(1, 3)):
                before = min(due, paid_on) - rng.randint(1, 40) * DAY
                payments.append((before, rng.randint(1, 100_000)))
        amount = original + sum(paid for _, paid in payments)
        yield amount, fine_bp, interest_bp, due, payments, validity, paid_on


def check_against_oracle(case) -> str:
    amount, fine_bp, interest_bp, due, payments, validity, paid_on = case
    balance = amount - sum(paid for _, paid in payments)
    asked = in_cents(psp.due_on(cobv(balance, due, validity, fine_bp, interest_bp), paid_on))
    adjusted = oracle.effective_due_date(due)
    if asked is None:
        assert paid_on > oracle.effective_due_date(adjusted + validity * DAY), case
        return "expired"
    principal, fine, interest = oracle.owed(amount, fine_bp, interest_bp, due, payments, paid_on)
    assert (asked["original"], asked.get("multa", 0), asked.get("juros", 0)) == (
        principal, fine, interest), case
    late = paid_on > adjusted
    assert ("multa" in asked) == (late and fine_bp > 0), case
    assert ("juros" in asked) == (late and interest_bp > 0), case
    return "late" if late else "on time"


def test_the_psp_asks_what_the_charge_owes_for_thousands_of_cobvs_due_on_business_days():
    seen = {"late": 0, "on time": 0, "expired": 0}
    for case in generated_cases(seed=20260310, count=5_000, business_days_only=True):
        seen[check_against_oracle(case)] += 1
    assert seen["late"] > 2_500 and seen["on time"] > 300 and seen["expired"] > 200, seen


def test_the_psp_and_the_oracle_move_a_due_date_on_a_weekend_or_holiday_alike():
    seen = {"late": 0, "on time": 0, "expired": 0}
    for case in generated_cases(seed=7, count=1_500, business_days_only=False):
        seen[check_against_oracle(case)] += 1
    assert seen["late"] > 700 and seen["on time"] > 100, seen
