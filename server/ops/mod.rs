//! Operations: what the people running the service see of it. One log line per request
//! (`access_log`), the log and span subscriber (`logging`), OpenTelemetry traces
//! (`telemetry`), Prometheus metrics (`metrics`), and the liveness and readiness probes
//! (`probes`). Nothing here reads the application state whole: each is handed what it uses.

pub mod access_log;
pub mod logging;
pub mod metrics;
pub mod probes;
pub mod telemetry;
