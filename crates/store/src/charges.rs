//! Charges (debts): rows, filters and writes, always inside one organization.
//!
//! The stored `state` is `open`, `paid`, `canceled` or `in_agreement`; the API's `pending`
//! and `overdue` are an open charge before or after its effective due date (the due date, or
//! the next business day of the organization's calendar when it is none), decided at read
//! time, on the Brasília day, so that no job has to flip them at midnight.

use sqlx::{AnyConnection, AssertSqlSafe};
use time::Date;

use super::calendars;
use super::rows::{Stored, by_id};
use super::{After, Bind, Conditions, Db, ListQuery, Page, PageRequest, Result, Sort};
use dunning_domain::calendar::Calendar;
use dunning_domain::charge_math::{
    ChargeState, ChargeStatus, ChargeTerms, Owed, PaymentDays, balance,
};
use dunning_domain::collection::{NegativationStatus, ProtestStatus};
use dunning_domain::money::Cents;
use dunning_domain::timestamp::Timestamp;

/// Statuses as the API names them.
pub const STATUSES: &[&str] = ChargeStatus::ALL;

/// A charge as seen on a day: its stored terms, with that day's status (`pending` or
/// `overdue` for an open one) and amount due. `api::charges` shows it.
#[derive(Debug, Clone)]
pub struct Charge {
    pub id: String,
    pub customer_id: String,
    pub description: String,
    pub amount_cents: Cents,
    pub paid_cents: Cents,
    pub fine_bp: i64,
    pub interest_bp: i64,
    /// What the debtor owes on the day the charge was read: zero unless it is open.
    pub amount_due: Cents,
    /// That amount in its parts (all zero unless the charge is open).
    pub owed: Owed,
    pub due_date: Date,
    /// The day by the end of which it is paid without fine or interest: the due date, or the
    /// next business day of the organization's calendar when the due date is none.
    pub effective_due_date: Date,
    /// What was paid, by day (Brasília), refunds taken off.
    pub payment_days: PaymentDays,
    pub status: ChargeStatus,
    pub tags: Vec<String>,
    pub collection_plan_id: Option<String>,
    pub agreement_id: Option<String>,
    pub negativation_status: NegativationStatus,
    pub protest_status: ProtestStatus,
    pub paid_at: Option<Timestamp>,
    pub canceled_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
    /// The dispute that pauses collection of this charge, while one is open.
    pub open_dispute_id: Option<String>,
    /// The dynamic BR Code a PSP made for the charge (`pixCopiaECola`), shown instead of the
    /// static code while the charge is open.
    pub pix_payload: Option<String>,
    /// The PSP's location URL of that code.
    pub pix_location: Option<String>,
}

impl Charge {
    /// Open means pending or overdue: the only states in which it can still be collected.
    pub fn is_open(&self) -> bool {
        self.status.is_open()
    }

    /// What its amount due is computed from.
    pub fn terms(&self) -> ChargeTerms<'_> {
        ChargeTerms {
            amount: self.amount_cents,
            fine_bp: self.fine_bp,
            interest_bp: self.interest_bp,
            effective_due_date: self.effective_due_date,
            payments: self.payment_days.days(),
        }
    }
}

/// Writable terms of a charge, in storage units.
#[derive(Debug, Clone)]
pub struct ChargeFields {
    pub description: String,
    pub amount_cents: i64,
    pub fine_bp: i64,
    pub interest_bp: i64,
    pub due_date: Date,
    pub tags: Vec<String>,
    pub collection_plan_id: Option<String>,
}

/// The order of a charge list (always then by id).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChargeOrder {
    #[default]
    DueDate,
    Amount,
    CreatedAt,
}

impl ChargeOrder {
    /// The column sorted on.
    pub fn column(self) -> &'static str {
        match self {
            ChargeOrder::DueDate => "due_date",
            ChargeOrder::Amount => "amount_cents",
            ChargeOrder::CreatedAt => "created_at",
        }
    }
}

/// List filters (validated). Stored with an export (`store::exports::ExportFilter`).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ChargeFilter {
    pub statuses: Vec<String>,
    pub customer_id: Option<String>,
    pub due_date_from: Option<String>,
    pub due_date_to: Option<String>,
    pub amount_min_cents: Option<i64>,
    pub amount_max_cents: Option<i64>,
    pub tag: Option<String>,
    pub order: ChargeOrder,
    pub descending: bool,
}

crate::row! {
    /// A charge as stored: money in centavos, rates in basis points, the due date a date.
    #[derive(Debug, Clone)]
    pub struct ChargeRow {
        pub id: String,
        pub customer_id: String,
        pub description: String,
        pub amount_cents: Cents,
        pub paid_cents: Cents,
        pub fine_bp: i64,
        pub interest_bp: i64,
        pub due_date: Date,
        pub state: ChargeState,
        pub tags: Vec<String>,
        pub collection_plan_id: Option<String>,
        pub agreement_id: Option<String>,
        pub negativation_status: NegativationStatus,
        pub protest_status: ProtestStatus,
        pub paid_at: Option<Timestamp>,
        pub canceled_at: Option<Timestamp>,
        pub version: i64,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
        pub open_dispute_id: Option<String>,
        pub pix_payload: Option<String>,
        pub pix_location: Option<String>,
        pub payment_days: PaymentDays,
        /// The organization's own holidays as stored (`None`: it has none), read in the same
        /// statement as the charge (see `COLUMNS`).
        pub organization_holidays: Option<String>,
    }
}

impl Stored for ChargeRow {
    const TABLE: &'static str = "charges";
    // Every statement that reads charges binds the organization as `$1`: its calendar comes in
    // the same statement, a subquery that names no column of the row, which both engines run
    // once per statement — no second read, and on PostgreSQL no second round trip (a separate
    // read cost a detail 40 % more CPU there, bench/RESULTS.md).
    const COLUMNS: &'static str = "id, customer_id, description, amount_cents, paid_cents, fine_bp, interest_bp, due_date, state, tags,
    collection_plan_id, agreement_id, negativation_status, protest_status, paid_at, canceled_at, version, created_at, updated_at,
    open_dispute_id, pix_payload, pix_location, payment_days,
    (SELECT oc.holidays FROM organization_calendars oc WHERE oc.organization_id = $1) AS organization_holidays";
}

/// Calendars read with charges, parsed once per distinct text (a page's rows all carry their
/// organization's).
#[derive(Default)]
struct Calendars {
    last: Option<(Option<String>, std::sync::Arc<Calendar>)>,
}

impl Calendars {
    fn of(
        &mut self,
        organization_id: &str,
        row: &mut ChargeRow,
    ) -> Result<std::sync::Arc<Calendar>> {
        let text = row.organization_holidays.take();
        if let Some((seen, calendar)) = &self.last
            && *seen == text
        {
            return Ok(calendar.clone());
        }
        let calendar = match &text {
            None => std::sync::Arc::new(Calendar::national()),
            Some(text) => calendars::parse(organization_id, text)?,
        };
        self.last = Some((text, calendar.clone()));
        Ok(calendar)
    }

    /// The charges of these rows of one organization, as seen on `today`.
    fn charges(organization_id: &str, rows: Vec<ChargeRow>, today: Date) -> Result<Vec<Charge>> {
        let mut calendars = Calendars::default();
        rows.into_iter()
            .map(|mut row| {
                let calendar = calendars.of(organization_id, &mut row)?;
                Ok(row.on(&calendar, today))
            })
            .collect()
    }
}

impl ChargeRow {
    /// The charge as seen on day `today` of the organization's `calendar`: an open one is
    /// pending or overdue, and owes its principal with fine and interest.
    pub fn on(self, calendar: &Calendar, today: Date) -> Charge {
        let effective_due_date = calendar.effective_due_date(self.due_date);
        let status = match self.state {
            ChargeState::Open if effective_due_date < today => ChargeStatus::Overdue,
            ChargeState::Open => ChargeStatus::Pending,
            ChargeState::Paid => ChargeStatus::Paid,
            ChargeState::Canceled => ChargeStatus::Canceled,
            ChargeState::InAgreement => ChargeStatus::InAgreement,
        };
        let mut charge = Charge {
            id: self.id,
            customer_id: self.customer_id,
            description: self.description,
            amount_cents: self.amount_cents,
            paid_cents: self.paid_cents,
            fine_bp: self.fine_bp,
            interest_bp: self.interest_bp,
            amount_due: Cents(0),
            owed: Owed::default(),
            due_date: self.due_date,
            effective_due_date,
            payment_days: self.payment_days,
            status,
            tags: self.tags,
            collection_plan_id: self.collection_plan_id,
            agreement_id: self.agreement_id,
            negativation_status: self.negativation_status,
            protest_status: self.protest_status,
            paid_at: self.paid_at,
            canceled_at: self.canceled_at,
            created_at: self.created_at,
            updated_at: self.updated_at,
            version: self.version,
            open_dispute_id: self.open_dispute_id,
            pix_payload: self.pix_payload,
            pix_location: self.pix_location,
        };
        if self.state == ChargeState::Open {
            charge.owed = balance(&charge.terms(), today).owed;
            charge.amount_due = charge.owed.total();
        }
        charge
    }
}

/// `overdue_before`: the first due date not overdue today (see
/// `Calendar::first_due_date_not_overdue`): the effective due date grows with the due date,
/// so "overdue" stays a comparison of the stored due date, on its index.
fn status_clause(status: &str, overdue_before: &str, c: &mut Vec<(String, Bind)>) {
    match status {
        "pending" => c.push((
            "(state = 'open' AND due_date >= {})".into(),
            Bind::Text(overdue_before.into()),
        )),
        "overdue" => c.push((
            "(state = 'open' AND due_date < {})".into(),
            Bind::Text(overdue_before.into()),
        )),
        other => c.push(("state = {}".into(), Bind::Text(other.into()))),
    }
}

pub async fn list(
    db: &Db,
    organization_id: &str,
    filter: &ChargeFilter,
    page: PageRequest,
) -> Result<Page<Charge>> {
    let today = super::today();
    // Which charges are pending or overdue today depends on the calendar: read before the
    // page (one row by its key) when the filter asks for either; the rows carry it anyway.
    let by_day = filter
        .statuses
        .iter()
        .any(|s| s == "pending" || s == "overdue");
    let calendar = if by_day {
        calendars::of(db, organization_id).await?
    } else {
        std::sync::Arc::new(Calendar::national())
    };
    let rows = list_query(organization_id, filter, &calendar, today)
        .fetch_rows::<ChargeRow>(db, page)
        .await?;
    let Page {
        items,
        total,
        total_exact,
    } = rows;
    Ok(Page {
        items: Calendars::charges(organization_id, items, today)?,
        total,
        total_exact,
    })
}

/// The charges of `query` (a [`list_query`]) after `after`, at most `limit`, as seen on
/// `today`, and where they ended: a whole list read a keyset page at a time (exports).
pub async fn list_after(
    db: &Db,
    organization_id: &str,
    query: &ListQuery,
    today: Date,
    after: Option<&After>,
    limit: i64,
) -> Result<(Vec<Charge>, Option<After>)> {
    let (rows, last) = query.fetch_after::<ChargeRow>(db, after, limit).await?;
    Ok((Calendars::charges(organization_id, rows, today)?, last))
}

/// The query behind [`list`] on day `today` of `calendar` (pending and overdue depend on
/// them).
pub fn list_query(
    organization_id: &str,
    filter: &ChargeFilter,
    calendar: &Calendar,
    today: Date,
) -> ListQuery {
    let today_text = calendar.first_due_date_not_overdue(today).to_string();
    let mut c = Conditions::for_organization(organization_id);
    if !filter.statuses.is_empty() {
        let mut parts = Vec::new();
        for s in &filter.statuses {
            status_clause(s, &today_text, &mut parts);
        }
        let clause = format!(
            "({})",
            parts
                .iter()
                .map(|p| p.0.as_str())
                .collect::<Vec<_>>()
                .join(" OR ")
        );
        c.push_many(&clause, parts.into_iter().map(|p| p.1).collect());
    }
    if let Some(customer) = &filter.customer_id {
        c.push("customer_id = {}", Bind::Text(customer.clone()));
    }
    if let Some(from) = &filter.due_date_from {
        c.push("due_date >= {}", Bind::Text(from.clone()));
    }
    if let Some(to) = &filter.due_date_to {
        c.push("due_date <= {}", Bind::Text(to.clone()));
    }
    if let Some(min) = filter.amount_min_cents {
        c.push("amount_cents >= {}", Bind::Int(min));
    }
    if let Some(max) = filter.amount_max_cents {
        c.push("amount_cents <= {}", Bind::Int(max));
    }
    if let Some(tag) = &filter.tag {
        let pattern = format!(
            "%{}%",
            super::like_escape(&serde_json::to_string(tag).unwrap_or_default())
        );
        c.push("tags LIKE {} ESCAPE '\\'", Bind::Text(pattern));
    }
    let sort = Sort {
        column: filter.order.column(),
        integer: filter.order == ChargeOrder::Amount,
        descending: filter.descending,
    };
    ListQuery::sorted(c, ChargeRow::COLUMNS, "FROM charges", sort)
}

pub async fn get(db: &Db, organization_id: &str, id: &str) -> Result<Option<Charge>> {
    let row: Option<ChargeRow> = db.by_id(organization_id, id).await?;
    Ok(Calendars::charges(organization_id, row.into_iter().collect(), super::today())?.pop())
}

/// Same as [`get`] inside a transaction.
pub async fn get_in(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<Option<Charge>> {
    let row: Option<ChargeRow> = by_id(&mut *conn, organization_id, id).await?;
    Ok(Calendars::charges(organization_id, row.into_iter().collect(), super::today())?.pop())
}

/// Insert an open charge. One with a plan is looked at by the collection worker's next tick
/// (`plan_schedule`).
pub async fn insert(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    customer_id: &str,
    fields: &ChargeFields,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO charges (id, organization_id, customer_id, description, amount_cents, paid_cents, fine_bp, interest_bp,
             due_date, state, tags, collection_plan_id, agreement_id, negativation_status, protest_status, version,
             created_at, updated_at, steps_due_on)
         VALUES ($1, $2, $3, $4, $5, 0, $6, $7, $8, 'open', $9, $10, NULL, 'none', 'none', 1, $11, $11, $12)",
    )
    .bind(id)
    .bind(organization_id)
    .bind(customer_id)
    .bind(&fields.description)
    .bind(fields.amount_cents)
    .bind(fields.fine_bp)
    .bind(fields.interest_bp)
    .bind(fields.due_date.to_string())
    .bind(serde_json::to_string(&fields.tags).expect("strings serialise"))
    .bind(fields.collection_plan_id.as_deref())
    .bind(now)
    .bind(
        fields
            .collection_plan_id
            .as_ref()
            .map(|_| super::plan_schedule::RECHECK),
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Overwrite the terms if the row is still at `version` and open; false otherwise. The due
/// date or the plan may have changed: the collection worker looks at it again
/// (`plan_schedule`).
pub async fn update(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    version: i64,
    fields: &ChargeFields,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE charges SET description = $1, amount_cents = $2, fine_bp = $3, interest_bp = $4, due_date = $5, tags = $6,
             collection_plan_id = $7, version = version + 1, updated_at = $8,
             steps_due_on = $12, steps_revision = steps_revision + 1
         WHERE organization_id = $9 AND id = $10 AND version = $11 AND state = 'open'",
    )
    .bind(&fields.description)
    .bind(fields.amount_cents)
    .bind(fields.fine_bp)
    .bind(fields.interest_bp)
    .bind(fields.due_date.to_string())
    .bind(serde_json::to_string(&fields.tags).expect("strings serialise"))
    .bind(fields.collection_plan_id.as_deref())
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .bind(version)
    .bind(super::plan_schedule::RECHECK)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Test and demo support: set the stored state and payment columns directly (what was paid
/// counts as paid on `paid_on`).
pub async fn set_state(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    state: &str,
    paid_cents: i64,
    paid_on: Date,
    now: &str,
) -> Result<()> {
    let mut days = PaymentDays::default();
    days.add(paid_on, Cents(paid_cents));
    sqlx::query(
        "UPDATE charges SET state = $1, paid_cents = $2, payment_days = $6,
             paid_at = CASE WHEN $1 = 'paid' THEN $3 ELSE paid_at END,
             canceled_at = CASE WHEN $1 = 'canceled' THEN $3 ELSE canceled_at END,
             version = version + 1, updated_at = $3
         WHERE organization_id = $4 AND id = $5",
    )
    .bind(state)
    .bind(paid_cents)
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .bind(days.to_string())
    .execute(conn)
    .await?;
    Ok(())
}

/// Charge ids whose id starts with `prefix`, or whose customer's name or document does,
/// newest due date first, at most `limit`, and how many match in all.
pub async fn complete(
    db: &Db,
    organization_id: &str,
    prefix: &str,
    limit: i64,
) -> Result<(Vec<String>, i64)> {
    let order = "charges.due_date DESC, charges.id";
    super::search::complete_by_customer(db, "charges", organization_id, prefix, order, limit).await
}

/// Cancel an open charge at `version`: a requested or active negativation gets its removal
/// requested, and a protest its cancellation. False when the row moved on or is not open.
pub async fn cancel(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    version: i64,
    reason: Option<&str>,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE charges SET state = 'canceled', canceled_at = $1, cancel_reason = $2,
             negativation_status = CASE WHEN negativation_status IN ('requested', 'active') THEN 'removal_requested' ELSE negativation_status END,
             protest_status = CASE WHEN protest_status IN ('requested', 'protested') THEN 'cancel_requested' ELSE protest_status END,
             version = version + 1, updated_at = $1
         WHERE organization_id = $3 AND id = $4 AND version = $5 AND state = 'open'",
    )
    .bind(now)
    .bind(reason)
    .bind(organization_id)
    .bind(id)
    .bind(version)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Every charge of one customer, oldest due date first (for statements).
pub async fn for_customer(
    db: &Db,
    organization_id: &str,
    customer_id: &str,
) -> Result<Vec<Charge>> {
    let sql = format!(
        "SELECT {} FROM charges WHERE organization_id = $1 AND customer_id = $2 ORDER BY due_date, id",
        ChargeRow::COLUMNS
    );
    let rows: Vec<ChargeRow> = sqlx::query_as(AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(customer_id)
        .fetch_all(&db.pool)
        .await?;
    let today = super::today();
    let calendar = calendars::of(db, organization_id).await?;
    Ok(rows
        .into_iter()
        .map(|row| row.on(&calendar, today))
        .collect())
}

/// The open charges of an organization (pending and overdue) as seen on `today`, in no order:
/// what a report of what is owed reads. One statement on `charges_org_state_due`
/// (`organization_id`, `state`): the rows of other states and organizations are never read.
pub async fn open_on(db: &Db, organization_id: &str, today: Date) -> Result<Vec<Charge>> {
    let rows: Vec<ChargeRow> = sqlx::query_as(AssertSqlSafe(open_sql()))
        .bind(organization_id)
        .fetch_all(&db.pool)
        .await?;
    Calendars::charges(organization_id, rows, today)
}

/// The statement of [`open_on`], the organization bound as `$1` (its plan is checked by the
/// tests).
pub fn open_sql() -> String {
    format!(
        "SELECT {} FROM charges WHERE organization_id = $1 AND state = 'open'",
        ChargeRow::COLUMNS
    )
}
