//! How long the strings a client sends may be. Stable, documented limits, so that no value
//! reaches the host (and its database: SQLite refuses a `LIKE` pattern over 50 000 bytes with a
//! 500) unbounded, and no error message echoes a megabyte back. Too long is `-32602`.

use super::jsonrpc::RpcError;

/// Tool, prompt, argument and variable names (the catalog's own are at most 64).
pub const MAX_NAME_CHARS: usize = 256;
/// `completion/complete`: what the user typed so far.
pub const MAX_COMPLETION_VALUE_CHARS: usize = 256;
/// `prompts/get`: each argument value.
pub const MAX_PROMPT_ARGUMENT_CHARS: usize = 1024;
/// `resources/read` and `ref/resource`: a URI.
pub const MAX_URI_CHARS: usize = 2048;

/// Whether `text` has more than `max` characters.
pub fn too_long(text: &str, max: usize) -> bool {
    // A string of at most `max` bytes has at most `max` characters: count only the others.
    text.len() > max && text.chars().count() > max
}

/// Refuse `text`, named `what` (`params.uri`, ...), when it has more than `max` characters.
pub fn check(what: &str, text: &str, max: usize) -> Result<(), RpcError> {
    if too_long(text, max) {
        Err(RpcError::invalid_params(format!(
            "{what} is longer than {max} characters"
        )))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_count_characters_not_bytes() {
        assert!(!too_long(&"é".repeat(256), 256));
        assert!(too_long(&"é".repeat(257), 256));
        assert!(!too_long("", 0));
        assert!(too_long("a", 0));
        let error = check("params.uri", &"x".repeat(3000), MAX_URI_CHARS).unwrap_err();
        assert_eq!(error.message, "params.uri is longer than 2048 characters");
    }
}
