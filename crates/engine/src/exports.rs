//! The export worker: builds the CSV file of each pending export from its list and filters,
//! and stores it in the database for `exports_download`.
//!
//! The file is what a spreadsheet opens as intended: UTF-8 with a byte-order mark (so Excel
//! reads accents right), a header row, comma separators and CRLF line ends with RFC 4180
//! quoting, one row per record. Money is a plain decimal with a dot (`1234.56`, as in the
//! JSON API: no thousands separator, unambiguous for programs), dates and times ISO 8601,
//! CPF/CNPJ formatted (`123.456.789-09`, which also keeps leading zeros from being dropped).
//! Text cells that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`)
//! get a leading apostrophe, as OWASP advises against CSV injection.

use std::time::Duration;

use serde_json::json;
use time::OffsetDateTime;

use crate::Engine;
use dunning_domain::document::format_document;
use dunning_domain::timestamp::Timestamp;
use dunning_store::events::{self, Actor};
use dunning_store::exports::{self as store, Claimed, ExportFilter};
use dunning_store::{PageRequest, Result, charges, customers, deliveries, ids, timestamp_text};

/// More rows than this fail the export with a request to narrow the filters: the file is
/// built in memory and stored whole.
pub const MAX_ROWS: i64 = 200_000;

/// How long a claim holds an export being built before another worker may take it over.
const LEASE: Duration = Duration::from_secs(10 * 60);

/// Run forever: a tick every two seconds. Errors are logged and the next tick tries again.
pub async fn run(engine: Engine) {
    super::run_worker(&engine, "exports", Duration::from_secs(2), || async {
        tick(&engine, dunning_domain::timestamp::now())
            .await
            .map(drop)
    })
    .await
}

/// One step at time `now`: build every export that is pending (or whose builder died).
/// Returns how many were finished (completed or failed).
pub async fn tick(engine: &Engine, now: OffsetDateTime) -> Result<usize> {
    let now_text = timestamp_text(now);
    let lease_until = timestamp_text(now + super::lease(engine, LEASE));
    let mut finished = 0;
    for id in store::due(&engine.db, &now_text, 20).await? {
        let token = ids::new_id("clm");
        let Some(claimed) = store::claim(&engine.db, &id, &now_text, &lease_until, &token).await?
        else {
            continue;
        };
        let built = build(engine, &claimed).await;
        let done_at = timestamp_text(dunning_domain::timestamp::now().max(now));
        let mut tx = engine.db.begin().await?;
        let (recorded, kind, data) = match built {
            Ok(Built::File { content, rows }) => (
                store::complete(&mut tx, &claimed, &content, rows, &done_at).await?,
                "export.completed",
                json!({ "kind": claimed.kind, "row_count": rows, "byte_size": content.len() }),
            ),
            Ok(Built::Refused(reason)) => (
                store::fail(&mut tx, &claimed, &reason, &done_at).await?,
                "export.failed",
                json!({ "kind": claimed.kind, "error": reason }),
            ),
            Err(e) => {
                tracing::error!(export = %claimed.id, "export failed: {e}");
                let reason = "internal error while building the file; create the export again";
                (
                    store::fail(&mut tx, &claimed, reason, &done_at).await?,
                    "export.failed",
                    json!({ "kind": claimed.kind, "error": reason }),
                )
            }
        };
        if !recorded {
            tracing::warn!(export = %claimed.id, "lost the claim on an export; its result is dropped");
            continue;
        }
        events::record(
            &mut tx,
            &claimed.organization_id,
            kind,
            ("export", &claimed.id),
            &Actor {
                kind: "system",
                id: None,
                name: Some("exports".to_string()),
            },
            &data,
        )
        .await?;
        tx.commit().await?;
        finished += 1;
    }
    Ok(finished)
}

enum Built {
    File {
        content: String,
        rows: i64,
    },
    /// The export cannot be built as asked (a message for the client).
    Refused(String),
}

fn too_many(total: i64) -> Built {
    Built::Refused(format!(
        "{total} rows match these filters; an export holds at most {MAX_ROWS}: narrow the filters"
    ))
}

async fn build(engine: &Engine, claimed: &Claimed) -> Result<Built> {
    // The filter was checked by the API and stored with the export; one created before the
    // checked filter was stored is refused rather than guessed at.
    let Some(filter) = &claimed.filter else {
        return Ok(Built::Refused(
            "This export was created by an earlier version of the server; create it again"
                .to_string(),
        ));
    };
    let all = PageRequest {
        page: 1,
        per_page: MAX_ROWS,
    };
    let org = &claimed.organization_id;
    let mut csv = Csv::new();
    let rows = match filter {
        ExportFilter::Charges(filter) => {
            let page = charges::list(&engine.db, org, filter, all).await?;
            if page.total > MAX_ROWS {
                return Ok(too_many(page.total));
            }
            let labels = store::customer_labels(&engine.db, org).await?;
            csv.row(CHARGE_HEADER.iter().map(|h| h.to_string()));
            for c in &page.items {
                let (name, document) = labels.get(&c.customer_id).cloned().unwrap_or_default();
                csv.row([
                    c.id.clone(),
                    c.customer_id.clone(),
                    text(&name),
                    format_document(&document),
                    text(&c.description),
                    money(c.amount_cents.0),
                    money(c.paid_cents.0),
                    money(c.amount_due.0),
                    format!("{:.2}", c.fine_bp as f64 / 100.0),
                    format!("{:.2}", c.interest_bp as f64 / 100.0),
                    c.due_date.to_string(),
                    c.status.to_string(),
                    c.negativation_status.to_string(),
                    c.protest_status.to_string(),
                    text(&c.tags.join(", ")),
                    c.collection_plan_id.clone().unwrap_or_default(),
                    c.agreement_id.clone().unwrap_or_default(),
                    instant(c.paid_at),
                    instant(c.canceled_at),
                    c.created_at.to_string(),
                    c.updated_at.to_string(),
                ]);
            }
            page.items.len()
        }
        ExportFilter::Customers(filter) => {
            let page = customers::list(&engine.db, org, filter, all).await?;
            if page.total > MAX_ROWS {
                return Ok(too_many(page.total));
            }
            csv.row(CUSTOMER_HEADER.iter().map(|h| h.to_string()));
            for c in &page.items {
                let a = c.address.clone();
                let part = |f: fn(&customers::Address) -> String| {
                    a.as_ref().map(|a| text(&f(a))).unwrap_or_default()
                };
                csv.row([
                    c.id.clone(),
                    text(&c.name),
                    format_document(&c.document),
                    c.document_type.clone(),
                    text(c.email.as_deref().unwrap_or_default()),
                    c.phone.clone().unwrap_or_default(),
                    part(|a| a.street.clone()),
                    part(|a| a.number.clone()),
                    part(|a| a.complement.clone().unwrap_or_default()),
                    part(|a| a.district.clone()),
                    part(|a| a.city.clone()),
                    part(|a| a.state.clone()),
                    part(|a| a.zip_code.clone()),
                    c.channel_opt_outs.join(", "),
                    text(&c.tags.join(", ")),
                    text(c.notes.as_deref().unwrap_or_default()),
                    c.created_at.to_string(),
                    c.updated_at.to_string(),
                ]);
            }
            page.items.len()
        }
        ExportFilter::Deliveries(filter) => {
            let page = deliveries::list(&engine.db, org, filter, all).await?;
            if page.total > MAX_ROWS {
                return Ok(too_many(page.total));
            }
            let labels = store::customer_labels(&engine.db, org).await?;
            csv.row(DELIVERY_HEADER.iter().map(|h| h.to_string()));
            for d in &page.items {
                let (name, _) = labels.get(&d.customer_id).cloned().unwrap_or_default();
                csv.row([
                    d.id.clone(),
                    d.charge_id.clone(),
                    d.customer_id.clone(),
                    text(&name),
                    d.channel.clone(),
                    d.status.to_string(),
                    d.recipient.clone(),
                    text(d.subject.as_deref().unwrap_or_default()),
                    text(&d.body),
                    d.step_id.clone().unwrap_or_default(),
                    d.attempts.to_string(),
                    text(d.error.as_deref().unwrap_or_default()),
                    instant(d.sent_at),
                    d.created_at.to_string(),
                ]);
            }
            page.items.len()
        }
    };
    Ok(Built::File {
        content: csv.finish(),
        rows: i64::try_from(rows).unwrap_or(i64::MAX),
    })
}

/// Columns of a charges export.
pub const CHARGE_HEADER: &[&str] = &[
    "id",
    "customer_id",
    "customer_name",
    "customer_document",
    "description",
    "amount",
    "paid_amount",
    "amount_due",
    "fine_percent",
    "interest_percent",
    "due_date",
    "status",
    "negativation_status",
    "protest_status",
    "tags",
    "collection_plan_id",
    "agreement_id",
    "paid_at",
    "canceled_at",
    "created_at",
    "updated_at",
];

/// Columns of a customers export.
pub const CUSTOMER_HEADER: &[&str] = &[
    "id",
    "name",
    "document",
    "document_type",
    "email",
    "phone",
    "street",
    "number",
    "complement",
    "district",
    "city",
    "state",
    "zip_code",
    "channel_opt_outs",
    "tags",
    "notes",
    "created_at",
    "updated_at",
];

/// Columns of a deliveries export (newest first, as the list).
pub const DELIVERY_HEADER: &[&str] = &[
    "id",
    "charge_id",
    "customer_id",
    "customer_name",
    "channel",
    "status",
    "recipient",
    "subject",
    "body",
    "step_id",
    "attempts",
    "error",
    "sent_at",
    "created_at",
];

/// Centavos as `1234.56`.
pub fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let abs = cents.unsigned_abs();
    format!("{sign}{}.{:02}", abs / 100, abs % 100)
}

/// An instant as the API writes it; empty when there is none.
fn instant(at: Option<Timestamp>) -> String {
    at.map(|t| t.to_string()).unwrap_or_default()
}

/// Free text that a spreadsheet must show as text, never run as a formula.
pub fn text(value: &str) -> String {
    if value.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{value}")
    } else {
        value.to_string()
    }
}

/// A CSV file being written: BOM, CRLF line ends, RFC 4180 quoting.
#[derive(Debug)]
pub struct Csv {
    out: String,
}

impl Default for Csv {
    fn default() -> Self {
        Csv::new()
    }
}

impl Csv {
    pub fn new() -> Self {
        Csv {
            out: String::from('\u{feff}'),
        }
    }

    /// Append one record.
    pub fn row<I: IntoIterator<Item = String>>(&mut self, cells: I) {
        for (i, cell) in cells.into_iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            if cell.contains([',', '"', '\r', '\n']) || cell.starts_with(' ') || cell.ends_with(' ')
            {
                self.out.push('"');
                self.out.push_str(&cell.replace('"', "\"\""));
                self.out.push('"');
            } else {
                self.out.push_str(&cell);
            }
        }
        self.out.push_str("\r\n");
    }

    pub fn finish(self) -> String {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_with_separators_quotes_or_line_breaks_are_quoted() {
        let mut csv = Csv::new();
        csv.row(["a".to_string(), "b,c".to_string(), "say \"hi\"".to_string()]);
        csv.row([
            "two\nlines".to_string(),
            "Conceição".to_string(),
            String::new(),
        ]);
        assert_eq!(
            csv.finish(),
            "\u{feff}a,\"b,c\",\"say \"\"hi\"\"\"\r\n\"two\nlines\",Conceição,\r\n"
        );
    }

    #[test]
    fn money_has_two_decimals_and_a_dot() {
        assert_eq!(money(123456), "1234.56");
        assert_eq!(money(5), "0.05");
        assert_eq!(money(0), "0.00");
        assert_eq!(money(-150), "-1.50");
    }

    #[test]
    fn formulas_are_neutralised() {
        assert_eq!(text("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(text("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(text("Padaria São João"), "Padaria São João");
    }
}
