//! The outside parties of collection behind small traits: the channels that reach debtors
//! (e-mail, SMS, WhatsApp), credit bureaus and notaries.
//!
//! E-mail goes out over SMTP (`smtp`, through lettre) when `DUNNING_SMTP_URL` is set: the
//! providers are built once per engine, so the channel's pool of connections serves every
//! message. Each e-mail carries its customer's one-click unsubscribe link (`unsubscribe`). SMS
//! and WhatsApp go through Twilio (`twilio`) when its account and that channel's sender are
//! set. Everything else ships with a sandbox that does what a real party would, on this machine:
//!
//! - the sandbox channel records every message in `sandbox_messages` and reports it sent; its
//!   delivery receipt comes a minute later: `delivered`, or `bounced` for an e-mail whose local
//!   part starts with `bounce` or a phone ending in `9999`. An e-mail whose local part starts
//!   with `fail`, or a phone ending in `0000`, fails for a while (each attempt is retried);
//! - the sandbox bureau and notary accept every request and answer a minute after it was made
//!   (negativation active, removed; protest done, canceled).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use crate::Settings;
use dunning_store::Db;
use dunning_store::deliveries::{self, Delivery};

use super::smtp::{self, Mailer, SmtpError, SmtpSettings};
use super::twilio::{self, Messages, Reported, TwilioError};
use super::unsubscribe::Links;

/// A boxed future, so that providers can be trait objects.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How an attempt to send a message ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendResult {
    /// Accepted for delivery by the recipient's side: nothing more will be heard.
    Delivered,
    /// Handed over; a receipt (delivered or bounced) comes later, naming the message by
    /// `message_id` when the provider gave one.
    Sent { message_id: Option<String> },
    /// Not sent; worth trying again.
    Retry(String),
    /// Not sent, and not the message's fault: the provider asked us to slow down (Twilio's
    /// 429 and its `Retry-After`) or the sender's pace has no turn for it soon. It waits
    /// `wait`, and the wait is not counted as an attempt.
    Later { reason: String, wait: Duration },
    /// The address refused it.
    Bounced(String),
    /// Refused for good for another reason.
    Failed(String),
}

/// A later word on a sent message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Receipt {
    Delivered,
    Bounced(String),
}

/// A channel to debtors.
pub trait Channel: Send + Sync {
    /// Stored with each delivery it handles (`sandbox`, `smtp`).
    fn name(&self) -> &'static str;
    /// Send one queued delivery, signed with the organization's name.
    fn send<'a>(
        &'a self,
        db: &'a Db,
        delivery: &'a Delivery,
        from_name: &'a str,
    ) -> BoxFuture<'a, SendResult>;
    /// The receipt of a sent delivery, when this channel gets receipts.
    fn receipt(&self, delivery: &Delivery) -> Option<Receipt>;
    /// How many messages this channel sends at once (its bound in a burst).
    fn concurrency(&self) -> usize {
        DEFAULT_CONCURRENCY
    }
    /// How many due deliveries the engine claims for this channel at once: what it can send
    /// well within a claim's lease.
    fn claim_size(&self) -> usize {
        DEFAULT_CLAIM_SIZE
    }
}

/// Messages a channel without its own bound (the sandbox) sends at once.
const DEFAULT_CONCURRENCY: usize = 8;

/// Deliveries claimed at once for a channel without a pace of its own: enough that a claim and
/// its record are a small share of the work, few enough that a batch takes seconds.
const DEFAULT_CLAIM_SIZE: usize = 256;

/// How a bureau or notary answered a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartyAnswer {
    /// Done as asked.
    Done,
    /// Not reachable or not ready; ask again later.
    Retry(String),
}

/// A request to a credit bureau or a notary.
#[derive(Debug, Clone)]
pub struct PartyRequest<'a> {
    pub organization_id: &'a str,
    pub charge_id: &'a str,
    /// `negativation`, `negativation_removal`, `protest`, `protest_cancel`.
    pub kind: &'a str,
    /// The bureau (`serasa`, `boa_vista`, `spc`) or `notary`.
    pub party: &'a str,
}

/// A credit bureau or a notary.
pub trait Party: Send + Sync {
    /// Who answered, as the audit trail names it (`serasa (sandbox)`).
    fn actor_name(&self, party: &str) -> String;
    fn submit<'a>(&'a self, request: &'a PartyRequest<'a>) -> BoxFuture<'a, PartyAnswer>;
}

/// How long the sandbox takes to answer (delivery receipts, bureau and notary answers).
pub const SANDBOX_DELAY: Duration = Duration::from_secs(60);

/// The providers the engine uses, chosen from the configuration.
pub struct Providers {
    pub email: Box<dyn Channel>,
    pub sms: Box<dyn Channel>,
    pub whatsapp: Box<dyn Channel>,
    pub bureau: Box<dyn Party>,
    pub notary: Box<dyn Party>,
}

impl Providers {
    /// SMTP for e-mail and Twilio for SMS and WhatsApp when configured, the sandbox for the
    /// rest. A configured but invalid SMTP URL or DKIM key keeps e-mails queued (retried, with
    /// the reason) rather than sending them to the sandbox behind the operator's back; the
    /// server checks them with [`Providers::check`] before it starts, so only an embedding
    /// that skipped the check meets this.
    pub fn from_settings(settings: &Settings) -> Providers {
        let working = |channel: Result<Box<dyn Channel>, String>| match channel {
            Ok(channel) => channel,
            Err(e) => Box::new(Misconfigured(e)) as Box<dyn Channel>,
        };
        Providers {
            email: working(email_channel(settings)),
            sms: working(phone_channel(settings, "sms")),
            whatsapp: working(phone_channel(settings, "whatsapp")),
            bureau: Box::new(SandboxParty),
            notary: Box::new(SandboxParty),
        }
    }

    /// Whether the settings make working providers: the SMTP URL, its CA file and the DKIM
    /// key, each read now, and Twilio's HTTP client. The error names the setting.
    pub fn check(settings: &Settings) -> Result<(), String> {
        email_channel(settings)?;
        phone_channel(settings, "sms")?;
        phone_channel(settings, "whatsapp").map(drop)
    }

    pub fn channel(&self, name: &str) -> &dyn Channel {
        match name {
            "email" => self.email.as_ref(),
            "sms" => self.sms.as_ref(),
            _ => self.whatsapp.as_ref(),
        }
    }

    /// The channel that handled deliveries stored with `provider`, if it is one of ours.
    pub fn by_provider(&self, provider: &str) -> Option<&dyn Channel> {
        [
            self.email.as_ref(),
            self.sms.as_ref(),
            self.whatsapp.as_ref(),
        ]
        .into_iter()
        .find(|c| c.name() == provider)
    }
}

fn email_channel(settings: &Settings) -> Result<Box<dyn Channel>, String> {
    match settings.smtp_url.as_deref() {
        None if settings.dkim.is_some() => {
            Err("--dkim-key-file and --dkim-selector sign SMTP mail: give --smtp-url too".into())
        }
        None => Ok(Box::new(SandboxChannel)),
        Some(url) => {
            let parsed = SmtpSettings::parse(url).map_err(|e| format!("DUNNING_SMTP_URL: {e}"))?;
            let mailer = Mailer::new(
                parsed,
                settings.dkim.as_ref(),
                settings.sending.smtp_connections,
            )
            .map_err(|e| format!("DUNNING_SMTP_URL: {e}"))?;
            Ok(Box::new(SmtpChannel {
                mailer,
                unsubscribe: settings.unsubscribe.clone(),
            }))
        }
    }
}

/// Twilio for `channel` (`sms`, `whatsapp`) when its account has that channel's sender,
/// else the sandbox.
fn phone_channel(settings: &Settings, channel: &str) -> Result<Box<dyn Channel>, String> {
    let Some(twilio) = &settings.twilio else {
        return Ok(Box::new(SandboxChannel));
    };
    Ok(
        match Messages::new(
            &twilio.account,
            channel,
            &twilio.callback_base,
            settings.sending.twilio_rate(channel),
        )? {
            Some(messages) => Box::new(TwilioChannel { messages }),
            None => Box::new(SandboxChannel),
        },
    )
}

/// Records instead of sending, and simulates receipts.
pub struct SandboxChannel;

fn local_part(recipient: &str) -> &str {
    recipient.split('@').next().unwrap_or_default()
}

impl Channel for SandboxChannel {
    fn name(&self) -> &'static str {
        "sandbox"
    }

    fn send<'a>(
        &'a self,
        db: &'a Db,
        delivery: &'a Delivery,
        _from_name: &'a str,
    ) -> BoxFuture<'a, SendResult> {
        Box::pin(async move {
            let r = delivery.recipient.to_lowercase();
            if local_part(&r).starts_with("fail") || (!r.contains('@') && r.ends_with("0000")) {
                return SendResult::Retry("sandbox: simulated temporary failure".into());
            }
            let mut conn = match db.pool.acquire().await {
                Ok(c) => c,
                Err(e) => return SendResult::Retry(format!("sandbox: {e}")),
            };
            match deliveries::record_sandbox_message(
                &mut conn,
                delivery,
                &dunning_store::now_text(),
            )
            .await
            {
                Ok(()) => SendResult::Sent { message_id: None },
                Err(e) => SendResult::Retry(format!("sandbox: {e}")),
            }
        })
    }

    fn receipt(&self, delivery: &Delivery) -> Option<Receipt> {
        let r = delivery.recipient.to_lowercase();
        if local_part(&r).starts_with("bounce") || (!r.contains('@') && r.ends_with("9999")) {
            Some(Receipt::Bounced(
                "sandbox: the recipient's mailbox or number does not exist".into(),
            ))
        } else {
            Some(Receipt::Delivered)
        }
    }
}

/// E-mail over SMTP: one [`Mailer`] (and its pool of connections) for every message, each
/// with its customer's one-click unsubscribe link.
pub struct SmtpChannel {
    pub mailer: Mailer,
    /// How each message's unsubscribe link is made; `None`: messages carry none.
    pub unsubscribe: Option<Links>,
}

impl Channel for SmtpChannel {
    fn name(&self) -> &'static str {
        "smtp"
    }

    fn send<'a>(
        &'a self,
        _db: &'a Db,
        delivery: &'a Delivery,
        from_name: &'a str,
    ) -> BoxFuture<'a, SendResult> {
        Box::pin(async move {
            // RFC 8058 asks for an https URL, and mailbox providers offer their unsubscribe
            // button only for one: production runs with `--canonical-url https://...`. A local
            // run's http URL still gets the headers and the link, which work the same.
            let unsubscribe = self.unsubscribe.as_ref().map(|links| {
                links.url(
                    &delivery.organization_id,
                    &delivery.customer_id,
                    &delivery.channel,
                )
            });
            let email = smtp::Email {
                to: &delivery.recipient,
                from_name,
                subject: delivery.subject.as_deref().unwrap_or("Aviso de cobrança"),
                body: &delivery.body,
                reference: &delivery.id,
                unsubscribe: unsubscribe.as_deref(),
            };
            match self.mailer.send(&email).await {
                Ok(()) => SendResult::Delivered,
                Err(SmtpError::Rejected(e)) => SendResult::Bounced(e),
                Err(SmtpError::Refused(e)) => SendResult::Failed(e),
                Err(SmtpError::Transient(e)) => SendResult::Retry(e),
            }
        })
    }

    fn receipt(&self, _delivery: &Delivery) -> Option<Receipt> {
        None
    }

    fn concurrency(&self) -> usize {
        self.mailer.connections()
    }
}

/// SMS or WhatsApp through Twilio; its receipts come as status callbacks, to the server.
pub struct TwilioChannel {
    pub messages: Messages,
}

impl Channel for TwilioChannel {
    fn name(&self) -> &'static str {
        twilio::PROVIDER
    }

    fn send<'a>(
        &'a self,
        _db: &'a Db,
        delivery: &'a Delivery,
        _from_name: &'a str,
    ) -> BoxFuture<'a, SendResult> {
        Box::pin(async move {
            match self.messages.send(delivery).await {
                Ok(message_id) => SendResult::Sent { message_id },
                Err(TwilioError::Rejected(e)) => SendResult::Bounced(e),
                Err(TwilioError::Refused(e)) => SendResult::Failed(e),
                Err(TwilioError::Transient(e)) => SendResult::Retry(e),
                Err(TwilioError::Later { category, wait }) => SendResult::Later {
                    reason: category,
                    wait,
                },
            }
        })
    }

    fn receipt(&self, _delivery: &Delivery) -> Option<Receipt> {
        None
    }

    fn concurrency(&self) -> usize {
        twilio::CONCURRENCY
    }

    fn claim_size(&self) -> usize {
        self.messages.pace.claim_size().min(DEFAULT_CLAIM_SIZE)
    }
}

impl From<Reported> for Receipt {
    fn from(reported: Reported) -> Receipt {
        match reported {
            Reported::Delivered => Receipt::Delivered,
            Reported::Undelivered(category) => Receipt::Bounced(category),
        }
    }
}

/// Stands in for a channel whose configuration is wrong: every attempt is retried with the
/// reason, so the operator sees it on the deliveries.
struct Misconfigured(String);

impl Channel for Misconfigured {
    fn name(&self) -> &'static str {
        "misconfigured"
    }

    fn send<'a>(
        &'a self,
        _db: &'a Db,
        _delivery: &'a Delivery,
        _from_name: &'a str,
    ) -> BoxFuture<'a, SendResult> {
        Box::pin(async move { SendResult::Retry(self.0.clone()) })
    }

    fn receipt(&self, _delivery: &Delivery) -> Option<Receipt> {
        None
    }
}

/// A bureau or notary that accepts everything; the delay is in when the engine asks it.
pub struct SandboxParty;

impl Party for SandboxParty {
    fn actor_name(&self, party: &str) -> String {
        format!("{party} (sandbox)")
    }

    fn submit<'a>(&'a self, _request: &'a PartyRequest<'a>) -> BoxFuture<'a, PartyAnswer> {
        Box::pin(async { PartyAnswer::Done })
    }
}
