//! A small SMTP client for debtor e-mails: one message per connection, plain TCP, optional
//! `AUTH PLAIN`, UTF-8 text in base64 (so no line of the body can be mistaken for the end of
//! the data). Meant for a relay the operator runs (`DUNNING_SMTP_URL=smtp://host:port`);
//! there is no STARTTLS, so credentials must only be used on a trusted network.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc2822;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// Where and how to send: parsed from `smtp://[user[:password]@]host[:port][?from=address]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmtpSettings {
    pub host: String,
    pub port: u16,
    pub username: Option<String>,
    pub password: Option<String>,
    /// Envelope sender and `From` address.
    pub from: String,
}

impl SmtpSettings {
    /// Parse a `smtp://` URL; the port defaults to 25 and the sender to
    /// `nao-responda@<host>`.
    pub fn parse(url: &str) -> Result<SmtpSettings, String> {
        let rest = url
            .strip_prefix("smtp://")
            .ok_or_else(|| format!("the SMTP URL must start with smtp:// (got {url})"))?;
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
        let (host, port) = match address.rsplit_once(':') {
            Some((h, p)) => (
                h.to_string(),
                p.parse::<u16>()
                    .map_err(|_| format!("the SMTP port '{p}' is not a number"))?,
            ),
            None => (address.to_string(), 25),
        };
        if host.is_empty() {
            return Err("the SMTP URL has no host".into());
        }
        let mut from = None;
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            if key == "from" {
                from = Some(value.to_string());
            }
        }
        let from = from.unwrap_or_else(|| format!("nao-responda@{host}"));
        if !plain_address(&from) {
            return Err(format!(
                "the sender address '{from}' is not a plain e-mail address"
            ));
        }
        Ok(SmtpSettings {
            host,
            port,
            username,
            password,
            from,
        })
    }
}

fn percent_decode(text: &str) -> String {
    form_urlencoded::parse(format!("x={}", text.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.to_string())
        .unwrap_or_default()
}

/// An address that can go inside `<...>` of an SMTP command without injecting anything.
fn plain_address(address: &str) -> bool {
    let ok = |c: char| !c.is_control() && !c.is_whitespace() && !matches!(c, '<' | '>');
    address.contains('@') && address.chars().all(ok)
}

/// Why a message did not go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SmtpError {
    /// The server refused the recipient for good (5xx to `RCPT TO`).
    Rejected(String),
    /// The server refused the message for good (another 5xx).
    Permanent(String),
    /// A 4xx, a network failure or a timeout: worth trying again later.
    Transient(String),
}

/// One e-mail.
#[derive(Debug, Clone)]
pub struct Email<'a> {
    pub to: &'a str,
    pub from_name: &'a str,
    pub subject: &'a str,
    pub body: &'a str,
    /// Goes into `Message-ID` so a message can be traced back to its delivery.
    pub reference: &'a str,
}

const TIMEOUT: Duration = Duration::from_secs(30);

/// Send one message; Ok once the server accepted it for delivery (250 after the data).
pub async fn send(settings: &SmtpSettings, email: &Email<'_>) -> Result<(), SmtpError> {
    if !plain_address(email.to) {
        return Err(SmtpError::Rejected(format!(
            "'{}' is not a usable e-mail address",
            email.to
        )));
    }
    tokio::time::timeout(TIMEOUT, conversation(settings, email))
        .await
        .unwrap_or_else(|_| {
            Err(SmtpError::Transient(
                "the SMTP server did not answer in time".into(),
            ))
        })
}

struct Session {
    reader: BufReader<tokio::net::tcp::OwnedReadHalf>,
    writer: tokio::net::tcp::OwnedWriteHalf,
}

impl Session {
    /// Read a (possibly multi-line) reply: its code and text.
    async fn reply(&mut self) -> Result<(u16, String), SmtpError> {
        let mut text = String::new();
        loop {
            let mut line = String::new();
            let n = self.reader.read_line(&mut line).await.map_err(io)?;
            if n == 0 {
                return Err(SmtpError::Transient(
                    "the SMTP server closed the connection".into(),
                ));
            }
            let line = line.trim_end();
            let code = line
                .get(..3)
                .and_then(|c| c.parse::<u16>().ok())
                .ok_or_else(|| SmtpError::Transient(format!("not an SMTP reply: {line}")))?;
            text.push_str(line.get(4..).unwrap_or_default());
            if line.as_bytes().get(3) != Some(&b'-') {
                return Ok((code, text));
            }
            text.push(' ');
        }
    }

    async fn command(&mut self, line: &str, what: &str, rcpt: bool) -> Result<u16, SmtpError> {
        self.writer
            .write_all(format!("{line}\r\n").as_bytes())
            .await
            .map_err(io)?;
        let (code, text) = self.reply().await?;
        check(code, &text, what, rcpt)
    }
}

fn io(e: std::io::Error) -> SmtpError {
    SmtpError::Transient(format!("SMTP connection: {e}"))
}

fn check(code: u16, text: &str, what: &str, rcpt: bool) -> Result<u16, SmtpError> {
    match code {
        200..=399 => Ok(code),
        400..=499 => Err(SmtpError::Transient(format!("{what}: {code} {text}"))),
        _ if rcpt => Err(SmtpError::Rejected(format!("{what}: {code} {text}"))),
        _ => Err(SmtpError::Permanent(format!("{what}: {code} {text}"))),
    }
}

async fn conversation(settings: &SmtpSettings, email: &Email<'_>) -> Result<(), SmtpError> {
    let stream = TcpStream::connect((settings.host.as_str(), settings.port))
        .await
        .map_err(|e| {
            SmtpError::Transient(format!(
                "cannot connect to {}:{}: {e}",
                settings.host, settings.port
            ))
        })?;
    let (read, write) = stream.into_split();
    let mut s = Session {
        reader: BufReader::new(read),
        writer: write,
    };
    let (code, text) = s.reply().await?;
    check(code, &text, "greeting", false)?;
    s.command("EHLO kobana-dunning", "EHLO", false).await?;
    if let Some(user) = &settings.username {
        let token = STANDARD.encode(format!(
            "\0{user}\0{}",
            settings.password.as_deref().unwrap_or_default()
        ));
        s.command(&format!("AUTH PLAIN {token}"), "AUTH", false)
            .await?;
    }
    s.command(
        &format!("MAIL FROM:<{}>", settings.from),
        "MAIL FROM",
        false,
    )
    .await?;
    s.command(&format!("RCPT TO:<{}>", email.to), "RCPT TO", true)
        .await?;
    let code = s.command("DATA", "DATA", false).await?;
    if code != 354 {
        return Err(SmtpError::Permanent(format!("DATA: unexpected {code}")));
    }
    let message = format_message(settings, email, dunning_domain::timestamp::now());
    s.writer.write_all(message.as_bytes()).await.map_err(io)?;
    s.writer.write_all(b".\r\n").await.map_err(io)?;
    let (code, text) = s.reply().await?;
    check(code, &text, "message", false)?;
    // The message is accepted; a failing QUIT changes nothing.
    let _ = s.command("QUIT", "QUIT", false).await;
    Ok(())
}

/// RFC 2047 encoded word for a header with non-ASCII text.
fn encoded_word(text: &str) -> String {
    if text.is_ascii() && !text.contains(['\r', '\n']) {
        text.to_string()
    } else {
        format!("=?UTF-8?B?{}?=", STANDARD.encode(text))
    }
}

/// The whole message, headers and base64 body, each line ended by CRLF.
pub fn format_message(settings: &SmtpSettings, email: &Email<'_>, now: OffsetDateTime) -> String {
    let date = now.format(&Rfc2822).unwrap_or_default();
    let encoded = STANDARD.encode(email.body.replace("\r\n", "\n").replace('\n', "\r\n"));
    let mut body = String::new();
    for chunk in encoded.as_bytes().chunks(76) {
        body.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        body.push_str("\r\n");
    }
    let domain = settings.from.rsplit('@').next().unwrap_or("localhost");
    format!(
        "From: {} <{}>\r\nTo: <{}>\r\nSubject: {}\r\nDate: {date}\r\nMessage-ID: <{}@{domain}>\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\n{body}",
        encoded_word(email.from_name),
        settings.from,
        email.to,
        encoded_word(email.subject),
        email.reference,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_give_host_port_credentials_and_sender() {
        let s = SmtpSettings::parse(
            "smtp://user:p%40ss@mail.example.com:2525?from=cobranca@example.com",
        )
        .unwrap();
        assert_eq!(s.host, "mail.example.com");
        assert_eq!(s.port, 2525);
        assert_eq!(s.username.as_deref(), Some("user"));
        assert_eq!(s.password.as_deref(), Some("p@ss"));
        assert_eq!(s.from, "cobranca@example.com");
        let d = SmtpSettings::parse("smtp://127.0.0.1").unwrap();
        assert_eq!((d.port, d.from.as_str()), (25, "nao-responda@127.0.0.1"));
        assert!(SmtpSettings::parse("http://x").is_err());
        assert!(SmtpSettings::parse("smtp://x:port").is_err());
    }

    #[test]
    fn headers_with_accents_are_encoded_words() {
        assert_eq!(encoded_word("Aviso"), "Aviso");
        assert!(encoded_word("Cobrança").starts_with("=?UTF-8?B?"));
        let settings = SmtpSettings::parse("smtp://h:25?from=a@b.c").unwrap();
        let message = format_message(
            &settings,
            &Email {
                to: "x@y.z",
                from_name: "Pão",
                subject: "Olá",
                body: "linha\n.\nfim",
                reference: "dlv_1",
            },
            OffsetDateTime::UNIX_EPOCH,
        );
        assert!(message.contains("Message-ID: <dlv_1@b.c>"));
        assert!(
            !message.contains("\r\n.\r\n"),
            "no bare dot line: {message}"
        );
    }
}
