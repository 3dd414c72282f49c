//! Schema migrations, written in the SQL subset SQLite and PostgreSQL share, one `.sql` file
//! each under `crates/store/migrations/`, embedded in the binary.
//!
//! Each migration is applied in one transaction and recorded in `schema_migrations`; a
//! migration never changes once released: add a new file. A file's first line says what it
//! does (`-- Migration N: ...`, the description recorded); `--` lines are comments; every
//! statement ends with `;` at the end of a line.

use sqlx::Executor;

use super::{Db, Result};

/// Every migration: its version and its SQL (`migrations/NNNN_what.sql`, whose first line is
/// `-- Migration N: what it does`). A new one is a new file and a new line here.
const MIGRATIONS: &[(i64, &str)] = &[
    (
        1,
        include_str!("../migrations/0001_organizations_people_tokens_customers_charges_events.sql"),
    ),
    (
        2,
        include_str!("../migrations/0002_rate_limit_windows_and_idempotency_records.sql"),
    ),
    (
        3,
        include_str!("../migrations/0003_charges_know_their_open_dispute.sql"),
    ),
    (
        4,
        include_str!("../migrations/0004_collection_plans_and_steps_deliveries_payments.sql"),
    ),
    (
        5,
        include_str!("../migrations/0005_agreements_their_charges_and_schedules_disputes.sql"),
    ),
    (
        6,
        include_str!("../migrations/0006_webhooks_webhook_deliveries_and_attempts_events.sql"),
    ),
    (
        7,
        include_str!("../migrations/0007_at_most_one_live_agreement_per.sql"),
    ),
    (
        8,
        include_str!("../migrations/0008_idempotency_records_holder_and_lease_for.sql"),
    ),
    (
        9,
        include_str!("../migrations/0009_list_indexes_each_filter_and_sort.sql"),
    ),
    (
        10,
        include_str!("../migrations/0010_oauth_password_hashes_clients_grants_codes.sql"),
    ),
    (
        11,
        include_str!("../migrations/0011_exports_the_filter_as_checked_when.sql"),
    ),
    (
        12,
        include_str!("../migrations/0012_oauth_server_side_sessions_the_sign.sql"),
    ),
    (
        13,
        include_str!("../migrations/0013_server_secrets_shared_by_replicas.sql"),
    ),
    (
        14,
        include_str!("../migrations/0014_deliveries_keep_the_providers_message_id.sql"),
    ),
    (
        15,
        include_str!("../migrations/0015_tokens_may_carry_mcp_toolsets.sql"),
    ),
    (
        16,
        include_str!("../migrations/0016_pix_keys_and_charge_codes.sql"),
    ),
    (
        17,
        include_str!("../migrations/0017_pix_psp_connections_cobv_and_received.sql"),
    ),
    (
        18,
        include_str!("../migrations/0018_calendars_payment_days_refunds_business_day_steps.sql"),
    ),
    (
        19,
        include_str!("../migrations/0019_tokens_may_ask_for_discovery_mode.sql"),
    ),
    (
        20,
        include_str!("../migrations/0020_the_workers_find_their_work_by_index.sql"),
    ),
    (
        21,
        include_str!("../migrations/0021_exports_written_in_chunks_with_progress.sql"),
    ),
    (
        22,
        include_str!("../migrations/0022_housekeeping_and_agreements_find_their_work_by_index.sql"),
    ),
    (
        23,
        include_str!("../migrations/0023_deliveries_claimed_by_channel.sql"),
    ),
    (
        24,
        include_str!("../migrations/0024_agreements_collected_by_pix_automatico.sql"),
    ),
];

/// Whether every migration this build knows has been applied (a replica of an older build
/// beside a newer database, or the reverse, is not ready).
pub async fn current(db: &Db) -> Result<bool> {
    let applied: Vec<i64> = sqlx::query_scalar("SELECT version FROM schema_migrations")
        .fetch_all(&db.pool)
        .await?;
    Ok(MIGRATIONS.iter().all(|m| applied.contains(&m.0)))
}

/// Apply what is pending. Returns true when the database had no migration before (new).
pub async fn run(db: &Db) -> Result<bool> {
    db.pool
        .execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (
                version BIGINT PRIMARY KEY,
                description TEXT NOT NULL,
                applied_at TEXT NOT NULL
            )",
        )
        .await?;
    let applied: Vec<i64> = sqlx::query_scalar("SELECT version FROM schema_migrations")
        .fetch_all(&db.pool)
        .await?;
    let fresh = applied.is_empty();
    let mut ordered: Vec<_> = MIGRATIONS.iter().collect();
    ordered.sort_by_key(|m| m.0);
    for (version, sql) in ordered {
        if applied.contains(version) {
            continue;
        }
        let description = description(sql);
        let mut tx = db.begin().await?;
        for statement in statements(sql) {
            tx.execute(sqlx::AssertSqlSafe(statement)).await?;
        }
        if *version == 18 {
            fill_payment_days(&mut tx).await?;
        }
        sqlx::query(
            "INSERT INTO schema_migrations (version, description, applied_at) VALUES ($1, $2, $3)",
        )
        .bind(*version)
        .bind(description)
        .bind(super::now_text())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        tracing::info!(version, description, "applied migration");
    }
    Ok(fresh)
}

/// Migration 18's data step: each charge's `payment_days` from the payments made before it,
/// each on its day in Brasília (which SQL cannot tell: it takes the time zone database).
/// What a charge was credited without a payment row (an agreement unwound gives the
/// instalments' payments back to the original charges) counts as paid on its due date: the
/// debtor's side of the doubt.
async fn fill_payment_days(tx: &mut sqlx::AnyConnection) -> Result<()> {
    use dunning_domain::calendar::day_of;
    use dunning_domain::charge_math::PaymentDays;
    use dunning_domain::money::Cents;
    use dunning_domain::timestamp::Timestamp;

    let charges: Vec<(String, String, i64, String)> = sqlx::query_as(
        "SELECT organization_id, id, paid_cents, due_date FROM charges WHERE paid_cents <> 0 ORDER BY id",
    )
    .fetch_all(&mut *tx)
    .await?;
    for (org, id, paid_cents, due_date) in charges {
        let payments: Vec<(i64, String)> = sqlx::query_as(
            "SELECT amount_cents, paid_at FROM payments WHERE organization_id = $1 AND charge_id = $2",
        )
        .bind(&org)
        .bind(&id)
        .fetch_all(&mut *tx)
        .await?;
        let mut days = PaymentDays::default();
        for (amount, paid_at) in payments {
            let instant = Timestamp::parse(&paid_at).map_err(|e| {
                crate::StoreError::Corrupt(format!("payments.paid_at {paid_at}: {e}"))
            })?;
            days.add(day_of(instant.instant()), Cents(amount));
        }
        let credited = paid_cents - days.total().0;
        if credited != 0 {
            let due = time::Date::parse(
                &due_date,
                time::macros::format_description!("[year]-[month]-[day]"),
            )
            .map_err(|e| crate::StoreError::Corrupt(format!("charges.due_date {due_date}: {e}")))?;
            days.add(due, Cents(credited));
        }
        sqlx::query("UPDATE charges SET payment_days = $1 WHERE organization_id = $2 AND id = $3")
            .bind(days.to_string())
            .bind(&org)
            .bind(&id)
            .execute(&mut *tx)
            .await?;
    }
    Ok(())
}

/// What a migration does: its first line after `-- Migration N: `.
fn description(sql: &str) -> &str {
    let first = sql.lines().next().unwrap_or_default();
    first
        .split_once(": ")
        .map_or(first, |(_, what)| what)
        .trim()
}

/// A migration's statements: its text without `--` lines, cut after each `;` that ends a
/// line.
fn statements(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in sql.lines() {
        if line.trim_start().starts_with("--") {
            continue;
        }
        if !current.is_empty() || !line.trim().is_empty() {
            current.push_str(line);
            current.push('\n');
        }
        if line.trim_end().ends_with(';') {
            let statement = current.trim().trim_end_matches(';').trim_end().to_string();
            out.push(statement);
            current.clear();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_is_listed_once_in_order_and_names_its_version() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        assert_eq!(files.len(), MIGRATIONS.len(), "{files:?}");
        for (i, ((version, sql), file)) in MIGRATIONS.iter().zip(&files).enumerate() {
            assert_eq!(*version, i as i64 + 1);
            assert!(file.starts_with(&format!("{version:04}_")), "{file}");
            assert_eq!(
                std::fs::read_to_string(dir.join(file)).unwrap(),
                *sql,
                "{file}"
            );
            assert!(
                sql.starts_with(&format!("-- Migration {version}: ")),
                "{file} opens with what it does"
            );
            let statements = statements(sql);
            assert!(!statements.is_empty(), "{file}");
            assert!(
                statements
                    .iter()
                    .all(|s| !s.is_empty() && !s.contains(";\n")),
                "{file}"
            );
        }
    }

    #[test]
    fn statements_are_cut_at_line_ends_and_comments_left_out() {
        let sql = "-- Migration 9: two\n-- why\nCREATE TABLE a (\n  x TEXT -- inline stays\n);\n\n-- next\nDROP INDEX b;\n";
        assert_eq!(description(sql), "two");
        assert_eq!(
            statements(sql),
            vec![
                "CREATE TABLE a (\n  x TEXT -- inline stays\n)",
                "DROP INDEX b"
            ]
        );
    }
}
