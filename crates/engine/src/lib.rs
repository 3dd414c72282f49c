//! Background work in the same process: each worker is a loop that wakes up, takes due work
//! from the database (so that work survives restarts and is shared by replicas), does it, and
//! sleeps. Workers expose their single step (`tick`) so tests can drive time explicitly.
//!
//! Workers are handed an [`Engine`]: the database, their settings, the outbound providers built
//! once from them, the status that stops them, and an [`Observer`] the server implements (metrics, and what a revocation must clear). They
//! know nothing of HTTP. The outbound parties they reach (`providers`, `smtp`, webhook
//! receivers, the organizations' PSPs in `pix`) go through [`outbound`], the guard on what a
//! tenant may make us contact.

pub mod agreements;
pub mod collection;
pub mod exports;
pub mod housekeeping;
pub mod outbound;
pub mod pace;
pub mod pix;
pub mod providers;
pub mod sending;
pub mod smtp;
pub mod status;
pub mod twilio;
pub mod unsubscribe;
pub mod webhooks;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use dunning_store::Db;
use tokio::task::JoinHandle;

use status::EngineStatus;

/// What the workers need from the process that runs them.
#[derive(Clone)]
pub struct Engine {
    pub db: Db,
    pub settings: Arc<Settings>,
    /// The channels, bureaus and notaries, built once from the settings (the SMTP channel's
    /// pooled connections are reused across ticks).
    pub providers: Arc<providers::Providers>,
    /// Which workers run, and the signal that stops them.
    pub status: Arc<EngineStatus>,
    /// The clients of the organizations' PSPs (API Pix), built once per connection.
    pub pix: Arc<pix::Clients>,
    pub observer: Arc<dyn Observer>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// The workers' settings, from the server's configuration.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// How long every worker holds work it claimed (`--engine-lease`); `None`: each worker's
    /// own (5 to 10 minutes).
    pub lease: Option<Duration>,
    /// How often the collection worker looks for due work (`--collection-interval`); `None`:
    /// [`collection::INTERVAL`].
    pub collection_interval: Option<Duration>,
    /// `smtp[s]://[user[:password]@]host[:port][?from=&reply_to=&tls=none&ca_file=&timeout=]`:
    /// debtor e-mails go out through this relay; without it they go to the sandbox provider.
    /// `smtp://` requires STARTTLS (port 587 by default), `smtps://` is TLS from the start
    /// (port 465); `tls=none` (plain TCP, port 25) only to a loopback relay; `ca_file` a PEM
    /// file of CA certificates trusted besides the public roots; `from` the sender
    /// (`nao-responda@<host>` by default), `reply_to` the `Reply-To`; `timeout` seconds for the
    /// connection and for each message's exchange (30). User and password are percent-decoded.
    pub smtp_url: Option<String>,
    /// Sign e-mails with DKIM (RFC 6376): the key file and selector, the domain the sender's.
    pub dkim: Option<smtp::DkimSettings>,
    /// How each e-mail's one-click unsubscribe link is made (the public URL and the key);
    /// `None`: e-mails carry no link (an embedding that set none).
    pub unsubscribe: Option<unsubscribe::Links>,
    /// SMS and WhatsApp through this Twilio account (`--twilio-*`); `None`: the sandbox.
    pub twilio: Option<TwilioSettings>,
    /// Let webhooks reach loopback and private networks (development and tests only).
    pub allow_private_webhook_targets: bool,
    /// How long an OAuth grant may go unused before housekeeping ends it.
    pub oauth_grant_idle_ttl: Duration,
    /// The Pix worker's: its pace, the callback URL, the PSPs' guard and CA, the secrets key.
    pub pix: pix::PixSettings,
    /// The export worker's page and piece sizes (tests make them small, to build files of
    /// many pieces from few rows).
    pub exports: exports::Sizes,
    /// How a burst of deliveries goes out: SMTP connections, Twilio senders' rates, the bound
    /// per organization.
    pub sending: Sending,
}

/// The bounds on sending deliveries at once (`sending`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sending {
    /// SMTP connections open at once to the relay (`--smtp-connections`).
    pub smtp_connections: usize,
    /// Messages a second per Twilio SMS sender (`--twilio-sms-rate`).
    pub twilio_sms_rate: f64,
    /// Messages a second per Twilio WhatsApp sender (`--twilio-whatsapp-rate`).
    pub twilio_whatsapp_rate: f64,
    /// Deliveries of one organization in flight at once on each channel
    /// (`--deliveries-per-organization`): one organization's burst leaves room for the others'.
    pub per_organization: usize,
}

impl Default for Sending {
    fn default() -> Sending {
        Sending {
            smtp_connections: smtp::DEFAULT_CONNECTIONS,
            twilio_sms_rate: twilio::DEFAULT_SMS_RATE,
            twilio_whatsapp_rate: twilio::DEFAULT_WHATSAPP_RATE,
            per_organization: sending::DEFAULT_PER_ORGANIZATION,
        }
    }
}

impl Sending {
    /// The rate of the Twilio sender of `channel` (`sms` or `whatsapp`).
    pub fn twilio_rate(&self, channel: &str) -> f64 {
        if channel == "whatsapp" {
            self.twilio_whatsapp_rate
        } else {
            self.twilio_sms_rate
        }
    }
}

/// The Twilio account and where its status callbacks reach this server.
#[derive(Debug, Clone)]
pub struct TwilioSettings {
    pub account: twilio::Account,
    /// The server's public URL: `StatusCallback` is `{callback_base}/callbacks/twilio/{organization}`.
    pub callback_base: String,
}

/// What the workers report to the process: counts for its metrics, and revocations it must
/// act on (the server forgets the tokens it cached).
pub trait Observer: Send + Sync {
    /// One webhook POST: `outcome` is `succeeded`, `retrying` or `failed`.
    fn webhook_attempt(&self, outcome: &'static str, retry: bool);
    /// What housekeeping removed: `what` is `grants`, `clients` or `sessions`.
    fn expired(&self, what: &'static str, count: u64);
    /// Housekeeping revoked tokens (grants unused too long).
    fn revoked(&self);
}

/// An observer that counts nothing (tools that only step the workers).
#[derive(Debug, Default, Clone, Copy)]
pub struct Unobserved;

impl Observer for Unobserved {
    fn webhook_attempt(&self, _outcome: &'static str, _retry: bool) {}
    fn expired(&self, _what: &'static str, _count: u64) {}
    fn revoked(&self) {}
}

/// How long a worker holds a piece of due work it claimed: the worker's own `default`,
/// unless the settings give one for every worker (`--engine-lease`). After that a replica
/// that died mid-work leaves the work to the others.
pub fn lease(engine: &Engine, default: Duration) -> Duration {
    engine.settings.lease.unwrap_or(default)
}

/// The longest a worker waits after failing steps in a row.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Run `step` every `interval` for ever. After a failure (the database is down, full or
/// read-only) the worker waits twice as long each time, up to [`MAX_BACKOFF`], logging each
/// failure, and goes back to its pace after the first success: it
/// does not hammer a sick database, and resumes by itself.
///
/// A stop (`EngineStatus::stop`) ends the loop between steps, never inside one.
pub async fn run_worker<F, Fut, E>(
    engine: &Engine,
    name: &'static str,
    interval: Duration,
    mut step: F,
) where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(), E>>,
    E: std::fmt::Display,
{
    let status = &engine.status;
    let _running = status.register(name);
    let mut wait = interval;
    let mut failures = 0u32;
    loop {
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = status.stopped() => return,
        }
        if status.stopping() {
            return;
        }
        match step().await {
            Ok(()) => {
                if failures > 0 {
                    tracing::info!(worker = name, failures, "worker recovered");
                }
                failures = 0;
                wait = interval;
            }
            Err(e) => {
                failures += 1;
                wait = backoff(interval, failures);
                tracing::warn!(
                    worker = name,
                    failures,
                    retry_in_ms = wait.as_millis() as u64,
                    "worker step failed: {e}"
                );
            }
        }
    }
}

/// The wait after `failures` failed steps in a row.
fn backoff(interval: Duration, failures: u32) -> Duration {
    interval
        .saturating_mul(2u32.saturating_pow(failures.min(16)))
        .min(MAX_BACKOFF)
        .max(interval)
}

/// Start every worker (the server runs them unless its configuration turns them off).
// One `push` line per worker keeps the registrations of different areas apart.
#[allow(clippy::vec_init_then_push)]
pub fn start(engine: Engine) -> Vec<JoinHandle<()>> {
    let mut handles: Vec<JoinHandle<()>> = Vec::new();
    // Workers register here, one line each: `handles.push(tokio::spawn(area::run(state.clone())));`
    handles.push(tokio::spawn(agreements::run(engine.clone())));
    handles.push(tokio::spawn(collection::run(engine.clone())));
    handles.push(tokio::spawn(webhooks::run(engine.clone())));
    handles.push(tokio::spawn(exports::run(engine.clone())));
    handles.push(tokio::spawn(housekeeping::run(engine.clone())));
    handles.push(tokio::spawn(pix::run(engine.clone())));
    handles
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_a_minute() {
        let second = Duration::from_secs(1);
        assert_eq!(backoff(second, 1), Duration::from_secs(2));
        assert_eq!(backoff(second, 3), Duration::from_secs(8));
        assert_eq!(backoff(second, 30), MAX_BACKOFF);
    }
}
