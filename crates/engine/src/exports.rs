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
//!
//! A file of any size is built in bounded memory: the list is read a keyset page at a time
//! ([`Sizes::page_rows`] rows, `ListQuery::fetch_after`, never `OFFSET`, so the millionth row
//! costs what the first did) and written in pieces of about [`Sizes::chunk_bytes`] as it goes
//! (`store::exports::write_chunk`), each under the builder's claim, with the progress the API
//! shows. The file is not one snapshot of the list: each page reads the rows as they are
//! then, so a row changed during the build shows its state when its page was read.

use std::collections::HashSet;
use std::time::Duration;

use time::{Date, OffsetDateTime};

use crate::Engine;
use dunning_app::events;
use dunning_domain::document::format_document;
use dunning_domain::timestamp::Timestamp;
use dunning_models::response::{ExportCompletedData, ExportFailedData};
use dunning_store::events::Actor;
use dunning_store::exports::{self as store, Claimed, ExportFilter, NewChunk};
use dunning_store::{After, ListQuery, Result, calendars, charges, customers, deliveries, ids};
use dunning_store::{timestamp_text, today};

/// How long a claim holds an export being built before another worker may take it over;
/// each piece written extends it, so only a builder that stopped writing loses its export.
const LEASE: Duration = Duration::from_secs(10 * 60);

/// How an export is read and written. No bound on the rows: memory holds one page and one
/// piece whatever the size of the file, and the database holds the file (a full disk fails
/// the export, as any other write).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    /// Rows read per statement.
    pub page_rows: i64,
    /// A piece of the file is stored once it holds at least this many bytes (whole records,
    /// so a piece may be one record longer).
    pub chunk_bytes: usize,
}

impl Default for Sizes {
    /// 250 rows a page and 256 KiB a piece: what keeps the server within 64 MiB of RSS while
    /// it exports a million charges. Measured on SQLite (`bench/exports.py`, bench/RESULTS.md):
    /// pages of 1 000 rows with pieces of 1 MiB ran at ~15 000 rows/s but took the server
    /// from 52 to ~86 MiB (the page's rows and their copies across the drivers' threads, kept
    /// by the allocators); 250 rows and 256 KiB, ~9 000 rows/s and ~65 MiB at the peak. The
    /// sizes are the operator's to trade (`--export-page-rows`, `--export-piece-kib`).
    fn default() -> Self {
        Sizes {
            page_rows: 250,
            chunk_bytes: 256 * 1024,
        }
    }
}

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
    let mut finished = 0;
    for id in store::due(&engine.db, &timestamp_text(now), 20).await? {
        let Some(mut builder) = Builder::claim(engine, &id, now).await? else {
            continue;
        };
        let outcome = loop {
            // A stopping process gives the export back between pages rather than holding
            // the shutdown for the rest of a long file (or its lease, should it be killed).
            if engine.status.stopping() {
                builder.give_back().await?;
                return Ok(finished);
            }
            match builder.step().await {
                Ok(Progress::Building) => {}
                other => break other,
            }
        };
        if builder.finish(outcome, now).await? {
            finished += 1;
        }
    }
    Ok(finished)
}

/// Where a build stands after a [`Builder::step`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Progress {
    /// More rows to read.
    Building,
    /// Every row is in the file, stored.
    Built,
    /// The export cannot be built as asked (a message for the client).
    Refused(String),
    /// Another builder took the export over (this one's lease ran out): nothing more of
    /// this one's is stored.
    Lost,
}

/// The list an export reads, ready to be read a page after another.
enum Source {
    /// Charges are seen on the day the build began (pending or overdue).
    Charges(ListQuery, Date),
    Customers(ListQuery),
    Deliveries(ListQuery),
}

/// One export being built by this process, a page at a time: [`tick`] steps it to the end;
/// a test may stop in the middle (a builder that dies) and look.
pub struct Builder<'e> {
    engine: &'e Engine,
    claimed: Claimed,
    sizes: Sizes,
    /// `None` until the first step has counted the rows and begun the file.
    source: Option<Source>,
    /// Records not yet stored (whole ones).
    csv: Csv,
    after: Option<After>,
    /// Pieces and bytes stored, records written (stored or not).
    pieces: i64,
    bytes: i64,
    rows: i64,
}

impl<'e> Builder<'e> {
    /// Take export `id` at `now` until the lease runs out; `None` when another builder has it.
    pub async fn claim(engine: &'e Engine, id: &str, now: OffsetDateTime) -> Result<Option<Self>> {
        let token = ids::new_id("clm");
        let now_text = timestamp_text(now);
        let lease_until = timestamp_text(now + super::lease(engine, LEASE));
        let claimed = store::claim(&engine.db, id, &now_text, &lease_until, &token).await?;
        Ok(claimed.map(|claimed| Builder {
            engine,
            claimed,
            sizes: engine.settings.exports,
            source: None,
            csv: Csv::with_capacity(piece_capacity(engine.settings.exports)),
            after: None,
            pieces: 0,
            bytes: 0,
            rows: 0,
        }))
    }

    /// The export being built.
    pub fn id(&self) -> &str {
        &self.claimed.id
    }

    /// The next step: the first counts the rows and begins the file (deleting what a builder
    /// before this one stored); each after it reads a page, storing pieces as they fill.
    pub async fn step(&mut self) -> Result<Progress> {
        let Some(source) = self.source.take() else {
            return self.begin().await;
        };
        let read = self.page(&source).await;
        self.source = Some(source);
        let Some(read) = read? else {
            return Ok(Progress::Lost);
        };
        if i64::try_from(read).unwrap_or(i64::MAX) < self.sizes.page_rows {
            // A short page is the last: what is left goes in as the last piece (the header
            // alone, for a list with no row).
            return Ok(if self.store_piece().await? {
                Progress::Built
            } else {
                Progress::Lost
            });
        }
        Ok(Progress::Building)
    }

    /// Read the page after the last and write its records, storing pieces as they fill:
    /// how many rows it had, or `None` when the claim was lost.
    async fn page(&mut self, source: &Source) -> Result<Option<usize>> {
        let engine = self.engine;
        let (db, limit) = (&engine.db, self.sizes.page_rows);
        let org = self.claimed.organization_id.clone();
        let after = self.after.take();
        let after = after.as_ref();
        let read = match source {
            Source::Charges(query, today) => {
                let (page, last) =
                    charges::list_after(db, &org, query, *today, after, limit).await?;
                let labels = labels(engine, &org, page.iter().map(|c| c.customer_id.as_str()));
                let labels = labels.await?;
                for c in &page {
                    let (name, document) = labels.get(&c.customer_id).cloned().unwrap_or_default();
                    if !self.record(charge_record(c, &name, &document)).await? {
                        return Ok(None);
                    }
                }
                self.after = last;
                page.len()
            }
            Source::Customers(query) => {
                let (page, last) = query
                    .fetch_after::<customers::Customer>(db, after, limit)
                    .await?;
                for c in &page {
                    if !self.record(customer_record(c)).await? {
                        return Ok(None);
                    }
                }
                self.after = last;
                page.len()
            }
            Source::Deliveries(query) => {
                let (page, last) = query
                    .fetch_after::<deliveries::Delivery>(db, after, limit)
                    .await?;
                let labels = labels(engine, &org, page.iter().map(|d| d.customer_id.as_str()));
                let labels = labels.await?;
                for d in &page {
                    let (name, _) = labels.get(&d.customer_id).cloned().unwrap_or_default();
                    if !self.record(delivery_record(d, &name)).await? {
                        return Ok(None);
                    }
                }
                self.after = last;
                page.len()
            }
        };
        Ok(Some(read))
    }

    /// Count the rows, begin the file and write its header.
    async fn begin(&mut self) -> Result<Progress> {
        // The filter was checked by the API and stored with the export; one created before
        // the checked filter was stored is refused rather than guessed at.
        let Some(filter) = &self.claimed.filter else {
            return Ok(Progress::Refused(
                "This export was created by an earlier version of the server; create it again"
                    .to_string(),
            ));
        };
        let (db, org) = (&self.engine.db, &self.claimed.organization_id);
        let (source, header) = match filter {
            ExportFilter::Charges(filter) => {
                let calendar = calendars::of(db, org).await?;
                let today = today();
                let query = charges::list_query(org, filter, &calendar, today);
                (Source::Charges(query, today), CHARGE_HEADER)
            }
            ExportFilter::Customers(filter) => (
                Source::Customers(customers::list_query(org, filter)),
                CUSTOMER_HEADER,
            ),
            ExportFilter::Deliveries(filter) => (
                Source::Deliveries(deliveries::list_query(org, filter)),
                DELIVERY_HEADER,
            ),
        };
        let query = match &source {
            Source::Charges(query, _) | Source::Customers(query) | Source::Deliveries(query) => {
                query
            }
        };
        let total = query.count_all(db).await?;
        if !store::begin_file(db, &self.claimed, total, &self.lease_until()).await? {
            return Ok(Progress::Lost);
        }
        self.csv.row(header.iter().map(|h| h.to_string()));
        self.source = Some(source);
        Ok(Progress::Building)
    }

    /// Write one record, and store what is buffered once it fills a piece; false when the
    /// claim was lost.
    async fn record<I: IntoIterator<Item = String>>(&mut self, cells: I) -> Result<bool> {
        self.csv.row(cells);
        self.rows += 1;
        if self.csv.len() < self.sizes.chunk_bytes {
            return Ok(true);
        }
        self.store_piece().await
    }

    /// Store what is buffered as the next piece, with the progress; false when the claim
    /// was lost (nothing stored).
    async fn store_piece(&mut self) -> Result<bool> {
        if self.csv.is_empty() {
            return Ok(true);
        }
        // The text goes to the driver as it is (no copy), a buffer of the same size in its
        // place: a piece never grows by doubling past what it holds.
        let content = self.csv.take();
        let size = i64::try_from(content.len()).unwrap_or(i64::MAX);
        let piece = NewChunk {
            seq: self.pieces,
            byte_offset: self.bytes,
            content,
            rows_done: self.rows,
        };
        let lease_until = self.lease_until();
        if !store::write_chunk(&self.engine.db, &self.claimed, piece, &lease_until).await? {
            return Ok(false);
        }
        self.pieces += 1;
        self.bytes += size;
        Ok(true)
    }

    /// A lease from now: each piece stored extends it.
    fn lease_until(&self) -> String {
        let now = dunning_domain::timestamp::now();
        timestamp_text(now + super::lease(self.engine, LEASE))
    }

    /// Give the export back to the queue, pending, for any builder to begin anew.
    pub async fn give_back(self) -> Result<bool> {
        store::give_back(&self.engine.db, &self.claimed).await
    }

    /// Record how the build ended (`outcome` of the last step) with its event, at `now` or
    /// later. False when nothing was recorded: the claim was lost.
    pub async fn finish(self, outcome: Result<Progress>, now: OffsetDateTime) -> Result<bool> {
        let claimed = &self.claimed;
        let done_at = timestamp_text(dunning_domain::timestamp::now().max(now));
        let mut tx = self.engine.db.begin().await?;
        let (recorded, kind, data) = match outcome {
            Ok(Progress::Built) => (
                store::complete(&mut tx, claimed, self.rows, self.bytes, &done_at).await?,
                "export.completed",
                events::to_data(&ExportCompletedData {
                    kind: &claimed.kind,
                    row_count: self.rows,
                    byte_size: self.bytes,
                }),
            ),
            Ok(Progress::Refused(reason)) => (
                store::fail(&mut tx, claimed, &reason, &done_at).await?,
                "export.failed",
                events::to_data(&ExportFailedData {
                    kind: &claimed.kind,
                    error: &reason,
                }),
            ),
            Ok(Progress::Lost | Progress::Building) => (false, "", serde_json::Value::Null),
            Err(e) => {
                tracing::error!(export = %claimed.id, "export failed: {e}");
                let reason = "internal error while building the file; create the export again";
                (
                    store::fail(&mut tx, claimed, reason, &done_at).await?,
                    "export.failed",
                    events::to_data(&ExportFailedData {
                        kind: &claimed.kind,
                        error: reason,
                    }),
                )
            }
        };
        if !recorded {
            tracing::warn!(export = %claimed.id, "lost the claim on an export; its result is dropped");
            return Ok(false);
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
        Ok(true)
    }
}

/// What a piece's buffer is made with: a piece and a few records more (the record that
/// fills it ends it), no more than 4 MiB up front whatever the sizes say.
fn piece_capacity(sizes: Sizes) -> usize {
    sizes.chunk_bytes.saturating_add(64 * 1024).min(4 << 20)
}

/// Name and document of the customers of one page's rows, by id.
async fn labels<'a>(
    engine: &Engine,
    organization_id: &str,
    customer_ids: impl Iterator<Item = &'a str>,
) -> Result<std::collections::HashMap<String, (String, String)>> {
    let ids: Vec<&str> = customer_ids.collect::<HashSet<_>>().into_iter().collect();
    store::customer_labels(&engine.db, organization_id, &ids).await
}

/// A charge's record: the columns of [`CHARGE_HEADER`].
fn charge_record(c: &charges::Charge, name: &str, document: &str) -> [String; 21] {
    [
        c.id.clone(),
        c.customer_id.clone(),
        text(name),
        format_document(document),
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
    ]
}

/// A customer's record: the columns of [`CUSTOMER_HEADER`].
fn customer_record(c: &customers::Customer) -> [String; 18] {
    let part = |f: fn(&customers::Address) -> &str| {
        c.address.as_ref().map(|a| text(f(a))).unwrap_or_default()
    };
    [
        c.id.clone(),
        text(&c.name),
        format_document(&c.document),
        c.document_type.clone(),
        text(c.email.as_deref().unwrap_or_default()),
        c.phone.clone().unwrap_or_default(),
        part(|a| &a.street),
        part(|a| &a.number),
        part(|a| a.complement.as_deref().unwrap_or_default()),
        part(|a| &a.district),
        part(|a| &a.city),
        part(|a| &a.state),
        part(|a| &a.zip_code),
        c.channel_opt_outs.join(", "),
        text(&c.tags.join(", ")),
        text(c.notes.as_deref().unwrap_or_default()),
        c.created_at.to_string(),
        c.updated_at.to_string(),
    ]
}

/// A delivery's record: the columns of [`DELIVERY_HEADER`].
fn delivery_record(d: &deliveries::Delivery, customer_name: &str) -> [String; 14] {
    [
        d.id.clone(),
        d.charge_id.clone(),
        d.customer_id.clone(),
        text(customer_name),
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
    ]
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
        Csv::with_capacity(0)
    }

    /// A file whose buffer holds `capacity` bytes before it grows (see [`Csv::take`]).
    pub fn with_capacity(capacity: usize) -> Self {
        let mut out = String::with_capacity(capacity.max(3));
        out.push('\u{feff}');
        Csv { out }
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

    /// Bytes written and not yet taken.
    pub fn len(&self) -> usize {
        self.out.len()
    }

    /// Whether nothing is written since the last [`Csv::take`].
    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    /// What is written so far (whole records), leaving the file open for more in a buffer
    /// of the same capacity: the next piece of a file stored as it is built.
    pub fn take(&mut self) -> String {
        let capacity = self.out.capacity();
        std::mem::replace(&mut self.out, String::with_capacity(capacity))
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
