//! `GET /v1/reports/aging` (and the tool `dunning_reports_aging`) against a computation of
//! its own: each open charge of the organization, as the charges endpoint shows it, put in
//! its range of days overdue by a plain day-by-day walk from its due date over weekends and
//! ANBIMA's national holidays (`tests/data`), summed, and its debtors ranked.

use std::collections::{BTreeMap, HashSet};

use http::StatusCode;
use serde_json::{Value, json};
use time::{Date, Duration, Weekday};

use crate::common::TestServer;

/// ANBIMA's national holidays, as published (not the server's calendar).
fn holidays() -> HashSet<Date> {
    let text = include_str!("../data/anbima-holidays-2025-2030.txt");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| Date::parse(l, time::macros::format_description!("[year]-[month]-[day]")))
        .collect::<Result<_, _>>()
        .expect("holiday dates")
}

fn day_off(day: Date, holidays: &HashSet<Date>) -> bool {
    matches!(day.weekday(), Weekday::Saturday | Weekday::Sunday) || holidays.contains(&day)
}

/// The due date, walked a day at a time past weekends and holidays.
fn effective(due: Date, holidays: &HashSet<Date>) -> Date {
    let mut day = due;
    while day_off(day, holidays) {
        day += Duration::days(1);
    }
    day
}

fn bucket(days_overdue: i64) -> &'static str {
    match days_overdue {
        ..=0 => "not_due",
        1..=30 => "1_30",
        31..=60 => "31_60",
        61..=90 => "61_90",
        _ => "over_90",
    }
}

fn date(value: &Value) -> Date {
    let text = value.as_str().expect("a date");
    Date::parse(
        text,
        time::macros::format_description!("[year]-[month]-[day]"),
    )
    .expect(text)
}

fn cents(value: &Value) -> i64 {
    (value.as_f64().expect("an amount") * 100.0).round() as i64
}

fn reais(cents: i64) -> Value {
    json!(cents as f64 / 100.0)
}

/// Every open charge of the token's organization, as `charges_list` shows it today.
async fn open_charges(server: &TestServer, token: &str) -> Vec<Value> {
    let mut charges = Vec::new();
    for page in 1.. {
        let answer = server
            .rest(
                "GET",
                &format!("/v1/charges?status=pending,overdue&per_page=100&page={page}"),
                token,
                None,
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
        let items = answer.body["data"].as_array().unwrap().clone();
        let last = page >= answer.body["meta"]["total_pages"].as_i64().unwrap();
        charges.extend(items);
        if last {
            break;
        }
    }
    charges
}

/// The report the organization's open `charges` make on `today`, computed here: buckets by
/// days overdue from the walked effective due date, statuses, debtors ranked by what they
/// owe (ties by id) and named as `customers_get` names them.
async fn expected_report(
    server: &TestServer,
    token: &str,
    charges: &[Value],
    today: Date,
) -> Value {
    let holidays = holidays();
    let ranges = ["not_due", "1_30", "31_60", "61_90", "over_90"];
    let mut buckets: BTreeMap<&str, (i64, i64)> = ranges.iter().map(|r| (*r, (0, 0))).collect();
    let mut statuses: BTreeMap<&str, (i64, i64)> =
        [("pending", (0, 0)), ("overdue", (0, 0))].into();
    let mut debtors: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    let (mut count, mut total) = (0, 0);
    for charge in charges {
        let owed = cents(&charge["amount_due"]);
        let effective_due = effective(date(&charge["due_date"]), &holidays);
        assert_eq!(
            date(&charge["effective_due_date"]),
            effective_due,
            "{charge}"
        );
        let days = (today - effective_due).whole_days();
        let status = if days > 0 { "overdue" } else { "pending" };
        assert_eq!(charge["status"], status, "{charge}");
        for sum in [
            buckets.get_mut(bucket(days)).unwrap(),
            statuses.get_mut(status).unwrap(),
            debtors
                .entry(charge["customer_id"].as_str().unwrap().to_string())
                .or_default(),
        ] {
            sum.0 += 1;
            sum.1 += owed;
        }
        count += 1;
        total += owed;
    }
    let mut ranked: Vec<(String, (i64, i64))> = debtors.into_iter().collect();
    ranked.sort_by(|(a_id, a), (b_id, b)| b.1.cmp(&a.1).then(a_id.cmp(b_id)));
    let mut top = Vec::new();
    for (id, (count, owed)) in ranked.into_iter().take(10) {
        let customer = server
            .rest("GET", &format!("/v1/customers/{id}"), token, None)
            .await;
        top.push(
            json!({"customer_id": id, "name": customer.body["data"]["name"],
            "count": count, "amount": reais(owed)}),
        );
    }
    let limits = [
        (0, json!(0)),
        (1, json!(30)),
        (31, json!(60)),
        (61, json!(90)),
        (91, Value::Null),
    ];
    let ranges: Vec<Value> = ranges
        .iter()
        .zip(limits)
        .map(|(r, (min, max))| {
            json!({"bucket": r, "min_days_overdue": min, "max_days_overdue": max,
                "count": buckets[r].0, "amount": reais(buckets[r].1)})
        })
        .collect();
    let by_status: Vec<Value> = ["pending", "overdue"]
        .iter()
        .map(|s| json!({"status": s, "count": statuses[s].0, "amount": reais(statuses[s].1)}))
        .collect();
    json!({"data": {
        "as_of": today.to_string(),
        "total": {"count": count, "amount": reais(total)},
        "buckets": ranges,
        "by_status": by_status,
        "top_debtors": top,
    }})
}

/// A new customer of organization `org`: its id.
async fn customer(server: &TestServer, org: usize, name: &str, document: &str) -> String {
    let token = server.token(org, "admin", "api");
    let created = server
        .rest(
            "POST",
            "/v1/customers",
            &token,
            Some(json!({"name": name, "document": document, "email": "devedor@example.com"})),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    created.body["data"]["id"].as_str().unwrap().to_string()
}

/// A charge of `customer` in organization `org`: its id.
async fn charge(server: &TestServer, org: usize, customer: &str, amount: f64, due: Date) -> String {
    let token = server.token(org, "admin", "api");
    let created = server
        .rest(
            "POST",
            "/v1/charges",
            &token,
            Some(
                json!({"customer_id": customer, "description": "Mensalidade", "amount": amount,
                "due_date": due.to_string(), "fine_percent": 2, "interest_percent": 1}),
            ),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    created.body["data"]["id"].as_str().unwrap().to_string()
}

async fn act(server: &TestServer, path: &str, body: Value) {
    let token = server.token(0, "admin", "api");
    let answer = server.rest("POST", path, &token, Some(body)).await;
    assert!(answer.status.is_success(), "{path}: {}", answer.text);
}

/// The latest day at least `days` before `today` that `keep` accepts.
fn day_before(today: Date, days: i64, keep: impl Fn(Date) -> bool) -> Date {
    let mut day = today - Duration::days(days);
    while !keep(day) {
        day -= Duration::days(1);
    }
    day
}

/// Organization 0's charges of every kind of due date (a Saturday, a weekday holiday, long
/// past, still to come, partly paid), some paid or canceled; and a large debt of organization
/// 1. Returns the ids of organization 0's new open charges.
async fn debts(server: &TestServer, today: Date) -> Vec<String> {
    let holidays = holidays();
    let big = customer(server, 0, "Devedora Grande Ltda", "97531086000110").await;
    let small = customer(server, 0, "José Pequeno", "24681357928").await;
    let saturday = day_before(today, 10, |d| d.weekday() == Weekday::Saturday);
    let holiday = day_before(today, 2, |d| {
        holidays.contains(&d) && !matches!(d.weekday(), Weekday::Saturday | Weekday::Sunday)
    });
    let open = vec![
        charge(server, 0, &big, 1500.0, saturday).await,
        charge(server, 0, &big, 820.35, holiday).await,
        charge(server, 0, &big, 300.0, today - Duration::days(200)).await,
        charge(server, 0, &small, 99.9, today + Duration::days(15)).await,
        charge(server, 0, &small, 450.0, today - Duration::days(45)).await,
        charge(server, 0, &small, 210.0, today - Duration::days(75)).await,
    ];
    // Partly paid: one not yet due, one overdue.
    act(
        server,
        &format!("/v1/charges/{}/pay", open[3]),
        json!({"amount": 40.0, "method": "transfer"}),
    )
    .await;
    act(
        server,
        &format!("/v1/charges/{}/pay", open[4]),
        json!({"amount": 100.0, "method": "transfer"}),
    )
    .await;
    // Paid and canceled charges owe nothing.
    let paid = charge(server, 0, &small, 70.0, today - Duration::days(10)).await;
    let due = server
        .rest(
            "GET",
            &format!("/v1/charges/{paid}"),
            &server.token(0, "admin", "api"),
            None,
        )
        .await;
    act(
        server,
        &format!("/v1/charges/{paid}/pay"),
        json!({"amount": due.body["data"]["amount_due"], "method": "transfer"}),
    )
    .await;
    let canceled = charge(server, 0, &big, 5000.0, today - Duration::days(20)).await;
    act(server, &format!("/v1/charges/{canceled}/cancel"), json!({})).await;
    // Another organization's debt, larger than any of organization 0.
    let other = customer(server, 1, "Outra Organização SA", "86420246000138").await;
    charge(server, 1, &other, 9_000_000.0, today - Duration::days(40)).await;
    open
}

#[tokio::test]
async fn aging_report_sums_what_each_open_charge_owes_by_days_past_its_effective_due_date() {
    let server = TestServer::start().await;
    let today = dunning_domain::calendar::today();
    let ours = debts(&server, today).await;
    let viewer = server.token(0, "viewer", "api");
    let report = server.rest("GET", "/v1/reports/aging", &viewer, None).await;
    assert_eq!(report.status, StatusCode::OK, "{}", report.text);
    let today = date(&report.body["data"]["as_of"]);
    let charges = open_charges(&server, &viewer).await;
    for id in &ours {
        assert!(
            charges.iter().any(|c| c["id"] == *id.as_str()),
            "{id} is open"
        );
    }
    let expected = expected_report(&server, &viewer, &charges, today).await;
    assert_eq!(report.body, expected, "{}", report.text);
    // What the cases must have made of it: every range has a charge of its own, a partly paid
    // charge counts what is left, and the other organization's debt is nowhere.
    let data = &report.body["data"];
    for range in data["buckets"].as_array().unwrap() {
        assert!(range["count"].as_i64().unwrap() >= 1, "{range}");
    }
    let not_due = charges
        .iter()
        .find(|c| c["id"] == *ours[3].as_str())
        .unwrap();
    assert_eq!(not_due["amount_due"], json!(59.9));
    let other = server.org_id(1).to_string();
    assert!(!report.text.contains("Outra Organiza"), "{}", report.text);
    assert!(
        cents(&data["total"]["amount"]) < 900_000_000,
        "{other}: {data}"
    );
    let top = data["top_debtors"].as_array().unwrap();
    assert!(top.len() <= 10);
    assert!(
        top.windows(2)
            .all(|w| cents(&w[0]["amount"]) >= cents(&w[1]["amount"]))
    );
}

#[tokio::test]
async fn aging_report_needs_a_token_with_the_charges_read_scope() {
    let server = TestServer::start().await;
    let viewer = server.token(0, "viewer", "api");
    assert_eq!(
        server
            .rest("GET", "/v1/reports/aging", &viewer, None)
            .await
            .status,
        StatusCode::OK
    );
    let db = &server.state.db;
    let org = server.org_id(0).to_string();
    let email = &server.credentials.organizations[0].people[0].email;
    let person = dunning_store::orgs::find_person(db, &org, email)
        .await
        .unwrap()
        .unwrap();
    let token = kobana_dunning::auth::tokens::generate(kobana_dunning::auth::Audience::Api);
    dunning_store::orgs::create_token(
        db,
        dunning_store::orgs::NewToken {
            organization_id: &org,
            person_id: &person.id,
            audience: "api",
            scopes: &["customers:read".to_string()],
            toolsets: None,
            discovery: None,
            token_hash: &kobana_dunning::auth::tokens::hash(&token),
            label: None,
            rate_limit: None,
        },
    )
    .await
    .unwrap();
    let refused = server.rest("GET", "/v1/reports/aging", &token, None).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.text);
    assert_eq!(
        refused.body["code"], "insufficient_scope",
        "{}",
        refused.text
    );
}

#[tokio::test]
async fn aging_report_as_a_tool_call_is_the_rest_answer() {
    let server = TestServer::start().await;
    let today = dunning_domain::calendar::today();
    debts(&server, today).await;
    let rest = server
        .rest(
            "GET",
            "/v1/reports/aging",
            &server.token(0, "viewer", "api"),
            None,
        )
        .await;
    assert_eq!(rest.status, StatusCode::OK, "{}", rest.text);
    let result = server
        .call_tool(
            &server.token(0, "viewer", "mcp"),
            "dunning_reports_aging",
            json!({}),
        )
        .await;
    assert!(result.get("isError").is_none(), "{result}");
    // The MCP layer adds the rate limit's state as `meta`; the rest is the REST body.
    let mut structured = result["structuredContent"].clone();
    let meta = structured.as_object_mut().unwrap().remove("meta");
    assert!(
        meta.is_some_and(|m| m["rate_limit"].is_object()),
        "{result}"
    );
    assert_eq!(structured, rest.body, "{result}");
}

#[tokio::test]
async fn aging_report_reads_the_open_charges_through_the_organization_and_state_index() {
    let server = TestServer::start().await;
    let sql = format!("EXPLAIN QUERY PLAN {}", dunning_store::charges::open_sql());
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(server.org_id(0))
        .fetch_all(&server.state.db.pool)
        .await
        .unwrap();
    let plan: Vec<String> = rows
        .iter()
        .map(|row| sqlx::Row::try_get::<String, _>(row, "detail").unwrap())
        .collect();
    let on_charges: Vec<&String> = plan
        .iter()
        .filter(|line| line.contains(" charges ") || line.ends_with(" charges"))
        .collect();
    assert!(
        !on_charges.is_empty()
            && on_charges
                .iter()
                .all(|line| line.starts_with("SEARCH charges USING INDEX charges_org_state_")),
        "{plan:#?}"
    );
}
