//! The HTML the person sees: sign-in, consent, connected applications and errors.
//! Server-rendered, in Brazilian Portuguese, without JavaScript; every field has a label,
//! focus is always visible, text keeps a contrast of at least 4.5:1, and the layout is one
//! column that fits a phone.
//!
//! Each page is an askama template in `server/templates/oauth/` over one layout (named from
//! askama's default `templates/`, the generator's folder, with `../`, as the unsubscribe pages
//! are): compiled into the binary, and every value escaped for HTML unless a template says
//! otherwise (none does). Application names, redirect URIs and scopes come from whoever
//! registered the application, so nothing a page shows is trusted markup.

use askama::Template;
use axum::response::{Html, IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};

use super::scopes;

const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// Let the page's forms end at `target` too: browsers apply `form-action` to the redirect
/// that follows a submission, and the consent form's answer redirects to the application.
pub fn allow_form_target(response: &mut Response, target: &str) {
    let Ok(url) = reqwest::Url::parse(target) else {
        return;
    };
    let source = match url.host_str() {
        Some(_) => url.origin().ascii_serialization(),
        None => format!("{}:", url.scheme()),
    };
    let policy = CSP.replace(
        "form-action 'self'",
        &format!("form-action 'self' {source}"),
    );
    if let Ok(value) = HeaderValue::from_str(&policy) {
        response
            .headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, value);
    }
}

/// A whole page; `set_cookie` gives the browser its CSRF cookie when it had none.
pub fn page(status: StatusCode, page: &impl Template, set_cookie: Option<HeaderValue>) -> Response {
    let html = match page.render() {
        Ok(html) => html,
        Err(e) => {
            tracing::error!("OAuth page template: {e}");
            return (StatusCode::INTERNAL_SERVER_ERROR, "internal error").into_response();
        }
    };
    let mut response = (status, Html(html)).into_response();
    let headers = response.headers_mut();
    // No framing (clickjacking of the consent button), no scripts, forms only to us. No
    // referrer leaves for another origin; `no-referrer` would also make browsers send
    // `Origin: null` with our own forms, which `forms::foreign_origin` refuses.
    crate::http::page::protect(headers, CSP, "same-origin");
    if let Some(cookie) = set_cookie {
        headers.append(header::SET_COOKIE, cookie);
    }
    response
}

/// The sign-in form.
#[derive(Template)]
#[template(path = "../server/templates/oauth/sign_in.html")]
pub struct SignIn<'a> {
    pub csrf: &'a str,
    /// Where the browser goes once signed in.
    pub return_to: &'a str,
    /// Who asked, when an application did.
    pub application: Option<&'a str>,
    /// Why the last attempt failed.
    pub message: Option<&'a str>,
}

/// What the consent page shows.
#[derive(Debug, Template)]
#[template(path = "../server/templates/oauth/consent.html")]
pub struct Consent<'a> {
    pub csrf: &'a str,
    pub request: &'a str,
    pub application: &'a str,
    /// The application registered itself (dynamic registration or a metadata document):
    /// nobody vouched for its name, so the page says to check where it leads.
    pub self_registered: bool,
    pub redirect_host: &'a str,
    pub person: &'a str,
    pub organization: &'a str,
    /// Requested scopes the person's role permits.
    pub scopes: &'a [String],
    /// Those of `scopes` ticked when the page opens.
    pub ticked: &'a [String],
    /// Requested scopes the role does not permit (shown, not offered).
    pub refused: &'a [String],
    /// The MCP toolsets the person may let the application load, and which are ticked (the
    /// role's defaults) when the page opens.
    pub toolsets: &'a [(&'static str, bool)],
}

/// The signed-in person's connected applications, each with its revoke button.
#[derive(Template)]
#[template(path = "../server/templates/oauth/apps.html")]
pub struct Apps<'a> {
    pub csrf: &'a str,
    pub person: &'a str,
    pub organization: &'a str,
    pub apps: &'a [ConnectedApp],
}

/// One connected application on the list.
#[derive(Debug)]
pub struct ConnectedApp {
    pub grant_id: String,
    pub name: String,
    pub since: String,
    pub scopes: Vec<String>,
}

impl ConnectedApp {
    /// The day it was connected (`since` is an RFC 3339 time).
    fn day(&self) -> &str {
        self.since.get(..10).unwrap_or(&self.since)
    }
}

#[derive(Template)]
#[template(path = "../server/templates/oauth/error.html")]
struct ErrorPage<'a> {
    message: &'a str,
}

/// A page that says why the request cannot go on (and sends the person nowhere).
pub fn error(status: StatusCode, message: &str) -> Response {
    page(status, &ErrorPage { message }, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARKUP: &str = "<script>alert(\"x\")</script> & 'Co'";

    #[test]
    fn every_value_a_page_shows_is_escaped_in_text_and_in_attributes() {
        let scopes = vec!["charges:read".to_string(), "charges:write".to_string()];
        let app = ConnectedApp {
            grant_id: MARKUP.into(),
            name: MARKUP.into(),
            since: MARKUP.into(),
            scopes: scopes.clone(),
        };
        let pages = [
            SignIn {
                csrf: MARKUP,
                return_to: MARKUP,
                application: Some(MARKUP),
                message: Some(MARKUP),
            }
            .render(),
            Consent {
                csrf: MARKUP,
                request: MARKUP,
                application: MARKUP,
                self_registered: true,
                redirect_host: MARKUP,
                person: MARKUP,
                organization: MARKUP,
                scopes: &scopes[..1],
                ticked: &scopes[..1],
                refused: &scopes[1..],
                toolsets: &[("charges", true)],
            }
            .render(),
            Apps {
                csrf: MARKUP,
                person: MARKUP,
                organization: MARKUP,
                apps: &[app],
            }
            .render(),
            ErrorPage { message: MARKUP }.render(),
        ];
        for html in pages {
            let html = html.unwrap();
            for raw in ["<script", "\"x\"", "'Co'", " & "] {
                assert!(!html.contains(raw), "{raw} in {html}");
            }
            assert!(
                html.contains(
                    "&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#39;Co&#39;"
                ),
                "{html}"
            );
        }
    }
}
