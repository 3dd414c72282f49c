//! Every name the generator makes: tool names, argument names, titles.
//!
//! MCP tool names here are at most 64 characters of `[a-z0-9_]` and unique in a catalog. They
//! come from `x-mcp.name`, else `operationId` in snake_case, else the method and path
//! (`GET /v1/todos/{id}` → `get_v1_todos_id`), with the document's `tool_prefix` in front.
//! Keeping all of it here means one place decides case conversion, sanitising, length limits
//! and uniqueness, and one test table covers it.
//!
//! Argument names are JSON keys, never Rust identifiers (the generated tables only hold them
//! as strings), so Rust keywords such as `type` or `ref` are fine as they are: renaming them
//! would make tools harder to use for no gain.
//!
//! The generated models do need Rust identifiers: [`type_ident`] (types, `UpperCamelCase`),
//! [`field_ident`] and [`module_ident`] (`snake_case`, keywords as raw identifiers) and
//! [`variant_ident`] (enum variants from wire words); each gives a valid identifier for any
//! text, and [`IdentSet`] makes them unique where they share a namespace.

use std::collections::HashSet;
use std::fmt;

use heck::{ToSnakeCase, ToUpperCamelCase};

/// The longest tool name MCP clients accept reliably.
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// A valid tool name: 1 to 64 characters of `[a-z0-9_]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolName(String);

impl ToolName {
    /// Checks `name` against the rules.
    pub fn new(name: &str) -> Result<ToolName, String> {
        if is_valid_tool_name(name) {
            Ok(ToolName(name.to_owned()))
        } else {
            Err(format!(
                "`{name}` is not a valid tool name (1 to {MAX_TOOL_NAME_LEN} characters of a-z, 0-9 and _)"
            ))
        }
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether `name` is 1 to 64 characters of `[a-z0-9_]`.
pub fn is_valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_TOOL_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// `snake_case` restricted to `[a-z0-9_]`: accents folded (`cobrança` → `cobranca`), anything
/// else becomes a separator, separators collapse, none at either end. May return `""`.
pub fn snake_case(text: &str) -> String {
    let folded: String = text.chars().map(fold_latin).collect();
    let snake = folded.to_snake_case();
    let mut out = String::with_capacity(snake.len());
    for c in snake.chars() {
        let c = if c.is_ascii_lowercase() || c.is_ascii_digit() {
            c
        } else if c.is_ascii_uppercase() {
            c.to_ascii_lowercase()
        } else {
            '_'
        };
        if c == '_' && (out.is_empty() || out.ends_with('_')) {
            continue;
        }
        out.push(c);
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// A Rust `UpperCamelCase` enum variant for the tool `name` (without its prefix), unique
/// among `taken`: `todos_list` → `TodosList`; one that starts with a digit gets `Op`
/// before it, and a clash (`a_b1` and `a_b_1`) a number after it.
pub fn variant_name(name: &str, taken: &[String]) -> String {
    let mut base = name.to_upper_camel_case();
    if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
        base = format!("Op{base}");
    }
    let mut candidate = base.clone();
    let mut n = 2;
    while taken.contains(&candidate) {
        candidate = format!("{base}{n}");
        n += 1;
    }
    candidate
}

/// The common Latin letters with diacritics, as their base letter; anything else unchanged.
fn fold_latin(c: char) -> char {
    match c {
        'á' | 'à' | 'â' | 'ã' | 'ä' | 'å' => 'a',
        'Á' | 'À' | 'Â' | 'Ã' | 'Ä' | 'Å' => 'A',
        'é' | 'è' | 'ê' | 'ë' => 'e',
        'É' | 'È' | 'Ê' | 'Ë' => 'E',
        'í' | 'ì' | 'î' | 'ï' => 'i',
        'Í' | 'Ì' | 'Î' | 'Ï' => 'I',
        'ó' | 'ò' | 'ô' | 'õ' | 'ö' => 'o',
        'Ó' | 'Ò' | 'Ô' | 'Õ' | 'Ö' => 'O',
        'ú' | 'ù' | 'û' | 'ü' => 'u',
        'Ú' | 'Ù' | 'Û' | 'Ü' => 'U',
        'ç' => 'c',
        'Ç' => 'C',
        'ñ' => 'n',
        'Ñ' => 'N',
        c => c,
    }
}

/// The tool name (without prefix) for an operation that has neither `x-mcp.name` nor a usable
/// `operationId`: the method and the path's segments, variables without their braces.
pub fn name_from_method_and_path(method: &str, path: &str) -> String {
    let mut name = snake_case(method);
    for segment in path.split('/') {
        let segment = snake_case(segment.trim_matches(|c| c == '{' || c == '}'));
        if !segment.is_empty() {
            name.push('_');
            name.push_str(&segment);
        }
    }
    if name.is_empty() {
        name.push_str("operation");
    }
    name
}

/// The tool name of an operation before length limits and uniqueness: `prefix` + the
/// snake_case `operationId`, or the method and path when there is no `operationId` or it has
/// nothing usable in it.
pub fn tool_name_candidate(
    prefix: &str,
    operation_id: Option<&str>,
    method: &str,
    path: &str,
) -> String {
    let base = operation_id
        .map(snake_case)
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| name_from_method_and_path(method, path));
    format!("{prefix}{base}")
}

/// Shortens `name` to at most `max` bytes, replacing the tail with `_` and a 6-digit hash of
/// the whole name, so two long names that share a beginning stay distinct and the result is
/// the same on every run. `name` must be ASCII (every name here is).
pub fn fit_length(name: &str, max: usize) -> String {
    if name.len() <= max {
        return name.to_owned();
    }
    let hash = format!("{:06x}", fnv1a(name.as_bytes()) & 0xff_ffff);
    let keep = max.saturating_sub(hash.len() + 1);
    let head = name[..keep.min(name.len())].trim_end_matches('_');
    if head.is_empty() {
        hash
    } else {
        format!("{head}_{hash}")
    }
}

/// 64-bit FNV-1a: tiny, stable across platforms and releases (unlike `DefaultHasher`).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// Hands out unique names in order: the first claim of a name gets it, later claims get
/// `_2`, `_3`, ... (shortened to fit), so the result depends only on the claim order.
#[derive(Debug, Default)]
pub struct Uniquer {
    used: HashSet<String>,
}

impl Uniquer {
    /// Marks `name` as taken without claiming a variant of it.
    pub fn reserve(&mut self, name: &str) {
        self.used.insert(name.to_owned());
    }

    /// Whether `name` is taken.
    pub fn is_taken(&self, name: &str) -> bool {
        self.used.contains(name)
    }

    /// Returns `name` if free, else the first free `name_N` (N from 2) within `max` bytes.
    pub fn claim(&mut self, name: &str, max: usize) -> String {
        let name = fit_length(name, max);
        if self.used.insert(name.clone()) {
            return name;
        }
        for n in 2.. {
            let suffix = format!("_{n}");
            let head = fit_length(&name, max.saturating_sub(suffix.len()));
            let candidate = format!("{head}{suffix}");
            if self.used.insert(candidate.clone()) {
                return candidate;
            }
        }
        unreachable!("the loop above only ends by returning")
    }
}

/// The argument name for a parameter or body property called `wire` (`Idempotency-Key` →
/// `idempotency_key`, `StatusCallback` → `status_callback`). Never empty.
pub fn arg_name(wire: &str) -> String {
    // Comparison suffixes are meaningful (Twilio's `StartTime<` and `StartTime>` are two
    // parameters beside `StartTime`): spell them out instead of losing them.
    let spelled = wire
        .replace(">=", "_gte")
        .replace("<=", "_lte")
        .replace('>', "_gt")
        .replace('<', "_lt");
    let name = snake_case(&spelled);
    if name.is_empty() {
        // Nothing usable (`$`, `日本`): a stable name derived from the wire name.
        format!("arg_{:06x}", fnv1a(wire.as_bytes()) & 0xff_ffff)
    } else {
        name
    }
}

/// A human title from a tool name when the operation has no `summary`:
/// `get_v1_todos_id` → `Get v1 todos id`.
pub fn title_from_name(name: &str) -> String {
    let words = name.replace('_', " ");
    let mut chars = words.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Words that cannot be identifiers even as raw identifiers (`r#self` is refused).
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Rust keywords (strict, reserved, and the 2018+ ones), which need `r#` as identifiers.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// Whether `ident` must be written `r#ident` (a keyword) in Rust source.
pub fn is_keyword(ident: &str) -> bool {
    KEYWORDS.contains(&ident)
}

/// A `snake_case` identifier for a JSON property or module named `text`, never empty and never
/// starting with a digit (`2fa` → `n2fa`); keywords stay (written `r#type`), and the words
/// that cannot be raw identifiers get a `_` after them (`self` → `self_`).
fn snake_ident(text: &str, fallback: &str) -> String {
    let mut ident = snake_case(&text.replace('$', "_"));
    if ident.is_empty() {
        ident = format!("{fallback}_{:06x}", fnv1a(text.as_bytes()) & 0xff_ffff);
    }
    if ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident.insert(0, 'n');
    }
    if NOT_RAW.contains(&ident.as_str()) {
        ident.push('_');
    }
    ident
}

/// The Rust field name of the JSON property `wire` (`templateTest` → `template_test`,
/// `type` → `type`, emitted `r#type`).
pub fn field_ident(wire: &str) -> String {
    snake_ident(&arg_name_spelled(wire), "field")
}

/// The module of an operation's models, from its tool name without the prefix
/// (`todos_list`, `json_schema_2020_12_tool`).
pub fn module_ident(variant: &str) -> String {
    snake_ident(variant, "operation")
}

/// An `UpperCamelCase` type name made of `parts` (`["todo", "review_status"]` →
/// `TodoReviewStatus`), accents folded, never empty nor starting with a digit.
pub fn type_ident(parts: &[&str]) -> String {
    let joined: String = parts
        .iter()
        .map(|p| snake_case(p))
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("_");
    let mut ident = joined.to_upper_camel_case();
    if ident.is_empty() {
        ident = "Type".to_owned();
    }
    if ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident.insert(0, 'T');
    }
    if ident == "Self" {
        ident.push('_');
    }
    ident
}

/// The enum variant for the wire word `wire` (`in_agreement` → `InAgreement`,
/// `todos:read` → `TodosRead`, `2xx` → `V2xx`, `` → `Empty`).
pub fn variant_ident(wire: &str) -> String {
    if wire.is_empty() {
        return "Empty".to_owned();
    }
    let mut ident = snake_case(&arg_name_spelled(wire)).to_upper_camel_case();
    if ident.is_empty() {
        ident = format!("V{:06x}", fnv1a(wire.as_bytes()) & 0xff_ffff);
    }
    if ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident.insert(0, 'V');
    }
    if ident == "Self" {
        ident.push('_');
    }
    ident
}

/// Comparison suffixes spelled out, as in [`arg_name`].
fn arg_name_spelled(wire: &str) -> String {
    wire.replace(">=", "_gte")
        .replace("<=", "_lte")
        .replace('>', "_gt")
        .replace('<', "_lt")
}

/// Identifiers handed out in one namespace (a module's types, a struct's fields, an enum's
/// variants): the first claim of a name gets it, later ones a number after it (`Status2`,
/// `status_2`), so the result depends only on the claim order.
#[derive(Debug, Default)]
pub struct IdentSet {
    used: HashSet<String>,
}

impl IdentSet {
    /// Marks `ident` as taken (a helper type the generator always writes).
    pub fn reserve(&mut self, ident: &str) {
        self.used.insert(ident.to_owned());
    }

    /// `ident` if free, else the first free `ident2`, `ident3`, ... (`ident_2` for
    /// `snake_case` identifiers).
    pub fn claim(&mut self, ident: &str) -> String {
        if self.used.insert(ident.to_owned()) {
            return ident.to_owned();
        }
        let separator = if ident.contains(|c: char| c.is_ascii_uppercase()) {
            ""
        } else {
            "_"
        };
        for n in 2.. {
            let candidate = format!("{ident}{separator}{n}");
            if self.used.insert(candidate.clone()) {
                return candidate;
            }
        }
        unreachable!("the loop above only ends by returning")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_identifiers_table() {
        let fields = [
            ("templateTest", "template_test"),
            ("type", "type"),
            ("self", "self_"),
            ("2fa", "n2fa"),
            ("$", "field_"),
            ("amount_due", "amount_due"),
            ("Idempotency-Key", "idempotency_key"),
        ];
        for (wire, expected) in fields {
            assert!(
                field_ident(wire).starts_with(expected),
                "field_ident({wire:?})"
            );
        }
        assert!(is_keyword("type") && !is_keyword("amount"));
        let variants = [
            ("in_agreement", "InAgreement"),
            ("customers:read", "CustomersRead"),
            ("boa_vista", "BoaVista"),
            ("2xx", "V2xx"),
            ("", "Empty"),
            ("Self", "Self_"),
            ("cobrança", "Cobranca"),
        ];
        for (wire, expected) in variants {
            assert_eq!(variant_ident(wire), expected, "variant_ident({wire:?})");
        }
        assert_eq!(
            type_ident(&["charge", "negativation_status"]),
            "ChargeNegativationStatus"
        );
        assert_eq!(type_ident(&["ProblemFieldError"]), "ProblemFieldError");
        assert_eq!(type_ident(&["", "401"]), "T401");
        assert_eq!(module_ident("charges_list"), "charges_list");
        assert_eq!(
            module_ident("json_schema_2020_12_tool"),
            "json_schema_2020_12_tool"
        );
        let mut set = IdentSet::default();
        set.reserve("Patch");
        assert_eq!(set.claim("Patch"), "Patch2");
        assert_eq!(set.claim("status"), "status");
        assert_eq!(set.claim("status"), "status_2");
    }

    #[test]
    fn snake_case_table() {
        let table = [
            ("ListCharges", "list_charges"),
            ("post-applePay-sessions", "post_apple_pay_sessions"),
            ("post_oauth2_token#refresh", "post_oauth2_token_refresh"),
            ("Idempotency-Key", "idempotency_key"),
            ("X-Idempotency-Key", "x_idempotency_key"),
            ("If-Match", "if_match"),
            ("StatusCallback", "status_callback"),
            ("expand[]", "expand"),
            ("cobrança", "cobranca"),
            ("__a__b__", "a_b"),
            ("日本", ""),
            ("", ""),
            ("v1", "v1"),
        ];
        for (input, expected) in table {
            assert_eq!(snake_case(input), expected, "snake_case({input:?})");
        }
        let args = [
            ("StartTime<", "start_time_lt"),
            ("StartTime>", "start_time_gt"),
            ("created<=", "created_lte"),
            ("$", "arg_"),
        ];
        for (input, expected) in args {
            assert!(arg_name(input).starts_with(expected), "arg_name({input:?})");
        }
    }

    #[test]
    fn tool_names_table() {
        let table = [
            (
                Some("customers_list"),
                "get",
                "/v1/customers",
                "dunning_customers_list",
            ),
            (None, "get", "/v1/charges/{id}", "dunning_get_v1_charges_id"),
            (None, "post", "/", "dunning_post"),
            (Some("###"), "delete", "/a/{b}", "dunning_delete_a_b"),
            (
                Some("GetCustomersCustomerSubscriptionsSubscriptionExposedIdDiscount"),
                "get",
                "/",
                "dunning_get_customers_customer_subscriptions_subscription_exposed_id_discount",
            ),
        ];
        for (op_id, method, path, expected) in table {
            assert_eq!(
                tool_name_candidate("dunning_", op_id, method, path),
                expected
            );
        }
    }

    #[test]
    fn long_names_are_cut_with_a_stable_hash() {
        let long = "a".repeat(70);
        let fitted = fit_length(&long, 64);
        assert_eq!(fitted.len(), 64);
        assert_eq!(fitted, fit_length(&long, 64));
        assert_ne!(fitted, fit_length(&"a".repeat(71), 64));
        assert!(is_valid_tool_name(&fitted));
    }

    #[test]
    fn uniquer_suffixes_in_claim_order() {
        let mut u = Uniquer::default();
        assert_eq!(u.claim("x", 64), "x");
        assert_eq!(u.claim("x", 64), "x_2");
        assert_eq!(u.claim("x", 64), "x_3");
        let long = "b".repeat(64);
        assert_eq!(u.claim(&long, 64), long);
        let second = u.claim(&long, 64);
        assert_eq!(second.len(), 64);
        assert!(second.ends_with("_2"));
    }

    #[test]
    fn titles_read_as_sentences() {
        assert_eq!(title_from_name("get_v1_charges_id"), "Get v1 charges id");
        assert_eq!(title_from_name(""), "");
    }

    /// A small deterministic generator (xorshift) so the property test needs no dependency
    /// and fails the same way every time.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
            &items[(self.next() % items.len() as u64) as usize]
        }
    }

    #[test]
    fn any_string_sanitises_to_a_valid_unique_name_without_panicking() {
        let pieces = [
            "", "a", "Z", "_", "-", " ", "#", "/", "{id}", "9", "é", "ß", "Ω", "日本", "🦀",
            "\u{0}", "\u{200b}", "type", "self", "fn", "ABC", "aB", "__", "..", "İ", "ﬁ",
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut uniquer = Uniquer::default();
        let mut seen = HashSet::new();
        for i in 0..5000 {
            let len = if i % 97 == 0 {
                300
            } else {
                (rng.next() % 12) as usize
            };
            let text: String = (0..len).map(|_| *rng.pick(&pieces)).collect();
            let method = *rng.pick(&["get", "post", "delete"]);
            let op_id = if i % 3 == 0 {
                None
            } else {
                Some(text.as_str())
            };
            let candidate = tool_name_candidate("p_", op_id, method, &text);
            let name = uniquer.claim(&candidate, MAX_TOOL_NAME_LEN);
            assert!(is_valid_tool_name(&name), "{text:?} gave {name:?}");
            assert!(seen.insert(name.clone()), "{name} handed out twice");
            let arg = arg_name(&text);
            assert!(!arg.is_empty());
            assert!(
                arg.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            );
            // Every Rust identifier made from the text parses as one.
            let raw = |ident: String| {
                if is_keyword(&ident) {
                    format!("r#{ident}")
                } else {
                    ident
                }
            };
            for ident in [
                raw(field_ident(&text)),
                raw(module_ident(&text)),
                type_ident(&[&text, "x"]),
                type_ident(&[&text]),
                variant_ident(&text),
            ] {
                let parsed = if let Some(raw) = ident.strip_prefix("r#") {
                    syn::parse_str::<syn::Ident>(&format!("r#{raw}")).is_ok()
                } else {
                    syn::parse_str::<syn::Ident>(&ident).is_ok() && !is_keyword(&ident)
                };
                assert!(parsed, "{text:?} gave the identifier {ident:?}");
            }
        }
    }
}
