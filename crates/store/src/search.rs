//! How people look debtors up, and what debtors owe: rows whose id starts with a prefix, or
//! whose customer's name (accents and case ignored) or document (punctuation ignored) does.
//! Customers complete on their own rows; charges, agreements and disputes through their
//! customer ([`complete_by_customer`]), so those areas need not know the customers module.

use dunning_domain::text::search_key;

use super::{Bind, Conditions, Db, Result};

/// Match rows whose `id_column` starts with `prefix`, or whose customer's name (accents and
/// case ignored, `name_column`) or document (punctuation ignored, `document_column`) does:
/// how people look a debtor, or what a debtor owes, up.
pub(super) fn push_customer_prefix(
    c: &mut Conditions,
    prefix: &str,
    id_column: &str,
    name_column: &str,
    document_column: &str,
) {
    let key = crate::like_escape(&search_key(prefix));
    let document: String = prefix
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_uppercase();
    let document = crate::like_escape(&document);
    c.push_many(
        &format!(
            "({id_column} LIKE {{}} ESCAPE '\\' OR {name_column} LIKE {{}} ESCAPE '\\' \
             OR ({document_column} LIKE {{}} ESCAPE '\\' AND {{}} <> ''))"
        ),
        vec![
            Bind::Text(format!("{}%", crate::like_escape(prefix))),
            Bind::Text(format!("{key}%")),
            Bind::Text(format!("{document}%")),
            Bind::Text(document),
        ],
    );
}

/// Ids of `table` (charges, agreements, disputes: each has `id`, `organization_id` and
/// `customer_id`) whose id starts with `prefix`, or whose customer's name or document does,
/// in `order`, at most `limit`, and how many match in all.
pub(super) async fn complete_by_customer(
    db: &Db,
    table: &'static str,
    organization_id: &str,
    prefix: &str,
    order: &str,
    limit: i64,
) -> Result<(Vec<String>, i64)> {
    let mut c = Conditions::default();
    c.push(
        &format!("{table}.organization_id = {{}}"),
        Bind::Text(organization_id.to_string()),
    );
    push_customer_prefix(
        &mut c,
        prefix,
        &format!("{table}.id"),
        "customers.search_name",
        "customers.document",
    );
    let from = format!("FROM {table} JOIN customers ON customers.id = {table}.customer_id");
    c.fetch_ids(db, &format!("{table}.id"), &from, order, limit)
        .await
}
