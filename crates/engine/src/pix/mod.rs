//! The Pix worker: keeps a cobv at the organization's PSP for each of its open charges, and
//! brings back the money paid by Pix.
//!
//! An organization with a PSP connection (`store::pix_psp`) has, for each open charge, a
//! cobv ("cobrança com vencimento", BACEN's API Pix) mirroring it (`mirror`): created with
//! `PUT /cobv/{txid}`, revised with `PATCH` when the charge changes, removed
//! (`REMOVIDA_PELO_USUARIO_RECEBEDOR`) when it is paid, canceled or taken into an agreement;
//! its `pixCopiaECola` and location are the charge's dynamic code (`charges.pix_payload`,
//! `pix_location`), cleared whenever the cobv cannot be paid, so that the static code is shown
//! while the charge is open. The worker finds the charges that changed by their `updated_at`
//! (a place kept per connection), and each sweep also looks at every open charge for what
//! that missed.
//!
//! Each connection's upkeep (`upkeep`): the PSP's webhook registered for the organization's
//! Pix key (`PUT /webhook/{chave}`, pointing at our callback URL with its secret), and the
//! sweep (`GET /pix` over the time since the last one), which applies any Pix whose callback
//! never came (`dunning_app::pix`, idempotent by `endToEndId`), and, hourly, the devoluções
//! of the MED's window (`GET /pix?devolucaoPresente=true`). The devoluções the organization
//! asked for are taken to the PSP and followed to their end (`refunds`), and so are the
//! agreements' Pix Automático requests and their instalments' debits (`automatic`).
//!
//! Work is at-least-once and shared by replicas: a cobv row or a connection is claimed in
//! the database (a lease) before the PSP is called, and what came of it is written only while
//! the claim holds. A PSP that is down or refuses leaves the charge with the static code and
//! the row due again after a wait that doubles (from the worker's interval up to an hour).

mod automatic;
pub mod client;
pub mod connect;
mod mirror;
mod refunds;
pub mod sealed;
mod upkeep;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use time::OffsetDateTime;

use crate::Engine;
use client::{Credentials, PspClient, PspError};
use dunning_store::pix_psp::{self as store, SealedConnection};
use dunning_store::{Result, timestamp_text};
use sealed::{SecretsKey, context};

/// How often the worker looks for due work by default (`--pix-interval`).
pub const INTERVAL: Duration = Duration::from_secs(10);

/// How often each connection is swept by default (`--pix-sweep-interval`).
pub const SWEEP_INTERVAL: Duration = Duration::from_secs(30 * 60);

/// The longest wait after failures in a row.
const MAX_BACKOFF: Duration = Duration::from_secs(60 * 60);

/// How long a claim holds a cobv row or a connection's upkeep.
const LEASE: Duration = Duration::from_secs(5 * 60);

/// The Pix worker's settings, from the server's configuration.
#[derive(Clone, Default)]
pub struct PixSettings {
    /// How often the worker looks for due work; `None`: [`INTERVAL`].
    pub interval: Option<Duration>,
    /// How often each connection is swept; `None`: [`SWEEP_INTERVAL`].
    pub sweep_interval: Option<Duration>,
    /// The server's public URL, which the PSP's callbacks are sent to (`/pix/webhook/...`).
    pub public_url: String,
    /// Let PSP URLs reach loopback and private networks (`--allow-private-pix-psp`:
    /// development and tests only).
    pub allow_private: bool,
    /// CA certificates (PEM) trusted for PSPs besides the public roots (`--pix-ca-file`).
    pub ca_pem: Option<Vec<u8>>,
    /// The key the connections' secrets are sealed with; `None`: no connection can be used.
    pub secrets_key: Option<SecretsKey>,
}

impl std::fmt::Debug for PixSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PixSettings")
            .field("interval", &self.interval)
            .field("sweep_interval", &self.sweep_interval)
            .field("public_url", &self.public_url)
            .field("allow_private", &self.allow_private)
            .field("ca_pem", &self.ca_pem.as_ref().map(Vec::len))
            .field("secrets_key", &self.secrets_key)
            .finish()
    }
}

impl PixSettings {
    fn interval(&self) -> Duration {
        self.interval.unwrap_or(INTERVAL)
    }

    fn sweep_interval(&self) -> Duration {
        self.sweep_interval.unwrap_or(SWEEP_INTERVAL)
    }

    /// The wait before the next try after `failures` failures in a row: the interval, then
    /// twice as long each time, up to an hour.
    fn backoff(&self, failures: i64) -> Duration {
        let doublings = u32::try_from(failures.saturating_sub(1).clamp(0, 20)).unwrap_or(20);
        self.interval()
            .saturating_mul(2u32.saturating_pow(doublings))
            .min(MAX_BACKOFF)
    }
}

/// The PSP clients of the connections, built once per connection as configured (the HTTP
/// client holds the mTLS identity and keeps connections; the token is cached in it).
#[derive(Default)]
pub struct Clients(Mutex<HashMap<String, (String, Arc<PspClient>)>>);

impl std::fmt::Debug for Clients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clients").finish_non_exhaustive()
    }
}

impl Clients {
    /// The client of this connection as it is now configured.
    pub fn get(
        &self,
        settings: &PixSettings,
        connection: &SealedConnection,
    ) -> std::result::Result<Arc<PspClient>, PspError> {
        let stamp = format!("{}/{}", connection.id, connection.configured_at);
        if let Some((known, client)) = self
            .0
            .lock()
            .expect("clients")
            .get(&connection.organization_id)
            && *known == stamp
        {
            return Ok(client.clone());
        }
        let client = Arc::new(PspClient::new(&open(settings, connection)?, settings)?);
        self.0
            .lock()
            .expect("clients")
            .insert(connection.organization_id.clone(), (stamp, client.clone()));
        Ok(client)
    }
}

/// The server's Pix secrets key.
fn secrets_key(settings: &PixSettings) -> std::result::Result<&SecretsKey, PspError> {
    settings
        .secrets_key
        .as_ref()
        .ok_or_else(|| PspError::Setup("this server has no Pix secrets key".into()))
}

/// The connection's credentials, opened with the server's key.
pub fn open(
    settings: &PixSettings,
    c: &SealedConnection,
) -> std::result::Result<Credentials, PspError> {
    let key = secrets_key(settings)?;
    if c.sealed_with != key.fingerprint() {
        return Err(PspError::Setup(format!(
            "the credentials were sealed with another Pix secrets key (fingerprint {}, this server's is {}): start the server with that key, or set the connection again",
            c.sealed_with,
            key.fingerprint()
        )));
    }
    let opened = |field: &str, sealed: &str| {
        key.open_text(&context(&c.organization_id, field), sealed)
            .map_err(|e| PspError::Setup(format!("{field}: {e}")))
    };
    Ok(Credentials {
        api_url: c.api_url.clone(),
        token_url: c.token_url.clone(),
        client_id: c.client_id.clone(),
        client_secret: opened("client_secret", &c.client_secret_sealed)?,
        certificate_pem: opened("certificate", &c.certificate_sealed)?,
        private_key_pem: opened("private_key", &c.private_key_sealed)?,
    })
}

/// What one tick did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TickReport {
    /// Cobv rows made due because their charge changed (or is new).
    pub noticed: usize,
    /// Cobvs mirrored (created, revised, removed, or found in need of nothing).
    pub mirrored: usize,
    /// Cobv attempts that failed (to be retried).
    pub failed: usize,
    /// Connections whose upkeep ran.
    pub upkept: usize,
    /// Devoluções the organization asked for, taken to the PSP or asked about.
    pub refunds: usize,
    /// Pix Automático requests and instalment debits taken to the PSP or looked at.
    pub automatic: usize,
}

/// Run for ever at the configured interval; errors are logged and the next tick tries again.
pub async fn run(engine: Engine) {
    let interval = engine.settings.pix.interval();
    super::run_worker(&engine, "pix", interval, || async {
        let report = tick(&engine, dunning_domain::timestamp::now()).await?;
        if report != TickReport::default() {
            tracing::info!(?report, "pix tick");
        }
        Ok::<(), dunning_store::StoreError>(())
    })
    .await
}

/// One pass at `now`: notice changed charges, mirror due cobvs, run due upkeep.
pub async fn tick(engine: &Engine, now: OffsetDateTime) -> Result<TickReport> {
    let mut report = TickReport {
        noticed: mirror::notice_changes(engine, now).await?,
        ..TickReport::default()
    };
    let (mirrored, failed) = mirror::mirror_due(engine, now).await?;
    report.mirrored = mirrored;
    report.failed = failed;
    report.upkept = upkeep::upkeep_due(engine, now).await?;
    report.refunds = refunds::refunds_due(engine, now).await?;
    report.automatic = automatic::automatic_due(engine, now).await?;
    Ok(report)
}

/// What a test of the connection found: whether a token came, and what the PSP has as the
/// webhook of the organization's key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestOutcome {
    pub token: std::result::Result<(), String>,
    /// `None` when the organization has no Pix key to ask about.
    pub webhook: Option<std::result::Result<WebhookAtPsp, String>>,
}

/// The webhook the PSP has for the organization's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookAtPsp {
    /// Ours: this connection's callback URL.
    Ours,
    /// Another URL.
    Other,
    /// None.
    Missing,
}

/// Test the organization's connection now: a token over mTLS, then `GET /webhook/{chave}`.
/// `None` when it has no connection.
pub async fn test(engine: &Engine, organization_id: &str) -> Result<Option<TestOutcome>> {
    let Some(connection) = store::sealed(&engine.db, organization_id).await? else {
        return Ok(None);
    };
    let settings = &engine.settings.pix;
    let client = match engine.pix.get(settings, &connection) {
        Ok(client) => client,
        Err(e) => {
            return Ok(Some(TestOutcome {
                token: Err(e.to_string()),
                webhook: None,
            }));
        }
    };
    if let Err(e) = client.fresh_token().await {
        return Ok(Some(TestOutcome {
            token: Err(e.to_string()),
            webhook: None,
        }));
    }
    let Some(key) = store::pix_key(&engine.db, organization_id).await? else {
        return Ok(Some(TestOutcome {
            token: Ok(()),
            webhook: None,
        }));
    };
    let ours = callback_url(settings, &connection).ok();
    let webhook = match client.get_webhook(&key).await {
        Ok(Some(url)) if Some(&url) == ours.as_ref() => Ok(WebhookAtPsp::Ours),
        Ok(Some(_)) => Ok(WebhookAtPsp::Other),
        Ok(None) => Ok(WebhookAtPsp::Missing),
        Err(e) => Err(e.to_string()),
    };
    Ok(Some(TestOutcome {
        token: Ok(()),
        webhook: Some(webhook),
    }))
}

/// The callback URL the PSP is given for this connection: the server's public URL and the
/// connection's secret, opened.
fn callback_url(
    settings: &PixSettings,
    c: &SealedConnection,
) -> std::result::Result<String, PspError> {
    let secret = secrets_key(settings)?
        .open_text(
            &context(&c.organization_id, "webhook_secret"),
            &c.webhook_secret_sealed,
        )
        .map_err(|e| PspError::Setup(format!("webhook_secret: {e}")))?;
    Ok(webhook_url(&settings.public_url, &secret))
}

/// The callback URL of a connection whose secret is `secret`: the PSP POSTs each Pix to it
/// with `/pix` added, as the API Pix says.
pub fn webhook_url(public_url: &str, secret: &str) -> String {
    format!("{}/pix/webhook/{secret}", public_url.trim_end_matches('/'))
}

/// When `day` begins in Brasília, as stored.
fn start_of(day: time::Date) -> String {
    timestamp_text(dunning_domain::calendar::start_of(day))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_wait_twice_as_long_each_time_up_to_an_hour() {
        let settings = PixSettings {
            interval: Some(Duration::from_secs(10)),
            ..PixSettings::default()
        };
        let waits: Vec<u64> = (1..=6).map(|n| settings.backoff(n).as_secs()).collect();
        assert_eq!(waits, vec![10, 20, 40, 80, 160, 320]);
        assert_eq!(settings.backoff(40), MAX_BACKOFF);
    }

    #[test]
    fn the_callback_url_carries_the_secret_under_our_public_url() {
        assert_eq!(
            webhook_url("https://cobranca.example.com.br/", "s3cr3t"),
            "https://cobranca.example.com.br/pix/webhook/s3cr3t"
        );
    }
}
