//! The devoluções the organization asked for (`dunning_app::pix_refunds::request`), taken to
//! the PSP and followed to their end: a `requested` one is sent (`PUT /pix/{e2eid}/devolucao/{id}`,
//! our id as the devolução's, so that sending it twice asks once), an `in_process` one is asked
//! about (`GET`) until it is `DEVOLVIDO` or `NAO_REALIZADO`; each answer goes through the same
//! path as a devolução the PSP's callback reports (`pix_refunds::reported`), which reverses the
//! payment once. A PSP that refuses the request outright (a 4xx) ends it as not done, with its
//! words; one that is down is tried again after a wait that doubles.

use serde_json::{Value, json};
use time::OffsetDateTime;

use super::LEASE;
use super::client::PspError;
use crate::Engine;
use dunning_app::pix_refunds::{self as app, RefundItem};
use dunning_domain::money::Cents;
use dunning_domain::pix_cobv::{decimal, parse_decimal};
use dunning_store::events::Actor;
use dunning_store::pix_psp::{self as connections, received_in};
use dunning_store::pix_refunds::{self as store, Refund, RefundStatus};
use dunning_store::retry::Failure;
use dunning_store::{Result, StoreError, ids, timestamp_text};

/// Devoluções taken up per tick.
const BATCH: i64 = 20;

/// The longest wait between two looks at a devolução in processing.
const MAX_POLL: time::Duration = time::Duration::hours(1);

fn actor() -> Actor {
    Actor {
        kind: "system",
        id: None,
        name: Some("pix refunds".into()),
    }
}

/// Take up every devolução due at `now`: how many were.
pub(super) async fn refunds_due(engine: &Engine, now: OffsetDateTime) -> Result<usize> {
    let now_text = timestamp_text(now);
    let until = timestamp_text(now + crate::lease(engine, LEASE));
    let mut done = 0;
    for (org, id) in store::due(&engine.db, &now_text, BATCH).await? {
        let token = ids::new_id("clm");
        let Some(refund) = store::claim(&engine.db, (&org, &id), &token, &now_text, &until).await?
        else {
            continue;
        };
        take_up(engine, &org, &refund, &token, now).await?;
        done += 1;
    }
    Ok(done)
}

/// What the PSP said of a devolução: a `Devolucao`, or a refusal of the request.
enum Answer {
    Refund(RefundItem),
    Refused(String),
}

async fn take_up(
    engine: &Engine,
    org: &str,
    refund: &Refund,
    token: &str,
    now: OffsetDateTime,
) -> Result<()> {
    let now_text = timestamp_text(now);
    let answer = match ask(engine, org, refund).await? {
        Ok(answer) => answer,
        Err(error) => {
            let mut conn = engine.db.pool.acquire().await?;
            let attempts = store::attempts(&mut conn, org, &refund.id).await?;
            let next = timestamp_text(now + engine.settings.pix.backoff(attempts + 1));
            tracing::info!(organization = %org, refund = %refund.id, "devolução not taken to the PSP: {error}");
            store::release(
                &mut conn,
                (org, &refund.id),
                token,
                Some(&next),
                Some(&error.to_string()),
                &now_text,
            )
            .await?;
            return Ok(());
        }
    };
    let item = match answer {
        Answer::Refund(item) => item,
        Answer::Refused(why) => RefundItem {
            id: refund.refund_id.clone(),
            rtr_id: None,
            amount: refund.amount_cents,
            nature: refund.nature.clone(),
            status: RefundStatus::NotDone,
            reason: Some(why),
        },
    };
    // Looked at again sooner while young, then less and less often, up to an hour.
    let age: time::Duration = now - refund.created_at.instant();
    let shortest =
        time::Duration::try_from(engine.settings.pix.backoff(1)).unwrap_or(time::Duration::SECOND);
    let half: time::Duration = age / 2_i32;
    let wait = half.clamp(shortest, MAX_POLL.max(shortest));
    let next = timestamp_text(now + wait);
    let (org, refund_id, item, next, now_text) = (org, refund.id.as_str(), &item, &next, &now_text);
    dunning_store::retry::run(|| async move {
        let mut tx = engine.db.begin().await?;
        let refund = store::get_in(&mut tx, org, refund_id)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("refund {refund_id} vanished")))?;
        let received = received_in(&mut tx, org, &refund.received_id)
            .await?
            .ok_or_else(|| {
                StoreError::Corrupt(format!("pix received {} vanished", refund.received_id))
            })?;
        match app::reported(&mut tx, org, &received, item, &actor(), now_text).await {
            Ok(_) => {}
            // The charge is locked and the row exists: a refusal is a fault of ours.
            Err(Failure::Refused(refused)) => {
                return Err(Failure::Store(StoreError::Corrupt(format!(
                    "refund {refund_id} could not be recorded: {refused:?}"
                ))));
            }
            Err(Failure::Store(e)) => return Err(Failure::Store(e)),
        }
        store::release(&mut tx, (org, refund_id), token, Some(next), None, now_text).await?;
        tx.commit().await?;
        Ok::<(), Failure<StoreError>>(())
    })
    .await
}

/// Send a requested devolução, or ask where one in processing stands.
async fn ask(
    engine: &Engine,
    org: &str,
    refund: &Refund,
) -> Result<std::result::Result<Answer, PspError>> {
    let Some(connection) = connections::sealed(&engine.db, org).await? else {
        return Ok(Err(PspError::Setup(
            "the organization has no PSP connection".into(),
        )));
    };
    let client = match engine.pix.get(&engine.settings.pix, &connection) {
        Ok(client) => client,
        Err(e) => return Ok(Err(e)),
    };
    let answer = if refund.status == RefundStatus::Requested {
        let mut body = json!({ "valor": decimal(refund.amount_cents), "natureza": "ORIGINAL" });
        if let Some(description) = &refund.description {
            body["descricao"] = json!(description);
        }
        client
            .put_refund(&refund.end_to_end_id, &refund.refund_id, &body)
            .await
    } else {
        client
            .get_refund(&refund.end_to_end_id, &refund.refund_id)
            .await
    };
    Ok(match answer {
        Ok(value) => read(&value, refund).map(Answer::Refund),
        // The PSP refused the request itself (over the Pix's value, past the time allowed):
        // it will not happen.
        Err(e) if e.refused_request() && refund.status == RefundStatus::Requested => {
            Ok(Answer::Refused(e.to_string()))
        }
        Err(e) => Err(e),
    })
}

/// The PSP's `Devolucao`, checked against the one we asked for.
fn read(value: &Value, refund: &Refund) -> std::result::Result<RefundItem, PspError> {
    let invalid =
        |why: &str| PspError::Invalid(format!("the devolução {}: {why}", refund.refund_id));
    if value["id"].as_str() != Some(refund.refund_id.as_str()) {
        return Err(invalid("the PSP answered another id"));
    }
    let status = value["status"]
        .as_str()
        .and_then(RefundStatus::from_bacen)
        .ok_or_else(|| invalid("no status BACEN names"))?;
    let amount = value["valor"]
        .as_str()
        .and_then(parse_decimal)
        .unwrap_or(refund.amount_cents);
    if amount != refund.amount_cents {
        return Err(invalid(&format!(
            "the PSP has it for {}, we asked for {}",
            amount.to_brl(),
            Cents(refund.amount_cents.0).to_brl()
        )));
    }
    Ok(RefundItem {
        id: refund.refund_id.clone(),
        rtr_id: value["rtrId"].as_str().map(str::to_string),
        amount,
        nature: refund.nature.clone(),
        status,
        reason: value["motivo"]
            .as_str()
            .map(|m| m.chars().take(140).collect()),
    })
}
