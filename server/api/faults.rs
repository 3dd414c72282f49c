//! The document's faults of the running request: found by `schemas::checked` before the
//! handler runs, taken by the request's `input::Input` when it finishes, so that one 400
//! names the handler's faults and the document's together. They travel with the request's
//! task, since the handlers read their bodies as bytes; handlers that take typed models
//! read them from the request instead.

use std::cell::RefCell;
use std::future::Future;

use crate::http::problem::FieldError;

tokio::task_local! {
    static FAULTS: RefCell<Option<Vec<FieldError>>>;
}

/// Run `handler` with `faults` waiting for its input reader.
pub async fn carry<F: Future>(faults: Vec<FieldError>, handler: F) -> F::Output {
    FAULTS.scope(RefCell::new(Some(faults)), handler).await
}

/// The document's faults of the running request, once: the reader of the request's own body
/// or query string takes them (a reader of a part, such as one step of a plan, does not).
pub fn take() -> Vec<FieldError> {
    FAULTS
        .try_with(|cell| cell.borrow_mut().take())
        .ok()
        .flatten()
        .unwrap_or_default()
}
