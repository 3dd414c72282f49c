"""The documents a finance team sends, read back the way a person would: the text of each PDF
(extracted with pypdf), the Pix QR codes on it (the page rendered by PDFium, read by zxing-cpp,
as a phone camera would) and the CSV of an export (parsed as a spreadsheet would)."""

from __future__ import annotations

import csv
import io
import time
import urllib.request
from datetime import date, datetime, timedelta, timezone

import pypdfium2
import zxingcpp
from pypdf import PdfReader

import brcode


def brasilia_today() -> date:
    """Documents are dated in Brasília time (UTC-3), whatever the machine's zone."""
    return (datetime.now(timezone.utc) - timedelta(hours=3)).date()


def fetch(server, path: str) -> tuple[str, bytes]:
    req = urllib.request.Request(server.base + path)
    req.add_header("Authorization", f"Bearer {server.person('admin')['api_token']}")
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.headers["Content-Type"], r.read()


def pdf_text(data: bytes) -> str:
    assert data.startswith(b"%PDF-")
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def cpf(base: str) -> str:
    digits = [int(c) for c in base]
    for n in (9, 10):
        rest = sum(d * (n + 1 - i) for i, d in enumerate(digits[:n])) * 10 % 11
        digits.append(0 if rest == 10 else rest)
    return "".join(map(str, digits))


def new_customer(server, base: str, name: str) -> dict:
    body = {"name": name, "document": cpf(base), "email": "teste@example.com.br",
            "address": {"street": "Rua João Ramalho", "number": "45", "district": "Perdizes",
                        "city": "São Paulo", "state": "SP", "zip_code": "05008-000"}}
    return server.rest("/v1/customers", method="POST", body=body)["data"]


def new_charge(server, customer: dict, amount: float, description: str, days: int = 20) -> dict:
    body = {"customer_id": customer["id"], "description": description, "amount": amount,
            "due_date": (date.today() + timedelta(days=days)).isoformat()}
    return server.rest("/v1/charges", method="POST", body=body)["data"]


def test_the_debtor_statement_names_issuer_debtor_and_amounts(server):
    customer = server.rest("/v1/customers?q=Concei")["data"][0]
    content_type, data = fetch(server, f"/v1/customers/{customer['id']}/statement")
    assert content_type == "application/pdf"
    text = pdf_text(data)
    for expected in ["Extrato de débitos", "Padaria Pão Dourado Ltda", "11.222.333/0001-81",
                     "Conceição Araújo", "529.982.247-25", "R$ 1.234,56", "Serviço avulso de setembro",
                     "Total em aberto", brasilia_today().strftime("%d/%m/%Y")]:
        assert expected in text, f"{expected!r} not in the statement:\n{text}"


def test_the_discharge_letter_of_a_paid_charge(server):
    customer = new_customer(server, "271271271", "Benedita Gonçalves Içá")
    charge = new_charge(server, customer, 1234.56, "Mensalidade de março")
    server.rest(f"/v1/charges/{charge['id']}/pay", method="POST", body={"amount": 1234.56, "method": "pix"})
    content_type, data = fetch(server, f"/v1/charges/{charge['id']}/discharge_letter")
    assert content_type == "application/pdf"
    text = pdf_text(data)
    for expected in ["Carta de quitação", "Benedita Gonçalves Içá", "271.271.271-", "R$ 1.234,56",
                     "Mensalidade de março", "Padaria Pão Dourado Ltda"]:
        assert expected in text, f"{expected!r} not in the letter:\n{text}"


def test_the_agreement_term_lists_the_instalments(server):
    customer = new_customer(server, "313131313", "Tancredo Araújo Peçanha")
    first = new_charge(server, customer, 500.00, "Parcela A", days=-40)
    second = new_charge(server, customer, 700.50, "Parcela B", days=-10)
    body = {"customer_id": customer["id"], "charge_ids": [first["id"], second["id"]],
            "down_payment": 200.00, "installments": 3,
            "first_due_date": (date.today() + timedelta(days=30)).isoformat()}
    agreement = server.rest("/v1/agreements", method="POST", body=body)["data"]
    content_type, data = fetch(server, f"/v1/agreements/{agreement['id']}/term")
    assert content_type == "application/pdf"
    text = pdf_text(data)
    for expected in ["Tancredo Araújo Peçanha", "313.131.313-", "Padaria Pão Dourado Ltda",
                     "Parcela A", "Parcela B", "R$ 200,00"]:
        assert expected in text, f"{expected!r} not in the term:\n{text}"


def qr_codes(data: bytes, scale: float = 2) -> list[str]:
    """The QR codes a reader finds on each page rendered at `scale` × 72 dpi, in gray."""
    found = []
    for page in pypdfium2.PdfDocument(data):
        bitmap = page.render(scale=scale, grayscale=True)
        view = zxingcpp.ImageView(memoryview(bitmap.buffer), bitmap.width, bitmap.height,
                                  zxingcpp.ImageFormat.Lum, bitmap.stride)
        found += [b.text for b in zxingcpp.read_barcodes(view, formats=zxingcpp.BarcodeFormat.QRCode)]
    return found


def test_the_statements_qr_codes_scan_as_each_open_charges_pix_code(server):
    customer = server.rest("/v1/customers?q=Concei")["data"][0]
    _, data = fetch(server, f"/v1/customers/{customer['id']}/statement")
    scanned = qr_codes(data)
    open_charges = server.rest(f"/v1/charges?customer_id={customer['id']}&status=pending,overdue")["data"]
    assert len(open_charges) >= 2, open_charges
    codes = [server.rest(f"/v1/charges/{c['id']}/pix")["data"] for c in open_charges]
    key = server.rest("/v1/pix/settings")["data"]["key"]
    # One QR code per open charge, each the API's code byte for byte, with a CRC that checks.
    assert sorted(scanned) == sorted(code["payload"] for code in codes), scanned
    text = pdf_text(data)
    for charge, code in zip(open_charges, codes):
        fields = brcode.parse(code["payload"])
        assert fields[54] == f"{charge['amount_due']:.2f}"
        assert fields[62][5] == charge["id"].replace("_", "")
        assert fields[26][1] == key
        # The copy-and-paste code is printed too, cut into lines that join back into it.
        assert code["payload"] in text.replace("\n", ""), text
    assert "utilize o código Pix de cada cobrança" in text


def test_an_accepted_terms_qr_code_scans_as_its_down_payments_pix_code(server):
    customer = new_customer(server, "414141414", "Jussara Conceição Brandão")
    debt = new_charge(server, customer, 900.00, "Mensalidades atrasadas", days=-20)
    body = {"customer_id": customer["id"], "charge_ids": [debt["id"]], "down_payment": 150.00,
            "installments": 2, "first_due_date": (date.today() + timedelta(days=30)).isoformat()}
    agreement = server.rest("/v1/agreements", method="POST", body=body)["data"]
    _, proposed = fetch(server, f"/v1/agreements/{agreement['id']}/term")
    assert qr_codes(proposed) == [], "a proposal has no charge to pay yet"
    accepted = server.rest(f"/v1/agreements/{agreement['id']}/accept", method="POST", body={})["data"]
    down = next(i for i in accepted["installments_schedule"] if i["number"] == 0)
    code = server.rest(f"/v1/charges/{down['charge_id']}/pix")["data"]
    _, data = fetch(server, f"/v1/agreements/{agreement['id']}/term")
    assert qr_codes(data) == [code["payload"]]
    assert brcode.parse(code["payload"])[54] == "150.00"
    assert "Entrada do acordo" in pdf_text(data)


def test_a_charges_export_is_a_csv_a_spreadsheet_opens(server):
    created = server.rest("/v1/exports", method="POST", body={"kind": "charges", "filters": {"status": "paid"}})["data"]
    export = created
    deadline = time.monotonic() + 30
    while export["status"] not in ("completed", "failed") and time.monotonic() < deadline:
        time.sleep(0.2)
        export = server.rest(f"/v1/exports/{created['id']}")["data"]
    assert export["status"] == "completed", export
    content_type, data = fetch(server, f"/v1/exports/{created['id']}/download")
    assert content_type.startswith("text/csv")
    text = data.decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows, text
    assert export["row_count"] == len(rows)
    assert {r["status"] for r in rows} == {"paid"}
    assert any("Serviço avulso" in r["description"] for r in rows), "accents survive"
