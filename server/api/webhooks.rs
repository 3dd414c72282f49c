//! `/v1/webhooks`: endpoints that receive the organization's events as signed POSTs, their
//! deliveries, a test event and manual retries. `engine::webhooks` does the POSTing.

use super::answers::words::Word;
use axum::extract::Path;
use axum::response::IntoResponse;
use http::{HeaderMap, StatusCode};

use super::answers::refused::problem;
use super::answers::reply::{Reply, answer, check_if_match, page_meta, page_request, written};
use super::steps::caller::{Caller, find};
use super::steps::idempotency::{ReplaySecret, commit};
use super::steps::server_rules::{Rules, distinct};
use super::steps::typed_input::{Body, NoBody, Query};
use crate::generated::models::{
    Patch, WebhookDeliveryError, response, webhook_deliveries_list, webhooks_create, webhooks_get,
    webhooks_list, webhooks_update,
};
use crate::http::problem::{ApiError, ApiResult, FieldError};
use crate::state::AppState;
use dunning_app::webhooks as app;
use dunning_engine::outbound::Policy;
use dunning_store::now_text;
use dunning_store::webhooks::{self as store, Delivery, DeliveryFilter, Webhook, WebhookFields};

/// An absolute http(s) URL without credentials or fragment, as typed (trimmed).
fn check_url(rules: &mut Rules, url: String) -> Option<String> {
    let parsed = match reqwest::Url::parse(&url) {
        Ok(parsed) if parsed.has_host() => parsed,
        _ => {
            rules.error(
                "url",
                "format",
                "Must be an absolute URL such as https://erp.example.com.br/webhooks",
            );
            return None;
        }
    };
    if !matches!(parsed.scheme(), "https" | "http") {
        rules.error("url", "scheme", "Must be an https:// (or http://) URL");
        return None;
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        rules.error(
            "url",
            "credentials",
            "Must not carry a user name or password: receivers authenticate deliveries by their X-Signature",
        );
        return None;
    }
    if parsed.fragment().is_some() {
        rules.error("url", "format", "Must not have a fragment (#...)");
        return None;
    }
    Some(url)
}

/// 422 `webhook_target_forbidden` when the URL leads where the server must not POST: this
/// machine, a private network, the cloud's metadata service (see `net::outbound`). Names are
/// only judged by their spelling here; what they resolve to is checked at every delivery.
fn check_target(state: &AppState, url: &str) -> ApiResult<()> {
    let Err(refusal) = Policy::for_webhooks(&state.engine.settings).check_url(url) else {
        return Ok(());
    };
    let message = format!("{refusal}: webhooks are only sent to public internet addresses");
    Err(ApiError {
        errors: vec![FieldError::new("url", "target_forbidden", message.clone())],
        ..ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "webhook_target_forbidden",
            format!("url: {message}"),
        )
    })
}

/// A webhook endpoint as the API shows it; the signing `secret` only in the answer that
/// created it.
fn view<'a>(w: &'a Webhook, secret: Option<&'a str>) -> response::Webhook<'a> {
    response::Webhook {
        id: &w.id,
        url: &w.url,
        events: &w.events,
        description: w.description.as_deref(),
        enabled: w.enabled,
        secret,
        created_at: w.created_at,
        updated_at: w.updated_at,
    }
}

/// A delivery of an event to an endpoint as the API shows it. Its failure is stored as text
/// (`dunning_store::webhooks::FAILURES`): a word the document does not list is our own fault.
fn delivery_view(d: &Delivery) -> ApiResult<response::WebhookDelivery<'_>> {
    let error = match d.error.as_deref() {
        Some(e) => Some(WebhookDeliveryError::from_word(e).ok_or_else(|| {
            ApiError::internal(format!("webhook delivery {} has error '{e}'", d.id))
        })?),
        None => None,
    };
    Ok(response::WebhookDelivery {
        id: &d.id,
        webhook_id: &d.webhook_id,
        event_id: &d.event_id,
        event_type: &d.event_type,
        status: d.status.word(),
        attempts: d.attempts,
        response_status: d.response_status,
        error,
        next_retry_at: d.next_retry_at,
        delivered_at: d.delivered_at,
        created_at: d.created_at,
    })
}

/// The 202 answer with a delivery queued (read back inside its transaction), committed.
async fn accepted(
    found: Option<Delivery>,
    what: &str,
    tx: sqlx::Transaction<'static, sqlx::Any>,
) -> ApiResult<Reply> {
    let delivery = written(found, what)?;
    let body = response::WebhookDeliveryResponse {
        data: delivery_view(&delivery)?,
    };
    commit(
        tx,
        answer(StatusCode::ACCEPTED, &body, Some(delivery.version)),
    )
    .await
}

pub async fn list(
    Caller(state, p): Caller,
    Query(query): Query<webhooks_list::Query>,
) -> ApiResult<Reply> {
    let page = page_request(query.page, query.per_page);
    let rows = store::list(&state.db, &p.organization_id, page).await?;
    let body = webhooks_list::Response200 {
        data: rows.items.iter().map(|w| view(w, None)).collect(),
        meta: page_meta(&rows, page),
    };
    Ok(answer(StatusCode::OK, &body, None))
}

pub async fn get(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let webhook = find::<Webhook>(&state, &p, &id).await?;
    let body = webhooks_get::Response200 {
        data: view(&webhook, None),
    };
    Ok(answer(StatusCode::OK, &body, Some(webhook.version)))
}

/// `POST /v1/webhooks`: the only answer that carries the signing secret.
pub async fn create(
    Caller(state, p): Caller,
    Body(body): Body<webhooks_create::Body>,
) -> ApiResult<Reply> {
    let mut rules = Rules::default();
    let url = check_url(&mut rules, body.url);
    rules.finish()?;
    let Some(url) = url else {
        return Err(ApiError::internal("validated fields missing"));
    };
    check_target(&state, &url)?;
    let fields = WebhookFields {
        url,
        events: distinct(body.events),
        description: body.description.into_option(),
        enabled: body.enabled.unwrap_or(true),
    };
    let mut tx = state.db.begin().await?;
    let (id, secret) = app::create(
        &mut tx,
        &p.organization_id,
        &p.actor(),
        &fields,
        &now_text(),
    )
    .await
    .map_err(problem)?;
    let webhook = written(
        store::get_in(&mut tx, &p.organization_id, &id).await?,
        "webhook",
    )?;
    let body = webhooks_create::Response201 {
        data: view(&webhook, Some(&secret)),
    };
    let mut reply = answer(StatusCode::CREATED, &body, Some(webhook.version));
    // The secret is shown once; a replay of this create keeps it only for a while.
    reply.extensions_mut().insert(ReplaySecret("/data/secret"));
    commit(tx, reply).await
}

/// `PATCH /v1/webhooks/{id}`. Enabling a disabled endpoint starts its subscription anew:
/// events from while it was disabled are not sent.
pub async fn update(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    Body(body): Body<webhooks_update::Body>,
) -> ApiResult<Reply> {
    let current = find::<Webhook>(&state, &p, &id).await?;
    let mut rules = Rules::default();
    let url = body.url.and_then(|url| check_url(&mut rules, url));
    rules.finish()?;
    let (events, enabled) = (body.events.map(distinct), body.enabled);
    if let Some(url) = &url {
        check_target(&state, url)?;
    }
    check_if_match(&headers, current.version)?;
    let mut changed = Vec::new();
    let mut note = |name: &'static str, differs: bool| {
        if differs {
            changed.push(name);
        }
    };
    note("url", url.as_ref().is_some_and(|u| *u != current.url));
    note(
        "events",
        events.as_ref().is_some_and(|e| *e != current.events),
    );
    let description = match body.description {
        Patch::Absent => current.description.clone(),
        Patch::Null => None,
        Patch::Value(d) => Some(d),
    };
    note("description", description != current.description);
    note("enabled", enabled.is_some_and(|e| e != current.enabled));
    let fields = WebhookFields {
        url: url.unwrap_or_else(|| current.url.clone()),
        events: events.unwrap_or_else(|| current.events.clone()),
        description,
        enabled: enabled.unwrap_or(current.enabled),
    };
    let mut tx = state.db.begin().await?;
    app::update(
        &mut tx,
        &p.organization_id,
        &p.actor(),
        &current,
        &fields,
        &changed,
        &now_text(),
    )
    .await
    .map_err(problem)?;
    let webhook = written(
        store::get_in(&mut tx, &p.organization_id, &id).await?,
        "webhook",
    )?;
    let body = webhooks_update::Response200 {
        data: view(&webhook, None),
    };
    commit(tx, answer(StatusCode::OK, &body, Some(webhook.version))).await
}

/// `DELETE /v1/webhooks/{id}`: the endpoint, its deliveries and pending retries go.
pub async fn delete(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let current = find::<Webhook>(&state, &p, &id).await?;
    let mut tx = state.db.begin().await?;
    app::delete(&mut tx, &p.organization_id, &p.actor(), &current)
        .await
        .map_err(problem)?;
    commit(tx, StatusCode::NO_CONTENT.into_response()).await
}

/// `POST /v1/webhooks/{id}/test`: queue a `webhook.test` event for this endpoint alone; the
/// worker POSTs it at once.
pub async fn test(Caller(state, p): Caller, Path(id): Path<String>, _: NoBody) -> ApiResult<Reply> {
    let webhook = find::<Webhook>(&state, &p, &id).await?;
    let mut tx = state.db.begin().await?;
    let delivery_id = app::send_test(
        &mut tx,
        &p.organization_id,
        &p.actor(),
        &webhook,
        &now_text(),
    )
    .await
    .map_err(problem)?;
    accepted(
        store::get_delivery_in(&mut tx, &p.organization_id, &id, &delivery_id).await?,
        "test delivery",
        tx,
    )
    .await
}

pub async fn deliveries(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    Query(query): Query<webhook_deliveries_list::Query>,
) -> ApiResult<Reply> {
    let page = page_request(query.page, query.per_page);
    find::<Webhook>(&state, &p, &id).await?;
    let filter = DeliveryFilter {
        status: query.status.map(|s| s.as_str().to_string()),
        event_type: query.event_type,
    };
    let rows = store::list_deliveries(&state.db, &p.organization_id, &id, &filter, page).await?;
    let body = webhook_deliveries_list::Response200 {
        data: rows
            .items
            .iter()
            .map(delivery_view)
            .collect::<ApiResult<_>>()?,
        meta: page_meta(&rows, page),
    };
    Ok(answer(StatusCode::OK, &body, None))
}

/// `POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry`: queue a finished delivery again,
/// with a fresh series of retries.
pub async fn retry(
    Caller(state, p): Caller,
    Path((id, delivery_id)): Path<(String, String)>,
    _: NoBody,
) -> ApiResult<Reply> {
    let webhook = find::<Webhook>(&state, &p, &id).await?;
    let delivery = store::get_delivery(&state.db, &p.organization_id, &id, &delivery_id)
        .await?
        .ok_or_else(|| ApiError::not_found("webhook delivery", &delivery_id))?;
    let mut tx = state.db.begin().await?;
    app::retry(
        &mut tx,
        &p.organization_id,
        &p.actor(),
        &webhook,
        &delivery,
        &now_text(),
    )
    .await
    .map_err(problem)?;
    accepted(
        store::get_delivery_in(&mut tx, &p.organization_id, &id, &delivery_id).await?,
        "delivery",
        tx,
    )
    .await
}
