//! Dunning rules that do not depend on storage or HTTP: money, taxpayer documents, charge
//! balances and statuses, instants as stored and shown. Pure functions, unit-tested here.

pub mod charge_math;
pub mod collection;
pub mod document;
pub mod installments;
pub mod money;
pub mod timestamp;
