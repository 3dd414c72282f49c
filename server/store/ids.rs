//! Public identifiers: a type prefix and 16 random lowercase base-36 characters.

const ALPHABET: &[u8; 36] = b"abcdefghijklmnopqrstuvwxyz0123456789";

/// A new id such as `chg_k3j9x0a2b7c4d1e8`.
pub fn new_id(prefix: &str) -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the OS random source is available");
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

/// Random bytes encoded as URL-safe base64 without padding, for secrets.
pub fn new_secret(bytes: usize) -> String {
    use base64::Engine;
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("the OS random source is available");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(buf)
}
