"""Pix through a PSP, with real processes: the test PSP (`tests/pix_psp/server.py`: BACEN's API Pix
over mutual TLS, with certificates from a CA it makes) and the real server binary pointed at it.
The server mirrors each open charge as a cobv at the PSP, registers the webhook, and applies the
Pix the PSP reports, by callback or by its sweep of `GET /pix`; each test checks what the PSP
holds and what the database holds.

One PSP and one server for the module; the Pix worker looks every 300 ms and sweeps every second,
the collection worker looks every two seconds (`--pix-interval 300ms --pix-sweep-interval 1s
--collection-interval 2s`): the tests wait for those looks, not the CPU. The server requires the header the edge proxy sets
once it verified the PSP's client certificate (`--pix-webhook-require-header`), which the test PSP
adds to its callbacks as that proxy would.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from datetime import date, datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "clients"))

from harness import REPO, Server, cpf, free_port, server_binary  # noqa: E402

import money_oracle  # noqa: E402

PSP_SCRIPT = REPO / "tests" / "pix_psp" / "server.py"
KEY = "cobranca@paodourado.com.br"
VERIFIED = "X-Client-Verify: SUCCESS"
WAIT = 30


def wait_for(what: str, probe, timeout: float = WAIT):
    """`probe()` once it is truthy, polling; fails naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout}s (last: {value!r})")
        time.sleep(0.2)


class Psp:
    """The test PSP as a child process: its API (mTLS) and its control API (plain HTTP)."""

    def __init__(self, directory: Path, *extra: str):
        self.proc = subprocess.Popen(
            [sys.executable, str(PSP_SCRIPT), "--dir", str(directory), "--chave", KEY,
             "--callback-header", VERIFIED, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("READY "):
            self.proc.kill()
            raise RuntimeError(f"the test PSP did not start: {line}{self.proc.stdout.read()}")
        self.info = json.loads(line[len("READY "):])
        self.files = {k: Path(v) for k, v in self.info["files"].items()}
        # Keep reading its output, so that a full pipe never blocks it.
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def control(self, path: str, body: dict | None = None) -> dict:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.info["control_url"] + path, data=data,
                                         method="POST" if body is not None else "GET")
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.loads(answer.read())

    def state(self) -> dict:
        return self.control("/control/state")

    def cobv(self, txid: str) -> dict | None:
        return self.state()["cobvs"].get(txid)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


class Receiver:
    """The organization's own webhook receiver: records every POST."""

    def __init__(self):
        self.events: list[dict] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.events.append(json.loads(body))
                self.send_response(204)
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def of(self, kind: str, subject: str) -> list[dict]:
        return [e for e in self.events if e["type"] == kind and e["subject_id"] == subject]


@pytest.fixture(scope="module")
def psp(tmp_path_factory):
    p = Psp(tmp_path_factory.mktemp("psp"))
    yield p
    p.stop()


def connection_body(psp: Psp, **changes) -> dict:
    body = {"api_url": psp.info["api_url"], "client_id": psp.info["client_id"],
            "client_secret": psp.files["client_secret"].read_text().strip(),
            "certificate": psp.files["certificate"].read_text(),
            "private_key": psp.files["private_key"].read_text()}
    body.update(changes)
    return body


@pytest.fixture(scope="module")
def server(psp):
    s = Server(extra_args=[
        "--allow-private-pix-psp", "--pix-ca-file", str(psp.files["ca"]),
        "--pix-interval", "300ms", "--pix-sweep-interval", "1s", "--collection-interval", "2s",
        "--pix-webhook-require-header", VERIFIED, "--allow-private-webhook-targets",
    ]).start()
    # The organization's key, the one the test PSP's webhook is registered for.
    s.rest("/v1/pix/settings", method="PUT",
           body={"key": KEY, "merchant_name": "Padaria Pao Dourado", "merchant_city": "Sao Paulo"})
    s.rest("/v1/pix/psp", method="PUT", body=connection_body(psp))
    wait_for("the webhook registered at the PSP",
             lambda: s.rest("/v1/pix/psp")["data"]["webhook"]["registered"])
    yield s
    s.stop()
    s.cleanup()


@pytest.fixture(scope="module")
def receiver(server):
    r = Receiver()
    server.rest("/v1/webhooks", method="POST",
                body={"url": r.url, "events": ["charge.paid", "charge.payment_recorded", "pix.applied",
                                               "pix.review_required", "pix.cobv_created"]})
    yield r
    r.server.shutdown()
    # Closed, not only stopped: a POST to a listening socket nobody answers would hold the
    # server's webhook worker, and so its shutdown, for the whole delivery timeout.
    r.server.server_close()


def db(server) -> sqlite3.Connection:
    connection = sqlite3.connect(server.dir / "db.sqlite", timeout=30)
    connection.row_factory = sqlite3.Row
    return connection


def one(server, sql: str, *args):
    with db(server) as connection:
        return connection.execute(sql, args).fetchone()


def rows(server, sql: str, *args) -> list:
    with db(server) as connection:
        return connection.execute(sql, args).fetchall()


def today() -> date:
    """Today in Brasília: the service's day (and a PSP's)."""
    return money_oracle.day_of(datetime.now(timezone.utc))


def business_day_back(days: int) -> date:
    """The latest business day at least `days` before today."""
    day = today() - timedelta(days=days)
    while not money_oracle.business_day(day):
        day -= timedelta(days=1)
    return day


def charge(server, amount: float, days: int | None = None, due: date | None = None, **extra) -> dict:
    customer = server.rest("/v1/customers", method="POST", body={
        "name": "Conceição Araújo", "document": cpf(), "email": "conceicao@example.com.br"})["data"]
    due = due or today() + timedelta(days=days)
    body = {"customer_id": customer["id"], "description": "Mensalidade de março", "amount": amount,
            "due_date": due.isoformat(), **extra}
    return server.rest("/v1/charges", method="POST", body=body)["data"]


def txid(charge_id: str, revision: int = 0) -> str:
    return charge_id.replace("_", "") + f"cobv{revision:03d}"


def mirrored(server, psp, charge_id: str, revision: int = 0) -> dict:
    """The charge's cobv at the PSP once the charge has its code."""
    wait_for(f"the dynamic code of {charge_id}",
             lambda: one(server, "SELECT pix_payload FROM charges WHERE id = ?", charge_id)["pix_payload"])
    return psp.cobv(txid(charge_id, revision))


def callback_url(psp) -> str:
    return psp.state()["webhooks"][KEY]["webhookUrl"] + "/pix"


def post(url: str, body: dict, headers: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def rest_error(server, path: str, method: str, body=None) -> tuple[int, dict]:
    try:
        server.rest(path, method=method, body=body)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())
    pytest.fail(f"{method} {path} succeeded")


def test_a_charge_gets_a_cobv_at_the_psp_mirroring_it_and_its_copy_and_paste_code(server, psp):
    new = charge(server, 1234.56, days=10, fine_percent=2.0, interest_percent=1.0)
    cobv = mirrored(server, psp, new["id"])
    assert cobv["status"] == "ATIVA"
    # Due on its effective due date: a weekend or holiday moves it to the next business day.
    assert cobv["calendario"]["dataDeVencimento"] == new["effective_due_date"]
    assert cobv["calendario"]["validadeAposVencimento"] == 30
    assert cobv["valor"] == {"original": "1234.56", "multa": {"modalidade": 2, "valorPerc": "2.00"},
                             "juros": {"modalidade": 3, "valorPerc": "1.00"}}
    customer = server.rest(f"/v1/customers/{new['customer_id']}")["data"]
    assert cobv["devedor"] == {"cpf": customer["document"], "nome": "Conceição Araújo"}
    assert cobv["chave"] == KEY
    assert cobv["solicitacaoPagador"] == "Mensalidade de março"
    stored = one(server, "SELECT pix_payload, pix_location FROM charges WHERE id = ?", new["id"])
    assert stored["pix_payload"] == cobv["pixCopiaECola"]
    assert stored["pix_location"] == cobv["loc"]["location"]
    assert cobv["pixCopiaECola"].startswith("000201010212") and cobv["loc"]["location"] in cobv["pixCopiaECola"]
    row = one(server, "SELECT psp_status, synced_version, attempts FROM pix_cobv WHERE charge_id = ?", new["id"])
    assert (row["psp_status"], row["attempts"]) == ("ATIVA", 0)
    assert one(server, "SELECT COUNT(*) AS n FROM events WHERE type = 'pix.cobv_created' AND subject_id = ?",
               new["id"])["n"] == 1


def test_an_overdue_charge_s_cobv_asks_for_the_day_s_amount_due_that_day(server, psp):
    due = business_day_back(10)
    new = charge(server, 100.0, due=due, fine_percent=2.0, interest_percent=1.0)
    cobv = mirrored(server, psp, new["id"])
    # R$ 100,00 ten or more days late: 2 % fine and 1 % a month a day (0,33 for ten days) —
    # what the charge owes, as the plain model computes it.
    principal, fine, interest = money_oracle.owed(100_00, 200, 100, due, [], today())
    expected = (principal + fine + interest) / 100
    assert server.rest(f"/v1/charges/{new['id']}")["data"]["amount_due"] == expected
    assert cobv["valor"] == {"original": f"{expected:.2f}"}
    assert cobv["calendario"] == {**cobv["calendario"], "dataDeVencimento": today().isoformat(),
                                  "validadeAposVencimento": 0}


def test_a_payment_at_the_psp_pays_the_charge_with_its_event_and_webhook_and_its_plan_stops(server, psp, receiver):
    plan = server.rest("/v1/collection_plans", method="POST", body={
        "name": "Aviso no vencimento", "steps": [{"offset_days": 0, "action": "notify", "channel": "email"}]})["data"]
    # A charge under the plan that nobody pays: its notice goes out at the collection worker's
    # next look, which also tells when the one after comes (every 2 s here).
    unpaid = charge(server, 80.0, days=0, collection_plan_id=plan["id"])
    wait_for("the unpaid charge's notice",
             lambda: server.rest(f"/v1/deliveries?charge_id={unpaid['id']}")["data"], timeout=10)
    paid = charge(server, 80.0, days=0, collection_plan_id=plan["id"])
    mirrored(server, psp, paid["id"])
    done = psp.control("/control/pay", {"txid": txid(paid["id"]), "infoPagador": "março"})
    assert done["callback"]["status"] == 200, done
    assert done["pix"]["valor"] == "80.00"
    got = server.rest(f"/v1/charges/{paid['id']}")["data"]
    assert (got["status"], got["amount_due"]) == ("paid", 0)
    payment = one(server, "SELECT amount_cents, method, note FROM payments WHERE charge_id = ?", paid["id"])
    assert tuple(payment) == (8000, "pix", f"Pix {done['pix']['endToEndId']}")
    received = one(server, "SELECT status, source, payer_info, charge_id FROM pix_received WHERE end_to_end_id = ?",
                   done["pix"]["endToEndId"])
    assert tuple(received) == ("applied", "webhook", "março", paid["id"])
    kinds = [r["type"] for r in rows(server, "SELECT type FROM events WHERE subject_id = ? ORDER BY created_at, id", paid["id"])]
    assert "charge.payment_recorded" in kinds and "charge.paid" in kinds
    wait_for("charge.paid at the organization's receiver", lambda: receiver.of("charge.paid", paid["id"]))
    # The cobv took its payment; the charge has no code to show any more.
    assert psp.cobv(txid(paid["id"]))["status"] == "CONCLUIDA"
    assert one(server, "SELECT pix_payload FROM charges WHERE id = ?", paid["id"])["pix_payload"] is None
    # The plan stopped for the paid charge: the collection worker's next look (2 s after the
    # unpaid charge's notice) leaves it alone.
    time.sleep(3)
    assert server.rest(f"/v1/deliveries?charge_id={paid['id']}")["data"] == []
    assert one(server, "SELECT COUNT(*) AS n FROM collection_step_runs WHERE charge_id = ?", paid["id"])["n"] == 0
    assert one(server, "SELECT COUNT(*) AS n FROM collection_step_runs WHERE charge_id = ?", unpaid["id"])["n"] == 1


def database_snapshot(server, charge_id: str) -> tuple:
    return (
        tuple(one(server, "SELECT state, paid_cents, version FROM charges WHERE id = ?", charge_id)),
        one(server, "SELECT COUNT(*) FROM pix_received")[0],
        one(server, "SELECT COUNT(*) FROM payments")[0],
        one(server, "SELECT COUNT(*) FROM events WHERE subject_id = ? OR type LIKE 'pix.%'", charge_id)[0],
    )


def test_a_forged_callback_is_refused_and_changes_nothing(server, psp):
    new = charge(server, 55.0, days=5)
    mirrored(server, psp, new["id"])
    pix = {"pix": [{"endToEndId": "E99999999202601011200forged00001", "txid": txid(new["id"]),
                    "valor": "55.00", "horario": "2026-01-01T12:00:00Z"}]}
    good = callback_url(psp)
    base = good.rsplit("/pix/webhook/", 1)[0]
    before = database_snapshot(server, new["id"])
    secret = good.split("/pix/webhook/")[1].removesuffix("/pix")
    forged = secret[:-1] + ("A" if secret[-1] != "A" else "B")
    for url, headers, status in [
        (f"{base}/pix/webhook/{forged}/pix", {"X-Client-Verify": "SUCCESS"}, 404),  # a wrong secret
        (f"{base}/pix/webhook/{forged}", {"X-Client-Verify": "SUCCESS"}, 404),
        (f"{base}/pix/webhook/short/pix", {"X-Client-Verify": "SUCCESS"}, 404),
        (f"{base}/pix/webhook//pix", {"X-Client-Verify": "SUCCESS"}, 404),  # no secret
        (f"{base}/pix/webhook/pix", {"X-Client-Verify": "SUCCESS"}, 404),
        (good, {}, 403),  # the right secret, but not through the proxy that checked the PSP's certificate
        (good, {"X-Client-Verify": "FAILED"}, 403),
    ]:
        got, problem = post(url, pix, headers)
        assert got == status, (url, headers, got, problem)
        assert problem["status"] == status
    assert database_snapshot(server, new["id"]) == before
    # The genuine callback, through the proxy, is taken.
    assert post(good, pix, {"X-Client-Verify": "SUCCESS"})[0] == 200
    assert server.rest(f"/v1/charges/{new['id']}")["data"]["status"] == "paid"


def test_a_callback_that_is_not_what_the_api_pix_says_is_refused_with_a_400(server, psp):
    new = charge(server, 12.0, days=5)
    mirrored(server, psp, new["id"])
    before = database_snapshot(server, new["id"])
    headers = {"X-Client-Verify": "SUCCESS"}
    good_item = {"endToEndId": "E99999999202601011200badbody0001", "txid": txid(new["id"]),
                 "valor": "12.00", "horario": "2026-01-01T12:00:00Z"}
    for body, field in [({"pix": {}}, "pix"), ({}, "pix"),
                        ({"pix": [good_item, {**good_item, "valor": "12,00"}]}, "pix[1].valor"),
                        ({"pix": [{**good_item, "endToEndId": "short"}]}, "pix[0].endToEndId")]:
        got, problem = post(callback_url(psp), body, headers)
        assert got == 400, problem
        assert problem["errors"][0]["field"] == field
    request = urllib.request.Request(callback_url(psp), data=b"x" * (600 * 1024), method="POST")
    # Declared JSON: a body of another type is refused (415) before its size is looked at.
    request.add_header("Content-Type", "application/json")
    request.add_header("X-Client-Verify", "SUCCESS")
    with pytest.raises(urllib.error.HTTPError) as too_large:
        urllib.request.urlopen(request, timeout=30)
    assert too_large.value.code == 413
    assert database_snapshot(server, new["id"]) == before


def test_a_duplicate_callback_applies_once(server, psp):
    new = charge(server, 70.0, days=3)
    mirrored(server, psp, new["id"])
    done = psp.control("/control/pay", {"txid": txid(new["id"])})
    again = psp.control("/control/redeliver", {"endToEndId": done["pix"]["endToEndId"]})
    assert json.loads(again["callback"]["body"]) == {"received": 0, "duplicates": 1}
    assert one(server, "SELECT COUNT(*) FROM payments WHERE charge_id = ?", new["id"])[0] == 1
    assert one(server, "SELECT COUNT(*) FROM pix_received WHERE end_to_end_id = ?",
               done["pix"]["endToEndId"])[0] == 1
    assert server.rest(f"/v1/charges/{new['id']}")["data"]["paid_amount"] == 70.0


def test_a_lost_callback_is_found_by_the_sweep(server, psp):
    new = charge(server, 45.9, days=3)
    mirrored(server, psp, new["id"])
    done = psp.control("/control/pay", {"txid": txid(new["id"]), "deliver": False})
    assert done["callback"] is None
    wait_for("the sweep to apply the Pix",
             lambda: server.rest(f"/v1/charges/{new['id']}")["data"]["status"] == "paid")
    received = one(server, "SELECT status, source FROM pix_received WHERE end_to_end_id = ?",
                   done["pix"]["endToEndId"])
    assert tuple(received) == ("applied", "sweep")


@pytest.mark.parametrize("mode, error", [("503", "the PSP answered 503"),
                                         ("refuse", "could not be reached (connection_failed)")])
def test_a_psp_that_is_down_leaves_the_static_code_and_the_work_is_retried_until_it_is_back(server, psp, mode, error):
    psp.control("/control/down", {"mode": mode})
    try:
        new = charge(server, 33.0, days=7)
        failed = wait_for(f"a failed attempt: {error}", lambda: (row := one(
            server, "SELECT attempts, last_error FROM pix_cobv WHERE charge_id = ?", new["id"]))
            and row["attempts"] > 0 and error in row["last_error"] and row)
        assert failed["attempts"] >= 1
        # No dynamic code: the charge stays payable by the static one (the pix-code branch's).
        assert one(server, "SELECT pix_payload FROM charges WHERE id = ?", new["id"])["pix_payload"] is None
        assert psp.cobv(txid(new["id"])) is None
    finally:
        psp.control("/control/up", {})
    cobv = mirrored(server, psp, new["id"])
    assert cobv["status"] == "ATIVA"
    row = one(server, "SELECT attempts, last_error FROM pix_cobv WHERE charge_id = ?", new["id"])
    assert (row["attempts"], row["last_error"]) == (0, None)


def test_a_changed_charge_has_its_cobv_revised(server, psp):
    new = charge(server, 200.0, days=15)
    mirrored(server, psp, new["id"])
    later = (today() + timedelta(days=20)).isoformat()
    changed = server.rest(f"/v1/charges/{new['id']}", method="PATCH", body={"amount": 250.0, "due_date": later})
    revised = wait_for("the revision at the PSP", lambda: (
        c := psp.cobv(txid(new["id"]))) and c["revisao"] == 1 and c)
    assert revised["valor"]["original"] == "250.00"
    assert revised["calendario"]["dataDeVencimento"] == changed["data"]["effective_due_date"]
    wait_for("pix.cobv_updated", lambda: one(
        server, "SELECT 1 FROM events WHERE type = 'pix.cobv_updated' AND subject_id = ?", new["id"]))


def test_a_canceled_charge_has_its_cobv_removed_at_the_psp(server, psp):
    new = charge(server, 99.0, days=4)
    mirrored(server, psp, new["id"])
    server.rest(f"/v1/charges/{new['id']}/cancel", method="POST", body={"reason": "Emitida por engano"})
    wait_for("the removal at the PSP", lambda: psp.cobv(txid(new["id"]))["status"] == "REMOVIDA_PELO_USUARIO_RECEBEDOR")
    wait_for("the code cleared", lambda: one(
        server, "SELECT pix_payload, pix_location FROM charges WHERE id = ?", new["id"])["pix_location"] is None)
    assert one(server, "SELECT psp_status FROM pix_cobv WHERE charge_id = ?", new["id"])[0] == "REMOVIDA_PELO_USUARIO_RECEBEDOR"
    assert one(server, "SELECT 1 FROM events WHERE type = 'pix.cobv_removed' AND subject_id = ?", new["id"])


def test_a_pix_for_an_unknown_txid_or_more_than_is_due_is_kept_for_review(server, psp, receiver):
    unknown = psp.control("/control/pay", {"txid": "chg0000000000000000cobv000", "valor": "10.00"})
    new = charge(server, 60.0, days=3)
    static = new["id"].replace("_", "")
    above = psp.control("/control/pay", {"txid": static, "valor": "61.00"})
    for done in (unknown, above):
        assert done["callback"]["status"] == 200, done
    review = server.rest("/v1/pix/received?status=review&per_page=100")["data"]
    by_e2e = {r["end_to_end_id"]: r for r in review}
    first = by_e2e[unknown["pix"]["endToEndId"]]
    assert (first["reason"], first["amount"], first["charge_id"]) == ("unknown_txid", 10.0, None)
    second = by_e2e[above["pix"]["endToEndId"]]
    assert (second["reason"], second["amount"], second["txid"]) == ("amount_exceeds_due", 61.0, static)
    assert "R$ 61,00" in second["detail"] and "R$ 60,00" in second["detail"]
    got = server.rest(f"/v1/charges/{new['id']}")["data"]
    assert (got["status"], got["paid_amount"]) == ("pending", 0)
    wait_for("pix.review_required at the organization's receiver",
             lambda: len([e for e in receiver.events if e["type"] == "pix.review_required"]) >= 2)
    applied = server.rest("/v1/pix/received?status=applied&per_page=100")["data"]
    assert all(r["status"] == "applied" for r in applied)


def test_a_pix_for_less_than_is_due_is_a_partial_payment_and_the_rest_gets_a_new_cobv(server, psp):
    new = charge(server, 90.0, days=6)
    mirrored(server, psp, new["id"])
    # The static code carries the charge's txid without a cobv; a payer may pay it in part.
    psp.control("/control/pay", {"txid": new["id"].replace("_", ""), "valor": "30.00"})
    got = server.rest(f"/v1/charges/{new['id']}")["data"]
    assert (got["status"], got["paid_amount"], got["amount_due"]) == ("pending", 30.0, 60.0)
    revised = wait_for("the cobv revised to the balance", lambda: (
        c := psp.cobv(txid(new["id"]))) and c["valor"]["original"] == "60.00" and c)
    assert revised["status"] == "ATIVA"
    # Paying the cobv settles what is left.
    psp.control("/control/pay", {"txid": txid(new["id"])})
    assert server.rest(f"/v1/charges/{new['id']}")["data"]["status"] == "paid"


def test_the_connection_is_shown_without_secrets_which_are_stored_sealed(server, psp):
    shown = server.rest("/v1/pix/psp")["data"]
    assert set(shown) == {"api_url", "token_url", "client_id", "webhook", "sweep", "last_test",
                          "automatic_pix", "configured_at", "updated_at"}
    assert shown["token_url"] == psp.info["api_url"] + "/oauth/token"
    secret = psp.files["client_secret"].read_text().strip()
    key_line = psp.files["private_key"].read_text().splitlines()[1]
    raw = json.dumps(shown)
    assert secret not in raw and key_line not in raw
    sealed = one(server, "SELECT client_secret_sealed, private_key_sealed, certificate_sealed, webhook_secret_sealed,"
                         " webhook_secret_hash FROM pix_psp_connections")
    assert all(value.startswith("v1:") for value in tuple(sealed)[:4])
    webhook_secret = callback_url(psp).split("/pix/webhook/")[1].removesuffix("/pix")
    # Nothing of them in the clear anywhere in the database files (the WAL included).
    for path in server.dir.glob("db.sqlite*"):
        data = path.read_bytes()
        for plain in (secret, key_line, webhook_secret):
            assert plain.encode() not in data, (path.name, plain[:8])
    # Nor in the server's log.
    log = (server.dir / "server.log").read_text(errors="replace")
    for plain in (secret, key_line, webhook_secret):
        assert plain not in log


def test_the_connection_test_gets_a_token_over_mtls_and_finds_our_webhook(server, psp):
    result = server.rest("/v1/pix/psp/test", method="POST")["data"]
    assert result["ok"] is True
    assert result["token"] == {"ok": True, "error": None}
    assert result["webhook"] == {"state": "ours", "error": None}
    assert server.rest("/v1/pix/psp")["data"]["last_test"] == result
    # The test is kept with its event, whose data is the answer as shown.
    events = server.rest("/v1/events?type=pix.psp_tested")["data"]
    assert [e["data"] for e in events] == [result], events


def test_a_connection_to_a_forbidden_or_unusable_psp_is_refused(server, psp):
    import trustme
    another_key = trustme.CA().issue_cert("another.client.test").private_key_pem.bytes().decode()
    for changes, status, code, field in [
        ({"api_url": "http://127.0.0.1:9/api"}, 400, "VALIDATION_ERROR", "api_url"),
        ({"api_url": "https://169.254.169.254/latest"}, 422, "psp_target_forbidden", "api_url"),
        ({"token_url": "https://metadata.google.internal/token"}, 422, "psp_target_forbidden", "token_url"),
        ({"private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}, 400,
         "VALIDATION_ERROR", "private_key"),
        ({"private_key": another_key}, 400, "VALIDATION_ERROR", "private_key"),  # not the certificate's
        ({"certificate": "a certificate"}, 400, "VALIDATION_ERROR", "certificate"),
    ]:
        got, problem = rest_error(server, "/v1/pix/psp", "PUT", connection_body(psp, **changes))
        assert (got, problem["code"]) == (status, code), (changes, problem)
        assert field in [e["field"] for e in problem["errors"]], (changes, problem)
    # A manager may read it, not set it: the credentials are the admins'.
    manager = server.person("manager")["api_token"]
    request = urllib.request.Request(server.base + "/v1/pix/psp", data=json.dumps(connection_body(psp)).encode(),
                                     method="PUT")
    request.add_header("Authorization", f"Bearer {manager}")
    request.add_header("Content-Type", "application/json")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 403
    assert server.rest("/v1/pix/psp", token=manager)["data"]["client_id"] == psp.info["client_id"]


def test_the_cli_connects_an_organization_from_files(server, psp):
    second = server.org(1)["id"]
    out = subprocess.run(
        [str(server_binary()), "pix", "connect", "--organization", second, "--api-url", psp.info["api_url"],
         "--client-id", psp.info["client_id"], "--client-secret-file", str(psp.files["client_secret"]),
         "--certificate", str(psp.files["certificate"]), "--private-key", str(psp.files["private_key"]),
         "--allow-private-pix-psp", "--database-url", server.db_url],
        cwd=server.dir, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith("pxc_")
    token = server.person("admin", org=1)["api_token"]
    assert server.rest("/v1/pix/psp", token=token)["data"]["client_id"] == psp.info["client_id"]
    # Sealed with the key the server keeps in the database: the server opens them.
    assert server.rest("/v1/pix/psp/test", method="POST", token=token)["data"]["token"]["ok"] is True
    refused = subprocess.run(
        [str(server_binary()), "pix", "connect", "--organization", second, "--api-url", "https://10.0.0.1/api",
         "--client-id", "x", "--client-secret-file", str(psp.files["client_secret"]),
         "--certificate", str(psp.files["certificate"]), "--private-key", str(psp.files["private_key"]),
         "--database-url", server.db_url],
        cwd=server.dir, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1 and "api_url" in refused.stderr and "private network" in refused.stderr


# --- The money of a day (issue 45): each case as the bug report met it, against the binary ---

def brasilia(day: date, hour: int, minute: int) -> str:
    """The instant `hour:minute` in Brasília on `day`, as a PSP writes `horario` (UTC)."""
    local = datetime(day.year, day.month, day.day, hour, minute, tzinfo=money_oracle.BRASILIA)
    return local.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def test_a_pix_at_half_past_ten_at_night_on_the_due_date_settles_the_charge(server, psp):
    # R$ 150,00 due on a business day; paid by Pix at 22:30 in Brasília that day, which is 01:30
    # UTC the day after. Before, the payment counted on the UTC day: a day late, R$ 3,05 "due".
    due = business_day_back(2)
    new = charge(server, 150.0, due=due, fine_percent=2.0, interest_percent=1.0)
    horario = brasilia(due, 22, 30)
    assert horario.startswith((due + timedelta(days=1)).isoformat() + "T01:30")
    done = psp.control("/control/pay", {"txid": new["id"].replace("_", ""), "valor": "150.00", "horario": horario})
    assert done["callback"]["status"] == 200, done
    got = server.rest(f"/v1/charges/{new['id']}")["data"]
    assert (got["status"], got["amount_due"], got["paid_at"]) == ("paid", 0, horario)


def test_a_charge_due_on_a_saturday_paid_on_monday_owes_no_fine(server, psp):
    # A Monday before today: paid at 15:00 on today's Monday would be a payment from the future.
    saturday = today() - timedelta(days=3)
    while saturday.weekday() != 5 or not money_oracle.business_day(saturday + timedelta(days=2)):
        saturday -= timedelta(days=1)
    monday = saturday + timedelta(days=2)
    new = charge(server, 150.0, due=saturday, fine_percent=2.0, interest_percent=1.0)
    assert new["effective_due_date"] == monday.isoformat()
    done = psp.control("/control/pay", {"txid": new["id"].replace("_", ""), "valor": "150.00",
                                        "horario": brasilia(monday, 15, 0)})
    assert done["callback"]["status"] == 200, done
    got = server.rest(f"/v1/charges/{new['id']}")["data"]
    assert (got["status"], got["amount_due"]) == ("paid", 0), got
    # Its cobv, made while it was not yet due, was due on the Monday: the PSP adds nothing then.
    future = charge(server, 150.0, due=today() + timedelta(days=(5 - today().weekday()) % 7 or 7))
    cobv = mirrored(server, psp, future["id"])
    assert cobv["calendario"]["dataDeVencimento"] == future["effective_due_date"]
    assert money_oracle.business_day(date.fromisoformat(future["effective_due_date"]))


def test_paying_what_the_cobv_asked_after_a_partial_payment_settles_the_charge(server, psp):
    # R$ 90,00 with R$ 30,00 paid before the due date; five days late the cobv asks 60,00 +
    # 1,20 (2 % of 60,00) + 0,10 (60,00 × 1 % / 30 × 5) = 61,30. Before, the charge said 61,95
    # and dunned the debtor for the 0,65 difference.
    due = today() - timedelta(days=6)
    while not (money_oracle.business_day(due) and money_oracle.business_day(due - timedelta(days=2))):
        due -= timedelta(days=1)
    new = charge(server, 90.0, due=due, fine_percent=2.0, interest_percent=1.0)
    server.rest(f"/v1/charges/{new['id']}/pay", method="POST", body={
        "amount": 30.0, "method": "transfer", "paid_at": brasilia(due - timedelta(days=2), 10, 0)})
    five_late = due + timedelta(days=5)
    principal, fine, interest = money_oracle.owed(90_00, 200, 100, due, [(due - timedelta(days=2), 30_00)], five_late)
    assert (principal, fine, interest) == (60_00, 1_20, 10)
    done = psp.control("/control/pay", {"txid": new["id"].replace("_", ""), "valor": "61.30",
                                        "horario": brasilia(five_late, 12, 0)})
    assert done["callback"]["status"] == 200, done
    got = server.rest(f"/v1/charges/{new['id']}")["data"]
    assert (got["status"], got["amount_due"], got["paid_amount"]) == ("paid", 0, 91.3), got


def test_a_med_devolucao_reopens_the_charge_once_with_its_event_and_webhook(server, psp):
    hook = Receiver()
    server.rest("/v1/webhooks", method="POST", body={"url": hook.url, "events": ["charge.payment_reversed", "pix.refunded"]})
    try:
        new = charge(server, 80.0, days=5)
        mirrored(server, psp, new["id"])
        paid = psp.control("/control/pay", {"txid": txid(new["id"])})
        assert server.rest(f"/v1/charges/{new['id']}")["data"]["status"] == "paid"
        e2e = paid["pix"]["endToEndId"]
        # The payer's bank takes it back after a fraud report: the PSP's callback says so.
        taken = psp.control("/control/refund", {"endToEndId": e2e, "valor": "80.00", "natureza": "MED_FRAUDE"})
        assert taken["callback"]["status"] == 200, taken
        got = server.rest(f"/v1/charges/{new['id']}")["data"]
        assert (got["status"], got["paid_amount"], got["amount_due"]) == ("pending", 0, 80.0), got
        event = wait_for("charge.payment_reversed at the receiver",
                         lambda: hook.of("charge.payment_reversed", new["id"]))[0]
        assert (event["data"]["med"], event["data"]["amount"], event["data"]["reopened"]) == (True, 80.0, True)
        # Once: the callback again, and the sweep, change nothing.
        psp.control("/control/redeliver", {"endToEndId": e2e})
        time.sleep(1.5)
        assert one(server, "SELECT COUNT(*) FROM events WHERE type = 'charge.payment_reversed' AND subject_id = ?",
                   new["id"])[0] == 1
        assert one(server, "SELECT paid_cents, state FROM charges WHERE id = ?", new["id"])[0] == 0
        refund = server.rest("/v1/pix/received?per_page=100")["data"]
        mine = next(r for r in refund if r["end_to_end_id"] == e2e)
        assert mine["refunded_amount"] == 80.0 and mine["refunds"][0]["med"] is True
        # The charge is open again: the worker makes it a new cobv.
        wait_for("a new cobv for the reopened charge", lambda: psp.cobv(txid(new["id"], 1)))
    finally:
        hook.server.shutdown()
        hook.server.server_close()


def test_the_organization_returns_a_pix_it_should_not_keep_through_the_psp(server, psp):
    new = charge(server, 40.0, days=3)
    over = psp.control("/control/pay", {"txid": new["id"].replace("_", ""), "valor": "45.00"})
    e2e = over["pix"]["endToEndId"]
    kept = next(r for r in server.rest("/v1/pix/received?status=review&per_page=100")["data"]
                if r["end_to_end_id"] == e2e)
    assert kept["reason"] == "amount_exceeds_due"
    code, refused = rest_error(server, f"/v1/pix/received/{kept['id']}/refund", "POST", {"amount": 46.0})
    assert (code, refused["code"]) == (409, "refund_exceeds_pix")
    asked = server.rest(f"/v1/pix/received/{kept['id']}/refund", method="POST",
                        body={"description": "Valor acima do devido"})["data"]
    assert (asked["status"], asked["amount"], asked["requested_by"]) == ("requested", 45.0, "organization")
    at_psp = wait_for("the devolução at the PSP", lambda: next(
        (d for d in psp.state().get("devolucoes", []) if d.get("id") == asked["refund_id"]), None))
    assert at_psp["status"] == "EM_PROCESSAMENTO" and at_psp["valor"] == "45.00"
    assert at_psp.get("descricao") == "Valor acima do devido"
    psp.control("/control/settle_refund", {"endToEndId": e2e, "id": asked["refund_id"], "status": "DEVOLVIDO"})
    done = wait_for("the Pix refunded", lambda: (r := next(
        x for x in server.rest("/v1/pix/received?per_page=100")["data"] if x["end_to_end_id"] == e2e))
        ["status"] == "refunded" and r)
    assert done["refunds"][0]["status"] == "returned" and done["refunded_amount"] == 45.0
    # The charge it named was never paid by it, and stays as it was.
    assert server.rest(f"/v1/charges/{new['id']}")["data"]["paid_amount"] == 0


def test_a_pix_dated_in_the_future_is_kept_for_review(server, psp):
    new = charge(server, 100.0, due=business_day_back(40))
    owed = server.rest(f"/v1/charges/{new['id']}")["data"]["amount_due"]
    done = psp.control("/control/pay", {"txid": new["id"].replace("_", ""), "valor": "300.00",
                                        "horario": "2099-01-01T12:00:00.000Z"})
    assert done["callback"]["status"] == 200, done
    kept = next(r for r in server.rest("/v1/pix/received?status=review&per_page=100")["data"]
                if r["end_to_end_id"] == done["pix"]["endToEndId"])
    assert kept["reason"] == "future_dated"
    got = server.rest(f"/v1/charges/{new['id']}")["data"]
    assert (got["paid_amount"], got["amount_due"]) == (0, owed)
