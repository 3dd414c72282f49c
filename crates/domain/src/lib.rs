//! Dunning rules that do not depend on storage or HTTP: the calendar (Brasília days, business
//! days), money, taxpayer documents, Pix keys and codes, charge balances and statuses, collection rules, instalment schedules, instants
//! as stored and shown, and the PDF documents a creditor sends. Pure functions, unit-tested
//! here; the crate has no database driver and no async runtime (the store, the engine and the
//! server build on it; `ARCHITECTURE.md` has the crate graph, `tests/integration/tidy.rs` checks it).

pub mod calendar;
pub mod charge_math;
pub mod collection;
pub mod document;
pub mod documents;
pub mod installments;
pub mod money;
pub mod pix;
pub mod pix_cobv;
pub mod pix_txid;
pub mod refusals;
pub mod text;
pub mod timestamp;
pub mod words;
