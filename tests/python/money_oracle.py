"""The money arithmetic of a day, written the plain way: the reference the service's charge math
and the test PSP are checked against. Slow on purpose (a loop over days, integers only, no
closed forms), so that a finance person can follow it line by line.

The rules:

Calendar. A payment's day is the date of its instant in Brasília (America/Sao_Paulo, from the
tz database: Brazil kept summer time until 2019, so a fixed -03:00 would be wrong for older
instants). A business day is neither a Saturday nor a Sunday nor a national banking holiday:
Jan 1, Carnival Monday and Tuesday (Easter - 48 and - 47 days), Good Friday (Easter - 2),
Apr 21, May 1, Corpus Christi (Easter + 60), Sep 7, Oct 12, Nov 2, Nov 15, Nov 20 (from 2024
on), Dec 25. An organization may add holidays of its own. The effective due date G of a due
date D is the first business day on or after D (Código Civil, art. 132, § 1).

What a charge owes. A charge of amount A (centavos) with a fine of f basis points (at most 200)
and interest of r basis points a month, due on D, paid by payments (day, centavos) net of
refunds. Take the days in order; on each day s apply its payments in order:
  - after G (s > G) a payment pays first the interest outstanding, then the fine outstanding,
    then the principal; on or before G it pays principal only;
  - what is left of a payment once the principal is 0 is an over-payment (excess).
At the end of day G the fine is fixed: F = B x f / 10000 rounded half up, B the principal
still unpaid after G's payments (no principal, no fine). Interest accrues by whole days: every
day s with G <= s < t adds B_s x r to a running numerator N, B_s the principal after day s's
payments; the interest accrued by day t is N / 300000 (r / 30 a day of a 30-day month) rounded
half up once, over the total, never day by day. What is owed on day t, after t's payments: the
principal, the fine less what paid it (only after G), the interest accrued less what paid it.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

BRASILIA = ZoneInfo("America/Sao_Paulo")
ONE_DAY = timedelta(days=1)


def easter(year: int) -> date:
    """Easter Sunday of the Gregorian calendar (the anonymous algorithm of Meeus' "Astronomical
    Algorithms", ch. 8)."""
    a = year % 19
    b, c = divmod(year, 100)
    d, e = divmod(b, 4)
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    l = (32 + 2 * e + 2 * i - h - k) % 7  # noqa: E741 (the algorithm's own name)
    m = (a + 11 * h + 22 * l) // 451
    month, day = divmod(h + l - 7 * m + 114, 31)
    return date(year, month, day + 1)


def national_holidays(year: int) -> set[date]:
    """Brazil's national banking holidays of a year."""
    e = easter(year)
    moving = {e - timedelta(days=48), e - timedelta(days=47),  # Carnival Monday and Tuesday
              e - timedelta(days=2),                            # Good Friday
              e + timedelta(days=60)}                           # Corpus Christi
    fixed = [(1, 1), (4, 21), (5, 1), (9, 7), (10, 12), (11, 2), (11, 15), (12, 25)]
    if year >= 2024:  # Dia da Consciência Negra, a national holiday by Lei 14.759/2023
        fixed.append((11, 20))
    return moving | {date(year, month, day) for month, day in fixed}


def holiday(day: date) -> bool:
    return day in national_holidays(day.year)


def business_day(day: date, extra=()) -> bool:
    return day.weekday() < 5 and not holiday(day) and day not in extra


def effective_due_date(due: date, extra=()) -> date:
    day = due
    while not business_day(day, extra):
        day += ONE_DAY
    return day


def day_of(instant) -> date:
    """The Brasília day of an instant: an aware datetime or an RFC 3339 string."""
    if isinstance(instant, str):
        instant = datetime.fromisoformat(instant.replace("Z", "+00:00"))
    if instant.tzinfo is None:
        raise ValueError("an instant needs its offset")
    return instant.astimezone(BRASILIA).date()


def round_half_up(numerator: int, denominator: int) -> int:
    """numerator / denominator rounded half up, for numerator >= 0."""
    return (2 * numerator + denominator) // (2 * denominator)


def _run(amount, fine_bp, interest_bp, due, payments, on, extra_holidays):
    """The day loop: (principal, fine owed, interest owed, excess) at the end of day `on`."""
    g = effective_due_date(due, extra_holidays)
    payments = sorted(payments, key=lambda p: p[0])  # stable: a day's payments keep their order
    principal, fine, fine_paid, interest_paid, numerator, excess = amount, 0, 0, 0, 0, 0
    day = min([due] + [d for d, _ in payments])
    while day <= on:
        interest_accrued = round_half_up(numerator, 300_000)
        for _, paid in (p for p in payments if p[0] == day):
            if day > g:
                to_interest = min(paid, interest_accrued - interest_paid)
                interest_paid += to_interest
                paid -= to_interest
                to_fine = min(paid, fine - fine_paid)
                fine_paid += to_fine
                paid -= to_fine
            to_principal = min(paid, principal)
            principal -= to_principal
            excess += paid - to_principal
        if day == g:
            fine = round_half_up(principal * min(fine_bp, 200), 10_000)
        if g <= day < on:
            numerator += principal * interest_bp  # the interval [day, day + 1)
        day += ONE_DAY
    fine_owed = fine - fine_paid if on > g else 0
    return principal, fine_owed, round_half_up(numerator, 300_000) - interest_paid, excess


def owed(amount: int, fine_bp: int, interest_bp: int, due: date, payments, on: date,
         extra_holidays=()) -> tuple[int, int, int]:
    """(principal, fine, interest) in centavos a charge owes at the end of day `on`."""
    principal, fine, interest, _ = _run(amount, fine_bp, interest_bp, due, payments, on,
                                        extra_holidays)
    return principal, fine, interest


def excess(amount: int, fine_bp: int, interest_bp: int, due: date, payments, on: date,
           extra_holidays=()) -> int:
    """Centavos paid beyond what was owed, up to the end of day `on`."""
    return _run(amount, fine_bp, interest_bp, due, payments, on, extra_holidays)[3]
