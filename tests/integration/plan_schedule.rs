//! Each charge's next plan step day (`charges.steps_due_on`, `dunning_store::plan_schedule`):
//! the collection worker reads only the charges whose day has come, and every path that can
//! bring a step earlier marks the charge for the next tick, on SQLite and on PostgreSQL. Each
//! path is checked by what matters — the step runs on its day, not a tick later — and by the
//! schedule itself: after a tick, a charge with nothing due today is not read again.

use dunning_engine::collection::tick;
use http::StatusCode;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::collection::{admin, charge_with_plan, count, customer, day, get, post};
use crate::common::{TestServer, business_day_offset};

fn at(days: i64, minutes: i64) -> OffsetDateTime {
    OffsetDateTime::now_utc() + Duration::days(days) + Duration::minutes(minutes)
}

/// The Brasília day of `at(days, 0)`, as the worker reads the schedule.
fn brasilia_day(days: i64) -> String {
    dunning_domain::calendar::day_of(at(days, 0)).to_string()
}

async fn new_plan(server: &TestServer, steps: Value) -> String {
    let answer = post(
        server,
        "/v1/collection_plans",
        json!({"name": "Régua", "steps": steps}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
    answer.body["data"]["id"].as_str().unwrap().to_string()
}

/// The charges `plan_schedule::due` hands the worker for the day `days` from now.
async fn due_ids(server: &TestServer, days: i64) -> Vec<String> {
    let rows = dunning_store::plan_schedule::due(&server.state.db, &brasilia_day(days), ("", ""))
        .await
        .unwrap();
    let mut ids: Vec<String> = rows.into_iter().map(|r| r.charge_id).collect();
    ids.dedup();
    ids
}

async fn notices(server: &TestServer, charge_id: &str) -> i64 {
    count(
        server,
        &format!("SELECT COUNT(*) FROM deliveries WHERE charge_id = '{charge_id}'"),
    )
    .await
}

async fn steps_due_on(server: &TestServer, charge_id: &str) -> Option<String> {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT steps_due_on FROM charges WHERE id = '{charge_id}'"
    )))
    .fetch_one(&server.state.db.pool)
    .await
    .unwrap()
}

async fn patch(server: &TestServer, path: &str, body: Value) {
    let answer = server.rest("PATCH", path, &admin(server), Some(body)).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
}

/// A settled charge waits for its step's day: no tick before it reads it.
async fn a_settled_charge_is_read_again_only_on_its_day(server: &TestServer) {
    let plan = new_plan(
        server,
        json!([{"offset_days": 10, "action": "notify", "channel": "email"}]),
    )
    .await;
    let c = customer(server, "Agenda Um").await;
    let due_in = business_day_offset(2, 1);
    let id = charge_with_plan(server, &c, 100.0, due_in, Some(&plan)).await;
    assert!(
        due_ids(server, 0).await.contains(&id),
        "new: looked at once"
    );
    tick(&server.state.engine, at(0, 0)).await.unwrap();
    let step_day = due_in + 10;
    assert_eq!(steps_due_on(server, &id).await, Some(day(step_day)));
    for days in [0, 5, step_day - 1] {
        assert!(!due_ids(server, days).await.contains(&id), "day {days}");
    }
    assert!(due_ids(server, step_day).await.contains(&id));
    tick(&server.state.engine, at(step_day, 0)).await.unwrap();
    assert_eq!(notices(server, &id).await, 1);
    assert_eq!(steps_due_on(server, &id).await, None, "nothing left to run");
    assert!(!due_ids(server, 400).await.contains(&id));
}

/// Attaching a plan to a charge that had none, and moving a due date earlier, each bring a
/// step to today: it runs at the next tick.
async fn attaching_a_plan_and_an_earlier_due_date_are_seen_at_the_next_tick(server: &TestServer) {
    let plan = new_plan(
        server,
        json!([{"offset_days": -3, "action": "notify", "channel": "email"}]),
    )
    .await;
    let c = customer(server, "Agenda Dois").await;
    let plain = charge_with_plan(server, &c, 100.0, 3, None).await;
    tick(&server.state.engine, at(0, 0)).await.unwrap();
    patch(
        server,
        &format!("/v1/charges/{plain}"),
        json!({"collection_plan_id": plan}),
    )
    .await;
    tick(&server.state.engine, at(0, 1)).await.unwrap();
    assert_eq!(
        notices(server, &plain).await,
        1,
        "the plan's step of today ran"
    );

    let later = charge_with_plan(server, &c, 100.0, 20, Some(&plan)).await;
    tick(&server.state.engine, at(0, 2)).await.unwrap();
    assert_eq!(steps_due_on(server, &later).await, Some(day(17)));
    patch(
        server,
        &format!("/v1/charges/{later}"),
        json!({"due_date": day(3)}),
    )
    .await;
    tick(&server.state.engine, at(0, 3)).await.unwrap();
    assert_eq!(
        notices(server, &later).await,
        1,
        "due in 3 days: its −3 step is today"
    );
}

/// A step added to a plan, or a step moved earlier, reaches the plan's charges at the next
/// tick (not at the day the charges were waiting for).
async fn adding_or_moving_a_step_earlier_is_seen_at_the_next_tick(server: &TestServer) {
    let plan = new_plan(
        server,
        json!([{"offset_days": 20, "action": "notify", "channel": "email"}]),
    )
    .await;
    let c = customer(server, "Agenda Três").await;
    let due_in = business_day_offset(5, 1);
    let id = charge_with_plan(server, &c, 100.0, due_in, Some(&plan)).await;
    tick(&server.state.engine, at(0, 0)).await.unwrap();
    assert_eq!(steps_due_on(server, &id).await, Some(day(due_in + 20)));
    let added = post(
        server,
        &format!("/v1/collection_plans/{plan}/steps"),
        json!({"offset_days": -due_in, "action": "notify", "channel": "sms"}),
    )
    .await;
    assert_eq!(added.status, StatusCode::CREATED, "{}", added.text);
    tick(&server.state.engine, at(0, 1)).await.unwrap();
    assert_eq!(notices(server, &id).await, 1, "the new step of today ran");

    let later = new_plan(
        server,
        json!([{"offset_days": 20, "action": "notify", "channel": "email"}]),
    )
    .await;
    let due_in = business_day_offset(6, 1);
    let other = charge_with_plan(server, &c, 100.0, due_in, Some(&later)).await;
    tick(&server.state.engine, at(0, 2)).await.unwrap();
    assert_eq!(steps_due_on(server, &other).await, Some(day(due_in + 20)));
    let steps = get(server, &format!("/v1/collection_plans/{later}")).await;
    let step = steps["steps"][0]["id"].as_str().unwrap().to_string();
    patch(
        server,
        &format!("/v1/collection_plans/{later}/steps/{step}"),
        json!({"offset_days": 0}),
    )
    .await;
    assert_eq!(
        steps_due_on(server, &other).await.as_deref(),
        Some("0000-01-01")
    );
    tick(&server.state.engine, at(due_in, 0)).await.unwrap();
    assert_eq!(
        notices(server, &other).await,
        1,
        "moved to the due date, which came"
    );
}

/// A charge in a dispute leaves the schedule's index; its step, due meanwhile, runs at the
/// first tick after the dispute ends.
async fn a_dispute_holds_the_steps_and_its_end_releases_them(server: &TestServer) {
    let plan = new_plan(
        server,
        json!([{"offset_days": 1, "action": "notify", "channel": "email"}]),
    )
    .await;
    let c = customer(server, "Agenda Quatro").await;
    // Due on a business day: the step counts a day from the effective due date.
    let due = business_day_offset(1, 1);
    let id = charge_with_plan(server, &c, 100.0, due, Some(&plan)).await;
    tick(&server.state.engine, at(0, 0)).await.unwrap();
    let dispute = post(
        server,
        "/v1/disputes",
        json!({"charge_id": id, "reason": "already_paid"}),
    )
    .await;
    assert_eq!(dispute.status, StatusCode::CREATED, "{}", dispute.text);
    assert!(!due_ids(server, due + 2).await.contains(&id), "in dispute");
    tick(&server.state.engine, at(due + 2, 0)).await.unwrap();
    assert_eq!(notices(server, &id).await, 0);
    let dispute_id = dispute.body["data"]["id"].as_str().unwrap();
    let resolved = post(
        server,
        &format!("/v1/disputes/{dispute_id}/resolve"),
        json!({"outcome": "rejected"}),
    )
    .await;
    assert_eq!(resolved.status, StatusCode::OK, "{}", resolved.text);
    assert!(
        due_ids(server, due + 2).await.contains(&id),
        "back, with its day"
    );
    tick(&server.state.engine, at(due + 2, 1)).await.unwrap();
    assert_eq!(notices(server, &id).await, 1);
}

/// A holiday of the organization's own moves effective due dates; removing one brings a step
/// earlier, and the charges are looked at again.
async fn a_change_of_holidays_is_seen_at_the_next_tick(server: &TestServer) {
    // A step a day after the due date, for a charge due in 10 days on a business day.
    let due_in = business_day_offset(10, 1);
    let plan = new_plan(
        server,
        json!([{"offset_days": 1, "action": "notify", "channel": "email"}]),
    )
    .await;
    let holidays = json!({"holidays": [{"date": day(due_in), "name": "Feriado municipal"}]});
    let answer = server
        .rest("PUT", "/v1/calendar", &admin(server), Some(holidays))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    let c = customer(server, "Agenda Cinco").await;
    let id = charge_with_plan(server, &c, 100.0, due_in, Some(&plan)).await;
    tick(&server.state.engine, at(0, 0)).await.unwrap();
    let with_holiday = steps_due_on(server, &id).await.unwrap();
    assert!(with_holiday > day(due_in + 1), "{with_holiday}");
    let answer = server
        .rest(
            "PUT",
            "/v1/calendar",
            &admin(server),
            Some(json!({"holidays": []})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    tick(&server.state.engine, at(due_in + 1, 0)).await.unwrap();
    assert_eq!(notices(server, &id).await, 1, "the day after the due date");
}

/// The worker writes a charge's day only if nothing changed it since it read: a step added
/// while a tick runs is never lost to the day that tick computed without it. Many rounds of a
/// tick racing a new step; after each, the next tick must run the new step.
async fn a_step_added_during_a_tick_is_never_lost(server: &TestServer) {
    let c = customer(server, "Agenda Seis").await;
    for round in 0..12 {
        let plan = new_plan(
            server,
            json!([{"offset_days": 30, "action": "notify", "channel": "email"}]),
        )
        .await;
        let mut ids = Vec::new();
        for _ in 0..4 {
            ids.push(charge_with_plan(server, &c, 100.0, 4, Some(&plan)).await);
        }
        let steps = format!("/v1/collection_plans/{plan}/steps");
        let add = post(
            server,
            &steps,
            json!({"offset_days": -4, "action": "notify", "channel": "email"}),
        );
        let (report, added) = tokio::join!(tick(&server.state.engine, at(0, 0)), add);
        report.unwrap();
        assert_eq!(added.status, StatusCode::CREATED, "{}", added.text);
        tick(&server.state.engine, at(0, 1)).await.unwrap();
        for id in &ids {
            assert_eq!(notices(server, id).await, 1, "round {round}, charge {id}");
        }
    }
}

/// A batch of the worker's next days is written in one statement (one commit: on
/// PostgreSQL a statement per charge was a WAL flush per charge), each only where the
/// charge's revision is still the one read; `None` says no step is left.
async fn a_batch_is_settled_in_one_statement_where_each_revision_held(server: &TestServer) {
    use dunning_store::plan_schedule::{Settled, settle};
    let rows: Vec<(String, i64)> =
        sqlx::query_as("SELECT id, steps_revision FROM charges ORDER BY id DESC LIMIT 30")
            .fetch_all(&server.state.db.pool)
            .await
            .unwrap();
    assert_eq!(rows.len(), 30);
    let day = brasilia_day(9);
    let settled: Vec<Settled> = rows
        .iter()
        .enumerate()
        .map(|(i, (id, revision))| Settled {
            charge_id: id.clone(),
            // Every third was changed since it was read: it keeps its mark.
            revision: if i % 3 == 0 { revision - 1 } else { *revision },
            next: (i % 3 != 1).then(|| day.clone()),
        })
        .collect();
    let mut before = Vec::with_capacity(rows.len());
    for (id, _) in &rows {
        before.push(steps_due_on(server, id).await);
    }
    let url = &server.state.config.database_url;
    let relay = crate::postgres_reads::CountingRelay::start().await;
    let relayed = url.replace("127.0.0.1:5432", &format!("127.0.0.1:{}", relay.port));
    let db = if relayed == *url {
        server.state.db.clone()
    } else {
        dunning_store::Db::open(&relayed).await.unwrap().0
    };
    // A first statement opens the pool's connection; what is counted is the batch alone.
    assert_eq!(settle(&db, &settled[..1]).await.unwrap(), 0);
    let mut written = 0;
    let exchanges = crate::postgres_reads::writes_during(&relay, async {
        written = settle(&db, &settled).await.unwrap();
    })
    .await;
    assert_eq!(written, 20);
    if relayed != *url {
        // The statement and the pool's own exchanges around it; a statement per charge was
        // 30 at least.
        assert!(exchanges < 10, "{exchanges} exchanges for one batch of 30");
    }
    for (i, ((id, _), before)) in rows.iter().zip(before).enumerate() {
        let expected = match i % 3 {
            0 => before,
            1 => None,
            _ => Some(day.clone()),
        };
        assert_eq!(steps_due_on(server, id).await, expected, "charge {i}");
    }
}

macro_rules! on_both_engines {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    let server = crate::common::TestServer::start().await;
                    super::$name(&server).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test]
                async fn $name() {
                    let Some(server) = crate::postgres::postgres_server().await else {
                        return;
                    };
                    super::$name(&server).await;
                }
            )*
        }
    };
}

on_both_engines!(
    a_settled_charge_is_read_again_only_on_its_day,
    attaching_a_plan_and_an_earlier_due_date_are_seen_at_the_next_tick,
    adding_or_moving_a_step_earlier_is_seen_at_the_next_tick,
    a_dispute_holds_the_steps_and_its_end_releases_them,
    a_change_of_holidays_is_seen_at_the_next_tick,
    a_step_added_during_a_tick_is_never_lost,
    a_batch_is_settled_in_one_statement_where_each_revision_held,
);
