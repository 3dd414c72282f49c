//! Collection plans and their steps over REST: validation of steps by action, positions,
//! ETags, the in-use rule on delete, and charges attached to real plans.

use http::StatusCode;
use serde_json::{Value, json};

use crate::collection::{admin, charge, charge_with_plan, customer, get, post};
use crate::common::TestServer;

async fn create_plan(server: &TestServer, body: Value) -> Value {
    let answer = post(server, "/v1/collection_plans", body).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    assert_eq!(answer.header("etag"), Some("\"v1\""));
    answer.body["data"].clone()
}

fn standard_plan() -> Value {
    json!({
        "name": "Régua padrão varejo",
        "description": "Lembrete, aviso e negativação",
        "steps": [
            {"offset_days": -3, "action": "notify", "channel": "email"},
            {"offset_days": 0, "action": "notify", "channel": "whatsapp", "template": "Olá {{customer.name}}"},
            {"offset_days": 30, "action": "negativate"},
        ],
    })
}

fn actions(plan: &Value) -> Vec<(i64, String, i64)> {
    plan["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["position"].as_i64().unwrap(),
                s["action"].as_str().unwrap().to_string(),
                s["offset_days"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_plan_is_created_with_its_steps_in_order() {
    let server = TestServer::start().await;
    let plan = create_plan(&server, standard_plan()).await;
    assert!(plan["id"].as_str().unwrap().starts_with("cpl_"));
    assert_eq!(
        actions(&plan),
        [
            (1, "notify".into(), -3),
            (2, "notify".into(), 0),
            (3, "negativate".into(), 30)
        ]
    );
    let negativate = &plan["steps"][2];
    assert_eq!(negativate["bureau"], "serasa", "the default bureau");
    assert_eq!(negativate["channel"], Value::Null);
    assert_eq!(plan["steps"][0]["template"], Value::Null);
    let id = plan["id"].as_str().unwrap();
    let read = server
        .rest(
            "GET",
            &format!("/v1/collection_plans/{id}"),
            &server.token(0, "viewer", "api"),
            None,
        )
        .await;
    assert_eq!(read.body["data"], plan);
    let listed = server
        .rest("GET", "/v1/collection_plans?q=regua", &admin(&server), None)
        .await;
    assert_eq!(listed.body["meta"]["total"], 1);
    assert_eq!(listed.body["data"][0], plan);
    let none = server
        .rest("GET", "/v1/collection_plans?q=outra", &admin(&server), None)
        .await;
    assert_eq!(none.body["meta"]["total"], 0);
    let other_org = server
        .rest(
            "GET",
            &format!("/v1/collection_plans/{id}"),
            &server.token(1, "admin", "api"),
            None,
        )
        .await;
    assert_eq!(other_org.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn steps_that_do_not_fit_their_action_are_refused_by_field() {
    let server = TestServer::start().await;
    let refused = |steps: Value| {
        let server = &server;
        async move {
            let answer = post(
                server,
                "/v1/collection_plans",
                json!({"name": "Errada", "steps": steps}),
            )
            .await;
            assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.text);
            answer.body["errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["field"].as_str().unwrap().to_string())
                .collect::<Vec<String>>()
        }
    };
    // The document's faults come first; the rules a schema cannot say (what fits the step's
    // action) are judged once the steps meet the document.
    let mut fields = refused(json!([
        {"offset_days": 0, "action": "notify", "channel": "email"},
        {"offset_days": 400, "action": "protest"},
        {"offset_days": 5, "action": "negativate", "bureau": "equifax"},
        {"action": "notify", "channel": "email", "color": "red"},
    ]))
    .await;
    fields.extend(
        refused(json!([
            {"offset_days": 0, "action": "notify"},
            {"offset_days": 40, "action": "protest", "channel": "sms"},
            {"offset_days": 5, "action": "negativate", "template": "x"},
        ]))
        .await,
    );
    fields.sort();
    assert_eq!(
        fields,
        [
            "steps[0].channel",
            "steps[1].channel",
            "steps[1].offset_days",
            "steps[2].bureau",
            "steps[2].template",
            "steps[3].color",
            "steps[3].offset_days",
        ]
    );
    let list = server
        .rest("GET", "/v1/collection_plans", &admin(&server), None)
        .await;
    // Only the demo organization's own ready-made plan.
    assert_eq!(list.body["meta"]["total"], 1, "nothing created");
}

#[tokio::test]
async fn steps_are_inserted_moved_changed_and_removed_keeping_positions() {
    let server = TestServer::start().await;
    let plan = create_plan(&server, standard_plan()).await;
    let id = plan["id"].as_str().unwrap().to_string();
    let steps = format!("/v1/collection_plans/{id}/steps");

    let first = post(
        &server,
        &steps,
        json!({"offset_days": -10, "action": "notify", "channel": "sms", "position": 1}),
    )
    .await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text);
    assert_eq!(first.body["data"]["position"], 1);
    let plan = get(&server, &format!("/v1/collection_plans/{id}")).await;
    assert_eq!(
        actions(&plan).iter().map(|a| a.2).collect::<Vec<_>>(),
        [-10, -3, 0, 30]
    );
    let read = server
        .rest(
            "GET",
            &format!("/v1/collection_plans/{id}"),
            &admin(&server),
            None,
        )
        .await;
    assert_eq!(
        read.header("etag"),
        Some("\"v2\""),
        "a new step is a new plan version"
    );

    // Move the negativation (position 4) to the front and make it a protest.
    let negativate = plan["steps"][3]["id"].as_str().unwrap().to_string();
    let path = format!("{steps}/{negativate}");
    let stale = server
        .rest_with(
            "PATCH",
            &path,
            &admin(&server),
            &[("if-match", "\"v9\"")],
            Some(json!({"position": 1})),
        )
        .await;
    assert_eq!(stale.status, StatusCode::PRECONDITION_FAILED);
    let changed = server
        .rest_with(
            "PATCH",
            &path,
            &admin(&server),
            &[("if-match", "\"v1\"")],
            Some(json!({"position": 1, "action": "protest"})),
        )
        .await;
    assert_eq!(changed.status, StatusCode::OK, "{}", changed.text);
    assert_eq!(changed.body["data"]["action"], "protest");
    assert_eq!(changed.body["data"]["bureau"], Value::Null);
    assert_eq!(changed.header("etag"), Some("\"v2\""));
    let plan = get(&server, &format!("/v1/collection_plans/{id}")).await;
    assert_eq!(
        actions(&plan)
            .iter()
            .map(|a| (a.0, a.2))
            .collect::<Vec<_>>(),
        [(1, 30), (2, -10), (3, -3), (4, 0)]
    );

    // A notify step without a channel, or a protest with one, is refused.
    let notify_step = plan["steps"][1]["id"].as_str().unwrap().to_string();
    let bad = server
        .rest(
            "PATCH",
            &format!("{steps}/{notify_step}"),
            &admin(&server),
            Some(json!({"channel": null})),
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert_eq!(bad.body["errors"][0]["field"], "channel");
    let bad = server
        .rest(
            "PATCH",
            &path,
            &admin(&server),
            Some(json!({"channel": "email"})),
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);

    let listed = server
        .rest(
            "GET",
            &format!("{steps}?per_page=2&page=2"),
            &admin(&server),
            None,
        )
        .await;
    assert_eq!(listed.body["meta"]["total"], 4);
    assert_eq!(listed.body["data"][0]["position"], 3);

    let deleted = server.rest("DELETE", &path, &admin(&server), None).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    let plan = get(&server, &format!("/v1/collection_plans/{id}")).await;
    assert_eq!(
        actions(&plan)
            .iter()
            .map(|a| (a.0, a.2))
            .collect::<Vec<_>>(),
        [(1, -10), (2, -3), (3, 0)]
    );
    let gone = server.rest("DELETE", &path, &admin(&server), None).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    let no_plan = server
        .rest(
            "GET",
            "/v1/collection_plans/cpl_0000000000000000/steps",
            &admin(&server),
            None,
        )
        .await;
    assert_eq!(no_plan.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_plan_is_renamed_with_if_match() {
    let server = TestServer::start().await;
    let plan = create_plan(&server, json!({"name": "Régua A"})).await;
    let path = format!("/v1/collection_plans/{}", plan["id"].as_str().unwrap());
    let stale = server
        .rest_with(
            "PATCH",
            &path,
            &admin(&server),
            &[("if-match", "\"v2\"")],
            Some(json!({"name": "Régua B"})),
        )
        .await;
    assert_eq!(stale.status, StatusCode::PRECONDITION_FAILED);
    assert_eq!(get(&server, &path).await["name"], "Régua A");
    let done = server
        .rest_with(
            "PATCH",
            &path,
            &admin(&server),
            &[("if-match", "\"v1\"")],
            Some(json!({"name": "Régua B", "description": null})),
        )
        .await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.text);
    assert_eq!(done.body["data"]["name"], "Régua B");
    assert_eq!(done.body["data"]["description"], Value::Null);
    let empty = server
        .rest("PATCH", &path, &admin(&server), Some(json!({"name": ""})))
        .await;
    assert_eq!(empty.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn charges_take_only_plans_of_their_organization() {
    let server = TestServer::start().await;
    let plan = create_plan(&server, standard_plan()).await;
    let plan_id = plan["id"].as_str().unwrap();
    let c = customer(&server, "Conceição Araújo").await;
    let id = charge_with_plan(&server, &c, 100.0, 5, Some(plan_id)).await;
    assert_eq!(
        get(&server, &format!("/v1/charges/{id}")).await["collection_plan_id"],
        plan_id
    );

    let unknown = post(
        &server,
        "/v1/charges",
        json!({"customer_id": c, "description": "x", "amount": 1, "due_date": "2030-01-01", "collection_plan_id": "cpl_0000000000000000"}),
    )
    .await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST);
    assert_eq!(unknown.body["errors"][0]["field"], "collection_plan_id");
    assert_eq!(unknown.body["errors"][0]["code"], "not_found");

    // Another organization's plan does not exist for this one.
    let theirs = server
        .rest(
            "POST",
            "/v1/collection_plans",
            &server.token(1, "admin", "api"),
            Some(json!({"name": "Deles"})),
        )
        .await;
    let theirs = theirs.body["data"]["id"].as_str().unwrap();
    let other = charge(&server, &c, 50.0, 5).await;
    let refused = server
        .rest(
            "PATCH",
            &format!("/v1/charges/{other}"),
            &admin(&server),
            Some(json!({"collection_plan_id": theirs})),
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    let attached = server
        .rest(
            "PATCH",
            &format!("/v1/charges/{other}"),
            &admin(&server),
            Some(json!({"collection_plan_id": plan_id})),
        )
        .await;
    assert_eq!(
        attached.body["data"]["collection_plan_id"], plan_id,
        "{}",
        attached.text
    );
    let detached = server
        .rest(
            "PATCH",
            &format!("/v1/charges/{other}"),
            &admin(&server),
            Some(json!({"collection_plan_id": null})),
        )
        .await;
    assert_eq!(detached.body["data"]["collection_plan_id"], Value::Null);
}

#[tokio::test]
async fn a_plan_in_use_by_open_charges_cannot_be_deleted() {
    let server = TestServer::start().await;
    let plan = create_plan(&server, standard_plan()).await;
    let plan_id = plan["id"].as_str().unwrap();
    let path = format!("/v1/collection_plans/{plan_id}");
    let c = customer(&server, "Raimundo Nonato Câmara").await;
    let open = charge_with_plan(&server, &c, 100.0, 5, Some(plan_id)).await;
    let paid = charge_with_plan(&server, &c, 10.0, 5, Some(plan_id)).await;
    post(
        &server,
        &format!("/v1/charges/{paid}/pay"),
        json!({"amount": 10, "method": "pix"}),
    )
    .await;

    let refused = server.rest("DELETE", &path, &admin(&server), None).await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert_eq!(refused.body["code"], "collection_plan_in_use");
    assert_eq!(get(&server, &path).await, plan, "nothing changed");

    server
        .rest(
            "PATCH",
            &format!("/v1/charges/{open}"),
            &admin(&server),
            Some(json!({"collection_plan_id": null})),
        )
        .await;
    let deleted = server.rest("DELETE", &path, &admin(&server), None).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT, "{}", deleted.text);
    let gone = server.rest("GET", &path, &admin(&server), None).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    assert_eq!(
        get(&server, &format!("/v1/charges/{paid}")).await["collection_plan_id"],
        Value::Null,
        "a closed charge forgets the deleted plan"
    );
}

/// Each write of a plan or a step leaves its event, with the payload receivers get (the
/// writes go through `dunning_app::plans`).
#[tokio::test]
async fn each_write_of_a_plan_and_its_steps_leaves_its_event() {
    let server = TestServer::start().await;
    let token = admin(&server);
    let plan = create_plan(&server, standard_plan()).await;
    let id = plan["id"].as_str().unwrap();
    let renamed = server
        .rest(
            "PATCH",
            &format!("/v1/collection_plans/{id}"),
            &token,
            Some(json!({ "name": "Régua nova" })),
        )
        .await;
    assert_eq!(renamed.status, StatusCode::OK, "{}", renamed.text);
    let added = post(
        &server,
        &format!("/v1/collection_plans/{id}/steps"),
        json!({ "offset_days": 10, "action": "protest" }),
    )
    .await;
    assert_eq!(added.status, StatusCode::CREATED, "{}", added.text);
    let step = added.body["data"]["id"].as_str().unwrap().to_string();
    let path = format!("/v1/collection_plans/{id}/steps/{step}");
    let changed = server
        .rest("PATCH", &path, &token, Some(json!({ "offset_days": 12 })))
        .await;
    assert_eq!(changed.status, StatusCode::OK, "{}", changed.text);
    let gone = server.rest("DELETE", &path, &token, None).await;
    assert_eq!(gone.status, StatusCode::NO_CONTENT, "{}", gone.text);
    let deleted = server
        .rest(
            "DELETE",
            &format!("/v1/collection_plans/{id}"),
            &token,
            None,
        )
        .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT, "{}", deleted.text);

    let trail: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT type, subject_id, data FROM events
         WHERE subject_id IN ($1, $2) ORDER BY created_at, id",
    )
    .bind(id)
    .bind(&step)
    .fetch_all(&server.state.db.pool)
    .await
    .unwrap();
    let trail: Vec<(String, String, Value)> = trail
        .into_iter()
        .map(|(kind, subject, data)| (kind, subject, serde_json::from_str(&data).unwrap()))
        .collect();
    let step_event = |kind: &str, offset: Option<i64>, action: &str| {
        let mut data = json!({ "collection_plan_id": id, "action": action });
        if let Some(offset) = offset {
            data["offset_days"] = json!(offset);
        }
        (kind.to_string(), step.clone(), data)
    };
    assert_eq!(
        trail,
        vec![
            (
                "collection_plan.created".to_string(),
                id.to_string(),
                json!({ "name": "Régua padrão varejo", "steps": 3 })
            ),
            (
                "collection_plan.updated".to_string(),
                id.to_string(),
                json!({ "name": "Régua nova" })
            ),
            step_event("collection_plan_step.created", Some(10), "protest"),
            step_event("collection_plan_step.updated", Some(12), "protest"),
            step_event("collection_plan_step.deleted", None, "protest"),
            (
                "collection_plan.deleted".to_string(),
                id.to_string(),
                json!({ "name": "Régua nova" })
            ),
        ]
    );
}
