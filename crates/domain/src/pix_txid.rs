//! Our txids (the `txid` of BACEN's API Pix, which the receiver chooses and the payer's PSP
//! carries back with the money): which charge a Pix pays, written so that it can be read back
//! without a lookup table.
//!
//! A charge id is `chg_` and 16 lowercase base-36 characters (`store::ids`). Its **static**
//! txid (the BR Code built without a PSP) is the id without the `_`: 19 characters. A **cobv**
//! (a charge with due date created at the PSP) needs 26 to 35 characters of `[a-zA-Z0-9]`
//! (the manual's rule for `cobv`), and a charge may need several in its life — a cobv removed
//! or paid at the PSP cannot be revived, so a charge reopened afterwards gets a new one: its
//! txid is the static one, `cobv`, and a three-digit revision (`000` to `999`): 26
//! characters. A **cobr** (an instalment debited by Pix Automático, `automatic_pix`) has the
//! same form with `cobr`: a cobr is never revived either, and an instalment may need a new one
//! after a canceled debit.
//!
//! FIXME(merge with the pix-code branch): `static_txid` and `charge_id_from_txid` of
//! `domain::pix` own the static form; [`parse`] reads it here too until the two join.

/// The prefix of every charge id, and its length without the `_`.
const CHARGE_PREFIX: &str = "chg";
const RANDOM_LEN: usize = 16;
const STATIC_LEN: usize = CHARGE_PREFIX.len() + RANDOM_LEN;
const COBV_MARK: &str = "cobv";
const COBR_MARK: &str = "cobr";

/// The highest revision a cobv txid can carry.
pub const MAX_REVISION: u16 = 999;

/// What a txid of ours names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Txid {
    /// The charge, as its id (`chg_...`).
    pub charge_id: String,
    /// `None` for the static code's txid; the revision of a cobv's.
    pub cobv_revision: Option<u16>,
    /// The revision of a cobr's (a recurring charge of Pix Automático); `None` otherwise.
    pub cobr_revision: Option<u16>,
}

/// The cobv txid of `charge_id` at `revision`, or `None` when the id is not a charge id or the
/// revision is past [`MAX_REVISION`].
pub fn cobv_txid(charge_id: &str, revision: u16) -> Option<String> {
    marked_txid(charge_id, COBV_MARK, revision)
}

/// The cobr txid of `charge_id` at `revision`: [`cobv_txid`]'s form with `cobr`.
pub fn cobr_txid(charge_id: &str, revision: u16) -> Option<String> {
    marked_txid(charge_id, COBR_MARK, revision)
}

fn marked_txid(charge_id: &str, mark: &str, revision: u16) -> Option<String> {
    let random = charge_random(charge_id)?;
    (revision <= MAX_REVISION).then(|| format!("{CHARGE_PREFIX}{random}{mark}{revision:03}"))
}

/// The 16 random characters of a charge id.
fn charge_random(charge_id: &str) -> Option<&str> {
    let random = charge_id.strip_prefix("chg_")?;
    (random.len() == RANDOM_LEN
        && random
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
    .then_some(random)
}

/// The charge (and revision) a txid of ours names; `None` for anything else (a txid another
/// system of the organization made, or garbage).
pub fn parse(txid: &str) -> Option<Txid> {
    if !txid.is_ascii() || txid.len() < STATIC_LEN {
        return None;
    }
    let (head, tail) = txid.split_at(STATIC_LEN);
    let random = head.strip_prefix(CHARGE_PREFIX)?;
    let charge_id = format!("chg_{random}");
    charge_random(&charge_id)?;
    let (mut cobv_revision, mut cobr_revision) = (None, None);
    if !tail.is_empty() {
        let (mark, digits) = tail.split_at_checked(COBV_MARK.len())?;
        if digits.len() != 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let revision = Some(digits.parse().ok()?);
        match mark {
            COBV_MARK => cobv_revision = revision,
            COBR_MARK => cobr_revision = revision,
            _ => return None,
        }
    }
    Some(Txid {
        charge_id,
        cobv_revision,
        cobr_revision,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BACEN's rule for the txid of a `cobv` (`TxId` in the API Pix document).
    fn bacen_cobv_txid(txid: &str) -> bool {
        (26..=35).contains(&txid.len()) && txid.bytes().all(|b| b.is_ascii_alphanumeric())
    }

    #[test]
    fn a_cobv_txid_is_the_charge_id_without_its_underscore_cobv_and_three_digits() {
        let txid = cobv_txid("chg_k3j9x0a2b7c4d1e8", 7).unwrap();
        assert_eq!(txid, "chgk3j9x0a2b7c4d1e8cobv007");
        assert!(bacen_cobv_txid(&txid), "{txid}");
        assert_eq!(
            cobv_txid("chg_k3j9x0a2b7c4d1e8", MAX_REVISION)
                .unwrap()
                .len(),
            26
        );
        assert_eq!(cobv_txid("chg_k3j9x0a2b7c4d1e8", 1000), None);
        for not_a_charge in ["cus_k3j9x0a2b7c4d1e8", "chg_short", "chg_K3J9X0A2B7C4D1E8"] {
            assert_eq!(cobv_txid(not_a_charge, 0), None, "{not_a_charge}");
        }
    }

    #[test]
    fn every_txid_of_ours_reads_back_as_its_charge_and_nothing_else_does() {
        for revision in [0, 1, 42, MAX_REVISION] {
            let txid = cobv_txid("chg_0123456789abcdef", revision).unwrap();
            assert_eq!(
                parse(&txid),
                Some(Txid {
                    charge_id: "chg_0123456789abcdef".into(),
                    cobv_revision: Some(revision),
                    cobr_revision: None,
                })
            );
            let txid = cobr_txid("chg_0123456789abcdef", revision).unwrap();
            assert!(bacen_cobv_txid(&txid), "{txid}");
            assert_eq!(
                parse(&txid),
                Some(Txid {
                    charge_id: "chg_0123456789abcdef".into(),
                    cobv_revision: None,
                    cobr_revision: Some(revision),
                })
            );
        }
        assert_eq!(
            parse("chg0123456789abcdef"),
            Some(Txid {
                charge_id: "chg_0123456789abcdef".into(),
                cobv_revision: None,
                cobr_revision: None,
            })
        );
        for foreign in [
            "",
            "7978c0c97ea847e78e8849634473c1f1", // the API Pix document's example
            "chg0123456789abcdefcobv",
            "chg0123456789abcdefcobv1234",
            "chg0123456789abcdefcobvabc",
            "chg0123456789abcdefxyz001",
            "chg0123456789abcdefcobr",
            "chg0123456789abcdefcobrx01",
            "chg0123456789ABCDEFcobv001",
            "chg0123456789abcdecobv001",
            "cus0123456789abcdefcobv001",
            "chg0123456789abcdéfcobv001",
        ] {
            assert_eq!(parse(foreign), None, "{foreign}");
        }
    }
}
