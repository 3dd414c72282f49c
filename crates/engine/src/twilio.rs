//! SMS and WhatsApp through Twilio's Messaging API: the operator's account (`--twilio-*`),
//! the channel that sends each message, and what the server needs to believe Twilio's status
//! callbacks (the signature scheme, what each status means for a delivery).
//!
//! A message is `POST {api}/2010-04-01/Accounts/{AccountSid}/Messages.json` with HTTP Basic
//! (account SID and auth token) and the form fields `To`, `From` (or `MessagingServiceSid`),
//! `Body` and `StatusCallback`; WhatsApp addresses carry the `whatsapp:` prefix. 201 gives the
//! message's `sid` (its callbacks name the message by it); a refusal is a [`TwilioError`]:
//! 429 is a back-off (its `Retry-After` kept: the delivery waits that long, not counted as an
//! attempt, and the channel's next messages wait too), 5xx and network failures are transient, the error codes of a number that cannot
//! receive are the recipient's, an authentication failure or another refusal is for good.
//! A delivery shows a short category with Twilio's error code, never Twilio's text.
//! (`providers::TwilioChannel` is the channel over this module, as `SmtpChannel` is over `smtp`.)
//!
//! Twilio reports each message's later statuses to `{public URL}/callbacks/twilio/{organization}`,
//! signed in `X-Twilio-Signature`: Base64(HMAC-SHA1(auth token, URL + each POST parameter's
//! name and value, sorted by name)). [`Account::verify`] checks it in constant time. The URL
//! is the one Twilio called, so the server computes it from its public URL
//! (`--canonical-url` behind a proxy), never from the request's `Host`.
//!
//! The API's address is the operator's (`https://api.twilio.com`, or a loopback `http://` URL
//! for tests), not a tenant's: it does not go through the outbound guard, but it must be
//! https unless it is loopback, since every request carries the credentials.

use std::net::IpAddr;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha1::Sha1;
use subtle::ConstantTimeEq;

use dunning_store::deliveries::Delivery;

use crate::pace::Pace;

/// Where the status callbacks of an organization's messages go, below the public URL.
pub const CALLBACK_PATH: &str = "/callbacks/twilio";

/// The provider name stored with the deliveries Twilio sent.
pub const PROVIDER: &str = "twilio";

/// The longest Twilio answer read; its answers to a message are a few hundred bytes.
const ANSWER_LIMIT: usize = 64 * 1024;

/// How long one message's request may take, and its connection.
const TIMEOUT: Duration = Duration::from_secs(30);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Error codes Twilio answers for a recipient that cannot receive the message: the address
/// is at fault, as with a bounced e-mail (21211 invalid `To`, 21610 the recipient replied
/// STOP, 21612 not reachable from this sender, 21614 not a mobile number, 63003 no WhatsApp
/// account at the number).
const RECIPIENT_ERRORS: [u32; 5] = [21211, 21610, 21612, 21614, 63003];

/// Twilio's code for an account SID and auth token it does not accept.
const AUTHENTICATION_ERROR: u32 = 20003;

/// Twilio's code for too many requests.
const TOO_MANY_REQUESTS: u32 = 20429;

/// The wait after a 429 without a usable `Retry-After`.
const DEFAULT_BACK_OFF: Duration = Duration::from_secs(60);

/// The longest wait a `Retry-After` is believed for.
const LONGEST_BACK_OFF: Duration = Duration::from_secs(60 * 60);

/// Messages a second a Twilio SMS sender takes by default: Twilio's documented rate for a
/// long-code number (toll-free and short codes, or a Messaging Service with several numbers,
/// take more: `--twilio-sms-rate`).
pub const DEFAULT_SMS_RATE: f64 = 1.0;

/// Messages a second a WhatsApp sender takes by default: Twilio's documented default
/// throughput for a WhatsApp sender (`--twilio-whatsapp-rate`).
pub const DEFAULT_WHATSAPP_RATE: f64 = 80.0;

/// How many messages of one channel may be in flight at once: Twilio's API answers each in
/// tens of milliseconds, and the sender's pace, not this, is what bounds a burst.
pub const CONCURRENCY: usize = 16;

/// What the operator set on the command line, before it is checked.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flags<'a> {
    pub account_sid: Option<&'a str>,
    pub auth_token: Option<&'a str>,
    pub sms_from: Option<&'a str>,
    pub whatsapp_from: Option<&'a str>,
    pub api_url: &'a str,
}

/// Who a message comes from: a number or channel address (`From`), or a Messaging Service
/// that picks the sender (`MessagingServiceSid`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sender {
    Address(String),
    Service(String),
}

/// The operator's Twilio account: credentials, senders and the API's address, each checked
/// by [`Account::from_flags`]. Its `Debug` never shows the auth token.
#[derive(Clone)]
pub struct Account {
    account_sid: String,
    auth_token: String,
    sms_from: Option<Sender>,
    whatsapp_from: Option<Sender>,
    api_url: String,
}

impl std::fmt::Debug for Account {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Account")
            .field("account_sid", &self.account_sid)
            .field("auth_token", &"<redacted>")
            .field("sms_from", &self.sms_from)
            .field("whatsapp_from", &self.whatsapp_from)
            .field("api_url", &self.api_url)
            .finish()
    }
}

impl Account {
    /// The account the flags describe: `None` when none of them is given (the sandbox stays),
    /// an error naming the flag when they are incomplete or malformed.
    pub fn from_flags(flags: &Flags<'_>) -> Result<Option<Account>, String> {
        fn given(v: Option<&str>) -> Option<&str> {
            v.map(str::trim).filter(|v| !v.is_empty())
        }
        let (sid, token) = (given(flags.account_sid), given(flags.auth_token));
        let (sms, whatsapp) = (given(flags.sms_from), given(flags.whatsapp_from));
        let (sid, token) = match (sid, token) {
            (None, None) if sms.is_none() && whatsapp.is_none() => return Ok(None),
            (Some(sid), Some(token)) => (sid, token),
            _ => {
                return Err("Twilio needs both --twilio-account-sid and --twilio-auth-token (DUNNING_TWILIO_ACCOUNT_SID, DUNNING_TWILIO_AUTH_TOKEN)".into());
            }
        };
        if !is_sid(sid, "AC") {
            return Err(
                "--twilio-account-sid: an account SID is AC followed by 32 hexadecimal digits"
                    .into(),
            );
        }
        if sms.is_none() && whatsapp.is_none() {
            return Err("Twilio credentials are set but no sender: give --twilio-sms-from or --twilio-whatsapp-from".into());
        }
        let sms_from = sms
            .map(|from| {
                sender(from, "").ok_or_else(|| {
                    "--twilio-sms-from: an E.164 number (+5511...) or a Messaging Service SID (MG...)"
                        .to_string()
                })
            })
            .transpose()?;
        let whatsapp_from = whatsapp
            .map(|from| {
                sender(from, "whatsapp:").ok_or_else(|| {
                    "--twilio-whatsapp-from: whatsapp:+<E.164 number> or a Messaging Service SID (MG...)"
                        .to_string()
                })
            })
            .transpose()?;
        Ok(Some(Account {
            account_sid: sid.to_string(),
            auth_token: token.to_string(),
            sms_from,
            whatsapp_from,
            api_url: api_url(flags.api_url)?,
        }))
    }

    pub fn account_sid(&self) -> &str {
        &self.account_sid
    }

    /// The sender of `channel` (`sms` or `whatsapp`), when Twilio sends that channel.
    pub fn sender(&self, channel: &str) -> Option<&Sender> {
        match channel {
            "sms" => self.sms_from.as_ref(),
            "whatsapp" => self.whatsapp_from.as_ref(),
            _ => None,
        }
    }

    /// Whether `header` (`X-Twilio-Signature`) signs this POST to `url` with our auth token.
    /// Twilio's own helper libraries accept the URL with and without its port (Twilio has
    /// signed both ways), so this does too; each comparison takes constant time.
    pub fn verify(&self, url: &str, params: &[(String, String)], header: Option<&str>) -> bool {
        let Some(given) = header.map(str::trim).filter(|h| !h.is_empty()) else {
            return false;
        };
        let mut valid = false;
        for candidate in port_variants(url) {
            let expected = signature(&self.auth_token, &candidate, params);
            valid |= bool::from(expected.as_bytes().ct_eq(given.as_bytes()));
        }
        valid
    }
}

/// `X-Twilio-Signature` for a POST of `params` to `url`, as Twilio's security docs describe
/// it: the full URL, then each parameter's name and value with no delimiters, sorted by name
/// (and, for a repeated name, by value), HMAC-SHA1 under the auth token, in Base64.
pub fn signature(auth_token: &str, url: &str, params: &[(String, String)]) -> String {
    let mut sorted: Vec<&(String, String)> = params.iter().collect();
    sorted.sort();
    let mut mac =
        Hmac::<Sha1>::new_from_slice(auth_token.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(url.as_bytes());
    for (name, value) in sorted {
        mac.update(name.as_bytes());
        mac.update(value.as_bytes());
    }
    STANDARD.encode(mac.finalize().into_bytes())
}

/// `url` as given and with its port the other way: written out (the scheme's default when
/// it had none) or left out.
fn port_variants(url: &str) -> Vec<String> {
    let mut variants = vec![url.to_string()];
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return variants;
    };
    let (Some(host), Some(port)) = (parsed.host_str(), parsed.port_or_known_default()) else {
        return variants;
    };
    let rest = &url[url.find("://").map_or(0, |i| i + 3)..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let host_and_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let has_port = !host_and_port.ends_with(']') && host_and_port.contains(':');
    let (scheme, tail) = (parsed.scheme(), &rest[authority_end..]);
    let other = if has_port {
        format!("{scheme}://{host}{tail}")
    } else {
        format!("{scheme}://{host}:{port}{tail}")
    };
    if other != url {
        variants.push(other);
    }
    variants
}

/// Why Twilio did not take a message: a short category for the delivery, never Twilio's
/// text (which goes to the log).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TwilioError {
    /// Not now, and not the message's fault: Twilio answered 429 (its `Retry-After` is
    /// `wait`), or the sender's pace has no turn for it soon. The message waits `wait`.
    Later { category: String, wait: Duration },
    /// The recipient cannot receive it: an invalid, unreachable or opted-out number.
    Rejected(String),
    /// Refused for good for another reason: authentication, the sender, the message.
    Refused(String),
    /// Not now (too many requests, Twilio's fault, the network): worth trying again.
    Transient(String),
}

/// A message's final status, as a status callback reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reported {
    Delivered,
    /// Not delivered: the category, with Twilio's error code.
    Undelivered(String),
}

/// What a status callback's `MessageStatus` (and `ErrorCode`) says: a final status, or
/// nothing for the statuses on the way (`queued`, `sending`, `sent`, `accepted`, `scheduled`)
/// and for any Twilio adds later.
pub fn reported(status: &str, error_code: Option<&str>) -> Option<Reported> {
    match status {
        "delivered" | "read" => Some(Reported::Delivered),
        "undelivered" | "failed" => Some(Reported::Undelivered(match code(error_code) {
            Some(code) => format!("twilio: {status} ({code})"),
            None => format!("twilio: {status}"),
        })),
        _ => None,
    }
}

/// An error code as shown on a delivery: digits only, or nothing.
fn code(text: Option<&str>) -> Option<&str> {
    text.map(str::trim)
        .filter(|c| !c.is_empty() && c.len() <= 6 && c.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `text` is a Twilio SID of the given kind: two letters and 32 hex digits.
fn is_sid(text: &str, prefix: &str) -> bool {
    text.len() == 34 && text.starts_with(prefix) && text[2..].bytes().all(|b| b.is_ascii_hexdigit())
}

/// An E.164 number: `+`, then 2 to 15 digits, the first not 0.
fn is_e164(text: &str) -> bool {
    let Some(digits) = text.strip_prefix('+') else {
        return false;
    };
    (2..=15).contains(&digits.len())
        && !digits.starts_with('0')
        && digits.bytes().all(|b| b.is_ascii_digit())
}

fn sender(text: &str, prefix: &str) -> Option<Sender> {
    if is_sid(text, "MG") {
        return Some(Sender::Service(text.to_string()));
    }
    let number = text.strip_prefix(prefix)?;
    is_e164(number).then(|| Sender::Address(text.to_string()))
}

/// The API's base URL, without a trailing `/`: https, or http to a loopback address.
fn api_url(text: &str) -> Result<String, String> {
    let refused = |why: &str| format!("--twilio-api-url {text}: {why}");
    let url = reqwest::Url::parse(text.trim()).map_err(|e| refused(&e.to_string()))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(refused(
            "credentials go in --twilio-account-sid and --twilio-auth-token",
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(refused("a base URL has no query or fragment"));
    }
    let Some(host) = url.host_str() else {
        return Err(refused("no host"));
    };
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        _ => {
            return Err(refused(
                "https is required (http only to a loopback address)",
            ));
        }
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

/// Twilio's `{"code": ..., "message": ...}` error body: the code only (the message is
/// Twilio's text and stays in the log).
fn error_code(body: &serde_json::Value) -> Option<u32> {
    body.get("code")
        .and_then(serde_json::Value::as_u64)
        .and_then(|c| u32::try_from(c).ok())
}

/// Whether Twilio's answer says we sent too fast (429, or its code for it).
fn too_many_requests(status: u16, body: &[u8]) -> bool {
    let json: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    status == 429 || error_code(&json) == Some(TOO_MANY_REQUESTS)
}

/// What Twilio's answer to a message means: the message's sid when it took it (`None` if its
/// answer had no usable one), or why not.
pub fn classify(status: u16, body: &[u8]) -> Result<Option<String>, TwilioError> {
    let json: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let code = error_code(&json);
    let shown = match code {
        Some(code) => format!("HTTP {status}, code {code}"),
        None => format!("HTTP {status}"),
    };
    match status {
        200..=299 => {
            let sid = json
                .get("sid")
                .and_then(serde_json::Value::as_str)
                .filter(|sid| sid.len() <= 64 && sid.bytes().all(|b| b.is_ascii_alphanumeric()));
            if sid.is_none() {
                // Accepted (sending it again would send it twice), but its callbacks cannot
                // be matched: the delivery stays `sent`.
                tracing::warn!(status, "twilio accepted a message without a usable sid");
            }
            Ok(sid.map(str::to_string))
        }
        429 => Err(TwilioError::Transient(format!(
            "twilio: too many requests ({shown})"
        ))),
        _ if code == Some(TOO_MANY_REQUESTS) => Err(TwilioError::Transient(format!(
            "twilio: too many requests ({shown})"
        ))),
        401 | 403 => Err(TwilioError::Refused(format!(
            "twilio: authentication refused ({shown})"
        ))),
        _ if code == Some(AUTHENTICATION_ERROR) => Err(TwilioError::Refused(format!(
            "twilio: authentication refused ({shown})"
        ))),
        _ if code.is_some_and(|c| RECIPIENT_ERRORS.contains(&c)) => Err(TwilioError::Rejected(
            format!("twilio: recipient refused ({shown})"),
        )),
        400..=499 => Err(TwilioError::Refused(format!(
            "twilio: message refused ({shown})"
        ))),
        // 5xx, and the unexpected (a redirect, which is not followed): Twilio's side, later.
        _ => Err(TwilioError::Transient(format!(
            "twilio: the API failed ({shown})"
        ))),
    }
}

/// Messages of one channel (SMS or WhatsApp) over one Twilio account: a client (and its
/// connections) for every message, and the sender's pace.
pub struct Messages {
    http: reqwest::Client,
    /// The sender's message rate, and Twilio's back-off after a 429.
    pub pace: Pace,
    account: Account,
    sender: Sender,
    /// `whatsapp:` for WhatsApp, `` for SMS.
    prefix: &'static str,
    /// Status callbacks go to `{callback_base}{CALLBACK_PATH}/{organization}`.
    callback_base: String,
}

impl Messages {
    /// The messages of `channel` (`sms` or `whatsapp`), when the account has its sender.
    pub fn new(
        account: &Account,
        channel: &str,
        callback_base: &str,
        per_second: f64,
    ) -> Result<Option<Messages>, String> {
        let Some(sender) = account.sender(channel) else {
            return Ok(None);
        };
        let http = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .connect_timeout(CONNECT_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("KobanaDunning/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("twilio: cannot build the HTTP client: {e}"))?;
        Ok(Some(Messages {
            http,
            pace: Pace::new(per_second),
            account: account.clone(),
            sender: sender.clone(),
            prefix: if channel == "whatsapp" {
                "whatsapp:"
            } else {
                ""
            },
            callback_base: callback_base.trim_end_matches('/').to_string(),
        }))
    }

    /// The form Twilio's Messages resource takes for this delivery.
    fn form(&self, delivery: &Delivery) -> String {
        let mut form = form_urlencoded::Serializer::new(String::new());
        form.append_pair("To", &format!("{}{}", self.prefix, delivery.recipient));
        match &self.sender {
            Sender::Address(from) => form.append_pair("From", from),
            Sender::Service(sid) => form.append_pair("MessagingServiceSid", sid),
        };
        form.append_pair("Body", &delivery.body);
        form.append_pair(
            "StatusCallback",
            &format!(
                "{}{CALLBACK_PATH}/{}",
                self.callback_base, delivery.organization_id
            ),
        );
        form.finish()
    }

    /// Send `delivery`'s text to its recipient: the message's sid, or why not.
    pub async fn send(&self, delivery: &Delivery) -> Result<Option<String>, TwilioError> {
        if let Err(wait) = self.pace.turn().await {
            return Err(TwilioError::Later {
                category: "twilio: waiting for the sender's turn".into(),
                wait,
            });
        }
        let url = format!(
            "{}/2010-04-01/Accounts/{}/Messages.json",
            self.account.api_url, self.account.account_sid
        );
        let sent = self
            .http
            .post(url)
            .basic_auth(&self.account.account_sid, Some(&self.account.auth_token))
            .header(
                http::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(http::header::ACCEPT, "application/json")
            .body(self.form(delivery))
            .send()
            .await;
        let mut response = match sent {
            Ok(response) => response,
            Err(e) => {
                tracing::warn!(delivery = %delivery.id, "twilio: request failed: {e}");
                return Err(TwilioError::Transient(if e.is_timeout() {
                    "twilio: the API did not answer in time".into()
                } else {
                    "twilio: cannot reach the API".into()
                }));
            }
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(http::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let mut body = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) if body.len() + chunk.len() <= ANSWER_LIMIT => {
                    body.extend_from_slice(&chunk);
                }
                // Past the limit, or the end: what was read is the answer.
                Ok(Some(_) | None) => break,
                Err(e) => {
                    tracing::warn!(delivery = %delivery.id, status, "twilio: answer cut: {e}");
                    break;
                }
            }
        }
        let result = match classify(status, &body) {
            Err(TwilioError::Transient(category)) if too_many_requests(status, &body) => {
                let wait = retry_after
                    .unwrap_or(DEFAULT_BACK_OFF)
                    .min(LONGEST_BACK_OFF);
                self.pace.back_off(wait);
                Err(TwilioError::Later { category, wait })
            }
            other => other,
        };
        if result.is_err() {
            // Twilio's own words, for the operator: the delivery shows only the category.
            tracing::warn!(
                delivery = %delivery.id,
                status,
                answer = %String::from_utf8_lossy(&body[..body.len().min(500)]),
                "twilio did not accept the message"
            );
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    const SID: &str = "AC0123456789abcdef0123456789abcdef";

    fn flags<'a>(sms: Option<&'a str>, whatsapp: Option<&'a str>, api: &'a str) -> Flags<'a> {
        Flags {
            account_sid: Some(SID),
            auth_token: Some("segredo-do-twilio"),
            sms_from: sms,
            whatsapp_from: whatsapp,
            api_url: api,
        }
    }

    #[test]
    fn the_signature_matches_twilios_published_examples() {
        // The example of Twilio's security docs (auth token 12345) and of its Python helper
        // library's tests, repeated names included.
        let url = "https://mycompany.com/myapp.php?foo=1&bar=2";
        let docs = pairs(&[
            ("CallSid", "CA1234567890ABCDE"),
            ("Caller", "+12349013030"),
            ("Digits", "1234"),
            ("From", "+12349013030"),
            ("To", "+18005551212"),
        ]);
        assert_eq!(
            signature("12345", url, &docs),
            "0/KCTR6DLpKmkAf8muzZqo1nDgQ="
        );
        let library = pairs(&[
            ("CallSid", "CA1234567890ABCDE"),
            ("Digits", "1234"),
            ("From", "+14158675309"),
            ("To", "+18005551212"),
            ("Caller", "+14158675309"),
        ]);
        assert_eq!(
            signature("12345", url, &library),
            "RSOYDt4T1cUTdK1PDd93/VVr8B8="
        );
        let repeated = pairs(&[
            ("Sid", "CA123"),
            ("SidAccount", "AC123"),
            ("Digits", "5678"),
            ("Digits", "1234"),
        ]);
        assert_eq!(
            signature("12345", url, &repeated),
            "IK+Dwps556ElfBT0I3Rgjkr1wJU="
        );
    }

    #[test]
    fn verify_accepts_the_url_with_or_without_its_port_and_nothing_else() {
        let account = Account::from_flags(&flags(
            Some("+5511999990000"),
            None,
            "https://api.twilio.com",
        ))
        .unwrap()
        .unwrap();
        let params = pairs(&[("MessageSid", "SM1"), ("MessageStatus", "delivered")]);
        let url = "https://cobranca.example.com.br/callbacks/twilio/org_1";
        let with_port = "https://cobranca.example.com.br:443/callbacks/twilio/org_1";
        let signed = signature("segredo-do-twilio", url, &params);
        let signed_with_port = signature("segredo-do-twilio", with_port, &params);
        assert!(account.verify(url, &params, Some(&signed)));
        assert!(account.verify(url, &params, Some(&signed_with_port)));
        assert!(account.verify(with_port, &params, Some(&signed)));
        assert!(!account.verify(url, &params, None));
        assert!(!account.verify(url, &params, Some("")));
        assert!(!account.verify(&format!("{url}?x=1"), &params, Some(&signed)));
        let tampered = pairs(&[("MessageSid", "SM1"), ("MessageStatus", "undelivered")]);
        assert!(!account.verify(url, &tampered, Some(&signed)));
        let other_key = signature("outro-segredo", url, &params);
        assert!(!account.verify(url, &params, Some(&other_key)));
        assert_eq!(
            port_variants("http://127.0.0.1:8080/c?x=1"),
            ["http://127.0.0.1:8080/c?x=1", "http://127.0.0.1/c?x=1"]
        );
        assert_eq!(
            port_variants("http://[::1]/c"),
            ["http://[::1]/c", "http://[::1]:80/c"]
        );
    }

    #[test]
    fn flags_make_an_account_only_when_complete_and_well_formed() {
        assert!(
            Account::from_flags(&Flags {
                api_url: "https://api.twilio.com",
                ..Flags::default()
            })
            .unwrap()
            .is_none()
        );
        let account = Account::from_flags(&flags(
            Some("MG0123456789abcdef0123456789abcdef"),
            Some("whatsapp:+5511999990000"),
            "https://api.twilio.com/",
        ))
        .unwrap()
        .unwrap();
        assert_eq!(account.api_url, "https://api.twilio.com");
        assert!(matches!(account.sender("sms"), Some(Sender::Service(_))));
        assert_eq!(
            account.sender("whatsapp"),
            Some(&Sender::Address("whatsapp:+5511999990000".into()))
        );
        assert!(!format!("{account:?}").contains("segredo"));
        let refused = |f: Flags<'_>| Account::from_flags(&f).unwrap_err();
        assert!(
            refused(Flags {
                auth_token: None,
                ..flags(Some("+5511999990000"), None, "https://api.twilio.com")
            })
            .contains("--twilio-auth-token")
        );
        assert!(
            refused(Flags {
                account_sid: None,
                auth_token: None,
                ..flags(Some("+5511999990000"), None, "https://api.twilio.com")
            })
            .contains("--twilio-account-sid")
        );
        assert!(refused(flags(None, None, "https://api.twilio.com")).contains("no sender"));
        assert!(
            refused(Flags {
                account_sid: Some("AC123"),
                ..flags(Some("+5511999990000"), None, "https://api.twilio.com")
            })
            .contains("--twilio-account-sid")
        );
        assert!(
            refused(flags(Some("5511999990000"), None, "https://api.twilio.com"))
                .contains("--twilio-sms-from")
        );
        assert!(
            refused(flags(
                None,
                Some("+5511999990000"),
                "https://api.twilio.com"
            ))
            .contains("--twilio-whatsapp-from")
        );
        for api in [
            "http://api.twilio.com",
            "ftp://127.0.0.1",
            "https://u:p@api.twilio.com",
            "https://api.twilio.com/?x=1",
            "nada",
        ] {
            assert!(
                refused(flags(Some("+5511999990000"), None, api)).contains("--twilio-api-url"),
                "{api}"
            );
        }
        for api in [
            "http://127.0.0.1:9000",
            "http://[::1]:9000",
            "http://localhost:9000",
        ] {
            assert!(
                Account::from_flags(&flags(Some("+5511999990000"), None, api)).is_ok(),
                "{api}"
            );
        }
    }

    #[test]
    fn twilios_answers_become_delivery_results_without_its_text() {
        let created = br#"{"sid": "SM0123456789abcdef0123456789abcdef", "status": "queued"}"#;
        assert_eq!(
            classify(201, created),
            Ok(Some("SM0123456789abcdef0123456789abcdef".into()))
        );
        assert_eq!(classify(201, b"{}"), Ok(None));
        let error = |code: u32, status: u16| {
            format!(
                r#"{{"code": {code}, "message": "The 'To' number +55 is not valid: secret words", "more_info": "https://www.twilio.com/docs/errors/{code}", "status": {status}}}"#
            )
        };
        type Answer = Result<Option<String>, TwilioError>;
        let cases: [(u16, Vec<u8>, Answer); 8] = [
            (
                429,
                vec![],
                Err(TwilioError::Transient(
                    "twilio: too many requests (HTTP 429)".into(),
                )),
            ),
            (
                503,
                b"<html>".to_vec(),
                Err(TwilioError::Transient(
                    "twilio: the API failed (HTTP 503)".into(),
                )),
            ),
            (
                500,
                vec![],
                Err(TwilioError::Transient(
                    "twilio: the API failed (HTTP 500)".into(),
                )),
            ),
            (
                401,
                error(20003, 401).into_bytes(),
                Err(TwilioError::Refused(
                    "twilio: authentication refused (HTTP 401, code 20003)".into(),
                )),
            ),
            (
                400,
                error(21211, 400).into_bytes(),
                Err(TwilioError::Rejected(
                    "twilio: recipient refused (HTTP 400, code 21211)".into(),
                )),
            ),
            (
                400,
                error(63003, 400).into_bytes(),
                Err(TwilioError::Rejected(
                    "twilio: recipient refused (HTTP 400, code 63003)".into(),
                )),
            ),
            (
                400,
                error(21606, 400).into_bytes(),
                Err(TwilioError::Refused(
                    "twilio: message refused (HTTP 400, code 21606)".into(),
                )),
            ),
            (
                302,
                vec![],
                Err(TwilioError::Transient(
                    "twilio: the API failed (HTTP 302)".into(),
                )),
            ),
        ];
        for (status, body, expected) in cases {
            let result = classify(status, &body);
            assert_eq!(result, expected, "{status}");
            assert!(!format!("{result:?}").contains("secret"));
        }
    }

    #[test]
    fn statuses_on_the_way_change_nothing_and_final_ones_are_receipts() {
        for status in [
            "queued",
            "sending",
            "sent",
            "accepted",
            "scheduled",
            "canceled",
            "novo",
        ] {
            assert_eq!(reported(status, None), None, "{status}");
        }
        assert_eq!(reported("delivered", None), Some(Reported::Delivered));
        assert_eq!(reported("read", None), Some(Reported::Delivered));
        assert_eq!(
            reported("undelivered", Some("30003")),
            Some(Reported::Undelivered("twilio: undelivered (30003)".into()))
        );
        assert_eq!(
            reported("failed", Some("<script>")),
            Some(Reported::Undelivered("twilio: failed".into()))
        );
    }
}
