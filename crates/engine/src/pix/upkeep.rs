//! Each connection's upkeep, claimed like any engine work: the PSP's webhook registered for
//! the organization's Pix key, and the sweep.
//!
//! Registration (`PUT /webhook/{chave}` with `webhookUrl`, our callback URL carrying the
//! connection's secret) is due when the connection is set or replaced, and whenever the
//! organization's key is not the one registered; a failure is tried again after a wait that
//! doubles.
//!
//! The sweep reads `GET /pix` (Pix with a txid) over the window since the last sweep, an hour
//! earlier to allow for a PSP that lists a Pix late, page after page, and applies each Pix not
//! recorded yet exactly as a callback would (`dunning_app::pix_received::receive`): a callback the PSP
//! never delivered, or we never accepted, is found here. It also makes the full look at the
//! organization's charges (`mirror::notice_all`).

use std::time::Duration;

use time::OffsetDateTime;

use super::client::PspError;
use super::{LEASE, callback_url, mirror};
use crate::Engine;
use dunning_app::events;
use dunning_app::pix_received::{self as app, Outcome, PixItem};
use dunning_models::response::PixWebhookRegisteredData;
use dunning_store::events::Actor;
use dunning_store::pix_psp::{self as store, SealedConnection, Upkeep};
use dunning_store::{Result, ids, timestamp_text};

/// How far before the last sweep's end the next one reads again.
const OVERLAP: Duration = Duration::from_secs(60 * 60);

/// How often the devoluções of the MED's window are read.
const REFUND_SWEEP_INTERVAL: time::Duration = time::Duration::hours(1);

/// How far back a devolução can come: the MED's 80 days and the rest of BACEN's 90.
const REFUND_WINDOW: time::Duration = time::Duration::days(90);

/// The most pages one sweep reads (100 Pix each); the rest waits for the next sweep.
const MAX_PAGES: u64 = 100;

/// Connections whose upkeep runs per tick.
const BATCH: i64 = 20;

/// Run the upkeep of every connection due at `now`: how many ran.
pub(super) async fn upkeep_due(engine: &Engine, now: OffsetDateTime) -> Result<usize> {
    let now_text = timestamp_text(now);
    let until = timestamp_text(now + crate::lease(engine, LEASE));
    let mut ran = 0;
    for org in store::due_upkeep(&engine.db, &now_text, BATCH).await? {
        let token = ids::new_id("clm");
        let Some(connection) =
            store::claim_upkeep(&engine.db, &org, &token, &now_text, &until).await?
        else {
            continue;
        };
        let upkeep = upkeep(engine, &connection, now).await?;
        let mut tx = engine.db.begin().await?;
        if !store::finish_upkeep(&mut tx, &org, &token, &upkeep, &now_text).await? {
            tracing::warn!(organization = %org, "lost the claim on a PSP connection's upkeep");
            tx.rollback().await?;
            continue;
        }
        if let Some(key) = &upkeep.webhook_registered {
            events::record(
                &mut tx,
                &org,
                "pix.webhook_registered",
                ("pix_psp_connection", &connection.id),
                &actor("pix"),
                &PixWebhookRegisteredData {
                    key,
                    api_url: &connection.api_url,
                },
            )
            .await?;
        }
        tx.commit().await?;
        ran += 1;
    }
    Ok(ran)
}

async fn upkeep(engine: &Engine, c: &SealedConnection, now: OffsetDateTime) -> Result<Upkeep> {
    let mut done = Upkeep::default();
    let key = store::pix_key(&engine.db, &c.organization_id).await?;
    let registration_due = c
        .webhook_next_attempt_at
        .is_some_and(|at| at.instant() <= now)
        || (key.is_some() && c.webhook_key != key);
    if registration_due {
        match register(engine, c, key.as_deref()).await {
            Ok(key) => done.webhook_registered = Some(key),
            Err(error) => {
                let wait = engine.settings.pix.backoff(c.webhook_attempts + 1);
                tracing::info!(organization = %c.organization_id, "PSP webhook not registered: {error}");
                done.webhook_failed = Some((error.to_string(), timestamp_text(now + wait)));
            }
        }
    }
    if c.sweep_next_at.instant() <= now {
        let next = timestamp_text(now + engine.settings.pix.sweep_interval());
        let error = sweep(engine, c, now).await?.err().map(|e| e.to_string());
        // A failed sweep reads its whole window again next time.
        let from = match &error {
            None => timestamp_text(now),
            Some(_) => c.sweep_from.to_string(),
        };
        done.swept = Some((from, next, error));
        mirror::notice_all(engine, &c.organization_id, &timestamp_text(now)).await?;
        let refunds_due = c
            .refunds_swept_at
            .is_none_or(|at| at.instant() + REFUND_SWEEP_INTERVAL <= now);
        if refunds_due {
            match sweep_refunds(engine, c, now).await? {
                Ok(()) => done.refunds_swept = true,
                Err(e) => {
                    tracing::info!(organization = %c.organization_id, "devoluções not swept: {e}")
                }
            }
        }
    }
    Ok(done)
}

/// Read the PSP's Pix with devoluções over the MED's window (a devolução can come up to 90
/// days after its Pix), and take in every devolução not seen yet, exactly as a callback
/// would: one whose callback was lost is found here.
async fn sweep_refunds(
    engine: &Engine,
    c: &SealedConnection,
    now: OffsetDateTime,
) -> Result<std::result::Result<(), PspError>> {
    let client = match engine.pix.get(&engine.settings.pix, c) {
        Ok(client) => client,
        Err(e) => return Ok(Err(e)),
    };
    let from = now - REFUND_WINDOW;
    let mut page = 0;
    loop {
        let (items, pages) = match client.with_refunds(from, now, page).await {
            Ok(found) => found,
            Err(e) => return Ok(Err(e)),
        };
        for item in &items {
            match PixItem::read(item) {
                Ok(pix) => {
                    app::receive_once(&engine.db, &c.organization_id, &pix, "sweep").await?;
                }
                Err(bad) => tracing::warn!(
                    organization = %c.organization_id,
                    "the PSP listed a Pix whose {} {}; skipped", bad.field, bad.message
                ),
            }
        }
        page += 1;
        if page >= pages || items.is_empty() || page >= MAX_PAGES {
            break;
        }
    }
    Ok(Ok(()))
}

fn actor(what: &str) -> Actor {
    Actor {
        kind: "system",
        id: None,
        name: Some(what.to_string()),
    }
}

/// `PUT /webhook/{chave}` with our callback URL: the key registered.
async fn register(
    engine: &Engine,
    c: &SealedConnection,
    key: Option<&str>,
) -> std::result::Result<String, PspError> {
    let key = key.ok_or_else(|| {
        PspError::Setup("the organization has no Pix key (PUT /v1/pix/settings)".into())
    })?;
    let url = callback_url(&engine.settings.pix, c)?;
    let client = engine.pix.get(&engine.settings.pix, c)?;
    client.put_webhook(key, &url).await?;
    Ok(key.to_string())
}

/// Read the PSP's Pix since the last sweep and apply those not recorded: the PSP's error, if
/// it failed (what was applied before it stays applied).
async fn sweep(
    engine: &Engine,
    c: &SealedConnection,
    now: OffsetDateTime,
) -> Result<std::result::Result<usize, PspError>> {
    let client = match engine.pix.get(&engine.settings.pix, c) {
        Ok(client) => client,
        Err(e) => return Ok(Err(e)),
    };
    let from = c.sweep_from.instant() - OVERLAP;
    let mut applied = 0;
    let mut page = 0;
    loop {
        let (items, pages) = match client.received(from, now, page).await {
            Ok(found) => found,
            Err(e) => return Ok(Err(e)),
        };
        for item in &items {
            match PixItem::read(item) {
                Ok(pix) => applied += usize::from(apply(engine, &c.organization_id, &pix).await?),
                Err(bad) => tracing::warn!(
                    organization = %c.organization_id,
                    "the PSP listed a Pix whose {} {}; skipped", bad.field, bad.message
                ),
            }
        }
        page += 1;
        if page >= pages || items.is_empty() {
            break;
        }
        if page >= MAX_PAGES {
            tracing::warn!(organization = %c.organization_id, "sweep stopped after {MAX_PAGES} pages");
            break;
        }
    }
    if applied > 0 {
        tracing::info!(organization = %c.organization_id, applied, "the sweep found Pix no callback brought");
    }
    Ok(Ok(applied))
}

/// Receive one swept Pix: whether it was new.
async fn apply(engine: &Engine, org: &str, pix: &PixItem) -> Result<bool> {
    let outcome = app::receive_once(&engine.db, org, pix, "sweep").await?;
    Ok(outcome != Outcome::Duplicate)
}
