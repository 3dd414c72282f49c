//! Public identifiers: a type prefix and 16 lowercase base-36 characters, random (`new_id`), or
//! for events time-ordered then random (`new_ordered_id`); and secrets (`new_secret`).
//!
//! Identifiers draw from the thread's CSPRNG (`rand::rng()`: ChaCha12, seeded and reseeded
//! from the OS), not from the OS for each one: every request is given an id, and a
//! `getrandom` system call per request (two for a tool call, whose in-process request gets
//! one too) was a measurable part of a cheap read. Secrets still come from the OS directly.

use rand::RngCore;

const ALPHABET: &[u8; 36] = b"abcdefghijklmnopqrstuvwxyz0123456789";

/// A new id such as `chg_k3j9x0a2b7c4d1e8`.
pub fn new_id(prefix: &str) -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    let mut id = String::with_capacity(prefix.len() + 17);
    id.push_str(prefix);
    id.push('_');
    for b in bytes {
        // 252 = 7 * 36: rejecting would be exact, but the bias of a plain modulo over 256 is
        // irrelevant for identifiers that are not secrets.
        id.push(ALPHABET[(b % 36) as usize] as char);
    }
    id
}

/// A new id whose text sorts in the order ids were made on this process: 10 characters of
/// the time in microseconds, then 6 random ones, in an alphabet that sorts as ASCII does. Events
/// use it so that a subject's timeline, ordered by time and then id, keeps the order of two
/// events written within the same millisecond (their timestamps are equal to the
/// millisecond; random ids once put `dispute.upheld` before `dispute.opened`).
pub fn new_ordered_id(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    const ORDERED: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now =
        u64::try_from(dunning_domain::timestamp::now().unix_timestamp_nanos() / 1000).unwrap_or(0);
    // Strictly increasing on this process, even when the clock does not move between calls.
    let previous = LAST.fetch_max(now, Ordering::Relaxed);
    let micros = if now > previous {
        now
    } else {
        LAST.fetch_add(1, Ordering::Relaxed) + 1
    };
    let mut id = String::with_capacity(prefix.len() + 17);
    id.push_str(prefix);
    id.push('_');
    let mut digits = [b'0'; 10];
    let mut rest = micros;
    for digit in digits.iter_mut().rev() {
        *digit = ORDERED[(rest % 36) as usize];
        rest /= 36;
    }
    id.extend(digits.iter().map(|&b| b as char));
    let mut bytes = [0u8; 6];
    rand::rng().fill_bytes(&mut bytes);
    id.extend(bytes.iter().map(|b| ORDERED[(b % 36) as usize] as char));
    id
}

/// Random bytes encoded as URL-safe base64 without padding, for secrets.
pub fn new_secret(bytes: usize) -> String {
    use base64::Engine;
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("the OS random source is available");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(buf)
}

#[cfg(test)]
mod ordered_tests {
    use super::*;

    #[test]
    fn a_charge_id_makes_a_pix_txid_that_leads_back_to_it() {
        use dunning_domain::pix::{brcode::TXID_MAX, charge_id_from_txid, static_txid};
        for _ in 0..100 {
            let id = new_id("chg");
            let txid = static_txid(&id);
            assert!(txid.len() <= TXID_MAX && txid.bytes().all(|b| b.is_ascii_alphanumeric()));
            assert_eq!(charge_id_from_txid(&txid), Some(id));
        }
    }

    #[test]
    fn ordered_ids_sort_in_the_order_they_were_made_and_look_like_other_ids() {
        let ids: Vec<String> = (0..2_000).map(|_| new_ordered_id("evt")).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
        assert!(ids.windows(2).all(|w| w[0] != w[1]));
        for id in &ids {
            let rest = id.strip_prefix("evt_").expect("prefix");
            assert_eq!(rest.len(), 16);
            assert!(
                rest.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            );
        }
    }
}
