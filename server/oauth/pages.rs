//! The HTML the person sees: sign-in, consent, connected applications and errors.
//! Server-rendered, in Brazilian Portuguese, without JavaScript; every field has a label,
//! focus is always visible, text keeps a contrast of at least 4.5:1, and the layout is one
//! column that fits a phone.

use axum::response::{Html, IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};

use super::scopes;

/// Text made safe for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1a1a1a;background:#f3f4f6}
main{max-width:34rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.4rem;margin:0 0 1rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=email],input[type=password]{width:100%;padding:.6rem;font-size:1rem;border:1px solid #555;border-radius:4px}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:4px;border:2px solid #0b4f9c;background:#0b4f9c;color:#fff;cursor:pointer;margin:1rem .5rem 0 0}
button.secondary{background:#fff;color:#0b4f9c}
button.danger{background:#a4161a;border-color:#a4161a}
:focus-visible{outline:3px solid #c2410c;outline-offset:2px}
.alert{border-left:4px solid #a4161a;background:#fdecec;padding:.75rem;margin:1rem 0;color:#5c0a0d}
.scope{display:flex;gap:.6rem;align-items:flex-start;margin:.5rem 0;padding:.5rem;border:1px solid #d1d5db;border-radius:4px}
.scope input{flex:none;margin-top:.3rem;width:1.2rem;height:1.2rem}
.scope label{display:inline;font-weight:400;margin:0}
.badge{display:inline-block;font-size:.8rem;font-weight:700;color:#7a1f00;background:#fff4e5;border:1px solid #7a1f00;border-radius:3px;padding:0 .3rem;margin-left:.3rem}
.muted{color:#4b5563;font-size:.9rem}
ul.apps{list-style:none;padding:0}
ul.apps li{border:1px solid #d1d5db;border-radius:4px;padding:.75rem;margin:.75rem 0}
@media (max-width:36rem){main{margin:0;border-radius:0;min-height:100vh}}
";

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
pub fn page(
    status: StatusCode,
    title: &str,
    body: &str,
    set_cookie: Option<HeaderValue>,
) -> Response {
    let html = format!(
        "<!doctype html>\n<html lang=\"pt-BR\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} · Kobana Dunning</title><style>{STYLE}</style></head>\
         <body><main>{body}</main></body></html>",
        escape(title)
    );
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

fn alert(message: Option<&str>) -> String {
    message.map_or_else(String::new, |m| {
        format!("<p class=\"alert\" role=\"alert\">{}</p>", escape(m))
    })
}

/// The sign-in form; `application` names who asked, when an application did.
pub fn sign_in(
    csrf: &str,
    return_to: &str,
    application: Option<&str>,
    message: Option<&str>,
) -> String {
    let asking = application.map_or_else(String::new, |app| {
        format!(
            "<p>Para conectar <strong>{}</strong> à sua conta, entre primeiro.</p>",
            escape(app)
        )
    });
    format!(
        "<h1>Entrar no Kobana Dunning</h1>{asking}{}\
         <form method=\"post\" action=\"/oauth/sign-in\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{}\">\
         <input type=\"hidden\" name=\"return_to\" value=\"{}\">\
         <label for=\"email\">E-mail</label>\
         <input id=\"email\" name=\"email\" type=\"email\" autocomplete=\"username\" required autofocus>\
         <label for=\"password\">Senha</label>\
         <input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"current-password\" required>\
         <button type=\"submit\">Entrar</button></form>",
        alert(message),
        escape(csrf),
        escape(return_to),
    )
}

/// What the consent page shows.
#[derive(Debug)]
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
}

pub fn consent(c: &Consent<'_>) -> String {
    let mut items = String::new();
    for (i, scope) in c.scopes.iter().enumerate() {
        let badge = if scopes::destructive(scope) {
            " <span class=\"badge\">altera dados</span>"
        } else {
            ""
        };
        let checked = if c.ticked.contains(scope) {
            " checked"
        } else {
            ""
        };
        items.push_str(&format!(
            "<div class=\"scope\"><input type=\"checkbox\" id=\"s{i}\" name=\"scope\" value=\"{}\"{checked}>\
             <label for=\"s{i}\">{}{badge} <span class=\"muted\">({})</span></label></div>",
            escape(scope),
            escape(scopes::describe(scope)),
            escape(scope),
        ));
    }
    let refused = if c.refused.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = c
            .refused
            .iter()
            .map(|s| format!("<li>{}</li>", escape(scopes::describe(s))))
            .collect();
        format!(
            "<p class=\"muted\">Seu perfil não permite, e o aplicativo não receberá:</p><ul class=\"muted\">{}</ul>",
            list.join("")
        )
    };
    let unverified = if c.self_registered {
        format!(
            "<p class=\"alert\">Este aplicativo se registrou sozinho: ninguém confirmou que o nome acima é dele. \
             Só permita se você mesmo o conectou agora e se ele leva de volta a <strong>{}</strong>.</p>",
            escape(c.redirect_host)
        )
    } else {
        String::new()
    };
    format!(
        "<h1>Autorizar {app}</h1>\
         <p><strong>{app}</strong> quer acessar o Kobana Dunning em nome de <strong>{person}</strong>, \
         na organização <strong>{org}</strong>.</p>{unverified}\
         <form method=\"post\" action=\"/oauth/consent\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
         <input type=\"hidden\" name=\"request\" value=\"{request}\">\
         <fieldset style=\"border:0;padding:0;margin:0\"><legend><strong>O aplicativo poderá:</strong> \
         <span class=\"muted\">(desmarque o que não quiser permitir)</span></legend>{items}</fieldset>{refused}\
         <p class=\"muted\">Depois você volta para <strong>{host}</strong>. Você pode revogar o acesso a qualquer momento em \
         <a href=\"/oauth/apps\">Aplicativos conectados</a>.</p>\
         <button type=\"submit\" name=\"decision\" value=\"allow\">Permitir</button>\
         <button type=\"submit\" name=\"decision\" value=\"deny\" class=\"secondary\">Negar</button>\
         </form>",
        app = escape(c.application),
        person = escape(c.person),
        org = escape(c.organization),
        csrf = escape(c.csrf),
        request = escape(c.request),
        host = escape(c.redirect_host),
    )
}

/// One connected application on the list.
#[derive(Debug)]
pub struct ConnectedApp {
    pub grant_id: String,
    pub name: String,
    pub since: String,
    pub scopes: Vec<String>,
}

pub fn apps(csrf: &str, person: &str, organization: &str, apps: &[ConnectedApp]) -> String {
    let mut list = String::new();
    for app in apps {
        let words: Vec<String> = app
            .scopes
            .iter()
            .map(|s| escape(scopes::describe(s)))
            .collect();
        list.push_str(&format!(
            "<li><strong>{name}</strong><br><span class=\"muted\">Conectado em {since}</span>\
             <details><summary>Permissões ({count})</summary><ul><li>{words}</li></ul></details>\
             <form method=\"post\" action=\"/oauth/apps/revoke\">\
             <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
             <input type=\"hidden\" name=\"grant\" value=\"{grant}\">\
             <button type=\"submit\" class=\"danger\" aria-label=\"Revogar o acesso de {name}\">Revogar acesso</button></form></li>",
            name = escape(&app.name),
            since = escape(app.since.get(..10).unwrap_or(&app.since)),
            count = app.scopes.len(),
            words = words.join("</li><li>"),
            csrf = escape(csrf),
            grant = escape(&app.grant_id),
        ));
    }
    if apps.is_empty() {
        list.push_str("<li>Nenhum aplicativo conectado.</li>");
    }
    format!(
        "<h1>Aplicativos conectados</h1>\
         <p>{person}, na organização {org}.</p><ul class=\"apps\">{list}</ul>\
         <form method=\"post\" action=\"/oauth/sign-out\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
         <button type=\"submit\" class=\"secondary\">Sair</button></form>",
        person = escape(person),
        org = escape(organization),
        csrf = escape(csrf),
    )
}

/// A page that says why the request cannot go on (and sends the person nowhere).
pub fn error(status: StatusCode, message: &str) -> Response {
    page(
        status,
        "Não foi possível continuar",
        &format!(
            "<h1>Não foi possível continuar</h1><p class=\"alert\" role=\"alert\">{}</p>\
             <p class=\"muted\">Volte ao aplicativo e tente conectar de novo.</p>",
            escape(message)
        ),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_neutralises_markup_in_text_and_attributes() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }
}
