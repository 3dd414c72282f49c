//! Money that came back by Pix: one Pix the organization's PSP reported (its callback, or
//! the sweep of `GET /pix`), recorded once and turned into a payment on the charge its txid
//! names — or kept for a person to review, with the reason, and never lost.
//!
//! A Pix is recorded once per `endToEndId` (the Pix's own id; a unique key): a duplicate
//! callback, or a sweep finding what a callback brought, changes nothing. Its txid names a
//! charge (`domain::pix_txid`: the static code's, or a cobv's); the payment goes through
//! `payments::pay` with the charge locked, so it writes the payment, the charge's events
//! (which the webhook worker sends to the organization's receivers) and, when it settles the
//! charge, stops its plan (steps run only for open charges). A Pix for less than the charge
//! owes that day is a partial payment (a static code may be paid with any amount); one for a
//! txid that names no charge of the organization, for a charge that is no longer open, or for
//! more than it owes is kept for review.
//!
//! Also the PSP connection set ([`connect`]) and removed ([`disconnect`]) with their events,
//! for the `/v1` handlers and `kobana-dunning pix connect` alike (the secrets come sealed).

use serde_json::Value;

use dunning_domain::money::Cents;
use dunning_domain::pix_cobv::parse_decimal;
use dunning_domain::pix_txid;
use dunning_domain::timestamp::Timestamp;
use dunning_models::response::{
    PixAppliedData, PixPspConnectedData, PixPspDisconnectedData, PixReviewRequiredData,
};
use dunning_store::charges;
use dunning_store::events::Actor;
use dunning_store::locks::{self, Table};
use dunning_store::pix_psp::{self as store, NewConnection, NewReceived, ReceivedStatus};
use dunning_store::pix_refunds::RefundStatus;
use dunning_store::retry::{self, Failure};
use dunning_store::{Connection, Db, Result as StoreResult, StoreError, ids, now_text};

use crate::payments::{self, Received};
use crate::pix_refunds::{self, RefundItem};
use crate::{Refused, Result, events, refusals};

/// How far after the current time a Pix may be dated and still be applied: the PSP's clock
/// and ours disagree by a few seconds, not by minutes.
pub const MAX_CLOCK_SKEW: time::Duration = time::Duration::minutes(5);

/// One Pix as the API Pix reports it (`Pix`: `endToEndId`, `txid`, `valor`, `horario`,
/// `infoPagador`), read and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixItem {
    pub end_to_end_id: String,
    pub txid: Option<String>,
    pub amount: Cents,
    pub paid_at: Timestamp,
    pub payer_info: Option<String>,
    /// `pagador.nome` and its `cpf`/`cnpj`: not in BACEN's schema, but several PSPs add them.
    pub payer_name: Option<String>,
    pub payer_document: Option<String>,
    /// Its devoluções (`devolucoes`), as the PSP reports them.
    pub refunds: Vec<RefundItem>,
    /// The item as the PSP sent it.
    pub raw: String,
}

/// A field of a Pix item that is not what the API Pix says: its name and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadItem {
    pub field: &'static str,
    pub message: &'static str,
}

fn bad(field: &'static str, message: &'static str) -> BadItem {
    BadItem { field, message }
}

/// Text of at most `max` characters, or `None` when absent or empty.
fn text(value: &Value, max: usize) -> Option<String> {
    value
        .as_str()
        .map(|s| {
            s.chars()
                .filter(|c| !c.is_control())
                .take(max)
                .collect::<String>()
        })
        .filter(|s| !s.is_empty())
}

impl PixItem {
    /// Read one element of a callback's or a `GET /pix` answer's `pix` list.
    pub fn read(item: &Value) -> std::result::Result<PixItem, BadItem> {
        if !item.is_object() {
            return Err(bad("pix[]", "must be an object"));
        }
        let alphanumeric = |s: &str| s.bytes().all(|b| b.is_ascii_alphanumeric());
        let end_to_end_id = item["endToEndId"]
            .as_str()
            .filter(|s| s.len() == 32 && alphanumeric(s))
            .ok_or_else(|| bad("endToEndId", "must be 32 letters and digits"))?
            .to_string();
        let txid = match &item["txid"] {
            Value::Null => None,
            Value::String(s) if (1..=35).contains(&s.len()) && alphanumeric(s) => Some(s.clone()),
            _ => return Err(bad("txid", "must be 1 to 35 letters and digits")),
        };
        let amount = item["valor"]
            .as_str()
            .and_then(parse_decimal)
            .filter(|c| c.0 > 0)
            .ok_or_else(|| bad("valor", "must be an amount such as \"123.45\", above zero"))?;
        let paid_at = item["horario"]
            .as_str()
            .and_then(|s| {
                time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).ok()
            })
            .map(Timestamp::new)
            .ok_or_else(|| bad("horario", "must be an RFC 3339 date-time"))?;
        let payer = &item["pagador"];
        let refunds = match &item["devolucoes"] {
            Value::Null => Vec::new(),
            Value::Array(list) if list.len() <= MAX_REFUNDS => {
                list.iter()
                    .map(read_refund)
                    .collect::<std::result::Result<_, _>>()?
            }
            _ => {
                return Err(bad(
                    "devolucoes",
                    "must be a list of at most 100 devoluções",
                ));
            }
        };
        Ok(PixItem {
            end_to_end_id,
            txid,
            amount,
            paid_at,
            payer_info: text(&item["infoPagador"], 140),
            payer_name: text(&payer["nome"], 200),
            payer_document: text(&payer["cpf"], 14).or_else(|| text(&payer["cnpj"], 14)),
            refunds,
            raw: item.to_string(),
        })
    }
}

/// The most devoluções one Pix may carry (BACEN sets no number; a Pix is returned in a few
/// parts at most).
const MAX_REFUNDS: usize = 100;

/// One element of `devolucoes` (BACEN's `Devolucao`).
fn read_refund(item: &Value) -> std::result::Result<RefundItem, BadItem> {
    let alphanumeric = |s: &str| s.bytes().all(|b| b.is_ascii_alphanumeric());
    let id = item["id"]
        .as_str()
        .filter(|s| (1..=35).contains(&s.len()) && alphanumeric(s))
        .ok_or_else(|| bad("devolucoes[].id", "must be 1 to 35 letters and digits"))?
        .to_string();
    let rtr_id = match &item["rtrId"] {
        Value::Null => None,
        Value::String(s) if s.len() == 32 && alphanumeric(s) => Some(s.clone()),
        _ => return Err(bad("devolucoes[].rtrId", "must be 32 letters and digits")),
    };
    let amount = item["valor"]
        .as_str()
        .and_then(parse_decimal)
        .filter(|c| c.0 > 0)
        .ok_or_else(|| {
            bad(
                "devolucoes[].valor",
                "must be an amount such as \"10.00\", above zero",
            )
        })?;
    let nature = match &item["natureza"] {
        Value::Null => "ORIGINAL".to_string(),
        Value::String(s) if pix_refunds::NATURES.contains(&s.as_str()) => s.clone(),
        _ => {
            return Err(bad(
                "devolucoes[].natureza",
                "must be one of BACEN's natures",
            ));
        }
    };
    let status = item["status"]
        .as_str()
        .and_then(RefundStatus::from_bacen)
        .ok_or_else(|| {
            bad(
                "devolucoes[].status",
                "must be EM_PROCESSAMENTO, DEVOLVIDO or NAO_REALIZADO",
            )
        })?;
    Ok(RefundItem {
        id,
        rtr_id,
        amount,
        nature,
        status,
        reason: text(&item["motivo"], 140),
    })
}

/// Why a Pix waits for review: its stable code and a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Review {
    pub reason: &'static str,
    pub detail: String,
}

/// What became of a Pix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A payment on its charge (`settled`: the charge is paid now).
    Applied {
        received_id: String,
        charge_id: String,
        payment_id: String,
        settled: bool,
    },
    /// Kept for review.
    Review { received_id: String, review: Review },
    /// Recorded before, and some of its devoluções moved (`changed` of them).
    Refunds { received_id: String, changed: usize },
    /// Recorded before: nothing changed.
    Duplicate,
}

/// Record `item` (reported by `source`: `webhook` or `sweep`) and apply it, inside the
/// caller's transaction.
pub async fn receive(
    tx: &mut Connection,
    org: &str,
    item: &PixItem,
    source: &'static str,
    now: &str,
) -> Result<Outcome> {
    let actor = Actor {
        kind: "system",
        id: None,
        name: Some(format!("pix {source}")),
    };
    if let Some(received) = store::received_by_end_to_end(tx, org, &item.end_to_end_id).await? {
        let changed = refunds(tx, org, &received, item, &actor, now).await?;
        return Ok(if changed == 0 {
            Outcome::Duplicate
        } else {
            Outcome::Refunds {
                received_id: received.id,
                changed,
            }
        });
    }
    let received_id = ids::new_id("pxr");
    let applied = match apply(tx, org, item, &actor, now).await? {
        Ok(applied) => applied,
        Err(review) => {
            record(
                tx,
                org,
                item,
                &received_id,
                source,
                None,
                Some(&review),
                now,
            )
            .await?;
            events::record(
                tx,
                org,
                "pix.review_required",
                ("pix_received", &received_id),
                &actor,
                &PixReviewRequiredData {
                    end_to_end_id: &item.end_to_end_id,
                    txid: item.txid.as_deref(),
                    amount: item.amount,
                    paid_at: item.paid_at,
                    source,
                    reason: review.reason,
                    detail: &review.detail,
                },
            )
            .await?;
            refunds_of_new(tx, org, &received_id, item, &actor, now).await?;
            return Ok(Outcome::Review {
                received_id,
                review,
            });
        }
    };
    record(
        tx,
        org,
        item,
        &received_id,
        source,
        Some(&applied),
        None,
        now,
    )
    .await?;
    events::record(
        tx,
        org,
        "pix.applied",
        ("pix_received", &received_id),
        &actor,
        &PixAppliedData {
            end_to_end_id: &item.end_to_end_id,
            txid: item.txid.as_deref(),
            amount: item.amount,
            paid_at: item.paid_at,
            source,
            charge_id: &applied.charge_id,
            payment_id: &applied.payment_id,
            settled: applied.settled,
        },
    )
    .await?;
    refunds_of_new(tx, org, &received_id, item, &actor, now).await?;
    Ok(Outcome::Applied {
        received_id,
        charge_id: applied.charge_id,
        payment_id: applied.payment_id,
        settled: applied.settled,
    })
}

/// Each devolução the PSP reports of the recorded Pix `received`: how many moved.
async fn refunds(
    tx: &mut Connection,
    org: &str,
    received: &store::Received,
    item: &PixItem,
    actor: &Actor,
    now: &str,
) -> Result<usize> {
    let mut changed = 0;
    for refund in &item.refunds {
        changed += usize::from(pix_refunds::reported(tx, org, received, refund, actor, now).await?);
    }
    Ok(changed)
}

/// The devoluções a Pix recorded just now already carries (a sweep that finds it late).
async fn refunds_of_new(
    tx: &mut Connection,
    org: &str,
    received_id: &str,
    item: &PixItem,
    actor: &Actor,
    now: &str,
) -> Result<()> {
    if item.refunds.is_empty() {
        return Ok(());
    }
    let received = store::received_in(tx, org, received_id)
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("pix received {received_id} vanished")))?;
    refunds(tx, org, &received, item, actor, now)
        .await
        .map(drop)
}

/// A payment made from a Pix.
struct Applied {
    charge_id: String,
    payment_id: String,
    settled: bool,
}

/// The payment on the charge the txid names, or why not.
async fn apply(
    tx: &mut Connection,
    org: &str,
    item: &PixItem,
    actor: &Actor,
    now: &str,
) -> Result<std::result::Result<Applied, Review>> {
    let review = |reason, detail: String| Ok(Err(Review { reason, detail }));
    let Some(txid) = &item.txid else {
        return review(
            "no_txid",
            "The Pix carries no txid, so it names no charge".into(),
        );
    };
    let Some(named) = pix_txid::parse(txid) else {
        return review(
            "unknown_txid",
            format!("The txid {txid} is not one of this service's"),
        );
    };
    locks::lock(tx, Table::Charges, org, &named.charge_id).await?;
    let Some(charge) = charges::get_in(tx, org, &named.charge_id).await? else {
        return review(
            "unknown_txid",
            format!("The txid {txid} names no charge of this organization"),
        );
    };
    if named.cobv_revision.is_some() {
        // Paid at the PSP: that cobv takes no more payments, whatever happens below.
        store::cobv_paid(tx, org, &charge.id, txid, now).await?;
    }
    if !charge.is_open() {
        return review(
            refusals::CHARGE_NOT_OPEN,
            format!(
                "Charge {} is {}; the Pix was not applied",
                charge.id, charge.status
            ),
        );
    }
    // A Pix dated after now (beyond a clock's honest drift) is a faulty PSP's: applied, it
    // would be a payment on a day that has not come, owing interest to match.
    let latest = dunning_domain::timestamp::now() + MAX_CLOCK_SKEW;
    if item.paid_at.instant() > latest {
        return review(
            "future_dated",
            format!(
                "The Pix is dated {}, after the current time; it was not applied",
                item.paid_at
            ),
        );
    }
    let note = format!("Pix {}", item.end_to_end_id);
    let received = Received {
        amount: item.amount,
        method: "pix",
        note: Some(&note),
        paid_at: item.paid_at,
    };
    let today = dunning_domain::calendar::today();
    match payments::pay(tx, org, actor, &charge, received, today, now).await {
        Ok(recorded) => Ok(Ok(Applied {
            charge_id: charge.id.clone(),
            payment_id: recorded.payment_id,
            settled: recorded.settled,
        })),
        Err(Failure::Refused(Refused::Rule(refusal))) => review("payment_refused", refusal.detail),
        Err(Failure::Refused(Refused::PaymentExceedsDue { due, .. })) => review(
            "amount_exceeds_due",
            format!(
                "The Pix of {} is more than the {} charge {} owed on {}",
                item.amount.to_brl(),
                due.to_brl(),
                charge.id,
                dunning_domain::calendar::day_of(item.paid_at.instant()),
            ),
        ),
        Err(other) => Err(other),
    }
}

/// Set the organization's PSP connection (`row`, its secrets sealed), or replace the one it
/// has, with its event: whether one was replaced.
pub async fn connect(
    tx: &mut Connection,
    org: &str,
    row: &NewConnection<'_>,
    actor: &Actor,
) -> StoreResult<bool> {
    let replaced = store::get_in(tx, org).await?.is_some();
    store::upsert(tx, org, row, &now_text()).await?;
    events::record(
        tx,
        org,
        "pix.psp_connected",
        ("pix_psp_connection", row.id),
        actor,
        &PixPspConnectedData {
            api_url: row.api_url,
            token_url: row.token_url,
            client_id: row.client_id,
            replaced,
        },
    )
    .await?;
    Ok(replaced)
}

/// Remove the organization's PSP connection, with its event: false when it had none.
pub async fn disconnect(tx: &mut Connection, org: &str, actor: &Actor) -> StoreResult<bool> {
    let Some(current) = store::get_in(tx, org).await? else {
        return Ok(false);
    };
    store::delete(tx, org).await?;
    events::record(
        tx,
        org,
        "pix.psp_disconnected",
        ("pix_psp_connection", &current.id),
        actor,
        &PixPspDisconnectedData {
            api_url: &current.api_url,
            client_id: &current.client_id,
        },
    )
    .await?;
    Ok(true)
}

/// Keep the answer of a test of the organization's PSP connection (`test`, as the API shows
/// it) with the connection, with its `pix.psp_tested` event: false when it has none.
pub async fn record_test(
    tx: &mut Connection,
    org: &str,
    test: &Value,
    actor: &Actor,
    now: &str,
) -> StoreResult<bool> {
    let Some(current) = store::get_in(tx, org).await? else {
        return Ok(false);
    };
    if !store::record_test(tx, org, test, now).await? {
        return Ok(false);
    }
    events::record(
        tx,
        org,
        "pix.psp_tested",
        ("pix_psp_connection", &current.id),
        actor,
        test,
    )
    .await?;
    Ok(true)
}

/// [`receive`] in a transaction of its own, committed: what the callback endpoint and the
/// sweep run. A race with another receiver of the same Pix (a callback and a sweep, two
/// replicas) is run again, and then finds it recorded.
pub async fn receive_once(
    db: &Db,
    org: &str,
    item: &PixItem,
    source: &'static str,
) -> StoreResult<Outcome> {
    for _ in 0..3 {
        let outcome = retry::run(|| async move {
            let mut tx = db.begin().await?;
            let outcome = receive(&mut tx, org, item, source, &now_text())
                .await
                .map_err(|failure| match failure {
                    Failure::Refused(refused) => Failure::Refused(Stop::Refused(refused)),
                    Failure::Store(e) => Failure::Store(e),
                })?;
            tx.commit().await?;
            Ok(outcome)
        })
        .await;
        match outcome {
            Ok(outcome) => return Ok(outcome),
            Err(Stop::Refused(Refused::Concurrent(_))) => continue,
            Err(Stop::Refused(other)) => {
                return Err(StoreError::Corrupt(format!(
                    "Pix {} could not be recorded: {other:?}",
                    item.end_to_end_id
                )));
            }
            Err(Stop::Store(e)) => return Err(e),
        }
    }
    Err(StoreError::Corrupt(format!(
        "Pix {} kept meeting another receiver of it",
        item.end_to_end_id
    )))
}

/// Why [`receive_once`]'s transaction stopped.
enum Stop {
    Refused(Refused),
    Store(StoreError),
}

impl From<StoreError> for Stop {
    fn from(e: StoreError) -> Self {
        Stop::Store(e)
    }
}

#[allow(clippy::too_many_arguments)]
async fn record(
    tx: &mut Connection,
    org: &str,
    item: &PixItem,
    received_id: &str,
    source: &'static str,
    applied: Option<&Applied>,
    review: Option<&Review>,
    now: &str,
) -> Result<()> {
    let paid_at = item.paid_at.to_string();
    let inserted = store::insert_received(
        tx,
        org,
        &NewReceived {
            id: received_id,
            end_to_end_id: &item.end_to_end_id,
            txid: item.txid.as_deref(),
            amount_cents: item.amount.0,
            paid_at: &paid_at,
            payer_info: item.payer_info.as_deref(),
            payer_name: item.payer_name.as_deref(),
            payer_document: item.payer_document.as_deref(),
            charge_id: applied.map(|a| a.charge_id.as_str()),
            payment_id: applied.map(|a| a.payment_id.as_str()),
            status: if applied.is_some() {
                ReceivedStatus::Applied
            } else {
                ReceivedStatus::Review
            },
            reason: review.map(|r| r.reason),
            detail: review.map(|r| r.detail.as_str()),
            source,
            raw: &item.raw,
        },
        now,
    )
    .await?;
    if inserted {
        Ok(())
    } else {
        // Another transaction recorded it between our look and our insert: this one must not
        // commit a second payment. Its retry finds the record and changes nothing.
        Err(Failure::Refused(Refused::Concurrent("pix received")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pix_is_read_as_the_api_pix_writes_it() {
        // `pixWebhook1` of the API Pix document.
        let item = json!({
            "endToEndId": "E12345678202009091221kkkkkkkkkkk",
            "txid": "c3e0e7a4e7f1469a9f782d3d4999343c",
            "valor": "110.00",
            "horario": "2020-09-09T20:15:00.358Z",
            "infoPagador": "0123456789",
            "devolucoes": [{"id": "123ABC", "rtrId": "D12345678202009091000abcde123456", "valor": "10.00", "status": "EM_PROCESSAMENTO"}]
        });
        let pix = PixItem::read(&item).unwrap();
        assert_eq!(pix.end_to_end_id, "E12345678202009091221kkkkkkkkkkk");
        assert_eq!(
            pix.txid.as_deref(),
            Some("c3e0e7a4e7f1469a9f782d3d4999343c")
        );
        assert_eq!(pix.amount, Cents(110_00));
        assert_eq!(pix.paid_at.to_string(), "2020-09-09T20:15:00.358Z");
        assert_eq!(pix.payer_info.as_deref(), Some("0123456789"));
        assert_eq!(
            pix.refunds,
            [RefundItem {
                id: "123ABC".into(),
                rtr_id: Some("D12345678202009091000abcde123456".into()),
                amount: Cents(10_00),
                nature: "ORIGINAL".into(),
                status: RefundStatus::InProcess,
                reason: None,
            }]
        );
        assert_eq!(pix.raw, item.to_string());
    }

    #[test]
    fn a_pix_that_is_not_what_the_api_pix_says_names_its_field() {
        let good = json!({"endToEndId": "E12345678202009091221kkkkkkkkkkk", "valor": "1.00", "horario": "2026-01-01T00:00:00Z"});
        assert!(PixItem::read(&good).unwrap().txid.is_none());
        for (field, value) in [
            ("endToEndId", json!("E123")),
            ("endToEndId", json!(null)),
            ("txid", json!("has spaces in it")),
            ("txid", json!(7)),
            ("valor", json!(110.0)),
            ("valor", json!("0.00")),
            ("valor", json!("1,00")),
            ("horario", json!("ontem")),
            ("devolucoes", json!({"id": "1"})),
            (
                "devolucoes[].id",
                json!([{"id": "", "valor": "1.00", "status": "DEVOLVIDO"}]),
            ),
            (
                "devolucoes[].valor",
                json!([{"id": "a1", "valor": "1", "status": "DEVOLVIDO"}]),
            ),
            (
                "devolucoes[].status",
                json!([{"id": "a1", "valor": "1.00", "status": "FEITO"}]),
            ),
            (
                "devolucoes[].natureza",
                json!([{"id": "a1", "valor": "1.00", "status": "DEVOLVIDO", "natureza": "X"}]),
            ),
        ] {
            let mut item = good.clone();
            // `devolucoes[].x` is a fault inside the list `devolucoes`.
            item[field.split('[').next().unwrap()] = value.clone();
            assert_eq!(
                PixItem::read(&item).unwrap_err().field,
                field,
                "{field}: {value}"
            );
        }
        assert_eq!(PixItem::read(&json!([1])).unwrap_err().field, "pix[]");
    }
}
