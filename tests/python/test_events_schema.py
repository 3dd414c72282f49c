"""Every event the service records, as events_list answers it and as a webhook carries it,
fits the webhook its type names in openapi/v1.yaml (the `webhooks` section): checked by the
Python `jsonschema` validator against the document itself, not by the Rust code that records
them. A scenario through the API makes events of most areas (customers, charges, payments,
cancellations, plans and steps, disputes, agreements, webhooks, the calendar) on top of the
demo's; then every event of the organization is read back and checked."""

from __future__ import annotations

import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from decimal import Decimal

import jsonschema
import pytest
import referencing
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "clients"))

from harness import Server, cpf  # noqa: E402

DOCUMENT = Path(__file__).resolve().parents[2] / "openapi" / "v1.yaml"


@pytest.fixture(scope="module")
def server():
    s = Server().start()
    yield s
    s.stop()
    s.cleanup()


def multiple_of(validator, divisor, instance, schema):
    """`multipleOf` in decimal: money is `multipleOf: 0.01`, and 1274.56 / 0.01 in binary
    floating point is not a whole number."""
    if validator.is_type(instance, "number") and Decimal(str(instance)) % Decimal(str(divisor)) != 0:
        yield jsonschema.ValidationError(f"{instance} is not a multiple of {divisor}")


Validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"multipleOf": multiple_of})


def webhook_validators() -> dict[str, jsonschema.Draft202012Validator]:
    """A validator per webhook, resolving the document's own `$ref`s."""
    doc = yaml.safe_load(DOCUMENT.read_text())
    resource = referencing.Resource.from_contents(doc, default_specification=referencing.jsonschema.DRAFT202012)
    registry = referencing.Registry().with_resource("urn:v1", resource)
    out = {}
    for name, item in doc["webhooks"].items():
        pointer = f"urn:v1#/webhooks/{name}/post/requestBody/content/application~1json/schema"
        out[name] = Validator({"$ref": pointer}, registry=registry)
    return out


def scenario(server: Server, api: str) -> None:
    """Writes of most kinds, each making its events."""
    rest = lambda path, body=None, method="POST": server.rest(path, token=api, method=method, body=body)  # noqa: E731
    today = datetime.now(timezone(timedelta(hours=-3))).date()
    customer = rest("/v1/customers", {"name": "Eventos da Silva", "document": cpf(), "email": "eventos@example.com.br"})["data"]["id"]
    rest(f"/v1/customers/{customer}", {"notes": "Prefere e-mail."}, "PATCH")
    charge = lambda amount, due: rest("/v1/charges", {  # noqa: E731
        "customer_id": customer, "description": "Evento", "amount": amount, "due_date": due.isoformat()})["data"]["id"]
    paid = charge(300.0, today + timedelta(days=5))
    rest(f"/v1/charges/{paid}", {"description": "Evento alterado", "tags": ["eventos"]}, "PATCH")
    instant = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    rest(f"/v1/charges/{paid}/pay", {"amount": 100.0, "method": "pix", "paid_at": instant})
    rest(f"/v1/charges/{paid}/pay", {"amount": 200.0, "method": "boleto", "paid_at": instant, "note": "resto"})
    rest(f"/v1/charges/{charge(50.0, today + timedelta(days=3))}/cancel", {"reason": "Engano"})
    disputed = charge(80.0, today + timedelta(days=3))
    dispute = rest("/v1/disputes", {"charge_id": disputed, "reason": "already_paid"})["data"]["id"]
    rest(f"/v1/disputes/{dispute}/resolve", {"outcome": "upheld", "resolution_note": "Pago em dinheiro"})
    owed = [charge(400.0, today - timedelta(days=20)), charge(250.0, today - timedelta(days=10))]
    agreement = rest("/v1/agreements", {"customer_id": customer, "charge_ids": owed, "installments": 3,
                                        "first_due_date": (today + timedelta(days=10)).isoformat()})["data"]["id"]
    rest(f"/v1/agreements/{agreement}/accept", {})
    rest(f"/v1/agreements/{agreement}/cancel", {"reason": "Desistiu"})
    plan = rest("/v1/collection_plans", {"name": "Plano de eventos"})["data"]["id"]
    step = rest(f"/v1/collection_plans/{plan}/steps", {"offset_days": 3, "action": "notify", "channel": "email"})["data"]["id"]
    rest(f"/v1/collection_plans/{plan}/steps/{step}", {"offset_days": 5}, "PATCH")
    rest(f"/v1/collection_plans/{plan}/steps/{step}", None, "DELETE")
    rest(f"/v1/collection_plans/{plan}", {"name": "Plano renomeado"}, "PATCH")
    rest(f"/v1/collection_plans/{plan}", None, "DELETE")
    hook = rest("/v1/webhooks", {"url": "https://example.com/kobana-hook", "events": ["charge.paid"]})["data"]["id"]
    rest(f"/v1/webhooks/{hook}", {"enabled": False}, "PATCH")
    rest(f"/v1/webhooks/{hook}", None, "DELETE")
    rest("/v1/calendar", {"holidays": [{"date": (today + timedelta(days=40)).isoformat(), "name": "Feriado"}]}, "PUT")


def all_events(server: Server, api: str) -> list[dict]:
    events, number = [], 1
    while True:
        page = server.rest(f"/v1/events?per_page=100&page={number}", token=api)
        events += page["data"]
        if number >= page["meta"]["total_pages"]:
            return events
        number += 1


def test_every_recorded_event_fits_its_declared_webhook(server: Server):
    api = server.person("admin")["api_token"]
    scenario(server, api)
    validators = webhook_validators()
    organization = server.org()["id"]
    events = all_events(server, api)
    kinds = {e["type"] for e in events}
    expected = {"customer.created", "customer.updated", "charge.created", "charge.updated", "charge.payment_recorded",
                "charge.paid", "charge.canceled", "dispute.opened", "dispute.upheld", "agreement.proposed",
                "agreement.accepted", "charge.in_agreement", "agreement.canceled", "charge.reinstated",
                "collection_plan.created", "collection_plan_step.created", "collection_plan_step.updated",
                "collection_plan_step.deleted", "collection_plan.updated", "collection_plan.deleted",
                "webhook.created", "webhook.updated", "webhook.deleted", "calendar.updated"}
    assert expected <= kinds, f"the scenario did not make {sorted(expected - kinds)}"
    faults = []
    for event in events:
        validator = validators.get(event["type"])
        if validator is None:
            faults.append(f"{event['type']}: no webhook of that name in the document")
            continue
        body = dict(event, organization_id=organization)
        for error in validator.iter_errors(body):
            faults.append(f"{event['type']} {event['id']}: {error.message} at {list(error.absolute_path)}")
    assert not faults, f"{len(faults)} of {len(events)} events do not fit the document:\n" + "\n".join(faults[:20])


def test_a_payload_the_document_does_not_declare_is_refused_by_the_check():
    """The check above can fail: a field the document does not declare, or a wrong type."""
    validators = webhook_validators()
    body = {"id": "evt_1", "type": "charge.paid", "subject_type": "charge", "subject_id": "chg_1",
            "actor": {"type": "system", "id": None, "name": "test"}, "created_at": "2026-01-01T00:00:00Z",
            "organization_id": "org_1", "data": {"paid_amount": 10.0, "paid_at": "2026-01-01T00:00:00Z"}}
    assert validators["charge.paid"].is_valid(body)
    assert not validators["charge.paid"].is_valid(dict(body, data=dict(body["data"], surprise=1)))
    assert not validators["charge.paid"].is_valid(dict(body, data={"paid_amount": "10"}))
    assert not validators["charge.paid"].is_valid(dict(body, data=dict(body["data"], paid_amount=10.001)))
    assert not validators["charge.canceled"].is_valid(body)
