//! The `/v1` REST API: one handler per OpenAPI operation, a file per resource.
//!
//! Routes are registered from the generated operation table, so every operation of the
//! document exists here: with its handler when it has one, else answering 501 through the
//! same authentication and scope checks. A tool can therefore never call a route the API
//! does not have.

mod agreements;
mod charges;
mod collection;
mod customers;
mod deliveries;
mod disputes;
mod events;
pub mod exports;
mod files;
mod idempotency;
pub mod input;
pub mod limits;
mod me;
pub mod operations;
mod plans;
pub mod problem;
pub mod reply;
mod webhooks;

use std::collections::BTreeMap;

use axum::Router;
use axum::routing::{MethodFilter, MethodRouter, get, on};

use crate::auth::{authenticate_v1, require_operation_scopes};
use crate::generated;
use crate::mcp::catalog::{HttpMethod, ToolSpec};
use crate::state::AppState;

/// The `/v1` router with its middleware, state applied.
pub fn router(state: AppState) -> Router {
    let mut by_path: BTreeMap<&'static str, MethodRouter<AppState>> = BTreeMap::new();
    for tool in generated::TOOLS {
        let handler = handler_for(tool).unwrap_or_else(|| not_implemented(tool));
        let entry = by_path.remove(tool.path).unwrap_or_default();
        by_path.insert(tool.path, entry.merge(handler));
    }
    let mut routes = Router::new();
    for (path, method_router) in by_path {
        routes = routes.route(path, method_router);
    }
    // Layers run bottom-up: authenticate, count against the rate limit, check scopes, then
    // refuse malformed requests (path, body size and time, media type), then replay or record
    // idempotent writes, then the handler. Authorization comes before any look at the input,
    // so a caller without the scope learns nothing about what it sent.
    let protected = routes
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            idempotency::idempotency,
        ))
        .route_layer(axum::middleware::from_fn(input::well_formed))
        .route_layer(axum::middleware::from_fn(require_operation_scopes))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            limits::rate_limit,
        ))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            authenticate_v1,
        ))
        .route_layer(axum::middleware::from_fn(operations::name_response));
    Router::new()
        .route("/v1/openapi.json", get(openapi_document))
        .merge(protected)
        .layer(axum::middleware::from_fn(reply::request_id))
        .with_state(state)
}

fn filter(method: HttpMethod) -> MethodFilter {
    match method {
        HttpMethod::Get => MethodFilter::GET,
        HttpMethod::Post => MethodFilter::POST,
        HttpMethod::Put => MethodFilter::PUT,
        HttpMethod::Patch => MethodFilter::PATCH,
        HttpMethod::Delete => MethodFilter::DELETE,
        HttpMethod::Head => MethodFilter::HEAD,
        HttpMethod::Options => MethodFilter::OPTIONS,
        HttpMethod::Trace => MethodFilter::TRACE,
    }
}

/// The implemented operations, by operationId.
fn handler_for(tool: &'static ToolSpec) -> Option<MethodRouter<AppState>> {
    let operation = tool.name.strip_prefix("dunning_").unwrap_or(tool.name);
    let f = filter(tool.method);
    Some(match operation {
        "me" => on(f, me::me),
        "customers_list" => on(f, customers::list),
        "customers_create" => on(f, customers::create),
        "customers_get" => on(f, customers::get),
        "customers_update" => on(f, customers::update),
        "customers_statement" => on(f, files::customer_statement),
        "charges_list" => on(f, charges::list),
        "charges_create" => on(f, charges::create),
        "charges_get" => on(f, charges::get),
        "charges_update" => on(f, charges::update),
        "charges_cancel" => on(f, charges::cancel),
        "charges_pay" => on(f, collection::pay),
        "charges_notify" => on(f, collection::notify),
        "charges_negativate" => on(f, collection::negativate),
        "charges_negativation_remove" => on(f, collection::negativation_remove),
        "charges_protest" => on(f, collection::protest),
        "charges_protest_cancel" => on(f, collection::protest_cancel),
        "charges_discharge_letter" => on(f, files::charge_discharge_letter),
        "charges_events" => on(f, collection::events),
        "collection_plans_list" => on(f, plans::list),
        "collection_plans_create" => on(f, plans::create),
        "collection_plans_get" => on(f, plans::get),
        "collection_plans_update" => on(f, plans::update),
        "collection_plans_delete" => on(f, plans::delete),
        "collection_plan_steps_list" => on(f, plans::steps_list),
        "collection_plan_steps_create" => on(f, plans::steps_create),
        "collection_plan_steps_update" => on(f, plans::steps_update),
        "collection_plan_steps_delete" => on(f, plans::steps_delete),
        "deliveries_list" => on(f, deliveries::list),
        "deliveries_get" => on(f, deliveries::get),
        "deliveries_resend" => on(f, deliveries::resend),
        "events_list" => on(f, events::list),
        "customers_delete" => on(f, customers::delete),
        "agreements_list" => on(f, agreements::list),
        "agreements_create" => on(f, agreements::create),
        "agreements_get" => on(f, agreements::get),
        "agreements_accept" => on(f, agreements::accept),
        "agreements_cancel" => on(f, agreements::cancel),
        "agreements_term" => on(f, files::agreement_term),
        "disputes_list" => on(f, disputes::list),
        "disputes_create" => on(f, disputes::create),
        "disputes_get" => on(f, disputes::get),
        "disputes_resolve" => on(f, disputes::resolve),
        "webhooks_list" => on(f, webhooks::list),
        "webhooks_create" => on(f, webhooks::create),
        "webhooks_get" => on(f, webhooks::get),
        "webhooks_update" => on(f, webhooks::update),
        "webhooks_delete" => on(f, webhooks::delete),
        "webhooks_test" => on(f, webhooks::test),
        "webhook_deliveries_list" => on(f, webhooks::deliveries),
        "webhook_deliveries_retry" => on(f, webhooks::retry),
        "exports_create" => on(f, exports::create),
        "exports_get" => on(f, exports::get),
        "exports_download" => on(f, exports::download),
        _ => return None,
    })
}

/// Operations of the document without a handler yet: a 501 problem, never a fake success.
fn not_implemented(tool: &'static ToolSpec) -> MethodRouter<AppState> {
    let operation = tool.name.strip_prefix("dunning_").unwrap_or(tool.name);
    on(filter(tool.method), move || async move {
        problem::ApiError::not_implemented(operation)
    })
}

async fn openapi_document() -> impl axum::response::IntoResponse {
    (
        [(http::header::CONTENT_TYPE, "application/json")],
        generated::OPENAPI_JSON,
    )
}
