//! Roles and the scopes each one permits.

/// Every scope the API declares, in the order `me` lists them.
pub const ALL_SCOPES: &[&str] = &[
    "customers:read",
    "customers:write",
    "charges:read",
    "charges:write",
    "charges:collect",
    "collection_plans:read",
    "collection_plans:write",
    "deliveries:read",
    "deliveries:write",
    "agreements:read",
    "agreements:write",
    "disputes:read",
    "disputes:write",
    "webhooks:read",
    "webhooks:write",
    "exports:read",
    "exports:write",
    "events:read",
    "pix:read",
    "pix:write",
];

/// The roles, most powerful first.
pub const ROLES: &[&str] = &["admin", "manager", "collector", "viewer"];

/// Scopes a role permits. Unknown roles permit nothing.
///
/// - admin: everything;
/// - manager: everything but webhooks and `pix:write` (the Pix key debtors pay, the PSP
///   connection's credentials): they hold secrets and choose where money and the server go;
/// - collector: reading (not webhooks), customers and charges, collecting (notify,
///   negativate, protest), payments, deliveries and agreements;
/// - viewer: reading only (not webhooks, which hold secrets and endpoints).
pub fn permissions(role: &str) -> Vec<&'static str> {
    let reads = ALL_SCOPES
        .iter()
        .copied()
        .filter(|s| s.ends_with(":read") && !s.starts_with("webhooks:"));
    match role {
        "admin" => ALL_SCOPES.to_vec(),
        "manager" => ALL_SCOPES
            .iter()
            .copied()
            .filter(|s| !s.starts_with("webhooks:") && *s != "pix:write")
            .collect(),
        "collector" => reads
            .chain([
                "customers:write",
                "charges:write",
                "charges:collect",
                "deliveries:write",
                "agreements:write",
            ])
            .collect(),
        "viewer" => reads.collect(),
        _ => Vec::new(),
    }
}

/// The toolsets (`openapi/v1.yaml`, `x-mcp.toolsets`) an MCP connection of this role loads
/// when it does not choose (`None`: all its scopes allow). Chosen from what each role does
/// all day, so an assistant carries those tools and not the rest; any connection can still
/// ask for more (`X-MCP-Toolsets: all`, `/mcp/x/...`) within its scopes:
///
/// - admin and manager run the whole operation (plans, exports, webhooks for the admin): all;
/// - a collector works debtors one by one: their charges, acting on them, notices, agreements
///   and disputes; plans, exports and the audit trail are a manager's;
/// - a viewer follows debtors, charges, agreements, disputes and messages; plans and exports
///   are set up by others.
pub fn default_toolsets(role: &str) -> Option<&'static [&'static str]> {
    match role {
        "collector" => Some(&[
            "customers",
            "charges",
            "collection",
            "agreements",
            "disputes",
            "deliveries",
        ]),
        "viewer" => Some(&[
            "customers",
            "charges",
            "agreements",
            "disputes",
            "deliveries",
        ]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_role_is_a_subset_of_the_one_above() {
        for pair in ROLES.windows(2) {
            let (upper, lower) = (permissions(pair[0]), permissions(pair[1]));
            assert!(
                lower.iter().all(|s| upper.contains(s)),
                "{} ⊄ {}",
                pair[1],
                pair[0]
            );
        }
    }

    #[test]
    fn only_admins_set_the_pix_key_and_every_role_reads_it() {
        for role in ROLES {
            let permitted = permissions(role);
            assert_eq!(permitted.contains(&"pix:write"), *role == "admin", "{role}");
            assert!(permitted.contains(&"pix:read"), "{role}");
        }
    }

    #[test]
    fn viewers_only_read() {
        assert!(permissions("viewer").iter().all(|s| s.ends_with(":read")));
        assert!(permissions("nobody").is_empty());
    }
}
