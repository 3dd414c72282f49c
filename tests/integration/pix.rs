//! Pix over REST and MCP: the organization's key (set by admins, checked, with its event),
//! each open charge's code (a BR Code whose fields and CRC check out, for the amount due,
//! with the charge's txid), `me`'s word on it, and the notices that carry the code.

use http::StatusCode;
use serde_json::{Value, json};

use crate::common::TestServer;
use dunning_domain::pix::brcode::{self, Parsed};

/// The demo's first organization has its CNPJ as its Pix key.
const PADARIA_CNPJ: &str = "11222333000181";

/// A demo charge of organization 0 in `status`.
async fn charge_in(server: &TestServer, status: &str) -> Value {
    let answer = server
        .rest(
            "GET",
            &format!("/v1/charges?status={status}&per_page=1"),
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    answer.body["data"][0].clone()
}

async fn charge_pix(server: &TestServer, id: &str) -> crate::common::Answer {
    server
        .rest(
            "GET",
            &format!("/v1/charges/{id}/pix"),
            &server.token(0, "viewer", "api"),
            None,
        )
        .await
}

/// The BR Code checked: every length, the CRC, the Pix GUI.
fn parsed(payload: &str) -> Parsed {
    brcode::parse(payload).unwrap_or_else(|e| panic!("{payload}: {e}"))
}

#[tokio::test]
async fn an_open_charges_code_pays_its_amount_due_to_the_key_with_its_txid() {
    let server = TestServer::start().await;
    for status in ["overdue", "pending"] {
        let charge = charge_in(&server, status).await;
        let id = charge["id"].as_str().unwrap();
        let answer = charge_pix(&server, id).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
        let data = &answer.body["data"];
        assert_eq!(data["charge_id"], charge["id"]);
        assert_eq!(data["source"], "static");
        assert_eq!(data["amount"], charge["amount_due"], "{status}");
        let txid = id.replace('_', "");
        assert_eq!(data["txid"], txid.as_str());
        let payload = data["payload"].as_str().unwrap();
        let code = parsed(payload);
        assert_eq!(code.get(1), Some("12"), "for one payment");
        assert_eq!(code.sub(26, 1), Some(PADARIA_CNPJ));
        let amount = format!("{:.2}", charge["amount_due"].as_f64().unwrap());
        assert_eq!(code.get(54), Some(amount.as_str()));
        assert_eq!(code.get(59), Some("Padaria Pao Dourado Ltda"));
        assert_eq!(code.get(60), Some("Sao Paulo"));
        assert_eq!(code.sub(62, 5), Some(txid.as_str()));
        let svg = data["qr_svg"].as_str().unwrap();
        assert!(
            svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            "{svg}"
        );
        assert!(!svg.contains("<script") && !svg.contains("href"));
    }
}

#[tokio::test]
async fn a_dynamic_code_from_the_psp_is_shown_instead_while_the_charge_is_open() {
    let server = TestServer::start().await;
    let charge = charge_in(&server, "overdue").await;
    let id = charge["id"].as_str().unwrap();
    // What the PSP connection stores: the manual's example of a dynamic code.
    let dynamic = "00020101021226720014br.gov.bcb.pix2550bx.com.br/pix/8b3da2f3-9a41-40d1-a91a-bd93113bd4415204000053039865406123.455802BR5913Fulano de Tal6008BRASILIA62190515RP12345678-2019630445C8";
    sqlx::query("UPDATE charges SET pix_payload = $1, pix_location = $2 WHERE id = $3")
        .bind(dynamic)
        .bind("bx.com.br/pix/8b3da2f3-9a41-40d1-a91a-bd93113bd441")
        .bind(id)
        .execute(&server.state.db.pool)
        .await
        .unwrap();
    let answer = charge_pix(&server, id).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    let data = &answer.body["data"];
    assert_eq!(data["source"], "dynamic");
    assert_eq!(data["payload"], dynamic);
    assert_eq!(data["txid"], "RP12345678-2019");
    assert_eq!(data["amount"], charge["amount_due"]);
}

#[tokio::test]
async fn a_charge_that_is_not_open_or_an_organization_without_a_key_has_no_code() {
    let server = TestServer::start().await;
    for status in ["paid", "canceled", "in_agreement"] {
        let charge = charge_in(&server, status).await;
        let answer = charge_pix(&server, charge["id"].as_str().unwrap()).await;
        assert_eq!(answer.status, StatusCode::CONFLICT, "{status}");
        assert_eq!(answer.body["code"], "charge_not_open", "{status}");
    }
    let open = charge_in(&server, "overdue").await;
    sqlx::query("DELETE FROM pix_settings WHERE organization_id = $1")
        .bind(server.org_id(0))
        .execute(&server.state.db.pool)
        .await
        .unwrap();
    let answer = charge_pix(&server, open["id"].as_str().unwrap()).await;
    assert_eq!(answer.status, StatusCode::CONFLICT);
    assert_eq!(answer.body["code"], "pix_not_configured");
    let token = server.token(0, "viewer", "api");
    let answer = server.rest("GET", "/v1/pix/settings", &token, None).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.body["code"], "pix_not_configured");
    let me = server.rest("GET", "/v1/me", &token, None).await;
    assert_eq!(
        me.body["data"]["pix"],
        json!({"configured": false, "dynamic": false})
    );
    // Another organization's charge is not found, whatever its Pix.
    let other = server
        .rest(
            "GET",
            &format!("/v1/charges/{}/pix", open["id"].as_str().unwrap()),
            &server.token(1, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(other.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn only_an_admin_sets_the_key_and_every_refused_field_is_named() {
    let server = TestServer::start().await;
    let body = json!({
        "key": "+55 (11) 98765-4321",
        "merchant_name": "Padaria Pão Dourado",
        "merchant_city": "Guarulhos",
    });
    let manager = server.token(0, "manager", "api");
    let answer = server
        .rest("PUT", "/v1/pix/settings", &manager, Some(body.clone()))
        .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.text);

    let admin = server.token(0, "admin", "api");
    let wrong = json!({
        "key": "529.982.247-24",
        "merchant_name": "Café ☕ Dourado",
        "merchant_city": "São Paulo",
    });
    let answer = server
        .rest("PUT", "/v1/pix/settings", &admin, Some(wrong))
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.text);
    let errors: Vec<(&str, &str)> = answer.body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["field"].as_str().unwrap(), e["code"].as_str().unwrap()))
        .collect();
    assert_eq!(
        errors,
        [
            ("key", "invalid_pix_key"),
            ("merchant_name", "unsupported_characters")
        ]
    );
    let too_long =
        json!({"key": PADARIA_CNPJ, "merchant_name": "x", "merchant_city": "Florianópolis SC"});
    let answer = server
        .rest("PUT", "/v1/pix/settings", &admin, Some(too_long))
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.body["errors"][0]["field"], "merchant_city");

    let answer = server
        .rest_with(
            "PUT",
            "/v1/pix/settings",
            &admin,
            &[("idempotency-key", "pix-1")],
            Some(body.clone()),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    let data = &answer.body["data"];
    assert_eq!(data["key"], "+5511987654321");
    assert_eq!(data["key_type"], "phone");
    assert_eq!(data["merchant_name"], "Padaria Pao Dourado");
    assert_eq!(data["merchant_city"], "Guarulhos");
    let replay = server
        .rest_with(
            "PUT",
            "/v1/pix/settings",
            &admin,
            &[("idempotency-key", "pix-1")],
            Some(body),
        )
        .await;
    assert_eq!(replay.body, answer.body, "replayed, not written again");

    let read = server
        .rest(
            "GET",
            "/v1/pix/settings",
            &server.token(0, "viewer", "api"),
            None,
        )
        .await;
    assert_eq!(read.body, answer.body);
    let me = server.rest("GET", "/v1/me", &admin, None).await;
    assert_eq!(
        me.body["data"]["pix"],
        json!({"configured": true, "key_type": "phone", "dynamic": false})
    );
    // The next code pays the new key.
    let charge = charge_in(&server, "pending").await;
    let answer = charge_pix(&server, charge["id"].as_str().unwrap()).await;
    let code = parsed(answer.body["data"]["payload"].as_str().unwrap());
    assert_eq!(code.sub(26, 1), Some("+5511987654321"));
    assert_eq!(code.get(60), Some("Guarulhos"));

    let events = server
        .rest("GET", "/v1/events?per_page=100", &admin, None)
        .await;
    let updated: Vec<&Value> = events.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "pix_settings.updated" && e["actor"]["type"] == "person")
        .collect();
    assert_eq!(updated.len(), 1, "one event for the write and its replay");
    assert_eq!(updated[0]["subject_type"], "pix_settings");
    assert_eq!(
        updated[0]["data"],
        json!({"key_type": "phone", "merchant_name": "Padaria Pao Dourado", "merchant_city": "Guarulhos"}),
        "the key itself stays out of the audit trail"
    );
}

#[tokio::test]
async fn every_notice_carries_the_charges_code_and_its_amount() {
    let server = TestServer::start().await;
    let token = server.token(0, "collector", "api");
    let list = server
        .rest(
            "GET",
            "/v1/charges?status=overdue&per_page=100",
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    let mut sent = Vec::new();
    for charge in list.body["data"].as_array().unwrap() {
        for channel in ["email", "sms"] {
            let answer = server
                .rest(
                    "POST",
                    &format!("/v1/charges/{}/notify", charge["id"].as_str().unwrap()),
                    &token,
                    Some(json!({"channel": channel})),
                )
                .await;
            if answer.status == StatusCode::ACCEPTED {
                sent.push((charge.clone(), channel, answer.body["data"]["body"].clone()));
            }
        }
    }
    assert!(sent.iter().any(|(_, channel, _)| *channel == "email"));
    assert!(sent.iter().any(|(_, channel, _)| *channel == "sms"));
    for (charge, channel, body) in &sent {
        let body = body.as_str().unwrap();
        // The code is a line (e-mail) or the end of the line (SMS) of its own.
        let payload = body
            .lines()
            .filter_map(|line| line.rsplit(": ").next())
            .find(|candidate| candidate.starts_with("000201"))
            .unwrap_or_else(|| panic!("no BR Code in {body}"));
        let code = parsed(payload);
        let amount = format!("{:.2}", charge["amount_due"].as_f64().unwrap());
        assert_eq!(code.get(54), Some(amount.as_str()), "{channel}");
        assert_eq!(
            code.sub(62, 5),
            Some(charge["id"].as_str().unwrap().replace('_', "").as_str())
        );
        let shown = format!("R$ {}", amount.replace('.', ","));
        assert!(body.contains(&shown), "{channel}: {body}");
    }
}

#[tokio::test]
async fn the_code_of_a_charge_is_an_mcp_resource_and_a_tool() {
    let server = TestServer::start().await;
    let charge = charge_in(&server, "overdue").await;
    let id = charge["id"].as_str().unwrap();
    let token = server.token(0, "viewer", "mcp");
    let uri = format!("kobana://dunning/charges/{id}/pix");
    let answer = server
        .mcp(&token, "resources/read", json!({"uri": uri}))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    let text = answer.body["result"]["contents"][0]["text"]
        .as_str()
        .unwrap();
    let read: Value = serde_json::from_str(text).unwrap();
    parsed(read["data"]["payload"].as_str().unwrap());
    let result = server
        .call_tool(&token, "dunning_charges_pix", json!({"id": id}))
        .await;
    assert_eq!(
        result["structuredContent"]["data"]["payload"],
        read["data"]["payload"]
    );
}

#[tokio::test]
async fn the_command_line_sets_the_key_with_the_same_checks_and_an_event() {
    let server = TestServer::start().await;
    let pix_set = |key: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_kobana-dunning"))
            .args([
                "pix",
                "set",
                "--organization",
                server.org_id(0),
                "--key",
                key,
            ])
            .args(["--merchant-name", "Padaria Pão Dourado"])
            .args(["--merchant-city", "São Paulo"])
            .args(["--database-url", &server.state.config.database_url])
            .env_remove("DATABASE_URL")
            .output()
            .expect("pix set runs")
    };
    let refused = pix_set("ana@localhost");
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("--key is not an e-mail address"), "{said}");

    let evp = "123E4567-E12B-12D1-A456-426655440000";
    let done = pix_set(evp);
    assert!(done.status.success(), "{done:?}");
    let admin = server.token(0, "admin", "api");
    let read = server.rest("GET", "/v1/pix/settings", &admin, None).await;
    assert_eq!(read.body["data"]["key"], evp.to_lowercase());
    assert_eq!(read.body["data"]["key_type"], "evp");
    assert_eq!(read.body["data"]["merchant_name"], "Padaria Pao Dourado");
    let events = server
        .rest("GET", "/v1/events?per_page=100", &admin, None)
        .await;
    assert!(
        events.body["data"].as_array().unwrap().iter().any(|e| {
            e["type"] == "pix_settings.updated"
                && e["actor"]["name"] == "command line (pix set)"
                && e["data"]["key_type"] == "evp"
        }),
        "{}",
        events.text
    );
}

#[test]
fn the_documents_example_of_a_charges_code_is_a_valid_br_code() {
    let document: Value =
        serde_json::from_str(kobana_dunning::generated::OPENAPI_JSON).expect("document JSON");
    let example =
        document["components"]["schemas"]["ChargePix"]["properties"]["payload"]["example"]
            .as_str()
            .expect("an example");
    let code = parsed(example);
    assert_eq!(code.sub(62, 5), Some("chg4n7b2v9c1x8z3l6k"));
}

#[tokio::test]
async fn an_assistant_changes_the_key_only_once_the_user_confirms_the_key_it_names() {
    let server = TestServer::start().await;
    let token = server.token(0, "admin", "mcp");
    let capabilities = json!({ "elicitation": { "form": {} } });
    let arguments = json!({
        "key": "golpe@example.com",
        "merchant_name": "Padaria Pao Dourado",
        "merchant_city": "Sao Paulo",
    });
    let first = server
        .mcp26(
            &token,
            "tools/call",
            json!({"name": "dunning_pix_settings_update", "arguments": arguments}),
            capabilities.clone(),
        )
        .await;
    let result = &first.body["result"];
    assert_eq!(result["resultType"], "input_required", "{}", first.text);
    let message = result["inputRequests"]["confirm"]["params"]["message"]
        .as_str()
        .unwrap();
    assert!(message.contains("golpe@example.com"), "{message}");
    let read = server
        .rest(
            "GET",
            "/v1/pix/settings",
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(
        read.body["data"]["key"], PADARIA_CNPJ,
        "nothing changed yet"
    );

    let params = json!({
        "name": "dunning_pix_settings_update",
        "arguments": arguments,
        "requestState": result["requestState"],
        "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}},
    });
    let done = server
        .mcp26(&token, "tools/call", params, capabilities)
        .await;
    assert_eq!(
        done.body["result"]["resultType"], "complete",
        "{}",
        done.text
    );
    let read = server
        .rest(
            "GET",
            "/v1/pix/settings",
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(read.body["data"]["key"], "golpe@example.com");
}

#[tokio::test]
async fn postgres_replaces_the_key_and_makes_the_same_codes() {
    let Some(server) = crate::postgres::postgres_server().await else {
        return;
    };
    let admin = server.token(0, "admin", "api");
    for key in ["financeiro@paodourado.com.br", "529.982.247-25"] {
        let body = json!({"key": key, "merchant_name": "Padaria", "merchant_city": "Osasco"});
        let answer = server
            .rest("PUT", "/v1/pix/settings", &admin, Some(body))
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    }
    let read = server.rest("GET", "/v1/pix/settings", &admin, None).await;
    assert_eq!(read.body["data"]["key"], "52998224725");
    assert_eq!(read.body["data"]["key_type"], "cpf");
    let charge = charge_in(&server, "overdue").await;
    let answer = charge_pix(&server, charge["id"].as_str().unwrap()).await;
    let code = parsed(answer.body["data"]["payload"].as_str().unwrap());
    assert_eq!(code.sub(26, 1), Some("52998224725"));
    assert_eq!(code.get(60), Some("Osasco"));
}
