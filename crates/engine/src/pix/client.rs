//! A client of one PSP's API Pix (BACEN's OpenAPI document, 2.9): the OAuth 2.0
//! client-credentials token, and the calls the Pix worker makes — `PUT`/`PATCH`/`GET
//! /cobv/{txid}`, `PUT`/`GET /webhook/{chave}` and `GET /pix`.
//!
//! Every call is made over mutual TLS with the organization's certificate and key (the PSP
//! authenticates the receiver by its certificate and by the token), and through the outbound
//! guard (`crate::outbound`): the API and token URLs are the tenant's to choose, so they must
//! not lead to this machine, the networks around it or a cloud metadata service, whatever
//! their name resolves to; redirects are not followed. The token is asked for with HTTP Basic
//! client authentication (RFC 6749 §2.3.1), the way PSPs publish it, and kept until a little
//! before it expires; a `401` from the API drops it and the call is made once more with a new
//! one.
//!
//! What goes wrong is said in words the tenant may read ([`PspError`]): a category for the
//! network (the operating system's words and addresses go to the log only, as for webhooks),
//! and the PSP's own problem document (RFC 7807 `title` and `detail`) for an answer it refused.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::Value;
use tokio::sync::Mutex;

use super::PixSettings;
use crate::outbound::{self, Policy};
use crate::webhooks::{Failure, error_chain};

/// A PSP has this long to answer one call (connection, request and answer).
pub const TIMEOUT: Duration = Duration::from_secs(15);

/// The largest answer read from a PSP.
const ANSWER_LIMIT: usize = 1024 * 1024;

/// A token is renewed this long before the PSP said it expires.
const TOKEN_MARGIN: Duration = Duration::from_secs(30);

/// The scopes asked for: what the worker and the test use.
pub const SCOPES: &str = "cobv.write cobv.read webhook.write webhook.read pix.read pix.write";

/// The scopes of Pix Automático, asked for in a token of their own: a PSP that does not offer
/// it may refuse them (`invalid_scope`), and that must not cost the cobv and the Pix their
/// token.
pub const AUTOMATIC_SCOPES: &str = "rec.write rec.read cobr.write cobr.read payloadlocationrec.write \
    payloadlocationrec.read webhookrec.write webhookrec.read webhookcobr.write webhookcobr.read";

/// Which token a call is made with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scopes {
    /// [`SCOPES`]: cobv, webhooks of the key, Pix and devoluções.
    Pix,
    /// [`AUTOMATIC_SCOPES`]: recurrences, their locations and recurring charges.
    Automatic,
}

impl Scopes {
    fn asked(self) -> &'static str {
        match self {
            Scopes::Pix => SCOPES,
            Scopes::Automatic => AUTOMATIC_SCOPES,
        }
    }

    fn slot(self) -> usize {
        match self {
            Scopes::Pix => 0,
            Scopes::Automatic => 1,
        }
    }
}

/// A connection's credentials, opened: what the client is built from. Never shown.
#[derive(Clone)]
pub struct Credentials {
    pub api_url: String,
    pub token_url: String,
    pub client_id: String,
    pub client_secret: String,
    pub certificate_pem: String,
    pub private_key_pem: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("api_url", &self.api_url)
            .field("token_url", &self.token_url)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// Why a call to the PSP did not do what it should, in words the tenant may read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PspError {
    /// The outbound guard refused the URL (or what its name resolves to).
    #[error("the PSP's URL is refused: {0}")]
    Forbidden(String),
    /// No answer: `dns_failed`, `connection_failed`, `tls_error`, `timeout`.
    #[error("the PSP could not be reached ({})", .0.as_str())]
    Unreachable(Failure),
    /// The token endpoint refused the client credentials, or answered no token.
    #[error("the PSP refused the client credentials: {0}")]
    Token(String),
    /// An API call answered an error status.
    #[error("the PSP answered {status}{}", problem.as_ref().map(|p| format!(": {p}")).unwrap_or_default())]
    Answered {
        status: u16,
        problem: Option<String>,
    },
    /// An answer that is not what the API Pix document says.
    #[error("the PSP's answer is not what the API Pix specifies: {0}")]
    Invalid(String),
    /// The certificate, key or CA file cannot be used.
    #[error("the client certificate cannot be used: {0}")]
    Setup(String),
}

impl PspError {
    /// Whether the PSP answered 404 (no such cobv, no webhook).
    pub fn not_found(&self) -> bool {
        matches!(self, PspError::Answered { status: 404, .. })
    }

    /// Whether the PSP refused the request itself (a 4xx other than 401, 403, 404, 408, 429):
    /// sending it again unchanged would be refused again.
    pub fn refused_request(&self) -> bool {
        matches!(self, PspError::Answered { status, .. }
            if (400..500).contains(status) && ![401, 403, 404, 408, 429].contains(status))
    }
}

/// A client for one connection's PSP: the HTTP client with its identity, and the token.
pub struct PspClient {
    http: outbound::Client,
    api_url: String,
    token_url: String,
    client_id: String,
    client_secret: String,
    /// The token of each [`Scopes`] and until when it is used; held while one is asked for,
    /// so that calls made at once wait for one token instead of each asking for its own.
    tokens: [Mutex<Option<(String, Instant)>>; 2],
}

impl std::fmt::Debug for PspClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PspClient")
            .field("api_url", &self.api_url)
            .finish_non_exhaustive()
    }
}

/// Whether a certificate and private key make an mTLS identity: both PEM, the key PKCS#8,
/// PKCS#1 (RSA) or SEC1 (EC). The message says what is wrong, never the key.
pub fn check_identity(certificate_pem: &str, private_key_pem: &str) -> Result<(), String> {
    if !certificate_pem.contains("-----BEGIN CERTIFICATE-----") {
        return Err("certificate: must be a PEM certificate (-----BEGIN CERTIFICATE-----)".into());
    }
    if !private_key_pem.contains("PRIVATE KEY-----") {
        return Err(
            "private_key: must be a PEM private key (-----BEGIN PRIVATE KEY-----, RSA or EC)"
                .into(),
        );
    }
    if private_key_pem.contains("ENCRYPTED PRIVATE KEY") {
        return Err("private_key: must not be encrypted with a passphrase".into());
    }
    // The PEM parses into an identity at once; its DER, and whether the key is the
    // certificate's, only when a TLS client is built with it.
    identity(certificate_pem, private_key_pem)
        .and_then(|identity| reqwest::Client::builder().identity(identity).build())
        .map(drop)
        .map_err(|_| "certificate, private_key: do not make a client identity (a certificate and the private key of its public key, PEM)".into())
}

fn identity(certificate_pem: &str, private_key_pem: &str) -> reqwest::Result<reqwest::Identity> {
    let mut pem = String::with_capacity(certificate_pem.len() + private_key_pem.len() + 1);
    pem.push_str(private_key_pem.trim());
    pem.push('\n');
    pem.push_str(certificate_pem.trim());
    pem.push('\n');
    reqwest::Identity::from_pem(pem.as_bytes())
}

/// The token URL of an API URL when the connection names none: `{api_url}/oauth/token`.
pub fn default_token_url(api_url: &str) -> String {
    format!("{}/oauth/token", api_url.trim_end_matches('/'))
}

/// The date-time text the API Pix reads (RFC 3339, UTC, seconds).
pub fn rfc3339(at: time::OffsetDateTime) -> String {
    let at = at.to_offset(time::UtcOffset::UTC);
    let format =
        time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z");
    at.format(&format).unwrap_or_default()
}

impl PspClient {
    /// A client for these credentials under the settings' guard policy and CA file.
    pub fn new(credentials: &Credentials, settings: &PixSettings) -> Result<PspClient, PspError> {
        let identity = identity(&credentials.certificate_pem, &credentials.private_key_pem)
            .map_err(|e| {
                tracing::warn!("PSP client identity refused: {}", error_chain(&e));
                PspError::Setup("the certificate and private key do not make an identity".into())
            })?;
        let roots = match &settings.ca_pem {
            Some(pem) => reqwest::Certificate::from_pem_bundle(pem)
                .map_err(|e| PspError::Setup(format!("the Pix CA file: {e}")))?,
            None => Vec::new(),
        };
        let http = outbound::Client::new(Policy::new(settings.allow_private), |builder| {
            let mut builder = builder
                .timeout(TIMEOUT)
                .connect_timeout(TIMEOUT)
                // Mutual TLS or nothing: the PSP authenticates us by our certificate.
                .https_only(true)
                .identity(identity)
                .user_agent(concat!("KobanaDunning-Pix/", env!("CARGO_PKG_VERSION")));
            for root in roots {
                builder = builder.add_root_certificate(root);
            }
            builder
        })
        .map_err(|e| {
            PspError::Setup(format!("cannot build the HTTP client: {}", error_chain(&e)))
        })?;
        Ok(PspClient {
            http,
            api_url: credentials.api_url.trim_end_matches('/').to_string(),
            token_url: credentials.token_url.clone(),
            client_id: credentials.client_id.clone(),
            client_secret: credentials.client_secret.clone(),
            tokens: [Mutex::new(None), Mutex::new(None)],
        })
    }

    /// A request to `url` through the guard.
    fn request(&self, method: Method, url: &str) -> Result<reqwest::RequestBuilder, PspError> {
        self.http.request(method, url).map_err(|refusal| {
            tracing::warn!(url, "PSP URL refused: {refusal}");
            PspError::Forbidden(refusal.to_string())
        })
    }

    /// Send and read the answer (at most [`ANSWER_LIMIT`]): its status and body.
    async fn send(
        &self,
        request: reqwest::RequestBuilder,
        url: &str,
    ) -> Result<(u16, Vec<u8>), PspError> {
        let mut response = request.send().await.map_err(|e| {
            let failure = Failure::of_error(&e, url.starts_with("https:"));
            tracing::warn!(
                url,
                failure = failure.as_str(),
                "PSP call failed: {}",
                error_chain(&e)
            );
            match failure {
                Failure::TargetForbidden => PspError::Forbidden(
                    outbound::resolve_error(&e)
                        .map_or_else(|| "a forbidden address".into(), |r| r.to_string()),
                ),
                failure => PspError::Unreachable(failure),
            }
        })?;
        let status = response.status().as_u16();
        let mut body = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() + chunk.len() > ANSWER_LIMIT {
                        return Err(PspError::Invalid("the answer is over 1 MB".into()));
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) if e.is_timeout() => return Err(PspError::Unreachable(Failure::Timeout)),
                Err(_) => return Err(PspError::Unreachable(Failure::ConnectionFailed)),
            }
        }
        Ok((status, body))
    }

    /// A token of `scopes`, from the cache or asked for now.
    async fn token(&self, scopes: Scopes) -> Result<String, PspError> {
        let mut kept = self.tokens[scopes.slot()].lock().await;
        if let Some((token, until)) = kept.as_ref()
            && Instant::now() < *until
        {
            return Ok(token.clone());
        }
        let request = self
            .request(Method::POST, &self.token_url)?
            .basic_auth(&self.client_id, Some(&self.client_secret))
            .form(&[
                ("grant_type", "client_credentials"),
                ("scope", scopes.asked()),
            ]);
        let (status, body) = self.send(request, &self.token_url).await?;
        let answer: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if !(200..300).contains(&status) {
            // RFC 6749 §5.2: `error` and maybe `error_description`.
            let said = [
                answer["error"].as_str(),
                answer["error_description"].as_str(),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(": ");
            return Err(PspError::Token(if said.is_empty() {
                format!("HTTP {status}")
            } else {
                format!("HTTP {status}, {}", clip(&said))
            }));
        }
        let token = answer["access_token"]
            .as_str()
            .filter(|t| !t.is_empty())
            .ok_or_else(|| PspError::Token("the answer has no access_token".into()))?
            .to_string();
        let lifetime = Duration::from_secs(answer["expires_in"].as_u64().unwrap_or(300));
        let until = Instant::now() + lifetime.saturating_sub(TOKEN_MARGIN);
        *kept = Some((token.clone(), until));
        Ok(token)
    }

    /// Ask for a token now (the connection test).
    pub async fn fresh_token(&self) -> Result<(), PspError> {
        *self.tokens[Scopes::Pix.slot()].lock().await = None;
        self.token(Scopes::Pix).await.map(drop)
    }

    /// One API call with the token: the JSON answer of a 2xx (`Null` when empty), or the
    /// error. A 401 is tried once more with a new token.
    async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, PspError> {
        self.call_as(Scopes::Pix, method, path, body).await
    }

    /// [`call`](Self::call) with the token of `scopes`.
    async fn call_as(
        &self,
        scopes: Scopes,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, PspError> {
        let url = format!("{}{path}", self.api_url);
        let mut renewed = false;
        loop {
            let token = self.token(scopes).await?;
            let mut request = self.request(method.clone(), &url)?.bearer_auth(token);
            if let Some(body) = body {
                request = request
                    .header(http::header::CONTENT_TYPE, "application/json")
                    .body(body.to_string());
            }
            let (status, answer) = self.send(request, &url).await?;
            if status == 401 && !renewed {
                *self.tokens[scopes.slot()].lock().await = None;
                renewed = true;
                continue;
            }
            if !(200..300).contains(&status) {
                return Err(PspError::Answered {
                    status,
                    problem: problem(&answer),
                });
            }
            if answer.is_empty() {
                return Ok(Value::Null);
            }
            return serde_json::from_slice(&answer)
                .map_err(|_| PspError::Invalid(format!("{method} {path} answered no JSON")));
        }
    }

    /// `PUT /cobv/{txid}`: create the cobv (or revise it, if it exists and is active).
    pub async fn put_cobv(&self, txid: &str, body: &Value) -> Result<Cobv, PspError> {
        Cobv::read(
            self.call(Method::PUT, &format!("/cobv/{txid}"), Some(body))
                .await?,
        )
    }

    /// `PATCH /cobv/{txid}`: revise it, or remove it (`status`).
    pub async fn patch_cobv(&self, txid: &str, body: &Value) -> Result<Cobv, PspError> {
        Cobv::read(
            self.call(Method::PATCH, &format!("/cobv/{txid}"), Some(body))
                .await?,
        )
    }

    /// `GET /cobv/{txid}`.
    pub async fn get_cobv(&self, txid: &str) -> Result<Cobv, PspError> {
        Cobv::read(
            self.call(Method::GET, &format!("/cobv/{txid}"), None)
                .await?,
        )
    }

    /// `PUT /webhook/{chave}`: the PSP POSTs the key's Pix to `url` + `/pix`.
    pub async fn put_webhook(&self, key: &str, url: &str) -> Result<(), PspError> {
        let body = serde_json::json!({ "webhookUrl": url });
        self.call(
            Method::PUT,
            &format!("/webhook/{}", path_segment(key)),
            Some(&body),
        )
        .await
        .map(drop)
    }

    /// `GET /webhook/{chave}`: the URL registered, or `None` when there is none.
    pub async fn get_webhook(&self, key: &str) -> Result<Option<String>, PspError> {
        match self
            .call(
                Method::GET,
                &format!("/webhook/{}", path_segment(key)),
                None,
            )
            .await
        {
            Ok(answer) => Ok(Some(
                answer["webhookUrl"]
                    .as_str()
                    .ok_or_else(|| PspError::Invalid("GET /webhook has no webhookUrl".into()))?
                    .to_string(),
            )),
            Err(e) if e.not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `POST /locrec` (`{"tipo": "rec"}`): a location for a recurrence's QR
    /// (`PayloadLocationRecGerada`).
    pub async fn post_locrec(&self) -> Result<Value, PspError> {
        let body = serde_json::json!({ "tipo": "rec" });
        self.automatic(Method::POST, "/locrec", Some(&body)).await
    }

    /// `POST /rec` (`RecSolicitada`): create a recurrence (`RecGerada`).
    pub async fn post_rec(&self, body: &Value) -> Result<Value, PspError> {
        self.automatic(Method::POST, "/rec", Some(body)).await
    }

    /// `GET /rec/{idRec}` (`RecCompleta`), with `?txid=` of a cobv for the QR that pays it and
    /// authorizes the recurrence together.
    pub async fn get_rec(&self, rec_id: &str, txid: Option<&str>) -> Result<Value, PspError> {
        let mut path = format!("/rec/{}", path_segment(rec_id));
        if let Some(txid) = txid {
            path.push_str(&format!("?txid={}", path_segment(txid)));
        }
        self.automatic(Method::GET, &path, None).await
    }

    /// `PATCH /rec/{idRec}` (`RecRevisada`): cancel it (`{"status": "CANCELADA"}`).
    pub async fn patch_rec(&self, rec_id: &str, body: &Value) -> Result<Value, PspError> {
        let path = format!("/rec/{}", path_segment(rec_id));
        self.automatic(Method::PATCH, &path, Some(body)).await
    }

    /// `PUT /cobr/{txid}` (`CobRSolicitada`): an instalment to debit (`CobRGerada`).
    pub async fn put_cobr(&self, txid: &str, body: &Value) -> Result<Value, PspError> {
        let path = format!("/cobr/{}", path_segment(txid));
        self.automatic(Method::PUT, &path, Some(body)).await
    }

    /// `GET /cobr/{txid}` (`CobRCompleta`).
    pub async fn get_cobr(&self, txid: &str) -> Result<Value, PspError> {
        let path = format!("/cobr/{}", path_segment(txid));
        self.automatic(Method::GET, &path, None).await
    }

    /// `PATCH /cobr/{txid}` (`CobRRevisada`): cancel it.
    pub async fn patch_cobr(&self, txid: &str, body: &Value) -> Result<Value, PspError> {
        let path = format!("/cobr/{}", path_segment(txid));
        self.automatic(Method::PATCH, &path, Some(body)).await
    }

    /// `POST /cobr/{txid}/retentativa/{data}`: try a failed debit again on `date`.
    pub async fn retry_cobr(&self, txid: &str, date: time::Date) -> Result<Value, PspError> {
        let path = format!("/cobr/{}/retentativa/{date}", path_segment(txid));
        self.automatic(Method::POST, &path, None).await
    }

    /// `PUT /webhookrec` and `PUT /webhookcobr`: the PSP POSTs recurrences to `url` + `/rec`
    /// and recurring charges to `url` + `/cobr`.
    pub async fn put_automatic_webhooks(&self, url: &str) -> Result<(), PspError> {
        let body = serde_json::json!({ "webhookUrl": url });
        self.automatic(Method::PUT, "/webhookrec", Some(&body))
            .await?;
        self.automatic(Method::PUT, "/webhookcobr", Some(&body))
            .await
            .map(drop)
    }

    async fn automatic(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, PspError> {
        self.call_as(Scopes::Automatic, method, path, body).await
    }

    /// `PUT /pix/{e2eid}/devolucao/{id}` (`DevolucaoSolicitada`): ask for a devolução; the
    /// PSP's `Devolucao`.
    pub async fn put_refund(
        &self,
        end_to_end_id: &str,
        refund_id: &str,
        body: &Value,
    ) -> Result<Value, PspError> {
        self.call(
            Method::PUT,
            &format!("/pix/{end_to_end_id}/devolucao/{refund_id}"),
            Some(body),
        )
        .await
    }

    /// `GET /pix/{e2eid}/devolucao/{id}`: where a devolução stands (`Devolucao`).
    pub async fn get_refund(
        &self,
        end_to_end_id: &str,
        refund_id: &str,
    ) -> Result<Value, PspError> {
        self.call(
            Method::GET,
            &format!("/pix/{end_to_end_id}/devolucao/{refund_id}"),
            None,
        )
        .await
    }

    /// `GET /pix?inicio=&fim=&txIdPresente=true`, one page: the Pix and how many pages there
    /// are.
    pub async fn received(
        &self,
        from: time::OffsetDateTime,
        to: time::OffsetDateTime,
        page: u64,
    ) -> Result<(Vec<Value>, u64), PspError> {
        self.pix_page(from, to, "txIdPresente", page).await
    }

    /// `GET /pix?inicio=&fim=&devolucaoPresente=true`, one page: the Pix with devoluções.
    pub async fn with_refunds(
        &self,
        from: time::OffsetDateTime,
        to: time::OffsetDateTime,
        page: u64,
    ) -> Result<(Vec<Value>, u64), PspError> {
        self.pix_page(from, to, "devolucaoPresente", page).await
    }

    async fn pix_page(
        &self,
        from: time::OffsetDateTime,
        to: time::OffsetDateTime,
        present: &str,
        page: u64,
    ) -> Result<(Vec<Value>, u64), PspError> {
        let query = form_urlencoded::Serializer::new(String::new())
            .append_pair("inicio", &rfc3339(from))
            .append_pair("fim", &rfc3339(to))
            .append_pair(present, "true")
            .append_pair("paginacao.paginaAtual", &page.to_string())
            .append_pair("paginacao.itensPorPagina", "100")
            .finish();
        let answer = self
            .call(Method::GET, &format!("/pix?{query}"), None)
            .await?;
        let items = match &answer["pix"] {
            Value::Array(items) => items.clone(),
            Value::Null => Vec::new(),
            _ => return Err(PspError::Invalid("GET /pix: pix is not a list".into())),
        };
        let pages = answer["parametros"]["paginacao"]["quantidadeDePaginas"]
            .as_u64()
            .unwrap_or(1);
        Ok((items, pages))
    }
}

/// A Pix key as one path segment (an e-mail key holds `@`; a phone key a `+`).
fn path_segment(key: &str) -> String {
    form_urlencoded::byte_serialize(key.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}

/// What a PSP said in its problem document: `title: detail`, bounded.
fn problem(body: &[u8]) -> Option<String> {
    let answer: Value = serde_json::from_slice(body).ok()?;
    let said = [answer["title"].as_str(), answer["detail"].as_str()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(": ");
    (!said.is_empty()).then(|| clip(&said))
}

/// At most 300 characters of a PSP's words, without control characters.
fn clip(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(300)
        .collect();
    cleaned
}

/// A cobv as the PSP answers it (`CobVGerada`, `CobVCompleta`): what the worker keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cobv {
    pub status: String,
    pub revision: Option<i64>,
    /// `pixCopiaECola`: the BR Code the debtor pays.
    pub payload: Option<String>,
    /// `loc.location`: where the payer's PSP fetches the charge.
    pub location: Option<String>,
}

impl Cobv {
    fn read(answer: Value) -> Result<Cobv, PspError> {
        let status = answer["status"]
            .as_str()
            .ok_or_else(|| PspError::Invalid("the cobv has no status".into()))?
            .to_string();
        let text = |v: &Value| v.as_str().filter(|s| !s.is_empty()).map(str::to_string);
        Ok(Cobv {
            status,
            revision: answer["revisao"].as_i64(),
            payload: text(&answer["pixCopiaECola"]),
            location: text(&answer["loc"]["location"]).or_else(|| text(&answer["location"])),
        })
    }

    /// BACEN's `ATIVA`: generated, neither paid nor removed.
    pub fn active(&self) -> bool {
        self.status == ACTIVE
    }
}

/// The statuses of a cobv record (`CobrancaStatus`).
pub const ACTIVE: &str = "ATIVA";
pub const CONCLUDED: &str = "CONCLUIDA";
pub const REMOVED_BY_US: &str = "REMOVIDA_PELO_USUARIO_RECEBEDOR";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cobv_answer_is_read_as_bacen_writes_it() {
        // `cobResponse4` of the API Pix document, with the `pixCopiaECola` PSPs add.
        let answer = serde_json::json!({
            "calendario": {"criacao": "2020-09-09T20:15:00.358Z", "dataDeVencimento": "2020-12-31", "validadeAposVencimento": 30},
            "txid": "7978c0c97ea847e78e8849634473c1f1",
            "revisao": 0,
            "loc": {"id": 789, "location": "pix.example.com/qr/c2/cobv/9d36b84fc70b478fb95c12729b90ca25", "tipoCob": "cobv"},
            "status": "ATIVA",
            "valor": {"original": "123.45"},
            "chave": "5f84a4c5-c5cb-4599-9f13-7eb4d419dacc",
            "pixCopiaECola": "00020101021226...6304ABCD"
        });
        let cobv = Cobv::read(answer).unwrap();
        assert!(cobv.active());
        assert_eq!(cobv.revision, Some(0));
        assert_eq!(
            cobv.location.as_deref(),
            Some("pix.example.com/qr/c2/cobv/9d36b84fc70b478fb95c12729b90ca25")
        );
        assert_eq!(cobv.payload.as_deref(), Some("00020101021226...6304ABCD"));
        assert!(matches!(
            Cobv::read(serde_json::json!({"txid": "x"})),
            Err(PspError::Invalid(_))
        ));
    }

    #[test]
    fn what_went_wrong_is_said_in_the_psp_s_words_or_a_category() {
        let refused = PspError::Answered {
            status: 400,
            problem: problem(br#"{"type":"https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida","title":"Cobran\u00e7a inv\u00e1lida.","status":400,"detail":"A requisi\u00e7\u00e3o que busca alterar ou criar uma cobran\u00e7a com vencimento n\u00e3o respeita o schema."}"#),
        };
        assert_eq!(
            refused.to_string(),
            "the PSP answered 400: Cobrança inválida.: A requisição que busca alterar ou criar uma cobrança com vencimento não respeita o schema."
        );
        assert!(refused.refused_request());
        let down = PspError::Answered {
            status: 503,
            problem: None,
        };
        assert_eq!(down.to_string(), "the PSP answered 503");
        assert!(!down.refused_request());
        assert_eq!(
            PspError::Unreachable(Failure::ConnectionFailed).to_string(),
            "the PSP could not be reached (connection_failed)"
        );
        assert_eq!(clip("a\u{0}b\nc"), "a b c");
        assert_eq!(clip(&"x".repeat(1000)).len(), 300);
    }

    #[test]
    fn keys_are_one_path_segment_and_times_are_utc_seconds() {
        assert_eq!(
            path_segment("cobranca@padaria.com.br"),
            "cobranca%40padaria.com.br"
        );
        assert_eq!(path_segment("+5511999990000"), "%2B5511999990000");
        assert_eq!(
            path_segment("5f84a4c5-c5cb-4599-9f13-7eb4d419dacc"),
            "5f84a4c5-c5cb-4599-9f13-7eb4d419dacc"
        );
        let at = time::macros::datetime!(2026-03-01 12:34:56.789 -3);
        assert_eq!(rfc3339(at), "2026-03-01T15:34:56Z");
        assert_eq!(
            default_token_url("https://pix.example.com/api/v2/"),
            "https://pix.example.com/api/v2/oauth/token"
        );
    }

    #[test]
    fn a_certificate_and_key_are_checked_without_showing_the_key() {
        assert!(
            check_identity("not pem", "-----BEGIN PRIVATE KEY-----")
                .unwrap_err()
                .starts_with("certificate:")
        );
        assert!(
            check_identity(
                "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----",
                "hunter2"
            )
            .unwrap_err()
            .starts_with("private_key:")
        );
        let garbage = check_identity(
            "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----",
            "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----",
        )
        .unwrap_err();
        assert!(!garbage.contains("c2VjcmV0"), "{garbage}");
    }
}
