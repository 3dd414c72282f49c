//! The organization's webhook endpoints: registered (with the signing secret, shown once),
//! changed, deleted, sent a test event, a finished delivery queued again — each with its
//! event — and the body a receiver gets for an event, which the engine's worker POSTs.

use dunning_models::response::{
    WebhookDeletedData, WebhookDeliveryRetriedData, WebhookTestData, WebhookWrittenData,
};
use dunning_store::events::Actor;
use dunning_store::webhooks::{
    self as store, Delivery, DeliveryStatus, NewDelivery, PendingEvent, Webhook, WebhookFields,
};
use dunning_store::{Connection, StoreError, ids};

use crate::{Refused, Result, events, refusals, refuse};

/// The body POSTed for an event: what a receiver verifies and reads.
pub fn payload(event: &PendingEvent) -> String {
    let data = serde_json::value::RawValue::from_string(event.data.clone())
        .unwrap_or_else(|_| serde_json::value::RawValue::NULL.to_owned());
    let body = Body {
        id: &event.id,
        kind: &event.kind,
        subject_type: &event.subject_type,
        subject_id: &event.subject_id,
        actor: BodyActor {
            kind: &event.actor_type,
            id: event.actor_id.as_deref(),
            name: event.actor_name.as_deref(),
        },
        data: &data,
        created_at: &event.created_at,
        organization_id: &event.organization_id,
    };
    // The data was checked when it was recorded (`events::record`); the bodies the tests'
    // receivers get are checked whole (`tests/integration/webhooks.rs`). Not here: an event
    // recorded by an older version may predate its schema, and must still be sent.
    serde_json::to_string(&body).unwrap_or_default()
}

/// A webhook's body: the document's `WebhookEvent`, its `data` as recorded.
#[derive(serde::Serialize)]
struct Body<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    subject_type: &'a str,
    subject_id: &'a str,
    actor: BodyActor<'a>,
    data: &'a serde_json::value::RawValue,
    created_at: &'a dunning_domain::timestamp::Timestamp,
    organization_id: &'a str,
}

/// Who caused the event (`EventActor`).
#[derive(serde::Serialize)]
struct BodyActor<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    id: Option<&'a str>,
    name: Option<&'a str>,
}

/// Register an endpoint (its URL checked by the caller), with a new signing secret and its
/// `webhook.created` event: its id and the secret.
pub async fn create(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    fields: &WebhookFields,
    now: &str,
) -> Result<(String, String)> {
    let id = ids::new_id("whk");
    let secret = format!("whsec_{}", ids::new_secret(24));
    store::insert(tx, org, &id, fields, &secret, now).await?;
    events::record(
        tx,
        org,
        "webhook.created",
        ("webhook", &id),
        actor,
        &WebhookWrittenData {
            url: &fields.url,
            events: &fields.events,
            enabled: fields.enabled,
            changed: None,
        },
    )
    .await?;
    Ok((id, secret))
}

/// Change an endpoint as of the version `current` was read at; `changed` names the fields
/// that differ (the event says them). Enabling a disabled endpoint starts its subscription
/// anew: events from while it was disabled are not sent.
pub async fn update(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    current: &Webhook,
    fields: &WebhookFields,
    changed: &[&str],
    now: &str,
) -> Result<()> {
    let active_since = if fields.enabled && !current.enabled {
        now.to_string()
    } else {
        current.active_since.to_string()
    };
    let id = &current.id;
    if !store::update(tx, org, id, current.version, fields, &active_since, now).await? {
        return refuse(Refused::Concurrent("webhook"));
    }
    events::record(
        tx,
        org,
        "webhook.updated",
        ("webhook", id),
        actor,
        &WebhookWrittenData {
            url: &fields.url,
            events: &fields.events,
            enabled: fields.enabled,
            changed: Some(&changed.iter().map(|c| (*c).to_owned()).collect::<Vec<_>>()),
        },
    )
    .await?;
    Ok(())
}

/// Delete an endpoint, its deliveries and pending retries, with its `webhook.deleted` event.
pub async fn delete(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    current: &Webhook,
) -> Result<()> {
    let id = &current.id;
    if !store::delete(tx, org, id).await? {
        return refuse(Refused::Missing {
            what: "webhook",
            id: id.clone(),
        });
    }
    events::record(
        tx,
        org,
        "webhook.deleted",
        ("webhook", id),
        actor,
        &WebhookDeletedData { url: &current.url },
    )
    .await?;
    Ok(())
}

/// Queue a `webhook.test` event for this endpoint alone (refused while it is disabled); the
/// worker POSTs it at once. The delivery's id.
pub async fn send_test(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    webhook: &Webhook,
    now: &str,
) -> Result<String> {
    let id = &webhook.id;
    if !webhook.enabled {
        return refuse(Refused::rule(
            refusals::WEBHOOK_DISABLED,
            format!("Webhook {id} is disabled; enable it before sending it a test event"),
        ));
    }
    let delivery_id = ids::new_id("whd");
    let event_id = events::record_returning_id(
        tx,
        org,
        "webhook.test",
        ("webhook", id),
        actor,
        &WebhookTestData {
            webhook_id: id,
            message: "Test event from Kobana Dunning: verify its X-Signature (t=...,v1=...) with your endpoint's secret.",
        },
    )
    .await?;
    let event = store::event_in(tx, org, &event_id)
        .await?
        .ok_or_else(|| StoreError::Corrupt("the test event just written is missing".into()))?;
    store::insert_delivery(
        tx,
        &NewDelivery {
            id: &delivery_id,
            organization_id: org,
            webhook_id: id,
            event_id: &event_id,
            event_type: "webhook.test",
            payload: &payload(&event),
            first_attempt_at: now,
            now,
        },
    )
    .await?;
    Ok(delivery_id)
}

/// Queue a finished delivery of `webhook` again, with a fresh series of retries: refused while
/// it is still pending, or while the endpoint is disabled.
pub async fn retry(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    webhook: &Webhook,
    delivery: &Delivery,
    now: &str,
) -> Result<()> {
    let (id, delivery_id) = (&webhook.id, &delivery.id);
    let pending = || {
        Refused::rule(
            refusals::WEBHOOK_DELIVERY_PENDING,
            format!(
                "Delivery {delivery_id} is still queued or being retried; wait until it succeeds or fails"
            ),
        )
    };
    if delivery.status == DeliveryStatus::Pending {
        return refuse(pending());
    }
    if !webhook.enabled {
        return refuse(Refused::rule(
            refusals::WEBHOOK_DISABLED,
            format!("Webhook {id} is disabled; enable it before retrying its deliveries"),
        ));
    }
    if !store::requeue(tx, org, delivery_id, delivery.version, now).await? {
        return refuse(pending());
    }
    events::record(
        tx,
        org,
        "webhook_delivery.retried",
        ("webhook_delivery", delivery_id),
        actor,
        &WebhookDeliveryRetriedData {
            webhook_id: id,
            event_id: &delivery.event_id,
            event_type: &delivery.event_type,
            previous_status: delivery.status.as_str(),
        },
    )
    .await?;
    Ok(())
}
