//! How a `/v1` handler answers: `reply` (a response model written once, with its status and
//! ETag; a list's page and `meta`; `If-Match`), `wire` (the views of a charge, a delivery and
//! an event, which several resources answer with), `words` (the domain's word enums as the
//! document's) and `refused` (the application layer's refusals as problems).

pub(super) mod refused;
pub mod reply;
pub(super) mod wire;
pub(super) mod words;
