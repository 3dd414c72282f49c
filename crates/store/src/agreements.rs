//! Agreements (acordos): proposals to renegotiate open charges of one customer, and once
//! accepted the charges they put in force. Also migration 5, which creates the tables of
//! agreements and of disputes (`store::disputes`), and migration 7, the index that keeps a
//! charge in at most one live (proposed or accepted) agreement.
//!
//! An agreement keeps the original charges it renegotiates (`agreement_charges`, with what
//! each owed at the proposal, the weights for crediting payments back) and its schedule
//! (`agreement_installments`, number 0 being the down payment). Accepting moves the
//! originals to the stored state `in_agreement` and creates one charge per schedule entry,
//! all carrying `agreement_id`. Ending an accepted agreement unpaid ([`unwind`]) cancels the
//! open instalment charges and reinstates the originals: they go back to `open` with what
//! the instalments collected credited pro rata to their `paid_cents`, the discount lost.

use sqlx::{AnyConnection, AssertSqlSafe};
use time::Date;

use super::automatic_pix::{self, AutomaticPixDetails};
use super::charges::{self, Charge};
use super::events::Actor;
use super::rows::{Stored, by_id};
use super::{Bind, Conditions, Db, ListQuery, Page, PageRequest, Result, StoreError};
use dunning_domain::charge_math::{ChargeTerms, amount_due};
use dunning_domain::installments::pro_rata;
use dunning_domain::money::Cents;
use dunning_domain::timestamp::Timestamp;

crate::stored_words! {
    /// Where an agreement stands; the stored `state` is the API's `status`.
    pub enum AgreementStatus {
        Proposed = "proposed",
        Accepted = "accepted",
        Canceled = "canceled",
        Broken = "broken",
        Fulfilled = "fulfilled",
    }
}

/// Statuses as the API names them.
pub const STATUSES: &[&str] = AgreementStatus::ALL;

crate::row! {
    /// One entry of the schedule.
    #[derive(Debug, Clone)]
    pub struct Installment {
        pub number: i64,
        pub amount_cents: Cents,
        pub due_date: Date,
        pub charge_id: Option<String>,
    }
}

/// An original charge as it stood when the agreement was proposed.
#[derive(Debug, Clone)]
pub struct AgreedCharge {
    pub charge_id: String,
    pub amount_cents: i64,
    pub paid_cents: i64,
    pub due_cents: i64,
}

crate::row! {
    /// An agreement as stored, with its original charges and its schedule.
    #[derive(Debug, Clone)]
    pub struct Agreement {
        pub id: String,
        pub customer_id: String,
        pub status: AgreementStatus,
        pub total_cents: Cents,
        pub down_payment_cents: Cents,
        pub installments: i64,
        pub first_due_date: Date,
        pub discount_bp: i64,
        pub note: Option<String>,
        pub cancel_reason: Option<String>,
        pub accepted_at: Option<Timestamp>,
        pub canceled_at: Option<Timestamp>,
        pub broken_at: Option<Timestamp>,
        pub fulfilled_at: Option<Timestamp>,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
        pub version: i64,
        pub charge_ids: Vec<String> = Vec::new(),
        pub charges: Vec<AgreedCharge> = Vec::new(),
        pub installments_schedule: Vec<Installment> = Vec::new(),
        /// The latest Pix Automático asked for it, with its debits.
        pub automatic_pix: Option<AutomaticPixDetails> = None,
    }
}

impl Stored for Agreement {
    const TABLE: &'static str = "agreements";
    const COLUMNS: &'static str = "id, customer_id, state AS status, total_cents, down_payment_cents, installments, first_due_date,
    discount_bp, note, cancel_reason, accepted_at, canceled_at, broken_at, fulfilled_at, version, created_at, updated_at";
}

crate::row! {
    /// A row of `agreement_charges`, before it joins its agreement.
    struct AgreedChargeRow {
        agreement_id: String,
        charge_id: String,
        amount_cents: i64,
        paid_cents: i64,
        due_cents: i64,
    }
}

crate::row! {
    /// A row of `agreement_installments`, before it joins its agreement.
    struct InstallmentRow {
        agreement_id: String,
        number: i64,
        amount_cents: Cents,
        due_date: Date,
        charge_id: Option<String>,
    }
}

/// A proposal to store (validated, amounts in centavos).
#[derive(Debug, Clone)]
pub struct NewAgreement {
    pub customer_id: String,
    pub charges: Vec<AgreedCharge>,
    pub total_cents: i64,
    pub down_payment_cents: i64,
    pub installments: i64,
    pub first_due_date: Date,
    pub discount_bp: i64,
    pub note: Option<String>,
    /// (number, centavos, due date)
    pub schedule: Vec<(i64, i64, Date)>,
}

/// List filters (validated).
#[derive(Debug, Default)]
pub struct AgreementFilter {
    pub customer_id: Option<String>,
    pub status: Option<String>,
}

/// `$first, $first+1, ...` for an `IN (...)` list of `count` values.
fn placeholders(first: usize, count: usize) -> String {
    (first..first + count)
        .map(|n| format!("${n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Fill in the charges and schedules of `agreements` (two queries for the whole lot).
async fn attach_details(
    conn: &mut AnyConnection,
    organization_id: &str,
    agreements: &mut [Agreement],
) -> Result<()> {
    if agreements.is_empty() {
        return Ok(());
    }
    let ids = placeholders(2, agreements.len());
    let sql = format!(
        "SELECT agreement_id, charge_id, amount_cents, paid_cents, due_cents FROM agreement_charges
         WHERE organization_id = $1 AND agreement_id IN ({ids}) ORDER BY agreement_id, position"
    );
    let mut query = sqlx::query_as::<_, AgreedChargeRow>(AssertSqlSafe(sql)).bind(organization_id);
    for a in agreements.iter() {
        query = query.bind(a.id.clone());
    }
    for row in query.fetch_all(&mut *conn).await? {
        if let Some(a) = agreements.iter_mut().find(|a| a.id == row.agreement_id) {
            a.charge_ids.push(row.charge_id.clone());
            a.charges.push(AgreedCharge {
                charge_id: row.charge_id,
                amount_cents: row.amount_cents,
                paid_cents: row.paid_cents,
                due_cents: row.due_cents,
            });
        }
    }
    let sql = format!(
        "SELECT agreement_id, number, amount_cents, due_date, charge_id FROM agreement_installments
         WHERE organization_id = $1 AND agreement_id IN ({ids}) ORDER BY agreement_id, number"
    );
    let mut query = sqlx::query_as::<_, InstallmentRow>(AssertSqlSafe(sql)).bind(organization_id);
    for a in agreements.iter() {
        query = query.bind(a.id.clone());
    }
    for row in query.fetch_all(&mut *conn).await? {
        if let Some(a) = agreements.iter_mut().find(|a| a.id == row.agreement_id) {
            a.installments_schedule.push(Installment {
                number: row.number,
                amount_cents: row.amount_cents,
                due_date: row.due_date,
                charge_id: row.charge_id,
            });
        }
    }
    let ids: Vec<&str> = agreements.iter().map(|a| a.id.as_str()).collect();
    let newest = automatic_pix::newest_of_agreements(conn, organization_id, &ids).await?;
    for request in newest {
        let debits = automatic_pix::debits_of(conn, organization_id, &request.id).await?;
        if let Some(a) = agreements.iter_mut().find(|a| a.id == request.agreement_id) {
            a.automatic_pix = Some(AutomaticPixDetails { request, debits });
        }
    }
    Ok(())
}

pub async fn list(
    db: &Db,
    organization_id: &str,
    filter: &AgreementFilter,
    page: PageRequest,
) -> Result<Page<Agreement>> {
    let mut found = list_query(organization_id, filter)
        .fetch_rows::<Agreement>(db, page)
        .await?;
    let mut conn = db.pool.acquire().await?;
    attach_details(&mut conn, organization_id, &mut found.items).await?;
    Ok(found)
}

/// The query behind [`list`].
pub fn list_query(organization_id: &str, filter: &AgreementFilter) -> ListQuery {
    let mut c = Conditions::for_organization(organization_id);
    if let Some(customer) = &filter.customer_id {
        c.push("customer_id = {}", Bind::Text(customer.clone()));
    }
    if let Some(status) = &filter.status {
        c.push("state = {}", Bind::Text(status.clone()));
    }
    ListQuery::new(
        c,
        Agreement::COLUMNS,
        "FROM agreements",
        "created_at DESC, id DESC",
    )
}

pub async fn get(db: &Db, organization_id: &str, id: &str) -> Result<Option<Agreement>> {
    let mut conn = db.pool.acquire().await?;
    get_in(&mut conn, organization_id, id).await
}

/// Same as [`get`] on the caller's connection (inside a transaction).
pub async fn get_in(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
) -> Result<Option<Agreement>> {
    let Some(agreement) = by_id::<Agreement>(&mut *conn, organization_id, id).await? else {
        return Ok(None);
    };
    let mut found = [agreement];
    attach_details(conn, organization_id, &mut found).await?;
    let [agreement] = found;
    Ok(Some(agreement))
}

/// The live agreement (proposed or accepted) that renegotiates `charge_id`, if any.
pub async fn live_for_charge(
    conn: &mut AnyConnection,
    organization_id: &str,
    charge_id: &str,
) -> Result<Option<String>> {
    Ok(sqlx::query_scalar(
        "SELECT agreement_id FROM agreement_charges WHERE organization_id = $1 AND charge_id = $2 AND live = 1",
    )
    .bind(organization_id)
    .bind(charge_id)
    .fetch_optional(conn)
    .await?)
}

/// What storing a proposal did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proposal {
    Stored,
    /// This charge is already in another live agreement (the unique index said so): nothing
    /// usable was written, the caller rolls back.
    ChargeTaken(String),
}

/// Store a proposal; its charges count as renegotiated (`live`) from now on.
pub async fn insert(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    new: &NewAgreement,
    now: &str,
) -> Result<Proposal> {
    sqlx::query(
        "INSERT INTO agreements (id, organization_id, customer_id, state, total_cents, down_payment_cents, installments,
             first_due_date, discount_bp, note, version, created_at, updated_at)
         VALUES ($1, $2, $3, 'proposed', $4, $5, $6, $7, $8, $9, 1, $10, $10)",
    )
    .bind(id)
    .bind(organization_id)
    .bind(&new.customer_id)
    .bind(new.total_cents)
    .bind(new.down_payment_cents)
    .bind(new.installments)
    .bind(new.first_due_date.to_string())
    .bind(new.discount_bp)
    .bind(new.note.as_deref())
    .bind(now)
    .execute(&mut *conn)
    .await?;
    for (position, charge) in new.charges.iter().enumerate() {
        let inserted = sqlx::query(
            "INSERT INTO agreement_charges (agreement_id, organization_id, charge_id, position, amount_cents, paid_cents, due_cents, live)
             VALUES ($1, $2, $3, $4, $5, $6, $7, 1)",
        )
        .bind(id)
        .bind(organization_id)
        .bind(&charge.charge_id)
        .bind(position as i64)
        .bind(charge.amount_cents)
        .bind(charge.paid_cents)
        .bind(charge.due_cents)
        .execute(&mut *conn)
        .await
        .map_err(StoreError::from);
        match inserted {
            // The agreement is new and its charges distinct, so the one unique key this
            // insert can break is `agreement_charges_one_live`.
            Err(e) if super::retry::is_unique_violation(&e) => {
                return Ok(Proposal::ChargeTaken(charge.charge_id.clone()));
            }
            other => {
                other?;
            }
        }
    }
    for (number, amount_cents, due_date) in &new.schedule {
        sqlx::query(
            "INSERT INTO agreement_installments (agreement_id, organization_id, number, amount_cents, due_date, charge_id)
             VALUES ($1, $2, $3, $4, $5, NULL)",
        )
        .bind(id)
        .bind(organization_id)
        .bind(*number)
        .bind(*amount_cents)
        .bind(due_date.to_string())
        .execute(&mut *conn)
        .await?;
    }
    Ok(Proposal::Stored)
}

/// Move a proposed agreement at `version` to `accepted`; false when it moved on.
pub async fn mark_accepted(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    version: i64,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE agreements SET state = 'accepted', accepted_at = $1, version = version + 1, updated_at = $1
         WHERE organization_id = $2 AND id = $3 AND version = $4 AND state = 'proposed'",
    )
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .bind(version)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// How an agreement ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Canceled,
    Broken,
    Fulfilled,
}

impl Ending {
    fn state(self) -> &'static str {
        match self {
            Ending::Canceled => "canceled",
            Ending::Broken => "broken",
            Ending::Fulfilled => "fulfilled",
        }
    }

    /// The event recorded on the agreement.
    pub fn event(self) -> &'static str {
        match self {
            Ending::Canceled => "agreement.canceled",
            Ending::Broken => "agreement.broken",
            Ending::Fulfilled => "agreement.fulfilled",
        }
    }
}

/// A new version of the agreement: something shown with it changed (its Pix Automático), so
/// that its ETag changes too. The caller holds the agreement's lock.
pub async fn touch(
    conn: &mut AnyConnection,
    organization_id: &str,
    id: &str,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "UPDATE agreements SET version = version + 1, updated_at = $1 WHERE organization_id = $2 AND id = $3",
    )
    .bind(now)
    .bind(organization_id)
    .bind(id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Close `agreement` as it was read (its version and status); false when it moved on since.
/// Only a cancellation records a reason and `canceled_at`.
pub async fn mark_ended(
    conn: &mut AnyConnection,
    organization_id: &str,
    agreement: &Agreement,
    ending: Ending,
    reason: Option<&str>,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE agreements SET state = $1,
             cancel_reason = CASE WHEN $1 = 'canceled' THEN $2 ELSE cancel_reason END,
             canceled_at = CASE WHEN $1 = 'canceled' THEN $3 ELSE canceled_at END,
             broken_at = CASE WHEN $1 = 'broken' THEN $3 ELSE broken_at END,
             fulfilled_at = CASE WHEN $1 = 'fulfilled' THEN $3 ELSE fulfilled_at END,
             version = version + 1, updated_at = $3
         WHERE organization_id = $4 AND id = $5 AND version = $6 AND state = $7",
    )
    .bind(ending.state())
    .bind(reason)
    .bind(now)
    .bind(organization_id)
    .bind(&agreement.id)
    .bind(agreement.version)
    .bind(agreement.status.as_str())
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    // Its charges can be renegotiated again.
    sqlx::query(
        "UPDATE agreement_charges SET live = 0 WHERE organization_id = $1 AND agreement_id = $2",
    )
    .bind(organization_id)
    .bind(&agreement.id)
    .execute(&mut *conn)
    .await?;
    Ok(true)
}

/// Put an original charge in the agreement: `in_agreement`, its negativation removal and
/// protest cancellation requested (collection of the old debt stops). False when the charge
/// is no longer open at `version`, or is in a dispute.
pub async fn move_charge_in(
    conn: &mut AnyConnection,
    organization_id: &str,
    charge_id: &str,
    version: i64,
    agreement_id: &str,
    now: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE charges SET state = 'in_agreement', agreement_id = $1,
             negativation_status = CASE WHEN negativation_status IN ('requested', 'active') THEN 'removal_requested' ELSE negativation_status END,
             protest_status = CASE WHEN protest_status IN ('requested', 'protested') THEN 'cancel_requested' ELSE protest_status END,
             version = version + 1, updated_at = $2
         WHERE organization_id = $3 AND id = $4 AND version = $5 AND state = 'open' AND open_dispute_id IS NULL",
    )
    .bind(agreement_id)
    .bind(now)
    .bind(organization_id)
    .bind(charge_id)
    .bind(version)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Record the charge created for schedule entry `number` and link it to the agreement.
pub async fn link_installment(
    conn: &mut AnyConnection,
    organization_id: &str,
    agreement_id: &str,
    number: i64,
    charge_id: &str,
) -> Result<()> {
    sqlx::query("UPDATE charges SET agreement_id = $1 WHERE organization_id = $2 AND id = $3")
        .bind(agreement_id)
        .bind(organization_id)
        .bind(charge_id)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "UPDATE agreement_installments SET charge_id = $1 WHERE organization_id = $2 AND agreement_id = $3 AND number = $4",
    )
    .bind(charge_id)
    .bind(organization_id)
    .bind(agreement_id)
    .bind(number)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// The instalment charges of an agreement, by schedule number.
pub async fn installment_charges(
    conn: &mut AnyConnection,
    organization_id: &str,
    agreement: &Agreement,
) -> Result<Vec<Charge>> {
    let mut out = Vec::new();
    for entry in &agreement.installments_schedule {
        if let Some(id) = &entry.charge_id {
            let charge = charges::get_in(conn, organization_id, id)
                .await?
                .ok_or_else(|| StoreError::Corrupt(format!("instalment charge {id} is missing")))?;
            out.push(charge);
        }
    }
    Ok(out)
}

/// What ending an accepted agreement unpaid did.
#[derive(Debug, Clone, Default)]
pub struct Unwound {
    /// Instalment charges canceled.
    pub canceled: Vec<String>,
    /// Collected by the instalments (their `paid_cents`), credited back to the originals.
    pub collected: Cents,
    /// Original charges reinstated, with what each was credited.
    pub reinstated: Vec<(String, Cents)>,
    /// The reason the instalments were canceled with.
    pub cancel_reason: String,
    /// Each original charge as reinstated (for its `charge.reinstated` event).
    pub reinstated_charges: Vec<Reinstated>,
}

/// An original charge of an unwound agreement, collected again.
#[derive(Debug, Clone)]
pub struct Reinstated {
    pub charge_id: String,
    /// The share of what the agreement collected credited to it.
    pub credit: Cents,
    /// Its payments now.
    pub paid: Cents,
    /// What it owes now.
    pub due: Cents,
}

/// Why an accepted agreement cannot be unwound.
#[derive(Debug)]
pub enum UnwindError {
    /// No instalment charge is open any more: nothing is left to cancel.
    NothingOpen,
    /// A row changed under us; the caller reports a conflict.
    Concurrent(String),
    Store(StoreError),
}

impl From<StoreError> for UnwindError {
    fn from(e: StoreError) -> Self {
        UnwindError::Store(e)
    }
}

impl From<sqlx::Error> for UnwindError {
    fn from(e: sqlx::Error) -> Self {
        UnwindError::Store(e.into())
    }
}

/// How and by whom an accepted agreement is being ended unpaid.
#[derive(Debug, Clone, Copy)]
pub struct Unwinding<'a> {
    /// [`Ending::Canceled`] or [`Ending::Broken`].
    pub ending: Ending,
    /// The canceler's reason, if any.
    pub reason: Option<&'a str>,
    pub actor: &'a Actor,
    /// The day whose amounts due decide whether a reinstated charge is settled.
    pub today: Date,
    /// The timestamp written on the rows.
    pub now: &'a str,
}

/// End an accepted agreement unpaid (canceled or broken), inside the caller's transaction:
/// cancel its open instalment charges, credit what the instalments collected to the
/// original charges in proportion to what each owed at the proposal (never more than that,
/// and the discount is lost), put them back to `open` (or `paid` if that settles one)
/// without `agreement_id`, and close the agreement. Writes an event per change.
pub async fn unwind(
    conn: &mut AnyConnection,
    organization_id: &str,
    agreement: &Agreement,
    how: &Unwinding<'_>,
) -> std::result::Result<Unwound, UnwindError> {
    // The events are the application layer's (`dunning_app::agreements`).
    let Unwinding {
        ending,
        reason,
        actor: _,
        today,
        now,
    } = *how;
    let installments = installment_charges(conn, organization_id, agreement).await?;
    if !installments.iter().any(Charge::is_open) {
        return Err(UnwindError::NothingOpen);
    }
    let mut result = Unwound::default();
    let cancel_reason = match ending {
        Ending::Broken => format!("Acordo {} rompido", agreement.id),
        _ => format!("Acordo {} cancelado", agreement.id),
    };
    for charge in installments.iter().filter(|c| c.is_open()) {
        if !charges::cancel(
            conn,
            organization_id,
            &charge.id,
            charge.version,
            Some(&cancel_reason),
            now,
        )
        .await?
        {
            return Err(UnwindError::Concurrent(charge.id.clone()));
        }
        result.canceled.push(charge.id.clone());
    }
    let collected: i64 = installments.iter().map(|c| c.paid_cents.0).sum();
    let weights: Vec<Cents> = agreement
        .charges
        .iter()
        .map(|c| Cents(c.due_cents))
        .collect();
    let owed_at_proposal: i64 = weights.iter().map(|w| w.0).sum();
    result.collected = Cents(collected);
    let credits = pro_rata(Cents(collected.min(owed_at_proposal)), &weights);
    for (agreed, credit) in agreement.charges.iter().zip(credits) {
        let charge = charges::get_in(conn, organization_id, &agreed.charge_id)
            .await?
            .ok_or_else(|| {
                StoreError::Corrupt(format!("charge {} is missing", agreed.charge_id))
            })?;
        let paid = charge.paid_cents.0 + credit.0;
        // The instalments' money counts as paid on the day the agreement was accepted, when
        // the debtor began paying it: the debtor's side of the doubt (the instalments' own
        // days belong to other charges).
        let credited_on = agreement
            .accepted_at
            .map_or(today, |at| dunning_domain::calendar::day_of(at.instant()));
        let mut payment_days = charge.payment_days.clone();
        payment_days.add(credited_on, credit);
        let due = amount_due(
            &ChargeTerms {
                payments: payment_days.days(),
                ..charge.terms()
            },
            today,
        );
        let state = if due.0 == 0 { "paid" } else { "open" };
        let done = sqlx::query(
            "UPDATE charges SET state = $1, paid_cents = $2, agreement_id = NULL, payment_days = $7,
                 paid_at = CASE WHEN $1 = 'paid' THEN $3 ELSE paid_at END,
                 version = version + 1, updated_at = $3
             WHERE organization_id = $4 AND id = $5 AND state = 'in_agreement' AND agreement_id = $6",
        )
        .bind(state)
        .bind(paid)
        .bind(now)
        .bind(organization_id)
        .bind(&charge.id)
        .bind(&agreement.id)
        .bind(payment_days.to_string())
        .execute(&mut *conn)
        .await?;
        if done.rows_affected() != 1 {
            return Err(UnwindError::Concurrent(charge.id.clone()));
        }
        result.reinstated.push((charge.id.clone(), credit));
        result.reinstated_charges.push(Reinstated {
            charge_id: charge.id.clone(),
            credit,
            paid: Cents(paid),
            due,
        });
    }
    if !mark_ended(conn, organization_id, agreement, ending, reason, now).await? {
        return Err(UnwindError::Concurrent(agreement.id.clone()));
    }
    result.cancel_reason = cancel_reason;
    Ok(result)
}

/// Accepted agreements with an open instalment charge unpaid since before `$1` (a date), not
/// in a dispute, across organizations: (organization, agreement), oldest first, at most `$2`.
/// An open charge with an `agreement_id` is an instalment (an original charge is
/// `in_agreement` while its agreement holds it), so this reads the open instalments due before
/// the day through `charges_open_installments_due` (migration 22), never the open charges
/// that are not instalments.
pub const OVERDUE_ACCEPTED_SQL: &str = "SELECT DISTINCT agreements.organization_id, agreements.id
     FROM charges JOIN agreements ON agreements.id = charges.agreement_id
     WHERE charges.state = 'open' AND charges.agreement_id IS NOT NULL AND charges.due_date < $1
       AND charges.open_dispute_id IS NULL AND agreements.state = 'accepted'
     ORDER BY agreements.id LIMIT $2";

/// See [`OVERDUE_ACCEPTED_SQL`].
pub async fn overdue_accepted(db: &Db, cutoff: &str, limit: i64) -> Result<Vec<(String, String)>> {
    Ok(sqlx::query_as(OVERDUE_ACCEPTED_SQL)
        .bind(cutoff)
        .bind(limit)
        .fetch_all(&db.pool)
        .await?)
}

/// Accepted agreements none of whose instalment charges is open any more, across
/// organizations: (organization, agreement).
pub async fn settled_accepted(db: &Db, limit: i64) -> Result<Vec<(String, String)>> {
    let sql = format!(
        "SELECT agreements.organization_id, agreements.id FROM agreements
         WHERE agreements.state = 'accepted' AND NOT EXISTS (
             SELECT 1 FROM agreement_installments JOIN charges ON charges.id = agreement_installments.charge_id
             WHERE agreement_installments.agreement_id = agreements.id AND charges.state = 'open')
         ORDER BY agreements.id LIMIT {limit}"
    );
    Ok(sqlx::query_as(AssertSqlSafe(sql))
        .fetch_all(&db.pool)
        .await?)
}

/// Remove every agreement of a customer (the customer is being deleted; none is in force).
pub async fn delete_for_customer(
    conn: &mut AnyConnection,
    organization_id: &str,
    customer_id: &str,
) -> Result<()> {
    for table in [
        "agreement_installments",
        "agreement_charges",
        "automatic_pix",
    ] {
        let sql = format!(
            "DELETE FROM {table} WHERE organization_id = $1 AND agreement_id IN
                 (SELECT id FROM agreements WHERE organization_id = $1 AND customer_id = $2)"
        );
        sqlx::query(AssertSqlSafe(sql))
            .bind(organization_id)
            .bind(customer_id)
            .execute(&mut *conn)
            .await?;
    }
    sqlx::query("DELETE FROM agreements WHERE organization_id = $1 AND customer_id = $2")
        .bind(organization_id)
        .bind(customer_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Agreement ids whose id starts with `prefix`, or whose customer's name or document does,
/// newest first, at most `limit`, and how many match in all.
pub async fn complete(
    db: &Db,
    organization_id: &str,
    prefix: &str,
    limit: i64,
) -> Result<(Vec<String>, i64)> {
    let order = "agreements.created_at DESC, agreements.id";
    super::search::complete_by_customer(db, "agreements", organization_id, prefix, order, limit)
        .await
}
