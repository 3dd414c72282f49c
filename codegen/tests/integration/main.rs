//! Integration tests of the generator, one binary with a module per area (link time matters
//! on small machines).

mod cli;
mod common;
mod compiled;
mod errors;
mod models;
mod real_documents;
mod snapshots;
