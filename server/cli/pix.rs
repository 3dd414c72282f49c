//! The command line's Pix: the server's flags for the Pix worker and the PSP connections
//! (`PixArgs`, flattened into `serve`), the key their secrets are sealed with, and
//! `kobana-dunning pix connect`, which sets an organization's PSP connection from files
//! (the operator's way, so that the certificate's private key never travels through an API
//! client).

use dunning_store::pix_psp::Account;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use http::HeaderName;

use super::DatabaseArgs;
use super::commands::find_organization;
use super::parse::parse_duration;
use crate::config::PixConfig;
use dunning_engine::pix::PixSettings;
use dunning_engine::pix::connect::{self, ConnectionInput};
use dunning_engine::pix::sealed::SecretsKey;
use dunning_store::Db;
use dunning_store::events::Actor;

/// The name the key kept in the database has in `server_secrets`.
const KEPT_KEY: &str = "pix_secrets";

/// The key the PSP connections' secrets are sealed with (never logged).
#[derive(Args, Clone, Debug)]
pub struct PixKeyArgs {
    /// Key the PSP connections' secrets (client secret, certificate, private key) are sealed
    /// with, at least 16 characters; without it, a key made once and kept in the database.
    /// Give every replica, and `pix connect`, the same.
    #[arg(long, env = "DUNNING_PIX_SECRETS_KEY", hide_env_values = true)]
    pub pix_secrets_key: Option<String>,
}

impl PixKeyArgs {
    /// `--pix-secrets-key`, else the key kept in the database (made now on a first start).
    pub async fn key(&self, db: &Db) -> Result<SecretsKey, String> {
        match &self.pix_secrets_key {
            Some(secret) if secret.len() < 16 => {
                Err("the Pix secrets key must have at least 16 characters".into())
            }
            Some(secret) => Ok(SecretsKey::from_secret(secret.as_bytes())),
            None => match dunning_store::secrets::get_or_create(db, KEPT_KEY).await {
                Ok(secret) => Ok(SecretsKey::from_secret(&secret)),
                // A read-only database: no connection can be set anyway, and the ones there
                // were sealed with a key this process cannot read back.
                Err(e) if db.read_only => {
                    tracing::warn!("no Pix secrets key in the read-only database ({e})");
                    Ok(SecretsKey::from_secret(&crate::config::random_secret()))
                }
                Err(e) => Err(format!("cannot read or keep the Pix secrets key: {e}")),
            },
        }
    }
}

/// The server's Pix flags.
#[derive(Args, Clone, Debug)]
pub struct PixArgs {
    #[command(flatten)]
    pub key: PixKeyArgs,
    /// How often the Pix worker looks for cobvs to create, revise or remove at the PSPs, e.g.
    /// `10s` (the default); a failed call waits this long, then twice as long each time.
    #[arg(long, env = "DUNNING_PIX_INTERVAL", default_value = "10s", value_parser = parse_duration)]
    pub pix_interval: Duration,
    /// How often each PSP connection's Pix are read back (`GET /pix`) for callbacks that never
    /// came, e.g. `30m` (the default).
    #[arg(long, env = "DUNNING_PIX_SWEEP_INTERVAL", default_value = "30m", value_parser = parse_duration)]
    pub pix_sweep_interval: Duration,
    /// Let PSP URLs reach loopback and private networks (development and tests only; cloud
    /// metadata addresses stay refused).
    #[arg(long, env = "DUNNING_ALLOW_PRIVATE_PIX_PSP")]
    pub allow_private_pix_psp: bool,
    /// PEM file of CA certificates trusted for PSPs besides the public roots (a PSP's
    /// homologation environment, a test PSP).
    #[arg(long, env = "DUNNING_PIX_CA_FILE")]
    pub pix_ca_file: Option<PathBuf>,
    /// `NAME: VALUE`: refuse Pix callbacks without this header, which the reverse proxy that
    /// verified the PSP's client certificate sets (and strips from what clients send), e.g.
    /// `X-Client-Verify: SUCCESS`.
    #[arg(long, env = "DUNNING_PIX_WEBHOOK_REQUIRE_HEADER", value_parser = parse_header)]
    pub pix_webhook_require_header: Option<(HeaderName, String)>,
}

/// `NAME: VALUE` (or `NAME=VALUE`).
pub fn parse_header(text: &str) -> Result<(HeaderName, String), String> {
    let (name, value) = text
        .split_once(':')
        .or_else(|| text.split_once('='))
        .ok_or("give the header as NAME: VALUE, e.g. 'X-Client-Verify: SUCCESS'")?;
    let name =
        HeaderName::try_from(name.trim()).map_err(|_| format!("'{name}' is not a header name"))?;
    let value = value.trim();
    if value.is_empty() || http::HeaderValue::from_str(value).is_err() {
        return Err(format!("'{value}' is not a header value"));
    }
    Ok((name, value.to_string()))
}

impl PixArgs {
    /// The configuration these flags and the database give.
    pub async fn config(&self, db: &Db) -> Result<PixConfig, String> {
        let ca_pem = match &self.pix_ca_file {
            Some(path) => Some(
                std::fs::read(path)
                    .map_err(|e| format!("cannot read --pix-ca-file {}: {e}", path.display()))?,
            ),
            None => None,
        };
        if let Some(pem) = &ca_pem {
            match reqwest::Certificate::from_pem_bundle(pem) {
                Ok(certificates) if !certificates.is_empty() => {}
                _ => return Err("--pix-ca-file holds no PEM certificate".into()),
            }
        }
        Ok(PixConfig {
            secrets_key: self.key.key(db).await?,
            interval: self.pix_interval,
            sweep_interval: self.pix_sweep_interval,
            allow_private_psp: self.allow_private_pix_psp,
            ca_pem,
            webhook_require_header: self.pix_webhook_require_header.clone(),
        })
    }
}

#[derive(Args)]
pub struct PixConnectArgs {
    /// Organization id or exact name.
    #[arg(long)]
    pub organization: String,
    /// The base URL of the PSP's API Pix, https://.
    #[arg(long)]
    pub api_url: String,
    /// The PSP's OAuth 2.0 token endpoint (default: `<api-url>/oauth/token`).
    #[arg(long)]
    pub token_url: Option<String>,
    /// The OAuth client id the PSP issued.
    #[arg(long)]
    pub client_id: String,
    /// A file whose first line is the OAuth client secret.
    #[arg(long)]
    pub client_secret_file: PathBuf,
    /// The mTLS client certificate (PEM file; its chain may follow).
    #[arg(long)]
    pub certificate: PathBuf,
    /// The certificate's private key (PEM file, not encrypted).
    #[arg(long)]
    pub private_key: PathBuf,
    /// Let the URLs reach loopback and private networks (as the server's flag of the name).
    #[arg(long, env = "DUNNING_ALLOW_PRIVATE_PIX_PSP")]
    pub allow_private_pix_psp: bool,
    /// The organization's account number at the PSP (1 to 20 letters and digits), which Pix
    /// Automático debits into; without it no Pix Automático can be asked for.
    #[arg(long)]
    pub account_number: Option<String>,
    /// The account's branch (agência, 1 to 4 digits).
    #[arg(long, requires = "account_number")]
    pub account_branch: Option<String>,
    /// The account's type.
    #[arg(long, requires = "account_number", default_value = "checking",
          value_parser = ["checking", "savings", "payment"])]
    pub account_type: String,
    #[command(flatten)]
    pub key: PixKeyArgs,
    #[command(flatten)]
    pub database: DatabaseArgs,
}

fn read(path: &PathBuf, what: &str) -> Result<String, String> {
    std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the {what} {}: {e}", path.display()))
}

/// The account of `--account-number` and its companions, checked as the API checks them.
fn account(args: &PixConnectArgs) -> Result<Option<Account<'_>>, String> {
    let Some(number) = &args.account_number else {
        return Ok(None);
    };
    if !(1..=20).contains(&number.len()) || !number.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err("--account-number: 1 to 20 letters and digits".into());
    }
    if let Some(branch) = &args.account_branch
        && (!(1..=4).contains(&branch.len()) || !branch.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err("--account-branch: 1 to 4 digits".into());
    }
    Ok(Some(Account {
        branch: args.account_branch.as_deref(),
        number,
        kind: &args.account_type,
    }))
}

/// `pix connect`: check, seal and store the connection; prints its id.
pub async fn connect_command(args: PixConnectArgs) -> Result<(), String> {
    let (db, _) = args.database.open().await?;
    let org = find_organization(&db, &args.organization).await?;
    let secret = read(&args.client_secret_file, "client secret file")?;
    let secret = secret
        .lines()
        .next()
        .unwrap_or_default()
        .trim_end_matches('\r');
    let certificate = read(&args.certificate, "certificate")?;
    let private_key = read(&args.private_key, "private key")?;
    let settings = PixSettings {
        allow_private: args.allow_private_pix_psp,
        secrets_key: Some(args.key.key(&db).await?),
        ..PixSettings::default()
    };
    let existing = dunning_store::pix_psp::get(&db, &org.id)
        .await
        .map_err(|e| e.to_string())?;
    let prepared = connect::prepare(
        &settings,
        &org.id,
        existing.as_ref().map(|c| c.id.as_str()),
        &ConnectionInput {
            api_url: &args.api_url,
            token_url: args.token_url.as_deref(),
            client_id: &args.client_id,
            client_secret: secret,
            certificate_pem: &certificate,
            private_key_pem: &private_key,
        },
    )
    .map_err(|faults| {
        faults
            .iter()
            .map(|f| format!("{}: {}", f.field, f.message))
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    let actor = Actor {
        kind: "system",
        id: None,
        name: Some("kobana-dunning pix connect".into()),
    };
    let account = account(&args)?;
    let mut tx = db.begin().await.map_err(|e| e.to_string())?;
    let replaced = dunning_app::pix_received::connect(&mut tx, &org.id, &prepared.row(), &actor)
        .await
        .map_err(|e| format!("{e:?}"))?;
    dunning_app::automatic_pix::set_account(&mut tx, &org.id, account, &dunning_store::now_text())
        .await
        .map_err(|e| e.to_string())?;
    tx.commit().await.map_err(|e| e.to_string())?;
    eprintln!(
        "{} the PSP connection of {} ({}) to {}: the running server registers its webhook and creates the open charges' cobvs on its next look",
        if replaced { "Replaced" } else { "Set" },
        org.name,
        org.id,
        prepared.api_url,
    );
    println!("{}", prepared.id);
    Ok(())
}
