//! Debtor e-mails over SMTP, through `lettre`: STARTTLS required on `smtp://` (a relay that
//! does not offer it is refused), implicit TLS on `smtps://`, `AUTH PLAIN`/`LOGIN`, a few
//! connections per channel (`--smtp-connections`, 4 by default) kept open and reused across
//! messages, so that a due-day burst goes out over several at once, each opened with the same
//! TLS and AUTH rules; certificates checked against the Mozilla roots (`webpki-roots`) plus an
//! optional CA file, and DKIM signing when a key is configured. lettre speaks the protocol;
//! this module chooses TLS, keeps the connections and says what each failure means for the
//! delivery.
//!
//! Every message is `multipart/alternative`: the delivery's text, and the same text in an HTML
//! page from `templates/notice.html` (askama, escaped), where a paragraph that is a Pix code
//! (a BR Code whose lengths and CRC check out) is set apart in a monospace box, easy to select. The relay's words never leave this
//! module except as a short category (`smtp: TLS handshake failed`); the full reply is logged.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use askama::Template;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use dunning_domain::pix::brcode;
use lettre::address::Envelope;
use lettre::message::dkim::{
    DkimCanonicalization, DkimCanonicalizationType, DkimConfig, DkimSigningAlgorithm,
    DkimSigningKey,
};
use lettre::message::header::{Header, HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::authentication::{Credentials, Mechanism};
use lettre::transport::smtp::client::{AsyncSmtpConnection, Certificate, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use lettre::{Address, Message};

/// How the connection to the relay is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    /// `smtp://`: plain TCP upgraded with STARTTLS, which the relay must offer.
    StartTls,
    /// `smtps://`: TLS from the first byte (port 465).
    Implicit,
    /// `smtp://...?tls=none`: no TLS at all, allowed only to a loopback relay.
    None,
}

/// Where and how to send, from
/// `smtp[s]://[user[:password]@]host[:port][?from=&reply_to=&tls=none&ca_file=&timeout=]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmtpSettings {
    pub host: String,
    pub port: u16,
    pub security: Security,
    pub username: Option<String>,
    pub password: Option<String>,
    /// Envelope sender and `From` address; its domain names the `Message-ID` and DKIM.
    pub from: String,
    /// `Reply-To`, when answers should go elsewhere than `from`.
    pub reply_to: Option<String>,
    /// PEM certificates of a private relay's CA, trusted besides the public roots.
    pub ca_file: Option<PathBuf>,
    /// The longest the connection takes to open, and the longest one message's exchange takes.
    pub timeout: Duration,
}

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

impl SmtpSettings {
    /// Parse an `smtp://` or `smtps://` URL; the port defaults to 587 (STARTTLS), 465
    /// (implicit TLS) or 25 (`tls=none`), the sender to `nao-responda@<host>`. Refused: an
    /// unknown option, `tls=none` to a host that is not loopback.
    pub fn parse(url: &str) -> Result<SmtpSettings, String> {
        let (mut security, rest) = if let Some(rest) = url.strip_prefix("smtps://") {
            (Security::Implicit, rest)
        } else if let Some(rest) = url.strip_prefix("smtp://") {
            (Security::StartTls, rest)
        } else {
            return Err("the SMTP URL must start with smtp:// or smtps://".into());
        };
        let (authority, query) = rest.split_once('?').unwrap_or((rest, ""));
        let authority = authority.trim_end_matches('/');
        let (credentials, address) = match authority.rsplit_once('@') {
            Some((c, a)) => (Some(c), a),
            None => (None, authority),
        };
        let (username, password) = match credentials {
            Some(c) => {
                let (u, p) = c.split_once(':').unwrap_or((c, ""));
                (Some(percent_decode(u)), Some(percent_decode(p)))
            }
            None => (None, None),
        };
        let (host, port) = host_and_port(address)?;
        if host.is_empty() {
            return Err("the SMTP URL has no host".into());
        }
        let (mut from, mut reply_to, mut ca_file, mut timeout) = (None, None, None, None);
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            match key.as_ref() {
                "from" => from = Some(value.to_string()),
                "reply_to" => reply_to = Some(value.to_string()),
                "ca_file" => ca_file = Some(PathBuf::from(value.as_ref())),
                "timeout" => {
                    let seconds = value
                        .parse::<u64>()
                        .ok()
                        .filter(|s| (1..=600).contains(s))
                        .ok_or_else(|| {
                            format!("timeout={value}: give whole seconds from 1 to 600")
                        })?;
                    timeout = Some(Duration::from_secs(seconds));
                }
                "tls" => match (value.as_ref(), security) {
                    ("none", Security::StartTls) => security = Security::None,
                    ("starttls", Security::StartTls) => {}
                    (_, Security::Implicit) => {
                        return Err("smtps:// is always TLS: leave out the tls option".into());
                    }
                    (other, _) => {
                        return Err(format!("tls={other}: the choices are starttls and none"));
                    }
                },
                other => {
                    return Err(format!(
                        "unknown SMTP URL option '{other}' (known: from, reply_to, tls, ca_file, timeout)"
                    ));
                }
            }
        }
        if security == Security::None && !loopback(&host) {
            return Err(format!(
                "tls=none sends credentials and debtors' data in clear text; it is allowed only \
                 to a relay on loopback (127.0.0.1, ::1, localhost), not to {host}"
            ));
        }
        if security == Security::None && ca_file.is_some() {
            return Err("ca_file has no use with tls=none".into());
        }
        let from = from.unwrap_or_else(|| format!("nao-responda@{host}"));
        for (what, address) in [("sender", Some(&from)), ("reply_to", reply_to.as_ref())] {
            if let Some(address) = address
                && address.parse::<Address>().is_err()
            {
                return Err(format!(
                    "the {what} address '{address}' is not a plain e-mail address"
                ));
            }
        }
        let default_port = match security {
            Security::StartTls => 587,
            Security::Implicit => 465,
            Security::None => 25,
        };
        Ok(SmtpSettings {
            host,
            port: port.unwrap_or(default_port),
            security,
            username,
            password,
            from,
            reply_to,
            ca_file,
            timeout: timeout.unwrap_or(DEFAULT_TIMEOUT),
        })
    }

    /// The domain of the sender: of the `Message-ID`, the DKIM signature and `EHLO`.
    pub fn sender_domain(&self) -> &str {
        self.from.rsplit('@').next().unwrap_or("localhost")
    }
}

/// `host`, `host:port`, `[v6]` or `[v6]:port`.
fn host_and_port(address: &str) -> Result<(String, Option<u16>), String> {
    let port = |p: &str| {
        p.parse::<u16>()
            .map_err(|_| format!("the SMTP port '{p}' is not a number"))
    };
    if let Some(rest) = address.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or("the SMTP URL has an unclosed [ in its host")?;
        return match after.strip_prefix(':') {
            Some(p) => Ok((host.to_string(), Some(port(p)?))),
            None if after.is_empty() => Ok((host.to_string(), None)),
            None => Err(format!("unexpected '{after}' after the SMTP host")),
        };
    }
    match address.rsplit_once(':') {
        Some((h, p)) => Ok((h.to_string(), Some(port(p)?))),
        None => Ok((address.to_string(), None)),
    }
}

fn loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn percent_decode(text: &str) -> String {
    form_urlencoded::parse(format!("x={}", text.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.to_string())
        .unwrap_or_default()
}

/// Where the DKIM key is and under which selector its public half is published
/// (`<selector>._domainkey.<sender domain>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DkimSettings {
    /// A PEM file: an RSA key (PKCS#1 or PKCS#8) or an Ed25519 key (PKCS#8).
    pub key_file: PathBuf,
    pub selector: String,
}

/// Why a message did not go, as a short category for the delivery (never the relay's text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SmtpError {
    /// The relay refused the recipient for good (a 5xx about the mailbox): bounced.
    Rejected(String),
    /// Refused for good for another reason (TLS, authentication, STARTTLS missing, another
    /// 5xx): failed.
    Refused(String),
    /// A 4xx, a network failure or a timeout: worth trying again later.
    Transient(String),
}

/// One e-mail.
#[derive(Debug, Clone)]
pub struct Email<'a> {
    pub to: &'a str,
    pub from_name: &'a str,
    pub subject: &'a str,
    /// The text; the HTML part is made from it.
    pub body: &'a str,
    /// Goes into `Message-ID` so a message can be traced back to its delivery.
    pub reference: &'a str,
    /// An https URL for one-click unsubscribe (RFC 8058): when given, the message carries
    /// `List-Unsubscribe` and `List-Unsubscribe-Post`, both covered by the DKIM signature.
    pub unsubscribe: Option<&'a str>,
}

/// How long a connection may sit unused between messages and still be reused; an older one
/// is closed and a new one opened.
const IDLE: Duration = Duration::from_secs(60);

/// How many connections a mailer keeps to its relay unless told otherwise.
pub const DEFAULT_CONNECTIONS: usize = 4;

/// A channel's way out, built once: the settings, the TLS parameters (the CA file read), the
/// credentials, the DKIM key, and the connections kept open between messages.
pub struct Mailer {
    settings: SmtpSettings,
    tls: Option<TlsParameters>,
    credentials: Option<Credentials>,
    hello: ClientId,
    dkim: Option<DkimConfig>,
    /// The most connections open at once.
    connections: usize,
    /// One permit per connection the mailer may have open: a message takes one for its whole
    /// exchange, so at most that many conversations with the relay run at once.
    slots: tokio::sync::Semaphore,
    /// The open connections nobody is using, each reused by a later message while the relay
    /// keeps it (a NOOP checks it first). A message that fails or times out takes its
    /// connection with it, so a conversation left half-way is never reused.
    idle: std::sync::Mutex<Vec<(AsyncSmtpConnection, Instant)>>,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailer")
            .field("host", &self.settings.host)
            .field("port", &self.settings.port)
            .field("security", &self.settings.security)
            .field("dkim", &self.dkim.is_some())
            .field("connections", &self.connections)
            .finish_non_exhaustive()
    }
}

/// Where an exchange with the relay stopped.
#[derive(Debug)]
enum Failure {
    /// The TCP connection could not be opened (refused, unreachable, no address).
    Unreachable(std::io::Error),
    /// Connecting, the greeting, EHLO or the TLS handshake (implicit or STARTTLS).
    Connect(lettre::transport::smtp::Error),
    /// `smtp://` and the relay's EHLO does not offer STARTTLS.
    NoStartTls,
    /// `AUTH` refused, or no mechanism in common.
    Auth(lettre::transport::smtp::Error),
    /// `MAIL`, `RCPT` or `DATA` and the message.
    Send(lettre::transport::smtp::Error),
}

impl Mailer {
    /// The TLS parameters for these settings (the CA file read now) and the DKIM key (read
    /// now): whatever is wrong is said at start-up, before any message. At most
    /// `connections` (at least 1) are open at once.
    pub fn new(
        settings: SmtpSettings,
        dkim: Option<&DkimSettings>,
        connections: usize,
    ) -> Result<Mailer, String> {
        let tls = match settings.security {
            Security::None => None,
            Security::StartTls | Security::Implicit => Some(tls_parameters(&settings)?),
        };
        let credentials = settings.username.as_ref().map(|user| {
            Credentials::new(user.clone(), settings.password.clone().unwrap_or_default())
        });
        let dkim = dkim
            .map(|d| dkim_config(d, settings.sender_domain()))
            .transpose()?;
        Ok(Mailer {
            hello: ClientId::Domain(settings.sender_domain().to_string()),
            settings,
            tls,
            credentials,
            dkim,
            connections: connections.max(1),
            slots: tokio::sync::Semaphore::new(connections.max(1)),
            idle: std::sync::Mutex::new(Vec::new()),
        })
    }

    pub fn settings(&self) -> &SmtpSettings {
        &self.settings
    }

    /// The most connections this mailer has open at once: how many messages it sends at once.
    pub fn connections(&self) -> usize {
        self.connections
    }

    /// Send one message; Ok once the relay accepted it for delivery.
    pub async fn send(&self, email: &Email<'_>) -> Result<(), SmtpError> {
        let message = self.message(email, dunning_domain::timestamp::now().into())?;
        let bytes = message.formatted();
        let _slot = self
            .slots
            .acquire()
            .await
            .expect("the mailer never closes its slots");
        // The most recently used connection: the likeliest to be still open.
        let mut kept = self.idle.lock().expect("no panic holds the lock").pop();
        let exchange = self.exchange(&mut kept, message.envelope(), &bytes);
        let outcome = tokio::time::timeout(self.settings.timeout, exchange).await;
        if let Some(connection) = kept {
            self.idle
                .lock()
                .expect("no panic holds the lock")
                .push(connection);
        }
        let failure = match outcome {
            Ok(Ok(())) => return Ok(()),
            Ok(Err(failure)) => failure,
            Err(_) => {
                tracing::warn!(
                    delivery = email.reference,
                    relay = %self.settings.host,
                    "SMTP exchange timed out"
                );
                return Err(SmtpError::Transient(
                    "smtp: the relay did not answer in time".into(),
                ));
            }
        };
        let outcome = classify(&failure);
        let detail = match &failure {
            Failure::NoStartTls => "EHLO offered no STARTTLS".to_string(),
            Failure::Unreachable(e) => e.to_string(),
            Failure::Connect(e) | Failure::Auth(e) | Failure::Send(e) => error_chain(e),
        };
        tracing::warn!(
            delivery = email.reference,
            relay = %self.settings.host,
            outcome = ?outcome,
            "SMTP relay did not take the message: {detail}"
        );
        Err(outcome)
    }

    /// One message over the kept connection, or a new one; the connection is kept again
    /// only after a message it carried was accepted.
    async fn exchange(
        &self,
        slot: &mut Option<(AsyncSmtpConnection, Instant)>,
        envelope: &Envelope,
        bytes: &[u8],
    ) -> Result<(), Failure> {
        let kept = match slot.take() {
            Some((mut conn, since)) if since.elapsed() < IDLE => {
                if conn.test_connected().await {
                    Some(conn)
                } else {
                    conn.abort().await;
                    None
                }
            }
            Some((mut conn, _)) => {
                conn.abort().await;
                None
            }
            None => None,
        };
        let mut conn = match kept {
            Some(conn) => conn,
            None => self.connect().await?,
        };
        conn.send(envelope, bytes).await.map_err(Failure::Send)?;
        if !conn.has_broken() {
            *slot = Some((conn, Instant::now()));
        }
        Ok(())
    }

    /// A new connection: TLS as the settings say, then AUTH when there are credentials.
    async fn connect(&self) -> Result<AsyncSmtpConnection, Failure> {
        let settings = &self.settings;
        let implicit = match settings.security {
            Security::Implicit => self.tls.clone(),
            Security::StartTls | Security::None => None,
        };
        let mut conn = match implicit {
            Some(tls) => AsyncSmtpConnection::connect_tokio1(
                (settings.host.as_str(), settings.port),
                Some(settings.timeout),
                &self.hello,
                Some(tls),
                None,
            )
            .await
            .map_err(Failure::Connect)?,
            None => {
                // Our own socket, without Nagle's algorithm: lettre writes a message's body and
                // its final "." apart, and with Nagle the second write waits for the relay to
                // acknowledge the first, which a relay waiting for the rest of the message
                // delays (40 ms on Linux): 25 messages a second per connection at best.
                // lettre's own connect (implicit TLS above) gives no way to set it.
                let tcp = tokio::net::TcpStream::connect((settings.host.as_str(), settings.port))
                    .await
                    .map_err(Failure::Unreachable)?;
                tcp.set_nodelay(true).map_err(Failure::Unreachable)?;
                AsyncSmtpConnection::connect_with_transport(Box::new(tcp), &self.hello)
                    .await
                    .map_err(Failure::Connect)?
            }
        };
        if settings.security == Security::StartTls {
            let Some(tls) = self.tls.clone() else {
                return Err(Failure::NoStartTls);
            };
            if !conn.can_starttls() {
                conn.abort().await;
                return Err(Failure::NoStartTls);
            }
            conn.starttls(tls, &self.hello)
                .await
                .map_err(Failure::Connect)?;
        }
        if let Some(credentials) = &self.credentials {
            let mechanisms = [Mechanism::Plain, Mechanism::Login];
            if let Err(e) = conn.auth(&mechanisms, credentials).await {
                conn.abort().await;
                return Err(Failure::Auth(e));
            }
        }
        Ok(conn)
    }

    /// The whole message, signed when a DKIM key is configured.
    pub fn message(&self, email: &Email<'_>, now: SystemTime) -> Result<Message, SmtpError> {
        let mut message = build_message(&self.settings, email, now)?;
        if let Some(dkim) = &self.dkim {
            message.sign(dkim);
        }
        Ok(message)
    }
}

fn tls_parameters(settings: &SmtpSettings) -> Result<TlsParameters, String> {
    let mut builder = TlsParameters::builder(settings.host.clone());
    if let Some(path) = &settings.ca_file {
        let pem = std::fs::read(path)
            .map_err(|e| format!("ca_file {}: cannot read it: {e}", path.display()))?;
        let certificate = Certificate::from_pem(&pem)
            .map_err(|e| format!("ca_file {}: not PEM certificates: {e}", path.display()))?;
        builder = builder.add_root_certificate(certificate);
    }
    builder
        .build_rustls()
        .map_err(|e| format!("TLS settings for {}: {e}", settings.host))
}

/// The relay's reply code and its enhanced status code (RFC 3463), when it gave them.
fn codes(e: &lettre::transport::smtp::Error) -> (Option<u16>, Option<String>) {
    let code = e.status().and_then(|c| c.to_string().parse::<u16>().ok());
    let enhanced = std::error::Error::source(e)
        .map(|s| s.to_string())
        .and_then(|text| {
            let first = text.split_whitespace().next()?.to_string();
            let parts: Vec<&str> = first.split('.').collect();
            let numeric = parts.len() == 3
                && parts.iter().all(|p| {
                    !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit())
                });
            numeric.then_some(first)
        });
    (code, enhanced)
}

/// What a failed exchange means for the delivery: a short category, never the relay's text.
fn classify(failure: &Failure) -> SmtpError {
    let e = match failure {
        Failure::NoStartTls => {
            return SmtpError::Refused("smtp: the relay does not offer STARTTLS".into());
        }
        Failure::Unreachable(_) => {
            return SmtpError::Transient("smtp: cannot reach the relay".into());
        }
        Failure::Connect(e) | Failure::Auth(e) | Failure::Send(e) => e,
    };
    if is_tls(e) {
        return SmtpError::Refused("smtp: TLS handshake failed".into());
    }
    let (code, enhanced) = codes(e);
    let shown = match (code, &enhanced) {
        (Some(c), Some(x)) => format!("{c} {x}"),
        (Some(c), None) => c.to_string(),
        _ => String::new(),
    };
    let Some(code) = code else {
        if matches!(failure, Failure::Auth(_)) {
            // No mechanism in common, or an answer AUTH cannot use.
            return SmtpError::Refused(
                "smtp: authentication refused (no common mechanism: PLAIN or LOGIN)".into(),
            );
        }
        if e.is_client() {
            return SmtpError::Refused("smtp: the message could not be sent".into());
        }
        return SmtpError::Transient("smtp: cannot reach the relay".into());
    };
    let enhanced = enhanced.as_deref().unwrap_or("");
    if e.is_transient() {
        return SmtpError::Transient(format!("smtp: deferred by the relay ({shown})"));
    }
    let auth = matches!(failure, Failure::Auth(_))
        || matches!(code, 530 | 534 | 535 | 538)
        || enhanced.starts_with("5.7.8");
    if auth {
        return SmtpError::Refused(format!("smtp: authentication refused ({shown})"));
    }
    if matches!(failure, Failure::Connect(_)) {
        return SmtpError::Refused(format!("smtp: the relay refused the connection ({shown})"));
    }
    // 5.1.x is about the address (5.1.7 and 5.1.8 about the sender's), 5.2.x the mailbox.
    let mailbox = if enhanced.is_empty() {
        matches!(code, 550..=553)
    } else {
        (enhanced.starts_with("5.1.") && !matches!(enhanced, "5.1.7" | "5.1.8"))
            || enhanced.starts_with("5.2.")
    };
    if mailbox {
        SmtpError::Rejected(format!("smtp: recipient refused ({shown})"))
    } else {
        SmtpError::Refused(format!("smtp: message refused ({shown})"))
    }
}

/// Whether the failure is TLS's: a rustls error anywhere in the chain (lettre reports a
/// failed handshake as a connection error around an `io::Error` around the rustls one).
fn is_tls(e: &lettre::transport::smtp::Error) -> bool {
    if e.is_tls() {
        return true;
    }
    let mut next: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(e);
    while let Some(err) = next {
        if err.is::<rustls::Error>() {
            return true;
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>()
            && io
                .get_ref()
                .is_some_and(|inner| inner.is::<rustls::Error>())
        {
            return true;
        }
        next = err.source();
    }
    false
}

fn error_chain(e: &lettre::transport::smtp::Error) -> String {
    let mut text = e.to_string();
    let mut next = std::error::Error::source(e);
    while let Some(err) = next {
        text.push_str(": ");
        text.push_str(&err.to_string());
        if let Some(io) = err.downcast_ref::<std::io::Error>()
            && let Some(inner) = io.get_ref()
        {
            text.push_str(&format!(" ({inner})"));
        }
        next = err.source();
    }
    text
}

/// The HTML part: the delivery's text in paragraphs, escaped by askama.
#[derive(Template)]
#[template(path = "notice.html")]
struct NoticeHtml<'a> {
    organization: &'a str,
    subject: &'a str,
    /// Paragraphs (split on blank lines).
    paragraphs: Vec<Paragraph<'a>>,
    /// The one-click unsubscribe link, shown in the footer.
    unsubscribe: Option<&'a str>,
}

/// One paragraph of a notice: its lines, and whether it is a Pix code (one line that parses
/// as a BR Code), which the page sets in monospace for the reader to select and copy.
struct Paragraph<'a> {
    lines: Vec<&'a str>,
    pix_code: bool,
}

/// The line the text part ends with when the message has an unsubscribe link.
pub const UNSUBSCRIBE_LINE: &str = "Não quer mais receber estes e-mails?";

/// The HTML version of a notice's text, with the unsubscribe link in its footer when given.
pub fn notice_html(
    organization: &str,
    subject: &str,
    body: &str,
    unsubscribe: Option<&str>,
) -> Result<String, String> {
    let body = body.trim();
    let paragraphs = body
        .split("\n\n")
        .map(|p| p.lines().map(str::trim_end).collect::<Vec<_>>())
        .filter(|p| p.iter().any(|l| !l.trim().is_empty()))
        .map(|lines| Paragraph {
            pix_code: matches!(lines.as_slice(), [one] if brcode::parse(one.trim()).is_ok()),
            lines,
        })
        .collect();
    NoticeHtml {
        organization,
        subject,
        paragraphs,
        unsubscribe,
    }
    .render()
    .map_err(|e| e.to_string())
}

/// `List-Unsubscribe: <https://...>` (RFC 2369).
#[derive(Debug, Clone)]
struct ListUnsubscribe(String);

impl Header for ListUnsubscribe {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe")
    }
    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(ListUnsubscribe(
            s.trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .into(),
        ))
    }
    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), format!("<{}>", self.0))
    }
}

/// `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058).
#[derive(Debug, Clone)]
struct ListUnsubscribePost;

impl Header for ListUnsubscribePost {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe-Post")
    }
    fn parse(_s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(ListUnsubscribePost)
    }
    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), "List-Unsubscribe=One-Click".into())
    }
}

/// The text part: the delivery's text, then the unsubscribe line after a signature separator
/// when the message has a link.
fn text_part(body: &str, unsubscribe: Option<&str>) -> String {
    let body = body.replace("\r\n", "\n");
    match unsubscribe {
        Some(url) => format!("{}\n\n--\n{UNSUBSCRIBE_LINE} {url}\n", body.trim_end()),
        None => body,
    }
}

/// The message before signing: headers, the text and HTML alternatives.
pub fn build_message(
    settings: &SmtpSettings,
    email: &Email<'_>,
    now: SystemTime,
) -> Result<Message, SmtpError> {
    let unusable = || SmtpError::Rejected("smtp: the recipient address is not usable".into());
    let to: Address = email.to.parse().map_err(|_| unusable())?;
    let from: Address = settings
        .from
        .parse()
        .map_err(|_| SmtpError::Refused("smtp: the sender address is not usable".into()))?;
    let body = email.body.replace("\r\n", "\n");
    let html =
        notice_html(email.from_name, email.subject, &body, email.unsubscribe).map_err(|e| {
            tracing::error!(
                delivery = email.reference,
                "the e-mail template failed: {e}"
            );
            SmtpError::Refused("smtp: the message could not be written".into())
        })?;
    let mut builder = Message::builder()
        .from(Mailbox::new(Some(email.from_name.to_string()), from))
        .to(Mailbox::new(None, to))
        .subject(email.subject)
        .date(now)
        .message_id(Some(format!(
            "<{}@{}>",
            email.reference,
            settings.sender_domain()
        )));
    if let Some(reply_to) = &settings.reply_to {
        let address: Address = reply_to
            .parse()
            .map_err(|_| SmtpError::Refused("smtp: the reply_to address is not usable".into()))?;
        builder = builder.reply_to(Mailbox::new(None, address));
    }
    let text = text_part(&body, email.unsubscribe);
    if let Some(url) = email.unsubscribe {
        builder = builder
            .header(ListUnsubscribe(url.to_string()))
            .header(ListUnsubscribePost);
    }
    builder
        .multipart(MultiPart::alternative_plain_html(text, html))
        .map_err(|e| {
            tracing::error!(
                delivery = email.reference,
                "the e-mail could not be built: {e}"
            );
            SmtpError::Refused("smtp: the message could not be written".into())
        })
}

/// The headers the signature covers; those a message lacks are covered as absent, so that
/// nobody can add them on the way. Not `Content-Type`: lettre writes a multipart body's
/// `Content-Type` with the body, outside the headers it signs, so covering it would sign it
/// as absent and no verifier would accept the message (the body, boundaries included, is
/// covered by the body hash).
const SIGNED_HEADERS: [&str; 9] = [
    "From",
    "Reply-To",
    "To",
    "Subject",
    "Date",
    "Message-ID",
    "MIME-Version",
    "List-Unsubscribe",
    "List-Unsubscribe-Post",
];

fn dkim_config(settings: &DkimSettings, domain: &str) -> Result<DkimConfig, String> {
    let path = &settings.key_file;
    let pem = std::fs::read_to_string(path)
        .map_err(|e| format!("DKIM key {}: cannot read it: {e}", path.display()))?;
    let key = dkim_key(&pem).map_err(|e| format!("DKIM key {}: {e}", path.display()))?;
    let selector = &settings.selector;
    let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_');
    if selector.is_empty() || !selector.chars().all(valid) {
        return Err(format!(
            "DKIM selector '{selector}': letters, digits, '-', '_' and '.' only"
        ));
    }
    Ok(DkimConfig::new(
        selector.clone(),
        domain.to_string(),
        key,
        SIGNED_HEADERS
            .iter()
            .map(|h| HeaderName::new_from_ascii_str(h))
            .collect(),
        DkimCanonicalization {
            header: DkimCanonicalizationType::Relaxed,
            body: DkimCanonicalizationType::Relaxed,
        },
    ))
}

/// The DER of an Ed25519 PKCS#8 key up to its 32-byte seed (RFC 8410).
const ED25519_PKCS8_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

/// An RSA key in PKCS#1 (`BEGIN RSA PRIVATE KEY`) or PKCS#8 (`BEGIN PRIVATE KEY`) PEM, or an
/// Ed25519 key in PKCS#8 PEM (`openssl genpkey -algorithm ed25519`).
fn dkim_key(pem: &str) -> Result<DkimSigningKey, String> {
    use rsa::pkcs1::EncodeRsaPrivateKey;
    use rsa::pkcs8::DecodePrivateKey;

    if pem.contains("-----BEGIN RSA PRIVATE KEY-----") {
        return DkimSigningKey::new(pem, DkimSigningAlgorithm::Rsa)
            .map_err(|e| format!("not a PKCS#1 RSA key: {e}"));
    }
    let body = pem_body(pem, "PRIVATE KEY").ok_or(
        "expected a PEM private key (BEGIN RSA PRIVATE KEY or BEGIN PRIVATE KEY)".to_string(),
    )?;
    let der = STANDARD
        .decode(body)
        .map_err(|_| "the PEM key is not base64".to_string())?;
    if der.len() == 48 && der.starts_with(&ED25519_PKCS8_PREFIX) {
        let seed = STANDARD.encode(&der[16..]);
        return DkimSigningKey::new(&seed, DkimSigningAlgorithm::Ed25519)
            .map_err(|e| format!("not an Ed25519 key: {e}"));
    }
    let rsa = rsa::RsaPrivateKey::from_pkcs8_der(&der)
        .map_err(|e| format!("neither an RSA nor an Ed25519 PKCS#8 key: {e}"))?;
    let pkcs1 = rsa
        .to_pkcs1_pem(rsa::pkcs8::LineEnding::LF)
        .map_err(|e| format!("the RSA key cannot be re-encoded: {e}"))?;
    DkimSigningKey::new(&pkcs1, DkimSigningAlgorithm::Rsa).map_err(|e| e.to_string())
}

/// The base64 between `-----BEGIN {label}-----` and `-----END {label}-----`.
fn pem_body(pem: &str, label: &str) -> Option<String> {
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let start = pem.find(&begin)? + begin.len();
    let stop = start + pem[start..].find(&end)?;
    Some(pem[start..stop].split_whitespace().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_give_host_port_credentials_and_options() {
        let s = SmtpSettings::parse(
            "smtp://user:p%40ss@mail.example.com:2525?from=cobranca@example.com&reply_to=financeiro@example.com&timeout=5",
        )
        .unwrap();
        assert_eq!(s.host, "mail.example.com");
        assert_eq!(s.port, 2525);
        assert_eq!(s.security, Security::StartTls);
        assert_eq!(s.username.as_deref(), Some("user"));
        assert_eq!(s.password.as_deref(), Some("p@ss"));
        assert_eq!(s.from, "cobranca@example.com");
        assert_eq!(s.reply_to.as_deref(), Some("financeiro@example.com"));
        assert_eq!(s.timeout, Duration::from_secs(5));
        let d = SmtpSettings::parse("smtp://relay.example.com").unwrap();
        assert_eq!(
            (d.port, d.from.as_str(), d.timeout),
            (587, "nao-responda@relay.example.com", DEFAULT_TIMEOUT)
        );
        let tls = SmtpSettings::parse("smtps://u:p@smtp.example.com?ca_file=/etc/ca.pem").unwrap();
        assert_eq!((tls.security, tls.port), (Security::Implicit, 465));
        assert_eq!(tls.ca_file, Some(PathBuf::from("/etc/ca.pem")));
        let v6 = SmtpSettings::parse("smtp://[::1]:2525?tls=none").unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 2525));
        assert!(SmtpSettings::parse("http://x").is_err());
        assert!(SmtpSettings::parse("smtp://x:port").is_err());
        assert!(SmtpSettings::parse("smtp://x?timeout=0").is_err());
        assert!(SmtpSettings::parse("smtp://x?from=not-an-address").is_err());
    }

    #[test]
    fn plain_tcp_is_only_for_a_loopback_relay_and_options_are_known() {
        for url in [
            "smtp://127.0.0.1?tls=none",
            "smtp://localhost:2525?tls=none",
        ] {
            assert_eq!(
                SmtpSettings::parse(url).unwrap().security,
                Security::None,
                "{url}"
            );
        }
        assert_eq!(
            SmtpSettings::parse("smtp://127.0.0.1?tls=none")
                .unwrap()
                .port,
            25
        );
        let remote = SmtpSettings::parse("smtp://mail.example.com?tls=none").unwrap_err();
        assert!(remote.contains("only to a relay on loopback"), "{remote}");
        assert!(SmtpSettings::parse("smtp://10.0.0.1?tls=none").is_err());
        assert!(SmtpSettings::parse("smtps://127.0.0.1?tls=none").is_err());
        assert!(SmtpSettings::parse("smtp://h?tls=maybe").is_err());
        let unknown = SmtpSettings::parse("smtp://h?form=a@b.c").unwrap_err();
        assert!(
            unknown.contains("unknown SMTP URL option 'form'"),
            "{unknown}"
        );
    }

    fn email<'a>(unsubscribe: Option<&'a str>) -> Email<'a> {
        Email {
            to: "x@y.z",
            from_name: "Pão & Cia",
            subject: "Olá <você>",
            body: "Olá, Ana.\n\nLinha um\n.\nfim <b>negrito</b>\n\nAtenciosamente,\nPão & Cia",
            reference: "dlv_1",
            unsubscribe,
        }
    }

    #[test]
    fn messages_are_multipart_alternative_with_their_headers() {
        let settings = SmtpSettings::parse("smtp://h?from=a@b.c&reply_to=responda@b.c").unwrap();
        let message = build_message(&settings, &email(None), SystemTime::UNIX_EPOCH).unwrap();
        let text = String::from_utf8(message.formatted()).unwrap();
        assert!(text.contains("Message-ID: <dlv_1@b.c>"), "{text}");
        assert!(text.contains("Reply-To: responda@b.c"), "{text}");
        assert!(
            text.contains("Date: Thu, 01 Jan 1970 00:00:00 +0000"),
            "{text}"
        );
        assert!(text.contains("Subject: =?utf-8?b?"), "{text}");
        assert!(
            text.contains("Content-Type: multipart/alternative"),
            "{text}"
        );
        assert!(
            text.contains("Content-Type: text/plain; charset=utf-8"),
            "{text}"
        );
        assert!(
            text.contains("Content-Type: text/html; charset=utf-8"),
            "{text}"
        );
        assert!(!text.contains("List-Unsubscribe"), "{text}");
        assert!(text.is_ascii(), "every part is encoded");
        assert!(
            SmtpSettings::parse("smtp://h?from=a@b.c")
                .map(|s| build_message(&s, &email(None), SystemTime::UNIX_EPOCH).unwrap())
                .map(|m| !String::from_utf8(m.formatted())
                    .unwrap()
                    .contains("Reply-To"))
                .unwrap()
        );
    }

    #[test]
    fn a_one_click_unsubscribe_url_adds_both_headers() {
        let settings = SmtpSettings::parse("smtp://h?from=a@b.c").unwrap();
        let url = "https://cobranca.example.com/unsubscribe/abc";
        let message = build_message(&settings, &email(Some(url)), SystemTime::UNIX_EPOCH).unwrap();
        let text = String::from_utf8(message.formatted()).unwrap();
        assert!(
            text.contains(&format!("List-Unsubscribe: <{url}>")),
            "{text}"
        );
        assert!(text.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click"));
        // Both parts offer the link too, for a reader whose mailbox shows no button.
        let html = notice_html(
            "Pão & Cia",
            "Olá",
            "Texto",
            Some("https://x.example/u?a=1&b=2"),
        )
        .unwrap();
        assert!(
            html.contains(r#"<a href="https://x.example/u?a=1&#38;b=2" "#),
            "{html}"
        );
        assert!(html.contains(UNSUBSCRIBE_LINE), "{html}");
        assert_eq!(
            text_part("Olá.\n\nAtenciosamente\n\n", Some(url)),
            format!("Olá.\n\nAtenciosamente\n\n--\n{UNSUBSCRIBE_LINE} {url}\n")
        );
        assert_eq!(text_part("Olá.\r\nFim", None), "Olá.\nFim");
    }

    #[test]
    fn the_html_part_is_escaped_portuguese_and_self_contained() {
        let e = email(None);
        let html = notice_html(e.from_name, e.subject, e.body, None).unwrap();
        assert!(html.contains(r#"<html lang="pt-BR">"#), "{html}");
        assert!(html.contains("<title>Olá &#60;você&#62;</title>"), "{html}");
        assert!(
            html.contains("fim &#60;b&#62;negrito&#60;/b&#62;"),
            "{html}"
        );
        assert!(html.contains("Pão &#38; Cia"), "{html}");
        assert!(!html.contains("<b>"), "{html}");
        assert!(!html.contains("<script") && !html.contains("<img") && !html.contains("http"));
        // The organization's name and the footer, and three paragraphs: the greeting, the
        // three lines, the sign-off.
        assert_eq!(html.matches("<p ").count(), 2 + 3, "{html}");
        assert!(html.contains("Linha um<br>\n.<br>\nfim"), "{html}");
    }

    #[test]
    fn a_pix_code_is_set_apart_in_a_monospace_box_and_other_text_is_not() {
        let code = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D";
        let body =
            format!("Pague com Pix: copie o código abaixo.\n\n{code}\n\n000201 não é um código");
        let html = notice_html("Pão & Cia", "Vence hoje", &body, None).unwrap();
        // The one monospace paragraph holds the code, and nothing else.
        let boxed = html
            .split("<p ")
            .find(|p| p.contains("monospace"))
            .unwrap_or_else(|| panic!("{html}"));
        let text = boxed.split_once('>').unwrap().1;
        assert_eq!(text.split_once("</p>").unwrap().0, code, "{html}");
        assert_eq!(html.matches("monospace").count(), 1, "{html}");
        assert!(html.contains("000201 não é um código</p>"), "{html}");
        assert!(
            !html.contains("<img") && !html.contains("<svg"),
            "no image: {html}"
        );
    }

    /// An Ed25519 key in PKCS#8 PEM, as `openssl genpkey -algorithm ed25519` writes it.
    fn ed25519_pem(seed: [u8; 32]) -> String {
        let mut der = ED25519_PKCS8_PREFIX.to_vec();
        der.extend_from_slice(&seed);
        format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            STANDARD.encode(der)
        )
    }

    #[test]
    fn a_dkim_key_signs_the_message_for_the_senders_domain() {
        let dir = tempfile::tempdir().unwrap();
        let key_file = dir.path().join("dkim.pem");
        std::fs::write(&key_file, ed25519_pem([7; 32])).unwrap();
        let settings = SmtpSettings::parse("smtp://h?from=cobranca@pao.example").unwrap();
        let dkim = DkimSettings {
            key_file: key_file.clone(),
            selector: "kd2026".into(),
        };
        let mailer = Mailer::new(settings, Some(&dkim), 1).unwrap();
        let message = mailer.message(&email(None), SystemTime::now()).unwrap();
        // Headers unfolded: a continuation line starts with white space.
        let text = String::from_utf8(message.formatted())
            .unwrap()
            .replace("\r\n ", " ")
            .replace("\r\n\t", " ");
        let signature = text
            .lines()
            .find(|l| l.starts_with("DKIM-Signature:"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(signature.contains("a=ed25519-sha256"), "{signature}");
        assert!(signature.contains("d=pao.example"), "{signature}");
        assert!(signature.contains("s=kd2026"), "{signature}");
        assert!(signature.contains("c=relaxed/relaxed"), "{signature}");

        std::fs::write(&key_file, "not a key").unwrap();
        let settings = SmtpSettings::parse("smtp://h?from=a@b.c").unwrap();
        let wrong = Mailer::new(settings.clone(), Some(&dkim), 1).unwrap_err();
        assert!(wrong.contains("DKIM key"), "{wrong}");
        let bad_selector = DkimSettings {
            key_file,
            selector: "a;b".into(),
        };
        std::fs::write(&bad_selector.key_file, ed25519_pem([7; 32])).unwrap();
        assert!(Mailer::new(settings, Some(&bad_selector), 1).is_err());
    }

    #[test]
    fn an_unreadable_ca_file_is_refused_when_the_mailer_is_built() {
        let settings =
            SmtpSettings::parse("smtps://relay.example.com?ca_file=/nonexistent/ca.pem").unwrap();
        let e = Mailer::new(settings, None, 1).unwrap_err();
        assert!(e.contains("ca_file /nonexistent/ca.pem"), "{e}");
    }
}
