//! HTTP plumbing shared by every route: the RFC 9457 problem documents every error of the
//! server is answered with (`problem`), the headers of the HTML pages people see (`page`),
//! what a body's `Content-Type` says it is (`media_type`), the JSON writer of answers (`json`:
//! `serde_json`'s bytes, strings escaped a word at a time), who a request comes from
//! (`client_address`) and what one address may spend per window (`address_budget`), the one
//! `Range` a file download honours (`byte_range`), and the listener loop with its limits and
//! graceful shutdown (`serve`).

pub mod address_budget;
pub mod byte_range;
pub mod client_address;
pub mod json;
pub mod media_type;
pub mod page;
pub mod problem;
pub mod serve;
