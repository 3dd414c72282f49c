//! The same flows against PostgreSQL (127.0.0.1:5432, trust auth). Where no server answers,
//! each test says it skipped (under `CI=true` it fails): the embedded SQLite path is covered
//! everywhere.

use http::StatusCode;
use kobana_dunning::demo::Credentials;
use serde_json::json;

use crate::common::TestServer;
use crate::template::{self, OLD_TEMPLATE};

/// A fresh database on the local PostgreSQL holding the demo (a copy of this build's
/// template), or `None` (with a note) when there is none.
pub async fn postgres_server() -> Option<TestServer> {
    postgres_server_with(TestServer::config(false)).await
}

/// Same, with the given configuration (its database URL is replaced).
pub async fn postgres_server_with(config: kobana_dunning::Config) -> Option<TestServer> {
    let (url, credentials) = seeded_postgres_url().await?;
    let dir = tempfile::tempdir().expect("temp dir");
    Some(TestServer::start_seeded(url, credentials, dir, config).await)
}

/// The URL of a new, empty database on the local PostgreSQL, or `None` (with a note) when
/// there is none.
pub async fn fresh_postgres_url() -> Option<String> {
    let (pool, admin_url) = admin_pool().await?;
    sweep_old_databases(&pool).await;
    let name = new_database_name();
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&pool)
        .await
        .expect("create database");
    Some(database_url(&admin_url, &name))
}

/// The URL of a new database holding the demo, copied from this build's template (made first
/// when no process made it yet), and the demo's credentials; `None` (with a note) when there
/// is no PostgreSQL.
///
/// One advisory lock covers finding, making, copying and sweeping templates: two processes
/// never make the same template, and none drops a template another one is copying.
async fn seeded_postgres_url() -> Option<(String, Credentials)> {
    let (pool, admin_url) = admin_pool().await?;
    sweep_old_databases(&pool).await;
    let mut conn = pool.acquire().await.expect("admin connection");
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT pg_advisory_lock({TEMPLATE_LOCK})::text"
    )))
    .execute(&mut *conn)
    .await
    .expect("template lock");
    let key = template::build_key();
    sweep_old_templates(&mut conn, &key).await;
    let template = match find_template(&mut conn, &key).await {
        Some(name) => name,
        None => make_template(&mut conn, &admin_url, &key).await,
    };
    let comment: Option<String> = sqlx::query_scalar(
        "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1",
    )
    .bind(&template)
    .fetch_one(&mut *conn)
    .await
    .expect("template credentials");
    let credentials = serde_json::from_str(&comment.expect("template credentials"))
        .expect("template credentials JSON");
    let name = new_database_name();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "CREATE DATABASE {name} TEMPLATE {template}"
    )))
    .execute(&mut *conn)
    .await
    .expect("copy the template database");
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT pg_advisory_unlock({TEMPLATE_LOCK})"
    )))
    .execute(&mut *conn)
    .await
    .expect("template unlock");
    Some((database_url(&admin_url, &name), credentials))
}

/// The advisory lock of the template databases ("kd_tpl" in ASCII); a process that dies
/// holding it loses it with its connection.
const TEMPLATE_LOCK: i64 = 0x6b64_5f74_706c;

/// A pool on the admin database, or `None` (with a note) when no PostgreSQL answers.
async fn admin_pool() -> Option<(sqlx::AnyPool, String)> {
    let admin_url = std::env::var("TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    sqlx::any::install_default_drivers();
    let connect = tokio::time::timeout(
        std::time::Duration::from_secs(3),
        sqlx::AnyPool::connect(&admin_url),
    )
    .await;
    match connect {
        Ok(Ok(pool)) => Some((pool, admin_url)),
        _ => {
            // CI starts PostgreSQL before every run: there a missing server is a failure,
            // not a silent pass.
            assert!(
                std::env::var_os("CI").is_none(),
                "no PostgreSQL at {admin_url}, and CI must have one"
            );
            eprintln!("skipped: no PostgreSQL at {admin_url}");
            None
        }
    }
}

/// `kd_test_<unix seconds>_<random>`, the name `sweep_old_databases` knows.
fn new_database_name() -> String {
    format!(
        "kd_test_{}_{}",
        unix_seconds(),
        dunning_store::ids::new_id("db").trim_start_matches("db_")
    )
}

/// The URL of database `name` on the server of `admin_url`.
fn database_url(admin_url: &str, name: &str) -> String {
    let base = admin_url
        .rsplit_once('/')
        .map(|(b, _)| b.to_string())
        .unwrap_or(admin_url.to_string());
    format!("{base}/{name}")
}

fn unix_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs()
}

/// This build's template, `kd_tpl_<unix seconds>_<key>`, if one was made.
async fn find_template(conn: &mut sqlx::AnyConnection, key: &str) -> Option<String> {
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname::text FROM pg_database WHERE datname LIKE 'kd_tpl_%'")
            .fetch_all(&mut *conn)
            .await
            .expect("list templates");
    names
        .into_iter()
        .find(|name| name.ends_with(&format!("_{key}")))
}

/// Migrate and seed a new database, then name it as this build's template. It is built under
/// another name and renamed when complete, so a template by its final name is never half
/// made, even if this process dies on the way. The credentials are its comment.
async fn make_template(conn: &mut sqlx::AnyConnection, admin_url: &str, key: &str) -> String {
    let now = unix_seconds();
    let building = format!(
        "kd_tpl_{now}_building_{}",
        dunning_store::ids::new_id("db").trim_start_matches("db_")
    );
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {building}")))
        .execute(&mut *conn)
        .await
        .expect("create the template database");
    let (db, fresh) = dunning_store::Db::open(&database_url(admin_url, &building))
        .await
        .expect("open the template database");
    let credentials = template::seed_new(&db, fresh).await;
    // PostgreSQL copies a database nobody is connected to.
    db.pool.close().await;
    let json = serde_json::to_string(&credentials).expect("credentials JSON");
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "COMMENT ON DATABASE {building} IS '{}'",
        json.replace('\'', "''")
    )))
    .execute(&mut *conn)
    .await
    .expect("store the template credentials");
    let name = format!("kd_tpl_{now}_{key}");
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "ALTER DATABASE {building} RENAME TO {name}"
    )))
    .execute(&mut *conn)
    .await
    .expect("publish the template");
    name
}

#[tokio::test]
async fn postgres_serves_the_same_lists_filters_and_writes() {
    let Some(server) = postgres_server().await else {
        return;
    };
    let token = server.token(0, "admin", "api");
    let list = server
        .rest(
            "GET",
            "/v1/charges?status=pending,overdue&sort_by=amount&sort_order=desc&per_page=100",
            &token,
            None,
        )
        .await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.text);
    assert!(
        list.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["status"] == "pending" || c["status"] == "overdue")
    );
    let search = server
        .rest("GET", "/v1/customers?q=CONCEICAO", &token, None)
        .await;
    assert_eq!(search.body["meta"]["total"], 1, "{}", search.text);
    let created = server
        .rest(
            "POST",
            "/v1/customers",
            &token,
            Some(json!({"name": "Pé de Moleque", "document": "11144477735"})),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let again = server
        .rest(
            "POST",
            "/v1/customers",
            &token,
            Some(json!({"name": "Outro", "document": "111.444.777-35"})),
        )
        .await;
    assert_eq!(again.status, StatusCode::CONFLICT);
}

#[tokio::test]
async fn postgres_mcp_charges_list_equals_rest() {
    let Some(server) = postgres_server().await else {
        return;
    };
    let rest = server
        .rest(
            "GET",
            "/v1/charges?status=paid&per_page=5",
            &server.token(1, "viewer", "api"),
            None,
        )
        .await;
    let result = server
        .call_tool(
            &server.token(1, "viewer", "mcp"),
            "dunning_charges_list",
            json!({"status": "paid", "per_page": 5}),
        )
        .await;
    assert_eq!(result["structuredContent"]["data"], rest.body["data"]);
}

/// Test databases are named `kd_test_<unix seconds>_<random>`; drop those over an hour old so
/// that repeated runs on one machine do not pile them up.
async fn sweep_old_databases(pool: &sqlx::AnyPool) {
    let now = unix_seconds();
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname::text FROM pg_database WHERE datname LIKE 'kd_test_%'")
            .fetch_all(pool)
            .await
            .unwrap_or_default();
    for name in names {
        if now.saturating_sub(created(&name)) > 3600 {
            let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {name}"
            )))
            .execute(pool)
            .await;
        }
    }
}

/// Templates (`kd_tpl_<unix seconds>_<key>`, or `..._building_...` when unfinished) of
/// other builds, over an hour old: dropped, under the template lock. A run of another build
/// still going makes its template again.
async fn sweep_old_templates(conn: &mut sqlx::AnyConnection, key: &str) {
    let now = unix_seconds();
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname::text FROM pg_database WHERE datname LIKE 'kd_tpl_%'")
            .fetch_all(&mut *conn)
            .await
            .unwrap_or_default();
    for name in names {
        let ours = name.ends_with(&format!("_{key}"));
        if !ours && now.saturating_sub(created(&name)) > OLD_TEMPLATE.as_secs() {
            let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {name}"
            )))
            .execute(&mut *conn)
            .await;
        }
    }
}

/// The creation time in a `kd_<kind>_<unix seconds>_...` name (0 when unreadable).
fn created(name: &str) -> u64 {
    name.split('_')
        .nth(2)
        .and_then(|t| t.parse::<u64>().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn postgres_runs_concurrent_duplicates_once_and_counts_rate_limits() {
    let Some(server) = postgres_server().await else {
        return;
    };
    let server = std::sync::Arc::new(server);
    let token = server.token(0, "admin", "api");
    let mut tasks = Vec::new();
    for _ in 0..6 {
        let (server, token) = (server.clone(), token.clone());
        tasks.push(tokio::spawn(async move {
            let body = json!({"name": "Corrida", "document": "12312312387"});
            server
                .rest_with(
                    "POST",
                    "/v1/customers",
                    &token,
                    &[("idempotency-key", "pg-race")],
                    Some(body),
                )
                .await
        }));
    }
    let mut ids = Vec::new();
    for task in tasks {
        let answer = task.await.unwrap();
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
        ids.push(answer.body["data"]["id"].as_str().unwrap().to_string());
    }
    ids.dedup();
    assert_eq!(ids.len(), 1);
    let me = server.rest("GET", "/v1/me", &token, None).await;
    // 7 requests so far; fewer count if a window closed in between, never none.
    let remaining: i64 = me.header("ratelimit-remaining").unwrap().parse().unwrap();
    assert!((593..600).contains(&remaining), "{remaining}");
}
