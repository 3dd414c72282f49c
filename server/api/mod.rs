//! The `/v1` REST API: one handler per OpenAPI operation, a file per resource.
//!
//! Routes are registered from the generated operation table, so every operation of the
//! document exists here: with its handler when it has one, else answering 501 through the
//! same authentication and scope checks. A tool can therefore never call a route the API
//! does not have.
//!
//! The files here are the handlers, a file per resource, and `charge_actions`, what the
//! actions on a charge share. What every request goes through before its handler runs (the
//! steps, in order, and the extractors a handler reads their outcome with) is in `steps/`;
//! how a handler answers (the reply, the views several resources share, the refusals as
//! problems) is in `answers/`.

mod agreements;
mod calendar;
mod charge_actions;
mod charges;
mod collection;
mod customers;
mod deliveries;
mod disputes;
mod events;
mod exports;
mod files;
mod me;
mod pix;
mod pix_psp;
mod plans;
mod reports;
mod webhooks;

pub mod answers;
pub mod steps;

use std::collections::BTreeMap;

use axum::Router;
use axum::routing::{MethodFilter, MethodRouter, get, on};

use mcpgen_catalog::{HttpMethod, ToolSpec};

use crate::generated::{self, OperationId};
use crate::state::AppState;

/// The `/v1` router with its middleware, state applied.
pub fn router(state: AppState) -> Router {
    let mut by_path: BTreeMap<&'static str, MethodRouter<AppState>> = BTreeMap::new();
    for operation in OperationId::ALL {
        let tool = operation.tool();
        let handler = handler_for(*operation).unwrap_or_else(|| not_implemented(tool));
        let entry = by_path.remove(tool.path).unwrap_or_default();
        by_path.insert(tool.path, entry.merge(handler));
    }
    let mut routes = Router::new();
    for (path, method_router) in by_path {
        routes = routes.route(path, method_router);
    }
    let protected = routes.route_layer(axum::middleware::from_fn_with_state(
        state.clone(),
        steps::checks,
    ));
    // Every answer's `Request-Id` is the access log's (`ops::access_log`, outermost on the
    // whole server); a tool call's in-process request is part of its MCP request, which has
    // one.
    Router::new()
        .route("/v1/openapi.json", get(openapi_document))
        .merge(protected)
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

/// The handler of each operation: an exhaustive match, so an operation added to the document
/// is a compile error here until it has a handler (or is written `Op::X => return None`, a
/// 501 until it has one).
fn handler_for(operation: OperationId) -> Option<MethodRouter<AppState>> {
    use OperationId as Op;
    let f = filter(operation.tool().method);
    Some(match operation {
        Op::Me => on(f, me::me),
        Op::CustomersList => on(f, customers::list),
        Op::CustomersCreate => on(f, customers::create),
        Op::CustomersGet => on(f, customers::get),
        Op::CustomersUpdate => on(f, customers::update),
        Op::CustomersStatement => on(f, files::customer_statement),
        Op::ChargesList => on(f, charges::list),
        Op::ChargesCreate => on(f, charges::create),
        Op::ChargesGet => on(f, charges::get),
        Op::ChargesUpdate => on(f, charges::update),
        Op::ChargesCancel => on(f, charges::cancel),
        Op::ChargesPay => on(f, collection::pay),
        Op::ChargesNotify => on(f, collection::notify),
        Op::ChargesNegativate => on(f, collection::negativate),
        Op::ChargesNegativationRemove => on(f, collection::negativation_remove),
        Op::ChargesProtest => on(f, collection::protest),
        Op::ChargesProtestCancel => on(f, collection::protest_cancel),
        Op::ChargesDischargeLetter => on(f, files::charge_discharge_letter),
        Op::ChargesEvents => on(f, collection::events),
        Op::ChargesPix => on(f, pix::charge_pix),
        Op::ReportsAging => on(f, reports::aging),
        Op::PixSettingsGet => on(f, pix::settings_get),
        Op::PixSettingsUpdate => on(f, pix::settings_update),
        Op::CalendarGet => on(f, calendar::get),
        Op::CalendarUpdate => on(f, calendar::update),
        Op::CollectionPlansList => on(f, plans::list),
        Op::CollectionPlansCreate => on(f, plans::create),
        Op::CollectionPlansGet => on(f, plans::get),
        Op::CollectionPlansUpdate => on(f, plans::update),
        Op::CollectionPlansDelete => on(f, plans::delete),
        Op::CollectionPlanStepsList => on(f, plans::steps_list),
        Op::CollectionPlanStepsCreate => on(f, plans::steps_create),
        Op::CollectionPlanStepsUpdate => on(f, plans::steps_update),
        Op::CollectionPlanStepsDelete => on(f, plans::steps_delete),
        Op::DeliveriesList => on(f, deliveries::list),
        Op::DeliveriesGet => on(f, deliveries::get),
        Op::DeliveriesResend => on(f, deliveries::resend),
        Op::EventsList => on(f, events::list),
        Op::CustomersDelete => on(f, customers::delete),
        Op::AgreementsList => on(f, agreements::list),
        Op::AgreementsCreate => on(f, agreements::create),
        Op::AgreementsGet => on(f, agreements::get),
        Op::AgreementsAccept => on(f, agreements::accept),
        Op::AgreementsCancel => on(f, agreements::cancel),
        Op::AgreementsAutomaticPix => on(f, agreements::automatic_pix),
        Op::AgreementsAutomaticPixCancel => on(f, agreements::automatic_pix_cancel),
        Op::AgreementsTerm => on(f, files::agreement_term),
        Op::DisputesList => on(f, disputes::list),
        Op::DisputesCreate => on(f, disputes::create),
        Op::DisputesGet => on(f, disputes::get),
        Op::DisputesResolve => on(f, disputes::resolve),
        Op::WebhooksList => on(f, webhooks::list),
        Op::WebhooksCreate => on(f, webhooks::create),
        Op::WebhooksGet => on(f, webhooks::get),
        Op::WebhooksUpdate => on(f, webhooks::update),
        Op::WebhooksDelete => on(f, webhooks::delete),
        Op::WebhooksTest => on(f, webhooks::test),
        Op::WebhookDeliveriesList => on(f, webhooks::deliveries),
        Op::WebhookDeliveriesRetry => on(f, webhooks::retry),
        Op::ExportsCreate => on(f, exports::create),
        Op::ExportsGet => on(f, exports::get),
        Op::ExportsDownload => on(f, exports::download),
        Op::PixPspGet => on(f, pix_psp::get),
        Op::PixPspSet => on(f, pix_psp::set),
        Op::PixPspDelete => on(f, pix_psp::delete),
        Op::PixPspTest => on(f, pix_psp::test),
        Op::PixReceivedList => on(f, pix_psp::received),
        Op::PixReceivedRefund => on(f, pix_psp::refund),
    })
}

/// Operations of the document without a handler yet: a 501 problem, never a fake success.
fn not_implemented(tool: &'static ToolSpec) -> MethodRouter<AppState> {
    let operation = tool.name.strip_prefix("dunning_").unwrap_or(tool.name);
    on(filter(tool.method), move || async move {
        crate::http::problem::ApiError::not_implemented(operation)
    })
}

async fn openapi_document() -> impl axum::response::IntoResponse {
    (
        [(http::header::CONTENT_TYPE, "application/json")],
        generated::OPENAPI_JSON,
    )
}
