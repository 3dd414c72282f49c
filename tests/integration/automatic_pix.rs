//! Pix Automático for agreements on both engines, in-process, through the generated MCP tools
//! an assistant uses: asked for, its recurrence's status and authorization code read back, the
//! PSP's callbacks of recurrences (`/rec`) and recurring charges (`/cobr`) applied once, and the
//! cancellation confirmed first. The flows against a real PSP (mutual TLS, `/locrec`, `/rec`,
//! `/cobr`, journeys 2 and 4, fallbacks) are `tests/python/test_pix_automatico.py`; here the PSP's
//! side of the creation is written through the application layer, as the worker writes it.

use http::StatusCode;
use serde_json::{Value, json};

use crate::agreements::{charge, customer, day};
use crate::common::{TestServer, tool_problem};
use crate::pix_psp::{callback, connect};
use dunning_store::automatic_pix::{self as store, Created};
use dunning_store::events::Actor;

const REC_ID: &str = "RN1234567820261206abcdefghijk";

fn worker() -> Actor {
    Actor {
        kind: "system",
        id: None,
        name: Some("test".into()),
    }
}

/// Set the organization's account at the PSP, as `pix_psp_set` does.
async fn with_account(server: &TestServer) {
    let mut tx = server.state.db.begin().await.unwrap();
    dunning_store::pix_psp::set_account(
        &mut tx,
        server.org_id(0),
        Some(dunning_store::pix_psp::Account {
            branch: Some("0001"),
            number: "1234567",
            kind: "checking",
        }),
        &dunning_store::now_text(),
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

/// An accepted agreement of two instalments, the first due in five days: its id and the first
/// instalment's charge.
async fn accepted(server: &TestServer, token: &str) -> (String, String) {
    let who = customer(server, "Joana Prado", "108642975").await;
    let debt = charge(server, &who, 600.0, 20).await;
    let proposal = server
        .call_tool(
            token,
            "dunning_agreements_create",
            json!({"customer_id": who, "charge_ids": [debt], "installments": 2, "first_due_date": day(5)}),
        )
        .await;
    let id = proposal["structuredContent"]["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let accepted = server
        .call_tool(token, "dunning_agreements_accept", json!({"id": id}))
        .await;
    let first = accepted["structuredContent"]["data"]["installments_schedule"][0]["charge_id"]
        .as_str()
        .unwrap()
        .to_string();
    (id, first)
}

async fn shown(server: &TestServer, token: &str, id: &str) -> Value {
    let read = server
        .call_tool(token, "dunning_agreements_get", json!({"id": id}))
        .await;
    read["structuredContent"]["data"]["automatic_pix"].clone()
}

async fn an_assistant_asks_follows_and_cancels_pix_automatico(server: TestServer) {
    let secret = connect(&server).await;
    let token = server.token(0, "admin", "mcp");
    let (id, first) = accepted(&server, &token).await;

    // Without an account at the PSP it cannot be asked for, and nothing is stored.
    let refused = server
        .call_tool(
            &token,
            "dunning_agreements_automatic_pix",
            json!({"id": id}),
        )
        .await;
    assert_eq!(
        tool_problem(&refused)["code"],
        "automatic_pix_unavailable",
        "{refused}"
    );
    assert_eq!(shown(&server, &token, &id).await, Value::Null);

    with_account(&server).await;
    let asked = server
        .call_tool(
            &token,
            "dunning_agreements_automatic_pix",
            json!({"id": id, "journey": "qr", "retry_policy": "three_in_seven_days"}),
        )
        .await;
    let automatic = &asked["structuredContent"]["data"]["automatic_pix"];
    assert_eq!(automatic["status"], "requested", "{asked}");
    assert_eq!(automatic["retry_policy"], "three_in_seven_days");
    let again = server
        .call_tool(
            &token,
            "dunning_agreements_automatic_pix",
            json!({"id": id}),
        )
        .await;
    assert_eq!(tool_problem(&again)["code"], "automatic_pix_exists");

    // The worker created it at the PSP.
    let org = server.org_id(0).to_string();
    let mut tx = server.state.db.begin().await.unwrap();
    let live = store::live_of_agreement(&mut tx, &org, &id)
        .await
        .unwrap()
        .unwrap();
    let made = Created {
        rec_id: REC_ID,
        location_id: "108",
        location: "pix.example.com/qr/v2/rec/2353c790eefb11eaadc10242ac120002",
        qr_code: "00020101021226...6304ABCD",
    };
    let now = dunning_store::now_text();
    assert!(
        dunning_app::automatic_pix::created(&mut tx, &org, &worker(), &live, &made, &now)
            .await
            .unwrap()
    );
    tx.commit().await.unwrap();
    let waiting = shown(&server, &token, &id).await;
    assert_eq!(waiting["status"], "awaiting_authorization");
    assert_eq!(waiting["qr_code"], made.qr_code);
    assert_eq!(waiting["rec_id"], REC_ID);

    // The PSP's callback: the debtor authorized. Once, and a forged address changes nothing.
    let approved = json!({"recs": [{"idRec": REC_ID, "status": "APROVADA",
        "atualizacao": [{"status": "CRIADA", "data": "2026-12-06T10:00:00.000Z"},
                        {"status": "APROVADA", "data": "2026-12-06T10:05:00.000Z"}],
        "ativacao": {"tipoJornada": "JORNADA_2"}}]});
    let forged = format!("/pix/webhook/{}/rec", dunning_store::ids::new_secret(32));
    assert_eq!(
        callback(&server, &forged, &approved).await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        shown(&server, &token, &id).await["status"],
        "awaiting_authorization"
    );
    let path = format!("/pix/webhook/{secret}/rec");
    assert_eq!(
        callback(&server, &path, &approved).await,
        (StatusCode::OK, json!({"moved": 1, "unchanged": 0}))
    );
    assert_eq!(
        callback(&server, &path, &approved).await,
        (StatusCode::OK, json!({"moved": 0, "unchanged": 1}))
    );
    let bad = json!({"recs": [{"idRec": "short", "status": "APROVADA"}]});
    let (status, problem) = callback(&server, &path, &bad).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(problem["errors"][0]["field"], "recs[0]", "{problem}");
    let authorized = shown(&server, &token, &id).await;
    assert_eq!(authorized["status"], "authorized");
    assert!(authorized["authorized_at"].is_string());

    // The first instalment enters its lead window: its debit, then the PSP's word on it.
    let mut tx = server.state.db.begin().await.unwrap();
    let live = store::live_of_agreement(&mut tx, &org, &id)
        .await
        .unwrap()
        .unwrap();
    let today = dunning_store::today();
    let scheduled = dunning_app::automatic_pix::schedule_debits(&mut tx, &org, &live, today, &now)
        .await
        .unwrap();
    assert_eq!(
        scheduled, 1,
        "only the first instalment is 2 to 10 days away"
    );
    tx.commit().await.unwrap();
    let txid = format!("{}cobr000", first.replace('_', ""));
    let paid = json!({"cobsr": [{"idRec": REC_ID, "txid": txid, "status": "CONCLUIDA",
        "atualizacao": [{"status": "CONCLUIDA", "data": "2026-12-11T10:00:00.000Z"}],
        "pix": [{"endToEndId": "E12345678202612111000abcdef12345", "txid": txid,
                 "valor": "300.00", "horario": dunning_store::now_text()}]}]});
    let path = format!("/pix/webhook/{secret}/cobr");
    assert_eq!(
        callback(&server, &path, &paid).await,
        (StatusCode::OK, json!({"moved": 1, "unchanged": 0}))
    );
    assert_eq!(
        callback(&server, &path, &paid).await,
        (StatusCode::OK, json!({"moved": 0, "unchanged": 1}))
    );
    let instalment = server
        .call_tool(&token, "dunning_charges_get", json!({"id": first}))
        .await;
    assert_eq!(instalment["structuredContent"]["data"]["status"], "paid");
    let debits = shown(&server, &token, &id).await["debits"].clone();
    assert_eq!(debits.as_array().unwrap().len(), 1);
    assert_eq!(debits[0]["status"], "paid");
    assert_eq!(debits[0]["amount"], 300.0);

    // Canceling is destructive: confirmed first in the stateless era.
    let elicitation = json!({ "elicitation": { "form": {} } });
    let first_round = server
        .mcp26(
            &token,
            "tools/call",
            json!({"name": "dunning_agreements_automatic_pix_cancel", "arguments": {"id": id}}),
            elicitation.clone(),
        )
        .await;
    let result = &first_round.body["result"];
    assert_eq!(result["resultType"], "input_required", "{result}");
    assert_eq!(shown(&server, &token, &id).await["status"], "authorized");
    let state = result["requestState"].as_str().unwrap();
    let done = server
        .mcp26(
            &token,
            "tools/call",
            json!({"name": "dunning_agreements_automatic_pix_cancel", "arguments": {"id": id},
                   "requestState": state,
                   "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}}),
            elicitation,
        )
        .await;
    assert_eq!(
        done.body["result"]["resultType"], "complete",
        "{}",
        done.text
    );
    // At the PSP by the worker: due now, marked to cancel, still authorized until it says so.
    let mut tx = server.state.db.begin().await.unwrap();
    let live = store::live_of_agreement(&mut tx, &org, &id)
        .await
        .unwrap()
        .unwrap();
    assert!(live.cancel_requested && live.next_attempt_at.is_some());
    tx.commit().await.unwrap();
    let canceled = json!({"recs": [{"idRec": REC_ID, "status": "CANCELADA",
        "atualizacao": [{"status": "CANCELADA", "data": "2026-12-06T11:00:00.000Z"}],
        "encerramento": {"cancelamento": {"solicitante": "USUARIO_RECEBEDOR", "codigo": "SLCR",
                                          "descricao": "Cancelada pelo recebedor"}}}]});
    let path = format!("/pix/webhook/{secret}/rec");
    assert_eq!(callback(&server, &path, &canceled).await.0, StatusCode::OK);
    let ended = shown(&server, &token, &id).await;
    assert_eq!(
        (&ended["status"], &ended["ended_by"], &ended["end_code"]),
        (&json!("canceled"), &json!("organization"), &json!("SLCR"))
    );
    let events = crate::agreements::event_types(&server, &id).await;
    for kind in [
        "agreement.automatic_pix_requested",
        "agreement.automatic_pix_awaiting_authorization",
        "agreement.automatic_pix_authorized",
        "agreement.automatic_pix_canceled",
    ] {
        assert!(events.iter().any(|e| e == kind), "{kind} in {events:?}");
    }
    // Another organization sees none of it and cannot touch it.
    let other = server
        .call_tool(
            &server.token(1, "admin", "mcp"),
            "dunning_agreements_automatic_pix",
            json!({"id": id}),
        )
        .await;
    assert_eq!(tool_problem(&other)["status"], 404, "{other}");
}

#[tokio::test]
async fn an_assistant_asks_follows_and_cancels_pix_automatico_on_sqlite() {
    an_assistant_asks_follows_and_cancels_pix_automatico(TestServer::start().await).await;
}

#[tokio::test]
async fn an_assistant_asks_follows_and_cancels_pix_automatico_on_postgres() {
    let Some(server) = crate::postgres::postgres_server().await else {
        return;
    };
    an_assistant_asks_follows_and_cancels_pix_automatico(server).await;
}
