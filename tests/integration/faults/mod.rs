//! Faults written into tests: real server processes killed with `kill -9`, SQLite on a full
//! or read-only tmpfs, PostgreSQL that does not answer. Each test checks what a client saw
//! and what the database holds. The mount-based ones need root (CI has it); elsewhere they
//! say they skipped.

mod crash;
pub(crate) mod process;
mod replicas;
pub(crate) mod storage;
