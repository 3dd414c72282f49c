//! Each charge's cobv at the PSP, kept a mirror of the charge: noticing the charges that
//! changed, then, for each due cobv row (claimed), the one call that brings the PSP in line —
//! `PUT` a new cobv, `PATCH` it with the charge's new terms, or `PATCH` its status to
//! `REMOVIDA_PELO_USUARIO_RECEBEDOR` once the charge is no longer open — and the charge's
//! dynamic code set or cleared with the outcome, in one transaction with its event.
//!
//! The body (`CobVSolicitada`): `calendario.dataDeVencimento` and
//! `validadeAposVencimento`, `devedor` (the customer's CPF or CNPJ and name), `valor.original`
//! with `multa` (modalidade 2, percent) and `juros` (modalidade 3, percent a month in calendar
//! days) as `domain::pix_cobv` mirrors them, `chave` (the organization's Pix key) and
//! `solicitacaoPagador` (the charge's description). The PSP fills `recebedor` from the account
//! the key belongs to.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use time::OffsetDateTime;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::client::{ACTIVE, Cobv as PspCobv, PspError, REMOVED_BY_US};
use super::{LEASE, start_of};
use crate::Engine;
use dunning_app::events;
use dunning_domain::pix_cobv::{CobvTerms, decimal, percent};
use dunning_domain::pix_txid;
use dunning_models::response::{PixCobvData, PixCobvRemovedData};
use dunning_store::charges::{self, Charge};
use dunning_store::customers::{self, Customer};
use dunning_store::events::Actor;
use dunning_store::pix_psp::{self as store, Cobv, Mirrored};
use dunning_store::{Result, ids, timestamp_text};

/// A write stamped this long ago has committed: the look at changed charges stops there.
const SETTLE: Duration = Duration::from_secs(2);

/// Changed charges looked at per connection and pass, and cobv rows claimed per tick.
const LOOK_BATCH: i64 = 500;
const MIRROR_BATCH: i64 = 50;

/// Calls to PSPs at once.
const CONCURRENT_CALLS: usize = 8;

fn actor() -> Actor {
    Actor {
        kind: "system",
        id: None,
        name: Some("pix".into()),
    }
}

/// Look at every connected organization's charges changed since its last look: a cobv row
/// for each open charge that has none, and the row of each changed charge due now. How many
/// rows were made or made due.
pub(super) async fn notice_changes(engine: &Engine, now: OffsetDateTime) -> Result<usize> {
    let db = &engine.db;
    let now_text = timestamp_text(now);
    let settled = timestamp_text(now - SETTLE);
    let mut noticed = 0;
    for org in store::connected_organizations(db).await? {
        let Some(connection) = store::sealed(db, &org).await? else {
            continue;
        };
        let mut place = (connection.charges_seen_at, connection.charges_seen_id);
        loop {
            let changed =
                store::changed_charges(db, &org, (&place.0, &place.1), &settled, LOOK_BATCH)
                    .await?;
            for (id, state, _) in &changed {
                noticed += usize::from(notice(engine, &org, id, state == "open", &now_text).await?);
            }
            let Some((id, _, at)) = changed.last() else {
                break;
            };
            place = (at.clone(), id.clone());
            store::charges_seen(db, &org, (&place.0, &place.1)).await?;
            if changed.len() < LOOK_BATCH as usize {
                break;
            }
        }
    }
    Ok(noticed)
}

/// The charge's cobv row made (an open charge without one) or made due (one that mirrors
/// another version of it).
async fn notice(
    engine: &Engine,
    org: &str,
    charge_id: &str,
    open: bool,
    now: &str,
) -> Result<bool> {
    if open
        && let Some(txid) = pix_txid::cobv_txid(charge_id, 0)
        && store::ensure_cobv(&engine.db, org, charge_id, &txid, now).await?
    {
        return Ok(true);
    }
    store::stale_cobv_due(&engine.db, org, Some(charge_id), now).await?;
    Ok(false)
}

/// The full look a sweep makes, for what the look at changed charges missed: rows for open
/// charges without one, and rows of charges changed since they were mirrored made due.
pub(super) async fn notice_all(engine: &Engine, org: &str, now: &str) -> Result<usize> {
    let mut noticed = 0;
    loop {
        let missing = store::open_charges_without_cobv(&engine.db, org, LOOK_BATCH).await?;
        for id in &missing {
            noticed += usize::from(notice(engine, org, id, true, now).await?);
        }
        if missing.len() < LOOK_BATCH as usize {
            break;
        }
    }
    Ok(noticed + store::stale_cobv_due(&engine.db, org, None, now).await? as usize)
}

/// Claim the cobv rows due at `now` and bring each to the PSP, a few calls at a time: how
/// many were done and how many failed.
pub(super) async fn mirror_due(engine: &Engine, now: OffsetDateTime) -> Result<(usize, usize)> {
    let now_text = timestamp_text(now);
    let until = timestamp_text(now + crate::lease(engine, LEASE));
    let calls = Arc::new(Semaphore::new(CONCURRENT_CALLS));
    let mut running = JoinSet::new();
    for key in store::due_cobv(&engine.db, &now_text, MIRROR_BATCH).await? {
        let token = ids::new_id("clm");
        let Some(row) =
            store::claim_cobv(&engine.db, (&key.0, &key.1), &token, &now_text, &until).await?
        else {
            continue;
        };
        let (engine, calls) = (engine.clone(), calls.clone());
        running.spawn(async move {
            let _call = calls.acquire_owned().await;
            bring(&engine, row, &token, now).await
        });
    }
    let (mut done, mut failed) = (0, 0);
    while let Some(joined) = running.join_next().await {
        match joined {
            Ok(Ok(true)) => done += 1,
            Ok(Ok(false)) => failed += 1,
            Ok(Err(e)) => tracing::warn!("cobv outcome not recorded: {e}"),
            Err(e) => tracing::error!("cobv attempt panicked: {e}"),
        }
    }
    Ok((done, failed))
}

/// What a call left the cobv as, and what to tell the organization.
struct Outcome {
    mirrored: Mirror,
    /// The charge's dynamic code now: `pixCopiaECola` and the location (none while the cobv
    /// cannot be paid).
    code: (Option<String>, Option<String>),
    event: Option<(&'static str, Value)>,
}

/// The row's new state (owned [`Mirrored`]).
struct Mirror {
    txid: String,
    txid_revision: i64,
    psp_status: Option<String>,
    psp_revision: Option<i64>,
    location: Option<String>,
    synced_version: i64,
    valid_until: Option<String>,
    next_attempt_at: Option<String>,
}

/// Bring one claimed row to the PSP and record the outcome: true when done, false when it
/// failed and waits to be tried again.
async fn bring(engine: &Engine, row: Cobv, token: &str, now: OffsetDateTime) -> Result<bool> {
    let org = row.organization_id.clone();
    let key = (org.as_str(), row.charge_id.as_str());
    let now_text = timestamp_text(now);
    let Some(charge) = charges::get(&engine.db, &org, &row.charge_id).await? else {
        // Deleted with its customer (settled charges only): nothing left to mirror.
        return Ok(true);
    };
    let outcome = match decide(engine, &row, &charge, now).await {
        Ok(outcome) => outcome,
        Err(error) => {
            let failures = row.attempts + 1;
            let wait = engine.settings.pix.backoff(failures);
            let next = timestamp_text(now + wait);
            tracing::info!(
                organization = %org, charge = %row.charge_id, txid = %row.txid, failures,
                retry_in_s = wait.as_secs(), "cobv not mirrored: {error}"
            );
            store::cobv_failed(&engine.db, key, token, &error.to_string(), &next, &now_text)
                .await?;
            return Ok(false);
        }
    };
    let m = &outcome.mirrored;
    let mut tx = engine.db.begin().await?;
    let held = store::cobv_mirrored(
        &mut tx,
        key,
        token,
        &Mirrored {
            txid: &m.txid,
            txid_revision: m.txid_revision,
            psp_status: m.psp_status.as_deref(),
            psp_revision: m.psp_revision,
            location: m.location.as_deref(),
            synced_version: m.synced_version,
            valid_until: m.valid_until.as_deref(),
            next_attempt_at: m.next_attempt_at.as_deref(),
        },
        &now_text,
    )
    .await?;
    if !held {
        tracing::warn!(organization = %org, charge = %row.charge_id, "lost the claim on a cobv; its outcome is dropped");
        return Ok(true);
    }
    let (payload, location) = &outcome.code;
    store::set_charge_code(
        &mut tx,
        &org,
        &row.charge_id,
        payload.as_deref(),
        location.as_deref(),
    )
    .await?;
    if let Some((kind, data)) = &outcome.event {
        events::record(
            &mut tx,
            &org,
            kind,
            ("charge", &row.charge_id),
            &actor(),
            data,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(true)
}

/// The call the charge needs, made.
async fn decide(
    engine: &Engine,
    row: &Cobv,
    charge: &Charge,
    now: OffsetDateTime,
) -> std::result::Result<Outcome, PspError> {
    let org = &row.organization_id;
    let db = &engine.db;
    let stored = |e: dunning_store::StoreError| {
        tracing::warn!("cobv: the database failed: {e}");
        PspError::Setup("the database is unavailable".into())
    };
    let status = row.psp_status.as_deref();
    let active = status == Some(ACTIVE);
    let unchanged = |synced_version| Mirror {
        txid: row.txid.clone(),
        txid_revision: row.txid_revision,
        psp_status: row.psp_status.clone(),
        psp_revision: row.psp_revision,
        location: row.location.clone(),
        synced_version,
        valid_until: None,
        next_attempt_at: None,
    };
    if !charge.is_open() && !active {
        // Never made, or paid or removed at the PSP already: nothing to remove.
        return Ok(Outcome {
            mirrored: unchanged(charge.version),
            code: (None, None),
            event: None,
        });
    }
    let connection = store::sealed(db, org)
        .await
        .map_err(stored)?
        .ok_or_else(|| PspError::Setup("the organization has no PSP connection".into()))?;
    let client = engine.pix.get(&engine.settings.pix, &connection)?;
    if !charge.is_open() {
        let removed = match client
            .patch_cobv(&row.txid, &json!({ "status": REMOVED_BY_US }))
            .await
        {
            Ok(answer) => answer,
            // Paid (or removed by the PSP) meanwhile: the PSP says what it is now.
            Err(e) if e.refused_request() || e.not_found() => {
                match client.get_cobv(&row.txid).await {
                    Ok(answer) => answer,
                    Err(inner) if inner.not_found() => PspCobv {
                        status: "REMOVIDA_PELO_PSP".into(),
                        revision: row.psp_revision,
                        payload: None,
                        location: None,
                    },
                    Err(inner) => return Err(inner),
                }
            }
            Err(e) => return Err(e),
        };
        return Ok(Outcome {
            mirrored: Mirror {
                psp_status: Some(removed.status.clone()),
                psp_revision: removed.revision.or(row.psp_revision),
                ..unchanged(charge.version)
            },
            code: (None, None),
            event: Some((
                "pix.cobv_removed",
                events::to_data(&PixCobvRemovedData {
                    txid: &row.txid,
                    status: &removed.status,
                    charge_status: charge.status.as_str(),
                }),
            )),
        });
    }
    let key = store::pix_key(db, org)
        .await
        .map_err(stored)?
        .ok_or_else(|| {
            PspError::Setup("the organization has no Pix key (PUT /v1/pix/settings)".into())
        })?;
    let customer = customers::get(db, org, &charge.customer_id)
        .await
        .map_err(stored)?
        .ok_or_else(|| PspError::Setup("the charge's customer is gone".into()))?;
    let today = dunning_domain::calendar::day_of(now);
    let terms = CobvTerms::mirror(&charge.terms(), today);
    let body = body(&terms, &customer, &key, &charge.description);
    // A cobv paid or removed at the PSP takes no revision: the charge gets a new one.
    let (txid, revision, fresh) = match status {
        None => (row.txid.clone(), row.txid_revision, true),
        Some(ACTIVE) => (row.txid.clone(), row.txid_revision, false),
        Some(_) => {
            let next = row.txid_revision + 1;
            let txid = u16::try_from(next)
                .ok()
                .and_then(|r| pix_txid::cobv_txid(&charge.id, r))
                .ok_or_else(|| PspError::Setup("the charge has used every cobv txid".into()))?;
            (txid, next, true)
        }
    };
    let answer = if fresh {
        client.put_cobv(&txid, &body).await
    } else {
        match client.patch_cobv(&txid, &body).await {
            // Unknown to this PSP (the connection now points at another one): made anew.
            Err(e) if e.not_found() => client.put_cobv(&txid, &body).await,
            other => other,
        }
    };
    let mut answer = match answer {
        Ok(answer) => answer,
        Err(e) if e.refused_request() => {
            // Perhaps the txid exists and is no longer active (paid, removed): ask, and keep
            // what the PSP says, so that the next attempt makes the next txid.
            match client.get_cobv(&txid).await {
                Ok(found) if !found.active() => {
                    return Ok(not_payable(txid, revision, found, charge, now));
                }
                _ => return Err(e),
            }
        }
        Err(e) => return Err(e),
    };
    if answer.payload.is_none() && answer.active() {
        // Some PSPs answer the copy-and-paste code only when the cobv is read.
        if let Ok(read) = client.get_cobv(&txid).await {
            answer.payload = read.payload;
        }
    }
    if !answer.active() {
        return Ok(not_payable(txid, revision, answer, charge, now));
    }
    let valid_until = terms.valid_until();
    let event = if fresh {
        Some("pix.cobv_created")
    } else if row.synced_version != Some(charge.version) {
        Some("pix.cobv_updated")
    } else {
        // The same charge a day later (overdue): the day's amount, not a change of it.
        None
    };
    let code = (answer.payload.clone(), answer.location.clone());
    Ok(Outcome {
        event: event.map(|kind| {
            (
                kind,
                events::to_data(&PixCobvData {
                    txid: &txid,
                    location: answer.location.as_deref(),
                    amount: terms.original,
                    due_date: terms.due_date.into(),
                    valid_until: valid_until.into(),
                }),
            )
        }),
        mirrored: Mirror {
            txid,
            txid_revision: revision,
            psp_status: Some(answer.status),
            psp_revision: answer.revision,
            location: answer.location,
            synced_version: charge.version,
            valid_until: Some(valid_until.to_string()),
            next_attempt_at: Some(start_of(valid_until.next_day().unwrap_or(valid_until))),
        },
        code,
    })
}

/// A cobv the PSP says is paid or removed while its charge is open: kept as the PSP says, no
/// code shown, and due again at once, for the next txid.
fn not_payable(
    txid: String,
    revision: i64,
    found: PspCobv,
    charge: &Charge,
    now: OffsetDateTime,
) -> Outcome {
    Outcome {
        mirrored: Mirror {
            txid,
            txid_revision: revision,
            psp_status: Some(found.status),
            psp_revision: found.revision,
            location: found.location,
            synced_version: charge.version,
            valid_until: None,
            next_attempt_at: Some(timestamp_text(now)),
        },
        code: (None, None),
        event: None,
    }
}

/// The `CobVSolicitada` of `terms` for the charge's debtor, under the organization's key.
pub(super) fn body(terms: &CobvTerms, customer: &Customer, key: &str, description: &str) -> Value {
    let document_field = if customer.document_type == "cnpj" {
        "cnpj"
    } else {
        "cpf"
    };
    let mut valor = json!({ "original": decimal(terms.original) });
    if let Some(fine) = terms.fine_bp {
        valor["multa"] = json!({ "modalidade": 2, "valorPerc": percent(fine) });
    }
    if let Some(interest) = terms.interest_bp {
        valor["juros"] = json!({ "modalidade": 3, "valorPerc": percent(interest) });
    }
    let mut body = json!({
        "calendario": {
            "dataDeVencimento": terms.due_date.to_string(),
            "validadeAposVencimento": terms.validity_days,
        },
        "devedor": {
            document_field: customer.document,
            "nome": customer.name.chars().take(200).collect::<String>(),
        },
        "valor": valor,
        "chave": key,
    });
    let request: String = description
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(140)
        .collect();
    if !request.trim().is_empty() {
        body["solicitacaoPagador"] = Value::String(request.trim().to_string());
    }
    body
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;
    use dunning_domain::money::Cents;
    use dunning_domain::timestamp::Timestamp;

    fn customer(document_type: &str, document: &str) -> Customer {
        let at = Timestamp::parse("2026-01-01T00:00:00.000Z").unwrap();
        Customer {
            id: "cus_1".into(),
            name: "Conceição Araújo".into(),
            document: document.into(),
            document_type: document_type.into(),
            email: None,
            phone: None,
            address: None,
            channel_opt_outs: vec![],
            tags: vec![],
            notes: None,
            created_at: at,
            updated_at: at,
            version: 1,
        }
    }

    #[test]
    fn a_cobv_body_is_what_the_api_pix_asks_for() {
        let terms = CobvTerms {
            original: Cents(1234_56),
            due_date: date!(2026 - 10 - 01),
            validity_days: 30,
            fine_bp: Some(200),
            interest_bp: Some(100),
        };
        assert_eq!(
            body(
                &terms,
                &customer("cpf", "12345678909"),
                "5f84a4c5-c5cb-4599-9f13-7eb4d419dacc",
                "Mensalidade de março\n(referência 03/2026)"
            ),
            json!({
                "calendario": {"dataDeVencimento": "2026-10-01", "validadeAposVencimento": 30},
                "devedor": {"cpf": "12345678909", "nome": "Conceição Araújo"},
                "valor": {
                    "original": "1234.56",
                    "multa": {"modalidade": 2, "valorPerc": "2.00"},
                    "juros": {"modalidade": 3, "valorPerc": "1.00"}
                },
                "chave": "5f84a4c5-c5cb-4599-9f13-7eb4d419dacc",
                "solicitacaoPagador": "Mensalidade de março (referência 03/2026)"
            })
        );
        let overdue = CobvTerms {
            fine_bp: None,
            interest_bp: None,
            validity_days: 0,
            ..terms
        };
        let company = body(&overdue, &customer("cnpj", "11222333000181"), "k", "");
        assert_eq!(company["devedor"]["cnpj"], "11222333000181");
        assert_eq!(company["valor"], json!({"original": "1234.56"}));
        assert!(company.get("solicitacaoPagador").is_none());
    }
}
