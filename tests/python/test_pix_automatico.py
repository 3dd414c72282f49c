"""Pix Automático for agreements, with real processes: the test PSP (`tests/pix_psp/server.py`,
BACEN's API Pix with `/locrec`, `/rec`, `/cobr` and their webhooks, every body we send checked
against the document's schemas) playing the payer, and the real server binary.

An agreement asks for Pix Automático; once accepted the server creates the recurrence at the PSP
and keeps its authorization code; the payer authorizes (journey 2: the code alone; journey 4: the
code that also pays the down payment), and each instalment entering its lead window (2 to 10 days
before its date) becomes a recurring charge whose Pix pays it. A failed debit falls back to a
notice with the instalment's own code; the debtor's cancellation, a lost callback, the agreement's
own end and a PSP without Pix Automático are each a case. Each test checks what the PSP holds, what
the API answers and what the database holds.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import time
from dataclasses import dataclass, field
from datetime import timedelta

import pytest

import test_pix_psp
from test_pix_psp import (  # noqa: F401  (fixtures and helpers shared with the Pix tests)
    KEY, VERIFIED, Psp, Receiver, connection_body, rest_error, today, wait_for,
)
from harness import Server, cpf

ACCOUNT = {"branch": "0001", "number": "1234567", "type": "checking"}
POSTGRES = os.environ.get("TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test")


@dataclass
class PgServer(Server):
    """The server on a PostgreSQL database of its own (`kd_test_<seconds>_<random>`, the name the
    Rust suite's sweep of old test databases knows)."""

    database: str = field(default_factory=lambda: f"kd_test_{int(time.time())}_{secrets.token_hex(6)}")

    @property
    def db_url(self) -> str:
        return POSTGRES.rsplit("/", 1)[0] + "/" + self.database

    def start(self, timeout: float = 60) -> "PgServer":
        psql(POSTGRES, f"CREATE DATABASE {self.database}")
        return super().start(timeout)


def psql(url: str, sql: str) -> list[dict]:
    """Rows of `sql` on PostgreSQL, as dicts of text (integers as int)."""
    out = subprocess.run(["psql", url, "-X", "-A", "-F", "\x1f", "-R", "\x1e", "-P", "footer=off",
                          "-v", "ON_ERROR_STOP=1", "-c", sql], capture_output=True, text=True, check=True).stdout
    lines = [line for line in out.rstrip("\n").split("\x1e") if line]
    if not lines:
        return []
    names = lines[0].split("\x1f")
    typed = lambda v: int(v) if v.lstrip("-").isdigit() else (None if v == "" else v)  # noqa: E731
    return [dict(zip(names, map(typed, line.split("\x1f")))) for line in lines[1:]]


def postgres_answers() -> bool:
    try:
        psql(POSTGRES, "SELECT 1 AS one")
        return True
    except (OSError, subprocess.CalledProcessError):
        # CI starts PostgreSQL before every run: there a missing server is a failure.
        assert not os.environ.get("CI"), f"no PostgreSQL at {POSTGRES}, and CI must have one"
        return False


def one(server, sql: str, *args):
    """The first row of `sql` (`?` placeholders) on the server's database, either engine."""
    if not isinstance(server, PgServer):
        return test_pix_psp.one(server, sql, *args)
    for arg in args:
        sql = sql.replace("?", "'" + str(arg).replace("'", "''") + "'", 1)
    found = psql(server.db_url, sql)
    return found[0] if found else None


def rows(server, sql: str, *args) -> list:
    if not isinstance(server, PgServer):
        return test_pix_psp.rows(server, sql, *args)
    return psql(server.db_url, sql)


def start_server(psp: Psp, account: dict | None, engine: str = "sqlite") -> Server:
    kind = PgServer if engine == "postgres" else Server
    s = kind(extra_args=[
        "--allow-private-pix-psp", "--pix-ca-file", str(psp.files["ca"]),
        "--pix-interval", "300ms", "--pix-sweep-interval", "1s", "--collection-interval", "2s",
        "--pix-webhook-require-header", VERIFIED, "--allow-private-webhook-targets",
    ]).start()
    s.rest("/v1/pix/settings", method="PUT",
           body={"key": KEY, "merchant_name": "Padaria Pao Dourado", "merchant_city": "Sao Paulo"})
    body = connection_body(psp) if account is None else connection_body(psp, automatic_pix_account=account)
    s.rest("/v1/pix/psp", method="PUT", body=body)
    try:
        wait_for("the webhook registered at the PSP",
                 lambda: s.rest("/v1/pix/psp")["data"]["webhook"]["registered"])
    except BaseException:
        print(s.log_tail())
        raise
    return s


@pytest.fixture(scope="module")
def psp(tmp_path_factory):
    p = Psp(tmp_path_factory.mktemp("psp"))
    yield p
    p.stop()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(psp, request):
    if request.param == "postgres" and not postgres_answers():
        pytest.skip(f"no PostgreSQL at {POSTGRES}")
    s = start_server(psp, ACCOUNT, request.param)
    yield s
    s.stop()
    s.cleanup()


@pytest.fixture(scope="module")
def receiver(server):
    r = Receiver()
    server.rest("/v1/webhooks", method="POST", body={"url": r.url, "events": ["*"]})
    yield r
    r.server.shutdown()
    r.server.server_close()


def agreement(server, first_due_in: int, down_payment: float = 0, installments: int = 2,
              amount: float = 600.0, email: bool = True) -> dict:
    """A proposed agreement over one new charge of a new customer."""
    contact = {"email": "conceicao@example.com.br"} if email else {}
    customer = server.rest("/v1/customers", method="POST", body={
        "name": "Conceição Araújo", "document": cpf(), "phone": "+5511987654321", **contact})["data"]
    charge = server.rest("/v1/charges", method="POST", body={
        "customer_id": customer["id"], "description": "Mensalidade atrasada", "amount": amount,
        "due_date": (today() + timedelta(days=20)).isoformat()})["data"]
    return server.rest("/v1/agreements", method="POST", body={
        "customer_id": customer["id"], "charge_ids": [charge["id"]], "installments": installments,
        "down_payment": down_payment,
        "first_due_date": (today() + timedelta(days=first_due_in)).isoformat()})["data"]


def automatic(server, agreement_id: str) -> dict | None:
    return server.rest(f"/v1/agreements/{agreement_id}")["data"]["automatic_pix"]


def until_status(server, agreement_id: str, status: str) -> dict:
    return wait_for(f"Pix Automático of {agreement_id} {status}",
                    lambda: (a := automatic(server, agreement_id)) and a["status"] == status and a)


def accept(server, agreement_id: str) -> dict:
    return server.rest(f"/v1/agreements/{agreement_id}/accept", method="POST")["data"]


def no_refusals(psp: Psp) -> None:
    """Every request we sent the PSP met BACEN's schemas and rules."""
    assert psp.state()["refused"] == []


def instalment(agreement: dict, number: int) -> str:
    return next(e["charge_id"] for e in agreement["installments_schedule"] if e["number"] == number)


def cobr_txid(charge_id: str, revision: int = 0) -> str:
    return charge_id.replace("_", "") + f"cobr{revision:03d}"


def authorized_with_debit(server, psp, first_due_in: int = 5,
                          retry_policy: str = "none") -> tuple[dict, dict, str]:
    """An accepted agreement whose first instalment is in the lead window, authorized by the
    payer (journey 2): the agreement, its Pix Automático and the first instalment's charge."""
    a = agreement(server, first_due_in=first_due_in)
    server.rest(f"/v1/agreements/{a['id']}/automatic_pix", method="POST",
                body={"journey": "qr", "retry_policy": retry_policy})
    a = accept(server, a["id"])
    waiting = until_status(server, a["id"], "awaiting_authorization")
    psp.control("/control/rec/approve", {"idRec": waiting["rec_id"], "jornada": "JORNADA_2"})
    until_status(server, a["id"], "authorized")
    first = instalment(a, 1)
    wait_for("the first instalment scheduled at the PSP",
             lambda: (x := automatic(server, a["id"])) and x["debits"]
             and x["debits"][0]["status"] == "scheduled" and x)
    return a, automatic(server, a["id"]), first


def test_journey_2_the_payer_authorizes_and_an_instalment_is_debited_and_paid(server, psp, receiver):
    a = agreement(server, first_due_in=5)
    asked = server.rest(f"/v1/agreements/{a['id']}/automatic_pix", method="POST", body={"journey": "qr"})
    # Proposed: nothing at the PSP until the agreement is accepted.
    assert asked["data"]["automatic_pix"]["status"] == "requested"
    assert asked["data"]["automatic_pix"]["qr_code"] is None
    assert not any(r["vinculo"]["contrato"] == a["id"] for r in psp.state()["recs"].values())

    a = accept(server, a["id"])
    waiting = until_status(server, a["id"], "awaiting_authorization")
    rec = psp.state()["recs"][waiting["rec_id"]]
    assert rec["vinculo"]["contrato"] == a["id"]
    assert rec["calendario"]["periodicidade"] == "MENSAL"
    assert rec["calendario"]["dataInicial"] == a["installments_schedule"][0]["due_date"]
    assert rec["calendario"]["dataFinal"] == a["installments_schedule"][-1]["due_date"]
    assert rec["valor"] == {"valorRec": "300.00"}
    assert rec["politicaRetentativa"] == "NAO_PERMITE"
    assert waiting["qr_code"].startswith("000201") and rec["status"] == "CRIADA"
    # The debtor is sent the code, on the first instalment's charge.
    invitation = one(server, "SELECT channel, subject, body FROM deliveries WHERE charge_id = ?",
                     instalment(a, 1))
    assert (invitation["channel"], invitation["subject"]) == ("email", "Autorize o Pix Automático do seu acordo")
    assert waiting["qr_code"] in invitation["body"]

    psp.control("/control/rec/approve", {"idRec": waiting["rec_id"], "jornada": "JORNADA_2"})
    authorized = until_status(server, a["id"], "authorized")
    assert authorized["authorized_at"]
    first = instalment(a, 1)
    txid = cobr_txid(first)
    wait_for("the first instalment's recurring charge at the PSP", lambda: txid in psp.state()["cobrs"])
    cobr = psp.state()["cobrs"][txid]
    assert cobr["idRec"] == waiting["rec_id"]
    assert cobr["valor"]["original"] == "300.00"
    assert cobr["calendario"]["dataDeVencimento"] == a["installments_schedule"][0]["due_date"]
    # The second instalment is a month away: not sent yet.
    assert cobr_txid(instalment(a, 2)) not in psp.state()["cobrs"]

    psp.control("/control/cobr/pay", {"txid": txid})
    wait_for("the instalment paid", lambda: server.rest(f"/v1/charges/{first}")["data"]["status"] == "paid")
    debit = wait_for("the debit paid", lambda: (x := automatic(server, a["id"])["debits"][0])
                     and x["status"] == "paid" and x)
    assert debit["charge_id"] == first
    received = one(server, "SELECT status, charge_id FROM pix_received WHERE txid = ?", txid)
    assert (received["status"], received["charge_id"]) == ("applied", first)
    expected = {"agreement.automatic_pix_requested", "agreement.automatic_pix_awaiting_authorization",
                "agreement.automatic_pix_authorized", "charge.automatic_pix_scheduled",
                "charge.automatic_pix_paid", "charge.paid"}
    wait_for("the events at the organization's receiver", lambda: expected <= {
        e["type"] for e in receiver.events if e.get("subject_id") in (a["id"], first)})
    no_refusals(psp)


def test_journey_4_one_code_pays_the_down_payment_and_authorizes(server, psp):
    a = agreement(server, first_due_in=3, down_payment=100.0)
    a = accept(server, a["id"])
    down = instalment(a, 0)
    server.rest(f"/v1/agreements/{a['id']}/automatic_pix", method="POST",
                body={"journey": "qr_with_down_payment"})
    waiting = until_status(server, a["id"], "awaiting_authorization")
    cobv_txid = down.replace("_", "") + "cobv000"
    # The composite code carries the down payment's cobv and the recurrence.
    assert waiting["qr_code"] != one(server, "SELECT pix_payload FROM charges WHERE id = ?", down)["pix_payload"]
    psp.control("/control/rec/approve", {"idRec": waiting["rec_id"], "jornada": "JORNADA_4", "txid": cobv_txid})
    wait_for("the down payment paid", lambda: server.rest(f"/v1/charges/{down}")["data"]["status"] == "paid")
    authorized = until_status(server, a["id"], "authorized")
    assert one(server, "SELECT authorized_journey FROM automatic_pix WHERE id = ?",
               authorized["id"])["authorized_journey"] == "JORNADA_4"
    no_refusals(psp)


def test_without_an_e_mail_the_code_goes_to_the_debtor_by_whatsapp(server, psp):
    a = agreement(server, first_due_in=5, email=False)
    server.rest(f"/v1/agreements/{a['id']}/automatic_pix", method="POST", body={})
    a = accept(server, a["id"])
    waiting = until_status(server, a["id"], "awaiting_authorization")
    invitation = wait_for("the code's notice", lambda: one(
        server, "SELECT channel, recipient, subject, body FROM deliveries WHERE charge_id = ?", instalment(a, 1)))
    assert (invitation["channel"], invitation["recipient"]) == ("whatsapp", "+5511987654321")
    assert invitation["subject"] is None
    assert waiting["qr_code"] in invitation["body"]


def test_the_down_payment_journey_needs_a_down_payment(server):
    a = agreement(server, first_due_in=5)
    status, problem = rest_error(server, f"/v1/agreements/{a['id']}/automatic_pix", "POST",
                                 {"journey": "qr_with_down_payment"})
    assert status == 400 and problem["errors"][0]["field"] == "journey", problem
    assert automatic(server, a["id"]) is None


def test_a_failed_debit_falls_back_to_a_notice_with_the_instalment_s_own_code(server, psp):
    a, auto, first = authorized_with_debit(server, psp)
    before = one(server, "SELECT COUNT(*) AS n FROM deliveries WHERE charge_id = ?", first)["n"]
    psp.control("/control/cobr/fail", {"txid": cobr_txid(first)})
    debit = wait_for("the debit failed", lambda: (x := automatic(server, a["id"])["debits"][0])
                     and x["status"] == "failed" and x)
    assert debit["end_code"]
    assert server.rest(f"/v1/charges/{first}")["data"]["status"] == "pending"
    notice = wait_for("a fallback notice", lambda: (row := one(
        server, "SELECT COUNT(*) AS n, MAX(body) AS body FROM deliveries WHERE charge_id = ?", first))
        and row["n"] > before and row)
    assert notice["n"] == before + 1
    code = server.rest(f"/v1/charges/{first}/pix")["data"]["payload"]
    assert code in notice["body"]
    # The recurrence stays authorized for the next instalments.
    assert automatic(server, a["id"])["status"] == "authorized"
    no_refusals(psp)


def test_a_failed_debit_is_tried_again_when_the_policy_allows_and_then_paid(server, psp):
    a, auto, first = authorized_with_debit(server, psp, retry_policy="three_in_seven_days")
    txid = cobr_txid(first)
    assert psp.state()["recs"][auto["rec_id"]]["politicaRetentativa"] == "PERMITE_3R_7D"
    psp.control("/control/cobr/fail", {"txid": txid})
    retried = wait_for("a retry asked of the PSP", lambda: [
        t for t in psp.state()["cobrs"][txid]["tentativas"] if t["tipo"] == "RIFL"])
    assert retried[0]["dataLiquidacao"] == (today() + timedelta(days=1)).isoformat()
    assert automatic(server, a["id"])["debits"][0]["status"] == "scheduled"
    psp.control("/control/cobr/pay", {"txid": txid})
    wait_for("the instalment paid on the retry",
             lambda: server.rest(f"/v1/charges/{first}")["data"]["status"] == "paid")
    wait_for("the debit paid", lambda: automatic(server, a["id"])["debits"][0]["status"] == "paid")
    no_refusals(psp)


def test_a_lost_debit_callback_is_found_by_the_sweep(server, psp):
    a, auto, first = authorized_with_debit(server, psp)
    psp.control("/control/cobr/pay", {"txid": cobr_txid(first), "deliver": False})
    wait_for("the instalment paid without its callback",
             lambda: server.rest(f"/v1/charges/{first}")["data"]["status"] == "paid")
    wait_for("the debit paid", lambda: automatic(server, a["id"])["debits"][0]["status"] == "paid")


def test_a_debited_instalment_given_back_by_the_med_is_open_again(server, psp):
    a, auto, first = authorized_with_debit(server, psp)
    txid = cobr_txid(first)
    psp.control("/control/cobr/pay", {"txid": txid})
    wait_for("the instalment paid", lambda: server.rest(f"/v1/charges/{first}")["data"]["status"] == "paid")
    e2e = psp.state()["cobrs"][txid]["pix"][0]["endToEndId"]
    psp.control("/control/refund", {"endToEndId": e2e, "valor": "300.00", "natureza": "MED_PIX_AUTOMATICO"})
    reopened = wait_for("the instalment open again", lambda: (
        c := server.rest(f"/v1/charges/{first}")["data"]) and c["status"] != "paid" and c)
    assert reopened["paid_amount"] == 0
    refund = one(server, "SELECT nature, status, reversed_cents FROM pix_refunds WHERE end_to_end_id = ?", e2e)
    assert (refund["nature"], refund["status"], refund["reversed_cents"]) == ("MED_PIX_AUTOMATICO", "returned", 30000)


def test_a_lost_recurrence_callback_is_found_by_the_sweep(server, psp):
    a = agreement(server, first_due_in=5)
    server.rest(f"/v1/agreements/{a['id']}/automatic_pix", method="POST", body={})
    accept(server, a["id"])
    waiting = until_status(server, a["id"], "awaiting_authorization")
    psp.control("/control/rec/approve", {"idRec": waiting["rec_id"], "jornada": "JORNADA_2", "deliver": False})
    until_status(server, a["id"], "authorized")


def test_the_debtor_canceling_the_authorization_is_an_event_and_open_debits_end(server, psp, receiver):
    a, auto, first = authorized_with_debit(server, psp)
    psp.control("/control/rec/cancel", {"idRec": auto["rec_id"]})
    canceled = until_status(server, a["id"], "canceled")
    assert canceled["ended_by"] == "payer" and canceled["end_code"]
    wait_for("the open debit canceled", lambda: automatic(server, a["id"])["debits"][0]["status"] == "canceled")
    assert server.rest(f"/v1/charges/{first}")["data"]["status"] == "pending"
    wait_for("the event sent to the organization's receiver", lambda: any(
        e["type"] == "agreement.automatic_pix_canceled" and e["subject_id"] == a["id"] for e in receiver.events))


def test_canceling_the_agreement_cancels_the_recurrence_at_the_psp(server, psp):
    a, auto, first = authorized_with_debit(server, psp)
    server.rest(f"/v1/agreements/{a['id']}/cancel", method="POST", body={"reason": "Cliente desistiu"})
    canceled = until_status(server, a["id"], "canceled")
    assert canceled["ended_by"] == "organization"
    assert psp.state()["recs"][auto["rec_id"]]["status"] == "CANCELADA"
    wait_for("the scheduled debit canceled at the PSP",
             lambda: psp.state()["cobrs"][cobr_txid(first)]["status"] == "CANCELADA")
    no_refusals(psp)


def test_the_organization_cancels_pix_automatico_and_keeps_the_agreement(server, psp):
    a = agreement(server, first_due_in=5)
    server.rest(f"/v1/agreements/{a['id']}/automatic_pix", method="POST", body={})
    accept(server, a["id"])
    waiting = until_status(server, a["id"], "awaiting_authorization")
    answered = server.rest(f"/v1/agreements/{a['id']}/automatic_pix/cancel", method="POST")["data"]
    assert answered["status"] == "accepted"
    until_status(server, a["id"], "canceled")
    assert psp.state()["recs"][waiting["rec_id"]]["status"] == "CANCELADA"
    status, problem = rest_error(server, f"/v1/agreements/{a['id']}/automatic_pix/cancel", "POST")
    assert status == 409 and problem["code"] == "automatic_pix_not_live"
    # A new one may be asked for.
    server.rest(f"/v1/agreements/{a['id']}/automatic_pix", method="POST", body={})
    until_status(server, a["id"], "awaiting_authorization")


def test_a_second_live_request_and_an_ended_agreement_are_refused(server):
    a = agreement(server, first_due_in=5)
    server.rest(f"/v1/agreements/{a['id']}/automatic_pix", method="POST", body={})
    status, problem = rest_error(server, f"/v1/agreements/{a['id']}/automatic_pix", "POST", {})
    assert status == 409 and problem["code"] == "automatic_pix_exists"
    server.rest(f"/v1/agreements/{a['id']}/cancel", method="POST", body={})
    assert automatic(server, a["id"])["status"] == "canceled"
    status, problem = rest_error(server, f"/v1/agreements/{a['id']}/automatic_pix", "POST", {})
    assert status == 409 and problem["code"] == "agreement_not_live"


@pytest.fixture(scope="module")
def plain_psp(tmp_path_factory):
    p = Psp(tmp_path_factory.mktemp("plain-psp"), "--no-automatic-pix")
    yield p
    p.stop()


def test_a_psp_without_pix_automatico_fails_the_request_and_the_agreement_goes_on(plain_psp):
    s = start_server(plain_psp, ACCOUNT)
    try:
        a = agreement(s, first_due_in=5)
        s.rest(f"/v1/agreements/{a['id']}/automatic_pix", method="POST", body={})
        a = accept(s, a["id"])
        failed = until_status(s, a["id"], "failed")
        assert failed["ended_by"] == "psp" and "404" in failed["end_reason"]
        assert s.rest(f"/v1/agreements/{a['id']}")["data"]["status"] == "accepted"
        first = instalment(a, 1)
        wait_for("the instalment's own cobv at the PSP",
                 lambda: plain_psp.cobv(first.replace("_", "") + "cobv000"))
        # The Pix of a cobv still pays it, as without Pix Automático.
        assert rows(s, "SELECT id FROM automatic_pix_charges") == []
    finally:
        s.stop()
        s.cleanup()


def test_without_an_account_at_the_psp_it_cannot_be_asked_for(psp):
    s = start_server(psp, None)
    try:
        a = agreement(s, first_due_in=5)
        status, problem = rest_error(s, f"/v1/agreements/{a['id']}/automatic_pix", "POST", {})
        assert status == 409 and problem["code"] == "automatic_pix_unavailable", problem
        assert s.rest("/v1/pix/psp")["data"]["automatic_pix"]["account"] is None
    finally:
        s.stop()
        s.cleanup()
