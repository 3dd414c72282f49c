//! An organization's Pix setup (`pix_settings`, one row per organization): its key and the
//! merchant name and city its BR Codes carry, stored as the codes carry them and checked
//! again when read, so a row edited by hand cannot make a code the manual refuses.

use sqlx::AnyConnection;

use super::rows::{Stored, of_organization};
use super::{Db, Result, StoreError};
use dunning_domain::pix::{KeyType, PixSettings};
use dunning_domain::timestamp::Timestamp;

crate::row! {
    struct PixSettingsRow {
        key: String,
        key_type: KeyType,
        merchant_name: String,
        merchant_city: String,
        updated_at: Timestamp,
    }
}

/// The setup as stored, and when it last changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSettings {
    pub settings: PixSettings,
    pub updated_at: Timestamp,
}

impl Stored for PixSettingsRow {
    const TABLE: &'static str = "pix_settings";
    const COLUMNS: &'static str = "key, key_type, merchant_name, merchant_city, updated_at";
}

/// The organization's Pix setup, if it has one, read outside a transaction as
/// [`Db::of_organization`] reads (`GET /v1/me` asks on every call).
pub async fn get(db: &Db, organization_id: &str) -> Result<Option<StoredSettings>> {
    let row = db.of_organization(organization_id).await?;
    row.map(|row| checked(organization_id, row)).transpose()
}

crate::row! {
    struct PixStatusRow {
        key_type: Option<KeyType>,
        psp_connections: i64,
    }
}

/// One statement for what `GET /v1/me` says of Pix: the organization's key type, if it has a
/// key, and whether it has a PSP connection (one round trip, where reading the two rows took
/// two: 56 µs against a detail read's 42 on PostgreSQL). The organization's own row is what
/// the statement selects, so there is an answer whether either exists or not.
impl Stored for PixStatusRow {
    const TABLE: &'static str = "(SELECT id AS organization_id FROM organizations) o";
    const COLUMNS: &'static str = "(SELECT s.key_type FROM pix_settings s WHERE s.organization_id = o.organization_id) AS key_type,
        (SELECT COUNT(*) FROM pix_psp_connections p WHERE p.organization_id = o.organization_id) AS psp_connections";
}

/// The organization's key type (`None`: no key set) and whether it has a PSP connection.
pub async fn status(db: &Db, organization_id: &str) -> Result<(Option<KeyType>, bool)> {
    let row: Option<PixStatusRow> = db.of_organization(organization_id).await?;
    Ok(row.map_or((None, false), |row| (row.key_type, row.psp_connections > 0)))
}

/// Same as [`get`] inside a transaction.
pub async fn get_in(
    conn: &mut AnyConnection,
    organization_id: &str,
) -> Result<Option<StoredSettings>> {
    let row = of_organization(conn, organization_id).await?;
    row.map(|row| checked(organization_id, row)).transpose()
}

/// The stored row as a setup, checked again: a row edited by hand is corrupt data.
fn checked(organization_id: &str, row: PixSettingsRow) -> Result<StoredSettings> {
    let corrupt =
        |why: String| StoreError::Corrupt(format!("pix_settings of {organization_id}: {why}"));
    let settings =
        PixSettings::new(&row.key, &row.merchant_name, &row.merchant_city).map_err(|faults| {
            let why: Vec<String> = faults
                .iter()
                .map(|f| format!("{} {}", f.field, f.message))
                .collect();
            corrupt(why.join("; "))
        })?;
    if settings.key.kind() != row.key_type || settings.key.as_str() != row.key {
        return Err(corrupt(format!(
            "the key is stored as a {} but reads as a {}",
            row.key_type,
            settings.key.kind()
        )));
    }
    Ok(StoredSettings {
        settings,
        updated_at: row.updated_at,
    })
}

/// Set the organization's Pix setup, replacing the one it had.
pub async fn put(
    conn: &mut AnyConnection,
    organization_id: &str,
    settings: &PixSettings,
    now: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO pix_settings (organization_id, key, key_type, merchant_name, merchant_city, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (organization_id) DO UPDATE SET key = $2, key_type = $3, merchant_name = $4,
             merchant_city = $5, updated_at = $6",
    )
    .bind(organization_id)
    .bind(settings.key.as_str())
    .bind(settings.key.kind().as_str())
    .bind(&settings.merchant_name)
    .bind(&settings.merchant_city)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}
