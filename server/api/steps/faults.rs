//! The document's faults of the running request: found by `schemas::checked` before the
//! handler runs, taken by the request's typed reader (`checked::Body`, `checked::Query`,
//! `checked::NoBody`) as it reads, so that the 400 names them with the reader's own. They
//! travel with the request's task, as a task-local value beside the request.

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
