//! The commands besides `serve`: `token create`, `person set-password`,
//! `organization trust-issuer`, `oauth-client create`, `pix set` and `demo`. Each opens the database
//! itself and prints its result on stdout (a token, a client id) for scripts to read; their
//! log lines (a slow statement on a large database, say) go to stderr.

use dunning_domain::pix::PixSettings;
use dunning_store::events::Actor;
use dunning_store::{Db, orgs};

use super::parse::parse_rate_limit;
use super::{
    DemoArgs, OauthClientCreateArgs, PixSetArgs, SetPasswordArgs, TokenCreateArgs, TrustIssuerArgs,
};
use crate::auth::{Audience, roles, tokens};
use crate::{demo, oauth};

pub async fn find_organization(db: &Db, organization: &str) -> Result<orgs::Organization, String> {
    orgs::find_organization(db, organization)
        .await
        .map_err(|e| e.to_string())?
        .ok_or(format!("no organization with id or name '{organization}'"))
}

/// The organization and the person of it a command names, or the message to print.
pub async fn find_person(
    db: &Db,
    organization: &str,
    person: &str,
) -> Result<(orgs::Organization, orgs::Person), String> {
    let org = find_organization(db, organization).await?;
    let found = orgs::find_person(db, &org.id, person)
        .await
        .map_err(|e| e.to_string())?
        .ok_or(format!(
            "no person with id or email '{person}' in {}",
            org.name
        ))?;
    Ok((org, found))
}

/// the server would), then add the bulk rows to one of them.
pub async fn demo_bulk(args: DemoArgs) -> Result<(), String> {
    let (db, fresh) = args.database.open().await?;
    if fresh {
        let credentials = demo::seed(&db, "http://127.0.0.1:8080")
            .await
            .map_err(|e| format!("cannot seed the demo data: {e}"))?;
        demo::write_credentials(
            std::path::Path::new("data/demo-credentials.json"),
            &credentials,
        )?;
        eprintln!("Seeded the demo organizations; tokens in data/demo-credentials.json");
    }
    let org = find_organization(&db, &args.organization).await?;
    let started = std::time::Instant::now();
    let generated = crate::demo_bulk::generate(
        &db,
        &org.id,
        args.customers,
        args.charges,
        |what, done, total| {
            eprintln!(
                "{what}: {done}/{total} ({:.1} s)",
                started.elapsed().as_secs_f64()
            )
        },
    )
    .await
    .map_err(|e| e.to_string())?;
    eprintln!(
        "Added {} customers and {} charges to {} ({}) in {:.1} s",
        generated.customers,
        generated.charges,
        org.name,
        org.id,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

pub async fn create_token(args: TokenCreateArgs) -> Result<(), String> {
    let audience = Audience::parse(&args.audience).ok_or("audience must be 'api' or 'mcp'")?;
    let rate_limit = args
        .rate_limit
        .as_deref()
        .map(parse_rate_limit)
        .transpose()?;
    let toolsets = crate::mcp_host::checked_toolsets(&args.toolsets, "--toolsets")?;
    let discovery = args.discovery.as_deref().map(|word| word == "on");
    if discovery.is_some() && audience != Audience::Mcp {
        return Err("--discovery is for MCP tokens (--audience mcp)".into());
    }
    let (db, _) = args.database.open().await?;
    let (org, person) = find_person(&db, &args.organization, &args.person).await?;
    let permitted = roles::permissions(&person.role);
    let scopes: Vec<String> = if args.scopes.is_empty() {
        permitted.iter().map(|s| s.to_string()).collect()
    } else {
        for scope in &args.scopes {
            if !roles::ALL_SCOPES.contains(&scope.as_str()) {
                return Err(format!(
                    "unknown scope '{scope}'; known: {}",
                    roles::ALL_SCOPES.join(", ")
                ));
            }
            if !permitted.contains(&scope.as_str()) {
                eprintln!(
                    "warning: the role '{}' does not permit '{scope}'; the token will not be able to use it",
                    person.role
                );
            }
        }
        args.scopes.clone()
    };
    let token = tokens::generate(audience);
    let id = orgs::create_token(
        &db,
        orgs::NewToken {
            organization_id: &org.id,
            person_id: &person.id,
            audience: audience.as_str(),
            scopes: &scopes,
            toolsets: toolsets.as_deref(),
            discovery,
            token_hash: &tokens::hash(&token),
            label: args.label.as_deref(),
            rate_limit,
        },
    )
    .await
    .map_err(|e| e.to_string())?;
    eprintln!(
        "Issued {id} for {} ({}) in {}, audience {}, scopes: {}{}{}",
        person.name,
        person.role,
        org.name,
        audience.as_str(),
        scopes.join(" "),
        toolsets.map_or(String::new(), |t| format!(", toolsets: {}", t.join(","))),
        discovery.map_or(String::new(), |on| format!(
            ", discovery mode {}",
            if on { "on" } else { "off" }
        ))
    );
    println!("{token}");
    Ok(())
}

pub async fn set_password(args: SetPasswordArgs) -> Result<(), String> {
    let mut password = String::new();
    std::io::stdin()
        .read_line(&mut password)
        .map_err(|e| format!("cannot read the password from standard input: {e}"))?;
    let password = password.trim_end_matches(['\r', '\n']);
    let chars = password.chars().count();
    if !oauth::passwords::PASSWORD_CHARS.contains(&chars) {
        return Err(format!(
            "a password has {} to {} characters",
            oauth::passwords::PASSWORD_CHARS.start(),
            oauth::passwords::PASSWORD_CHARS.end()
        ));
    }
    let (db, _) = args.database.open().await?;
    let (org, person) = find_person(&db, &args.organization, &args.person).await?;
    dunning_store::oauth::set_password(&db, &person.id, &oauth::passwords::hash(password))
        .await
        .map_err(|e| e.to_string())?;
    // Browsers without a device cookie that strangers locked out of the address get in again.
    let untrusted = oauth::throttle::key(&person.email.trim().to_lowercase(), None);
    dunning_store::sign_in::clear_attempts(&db, &untrusted)
        .await
        .map_err(|e| e.to_string())?;
    eprintln!(
        "Password set for {} ({}) in {}; their sign-ins and connected applications were ended",
        person.name, person.email, org.name
    );
    Ok(())
}

pub async fn trust_issuer(args: TrustIssuerArgs) -> Result<(), String> {
    let (db, _) = args.database.open().await?;
    let org = find_organization(&db, &args.organization).await?;
    dunning_store::oauth::set_external_issuer(
        &db,
        &dunning_store::oauth::ExternalIssuer {
            organization_id: org.id.clone(),
            issuer: args.issuer.clone(),
            jwks_uri: args.jwks_uri.clone(),
            audience: args.audience.clone(),
            person_claim: args.person_claim.clone(),
        },
    )
    .await
    .map_err(|e| e.to_string())?;
    eprintln!(
        "{} now accepts JWTs from {} (keys at {})",
        org.name, args.issuer, args.jwks_uri
    );
    Ok(())
}

/// `pix set`: the same check and event as `PUT /v1/pix/settings`, the operator as the actor.
pub async fn set_pix(args: PixSetArgs) -> Result<(), String> {
    let settings = PixSettings::new(&args.key, &args.merchant_name, &args.merchant_city).map_err(
        |faults| {
            let lines: Vec<String> = faults
                .iter()
                .map(|f| format!("--{} {}", f.field.replace('_', "-"), f.message))
                .collect();
            lines.join("; ")
        },
    )?;
    let (db, _) = args.database.open().await?;
    let org = find_organization(&db, &args.organization).await?;
    let operator = Actor {
        kind: "system",
        id: None,
        name: Some("command line (pix set)".into()),
    };
    let mut tx = db.begin().await.map_err(|e| e.to_string())?;
    let stored = dunning_app::pix::set_settings(&mut tx, &org.id, &settings, &operator)
        .await
        .map_err(|e| e.to_string())?;
    tx.commit().await.map_err(|e| e.to_string())?;
    eprintln!(
        "{}'s charges are now paid by Pix to the {} key {} ({}, {})",
        org.name,
        stored.settings.key.kind(),
        stored.settings.key.as_str(),
        stored.settings.merchant_name,
        stored.settings.merchant_city
    );
    Ok(())
}

pub async fn create_oauth_client(args: OauthClientCreateArgs) -> Result<(), String> {
    for uri in &args.redirect_uris {
        oauth::clients::check_redirect_uri(uri)?;
    }
    let (db, _) = args.database.open().await?;
    let client = dunning_store::oauth::Client {
        id: dunning_store::ids::new_id("cli"),
        name: args.name.clone(),
        redirect_uris: args.redirect_uris.clone(),
        kind: "preregistered".into(),
        fetched_at_epoch: None,
    };
    dunning_store::oauth::save_client(&db, &client)
        .await
        .map_err(|e| e.to_string())?;
    eprintln!(
        "Registered {} with redirect URIs {}",
        client.name,
        client.redirect_uris.join(" ")
    );
    println!("{}", client.id);
    Ok(())
}
