//! Deleting a customer and everything recorded about their settled charges, across the
//! areas (deliveries, plan step runs, bureau and notary requests, payments, disputes,
//! agreements, cobvs and Pix received), children first. The one place that knows the
//! cascade, so the areas need not know each other.

use sqlx::AssertSqlSafe;

use super::{Connection, Result};

/// Rows that hang on a customer's charges, by table, in deletion order (children first):
/// each table has `organization_id` and `charge_id`. A new table referencing charges
/// belongs here too, or deleting a customer breaks on its foreign key.
const CHARGE_RECORDS: &[&str] = &[
    "payments",
    "collection_step_runs",
    "collection_requests",
    "deliveries",
    "pix_cobv",
    "pix_received",
    "automatic_pix_charges",
];

/// Delete a customer with its settled charges (paid or canceled) and every record about
/// them: payments, deliveries (and the sandbox's copies), plan step runs, bureau and notary
/// requests, disputes and agreements. The audit trail (events) stays, as the API promises.
/// Returns how many charges went.
pub async fn delete_customer(
    conn: &mut Connection,
    organization_id: &str,
    customer_id: &str,
) -> Result<u64> {
    let of_customer = "SELECT id FROM charges WHERE organization_id = $1 AND customer_id = $2";
    sqlx::query(
        "DELETE FROM sandbox_messages WHERE organization_id = $1 AND delivery_id IN
             (SELECT id FROM deliveries WHERE organization_id = $1 AND customer_id = $2)",
    )
    .bind(organization_id)
    .bind(customer_id)
    .execute(&mut *conn)
    .await?;
    for table in CHARGE_RECORDS {
        let sql = format!(
            "DELETE FROM {table} WHERE organization_id = $1 AND charge_id IN ({of_customer})"
        );
        sqlx::query(AssertSqlSafe(sql))
            .bind(organization_id)
            .bind(customer_id)
            .execute(&mut *conn)
            .await?;
    }
    super::disputes::delete_for_customer(conn, organization_id, customer_id).await?;
    super::agreements::delete_for_customer(conn, organization_id, customer_id).await?;
    let charges =
        sqlx::query("DELETE FROM charges WHERE organization_id = $1 AND customer_id = $2")
            .bind(organization_id)
            .bind(customer_id)
            .execute(&mut *conn)
            .await?
            .rows_affected();
    sqlx::query("DELETE FROM customers WHERE organization_id = $1 AND id = $2")
        .bind(organization_id)
        .bind(customer_id)
        .execute(&mut *conn)
        .await?;
    Ok(charges)
}
