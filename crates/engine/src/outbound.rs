//! The outbound-address guard: whether the server may contact a URL or an address on a
//! tenant's behalf, and an HTTP client that connects only to addresses the guard checked.
//!
//! A tenant who chooses a URL the server calls (a webhook today, an OAuth client metadata
//! document tomorrow) must not reach what only the server can reach: the server itself, the
//! private networks around it, the cloud's metadata service. Otherwise the server is their
//! proxy into the data centre, and the errors it reports back make it a port scanner.
//!
//! So a target is refused
//! - when its host is such an address, however written: the WHATWG URL parser (the `url`
//!   crate behind reqwest) already turns `2130706433`, `0x7f.0.0.1`, `0177.0.0.1` and `127.1`
//!   into 127.0.0.1, and IPv6 forms that embed an IPv4 address (mapped `::ffff:a.b.c.d`,
//!   NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:aabb:ccdd::`) are judged by the embedded address;
//! - when its host is a name that stands for one: `localhost` and `*.localhost`, single-label
//!   and private-use names (`.internal`, `.local`, `.home.arpa`, ...) and cloud metadata names,
//!   with or without a trailing dot;
//! - and again when it is contacted: a public name may resolve to a private address, or be
//!   made to between the check and the connection (DNS rebinding). [`Client`] resolves names
//!   itself, checks every address the name resolves to, and hands the HTTP stack only those;
//!   it never follows redirects and never goes through a proxy (which would resolve names out
//!   of our sight).
//!
//! [`Policy::allow_private`] (development and tests) lets loopback and private networks
//! through; cloud metadata, unspecified and multicast addresses stay refused even then.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::{Method, RequestBuilder, Url};

/// What the guard lets through.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Policy {
    /// Also allow loopback, private, link-local, unique-local, shared (CGNAT) and reserved
    /// addresses and names: for development and tests, whose receivers run on 127.0.0.1.
    pub allow_private: bool,
}

/// Why an address (or a name) is not a public internet target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Range {
    /// `0.0.0.0/8`, `::`: on Linux a connection to them reaches this machine.
    Unspecified,
    /// `127.0.0.0/8`, `::1`, `localhost`.
    Loopback,
    /// RFC 1918 networks, local-use NAT64, single-label and private-use names.
    Private,
    /// `100.64.0.0/10`, carrier-grade NAT.
    SharedAddressSpace,
    /// `169.254.0.0/16`, `fe80::/10`.
    LinkLocal,
    /// `fc00::/7` (`fd00::/8` in practice).
    UniqueLocal,
    /// `224.0.0.0/4`, `255.255.255.255`, `ff00::/8`.
    Multicast,
    /// TEST-NET-1/2/3, `2001:db8::/32`, `3fff::/20`.
    Documentation,
    /// `198.18.0.0/15`, `2001:2::/48`.
    Benchmarking,
    /// IETF protocol assignments, `240.0.0.0/4`, deprecated IPv6 forms, anything outside
    /// IPv6 global unicast.
    Reserved,
    /// Instance metadata services (AWS, GCP, Azure, Alibaba, ECS) by address or name.
    CloudMetadata,
}

impl Range {
    /// "a loopback address", for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Range::Unspecified => "the unspecified address",
            Range::Loopback => "a loopback address",
            Range::Private => "a private network address",
            Range::SharedAddressSpace => "a carrier-grade NAT (shared) address",
            Range::LinkLocal => "a link-local address",
            Range::UniqueLocal => "a unique-local IPv6 address",
            Range::Multicast => "a multicast or broadcast address",
            Range::Documentation => "a documentation address",
            Range::Benchmarking => "a benchmarking address",
            Range::Reserved => "a reserved address",
            Range::CloudMetadata => "a cloud metadata service address",
        }
    }

    /// Whether `allow_private` lets it through: a network a developer may run a receiver on.
    /// The metadata service never is, and the others are never a receiver at all.
    fn is_private_network(self) -> bool {
        !matches!(
            self,
            Range::Unspecified | Range::Multicast | Range::CloudMetadata
        )
    }
}

const fn v4(a: u8, b: u8, c: u8, d: u8) -> u32 {
    Ipv4Addr::new(a, b, c, d).to_bits()
}

/// The eight segments of an IPv6 address, as written in the ranges below.
const fn v6(segments: [u16; 8]) -> u128 {
    let [a, b, c, d, e, f, g, h] = segments;
    Ipv6Addr::new(a, b, c, d, e, f, g, h).to_bits()
}

/// IPv4 ranges that are not public, the narrower first (IANA special-purpose registry plus
/// the metadata services).
const V4_RANGES: &[(u32, u32, Range)] = &[
    (v4(169, 254, 169, 254), 32, Range::CloudMetadata), // AWS, GCP, Azure, OCI, ...
    (v4(169, 254, 170, 2), 32, Range::CloudMetadata),   // AWS ECS task metadata
    (v4(168, 63, 129, 16), 32, Range::CloudMetadata),   // Azure WireServer (a public address)
    (v4(100, 100, 100, 200), 32, Range::CloudMetadata), // Alibaba Cloud
    (v4(255, 255, 255, 255), 32, Range::Multicast),     // limited broadcast
    (v4(0, 0, 0, 0), 8, Range::Unspecified),
    (v4(10, 0, 0, 0), 8, Range::Private),
    (v4(100, 64, 0, 0), 10, Range::SharedAddressSpace),
    (v4(127, 0, 0, 0), 8, Range::Loopback),
    (v4(169, 254, 0, 0), 16, Range::LinkLocal),
    (v4(172, 16, 0, 0), 12, Range::Private),
    (v4(192, 0, 0, 0), 24, Range::Reserved),
    (v4(192, 0, 2, 0), 24, Range::Documentation),
    (v4(192, 88, 99, 0), 24, Range::Reserved), // former 6to4 relay anycast
    (v4(192, 168, 0, 0), 16, Range::Private),
    (v4(198, 18, 0, 0), 15, Range::Benchmarking),
    (v4(198, 51, 100, 0), 24, Range::Documentation),
    (v4(203, 0, 113, 0), 24, Range::Documentation),
    (v4(224, 0, 0, 0), 4, Range::Multicast),
    (v4(240, 0, 0, 0), 4, Range::Reserved),
];

/// IPv6 ranges that are not public, the narrower first. Forms embedding an IPv4 address
/// that is then used (mapped, NAT64, 6to4) are unwrapped before this table.
const V6_RANGES: &[(u128, u32, Range)] = &[
    (v6([0, 0, 0, 0, 0, 0, 0, 0]), 128, Range::Unspecified),
    (v6([0, 0, 0, 0, 0, 0, 0, 1]), 128, Range::Loopback),
    (
        v6([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254]),
        128,
        Range::CloudMetadata,
    ), // AWS IMDS
    (v6([0, 0, 0, 0, 0, 0, 0, 0]), 96, Range::Reserved), // IPv4-compatible, deprecated
    (v6([0, 0, 0, 0, 0xffff, 0, 0, 0]), 96, Range::Reserved), // IPv4-translated
    (v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0]), 48, Range::Private), // local-use NAT64
    (v6([0x100, 0, 0, 0, 0, 0, 0, 0]), 64, Range::Reserved), // discard-only
    (v6([0x2001, 2, 0, 0, 0, 0, 0, 0]), 48, Range::Benchmarking),
    (v6([0x2001, 0, 0, 0, 0, 0, 0, 0]), 23, Range::Reserved), // IETF assignments, Teredo
    (
        v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0]),
        32,
        Range::Documentation,
    ),
    (v6([0x3fff, 0, 0, 0, 0, 0, 0, 0]), 20, Range::Documentation),
    (v6([0xfc00, 0, 0, 0, 0, 0, 0, 0]), 7, Range::UniqueLocal),
    (v6([0xfe80, 0, 0, 0, 0, 0, 0, 0]), 10, Range::LinkLocal),
    (v6([0xfec0, 0, 0, 0, 0, 0, 0, 0]), 10, Range::Reserved), // site-local, deprecated
    (v6([0xff00, 0, 0, 0, 0, 0, 0, 0]), 8, Range::Multicast),
];

/// Cloud metadata services by name (GCP, AWS), compared without a trailing dot.
const METADATA_NAMES: &[&str] = &[
    "metadata.google.internal",
    "metadata.goog",
    "metadata",
    "instance-data",
    "instance-data.ec2.internal",
];

/// Suffixes for names that only exist inside a network (RFC 6762 `.local`, RFC 8375
/// `.home.arpa`, ICANN's `.internal`, and the customary ones no registry delegates).
const PRIVATE_SUFFIXES: &[&str] = &[
    "internal",
    "local",
    "localdomain",
    "home.arpa",
    "lan",
    "home",
    "corp",
    "intranet",
];

/// The non-public range an address is in, or `None` for a public internet address.
pub fn classify(address: IpAddr) -> Option<Range> {
    match address {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(address: Ipv4Addr) -> Option<Range> {
    let bits = address.to_bits();
    V4_RANGES
        .iter()
        .find(|(net, len, _)| (bits ^ net).checked_shr(32 - len).unwrap_or(0) == 0)
        .map(|(_, _, range)| *range)
}

fn classify_v6(address: Ipv6Addr) -> Option<Range> {
    if let Some(inner) = embedded_v4(address) {
        return classify_v4(inner);
    }
    let bits = address.to_bits();
    let listed = V6_RANGES
        .iter()
        .find(|(net, len, _)| (bits ^ net).checked_shr(128 - len).unwrap_or(0) == 0)
        .map(|(_, _, range)| *range);
    // Only 2000::/3 is allocated as global unicast; the rest is not an internet host.
    listed.or((bits >> 125 != 0b001).then_some(Range::Reserved))
}

/// The IPv4 address a packet to `address` really goes to: IPv4-mapped (`::ffff:a.b.c.d`),
/// the NAT64 well-known prefix (`64:ff9b::/96`) and 6to4 (`2002::/16`).
fn embedded_v4(address: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = address.segments();
    let low = Ipv4Addr::from_bits(address.to_bits() as u32);
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] => Some(low),
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(low),
        [0x2002, hi, lo, ..] => Some(Ipv4Addr::from_bits((u32::from(hi) << 16) | u32::from(lo))),
        _ => None,
    }
}

/// The non-public range a host name stands for, or `None` for an ordinary public name.
/// `host` as the URL parser leaves it: lowercase, IDNA-mapped, maybe with trailing dots.
pub fn classify_name(host: &str) -> Option<Range> {
    let name = host.trim_end_matches('.').to_ascii_lowercase();
    if METADATA_NAMES.contains(&name.as_str()) {
        return Some(Range::CloudMetadata);
    }
    if name == "localhost" || name.ends_with(".localhost") {
        return Some(Range::Loopback);
    }
    // A single label is completed with the resolver's search domains: an internal name.
    if name.is_empty() || !name.contains('.') {
        return Some(Range::Private);
    }
    PRIVATE_SUFFIXES
        .iter()
        .any(|suffix| {
            name == *suffix
                || name
                    .strip_suffix(suffix)
                    .is_some_and(|head| head.ends_with('.'))
        })
        .then_some(Range::Private)
}

/// Why a target is refused, in words for the person who chose it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("it is not an absolute http:// or https:// URL")]
    NotHttp,
    #[error("it carries a user name or password")]
    Credentials,
    #[error("{}", name_reason(host, *range))]
    Name { host: String, range: Range },
    #[error("{}", address_reason(host, address, *range))]
    Address {
        /// As written in the URL, or the name that resolved to `address`.
        host: String,
        address: IpAddr,
        range: Range,
    },
}

fn name_reason(host: &str, range: Range) -> String {
    match range {
        Range::Loopback => format!("{host} names this machine"),
        Range::CloudMetadata => format!("{host} is a cloud metadata service"),
        _ => format!(
            "{host} is not a public DNS name (a single label, or a private-use suffix such as .internal, .local or .home.arpa)"
        ),
    }
}

fn address_reason(host: &str, address: &IpAddr, range: Range) -> String {
    let literal = host.trim_start_matches('[').trim_end_matches(']');
    if literal.parse::<IpAddr>().ok() == Some(*address) {
        format!("{address} is {}", range.describe())
    } else {
        format!("{host} resolves to {address}, {}", range.describe())
    }
}

/// What resolving a name for a connection came to, when it came to no address.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error("{0}")]
    Forbidden(Refusal),
    #[error("{host} does not resolve: {source}")]
    Failed {
        host: String,
        #[source]
        source: std::io::Error,
    },
}

impl Policy {
    /// The policy for webhook targets under these settings.
    pub fn for_webhooks(settings: &crate::Settings) -> Policy {
        Policy::new(settings.allow_private_webhook_targets)
    }

    /// Public addresses only, or also loopback and private networks (`allow_private`: for
    /// development and tests; cloud metadata and the like stay refused). Each kind of
    /// tenant- or stranger-chosen URL has its own opt-in (webhooks, OAuth client metadata).
    pub fn new(allow_private: bool) -> Policy {
        Policy { allow_private }
    }

    fn permits(self, range: Range) -> bool {
        self.allow_private && range.is_private_network()
    }

    /// Whether the server may connect to `address`; the range that forbids it otherwise.
    pub fn check_address(self, address: IpAddr) -> Result<(), Range> {
        match classify(address) {
            Some(range) if !self.permits(range) => Err(range),
            _ => Ok(()),
        }
    }

    /// Parse `url` and [`check`](Self::check) it.
    pub fn check_url(self, url: &str) -> Result<Url, Refusal> {
        let parsed = Url::parse(url).map_err(|_| Refusal::NotHttp)?;
        self.check(&parsed)?;
        Ok(parsed)
    }

    /// Everything that can be said about a URL without DNS: an http(s) URL without
    /// credentials whose host is neither a forbidden address nor a forbidden name. A name
    /// that passes must still be resolved through [`resolve`](Self::resolve) (as [`Client`]
    /// does) before anything is sent.
    pub fn check(self, url: &Url) -> Result<(), Refusal> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Refusal::NotHttp);
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(Refusal::Credentials);
        }
        let Some(host) = url.host_str() else {
            return Err(Refusal::NotHttp);
        };
        // The parser has already turned every IPv4 spelling into dotted decimal, and writes
        // IPv6 in brackets: what does not parse as an address here is a domain name.
        let Ok(address) = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
        else {
            return match classify_name(host) {
                Some(range) if !self.permits(range) => Err(Refusal::Name {
                    host: host.to_string(),
                    range,
                }),
                _ => Ok(()),
            };
        };
        self.check_address(address)
            .map_err(|range| Refusal::Address {
                host: address.to_string(),
                address,
                range,
            })
    }

    /// Resolve `host` and check every address it resolves to: all of them may be
    /// contacted, or the name is refused (a name with one private address among public
    /// ones is a trap, not a receiver). An address literal resolves to itself.
    pub async fn resolve(self, host: &str) -> Result<Vec<IpAddr>, ResolveError> {
        let literal = host.trim_start_matches('[').trim_end_matches(']');
        let addresses: Vec<IpAddr> = match literal.parse::<IpAddr>() {
            Ok(address) => vec![address],
            Err(_) => {
                let found = tokio::net::lookup_host((host, 0)).await.map_err(|source| {
                    ResolveError::Failed {
                        host: host.to_string(),
                        source,
                    }
                })?;
                let mut addresses: Vec<IpAddr> = Vec::new();
                for socket in found {
                    if !addresses.contains(&socket.ip()) {
                        addresses.push(socket.ip());
                    }
                }
                addresses
            }
        };
        if addresses.is_empty() {
            return Err(ResolveError::Failed {
                host: host.to_string(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no address"),
            });
        }
        for &address in &addresses {
            self.check_address(address).map_err(|range| {
                ResolveError::Forbidden(Refusal::Address {
                    host: host.to_string(),
                    address,
                    range,
                })
            })?;
        }
        Ok(addresses)
    }
}

/// reqwest's resolver for [`Client`]: what it returns is what was checked, so the
/// connection goes to an address the guard saw (no second lookup an attacker could answer
/// differently).
struct GuardedResolver(Policy);

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.0;
        Box::pin(async move {
            let addresses = policy.resolve(name.as_str()).await?;
            let addrs: Addrs = Box::new(
                addresses
                    .into_iter()
                    .map(|address| SocketAddr::new(address, 0)),
            );
            Ok(addrs)
        })
    }
}

/// An HTTP client for tenant-chosen URLs: every request's URL is checked, every name it
/// resolves is checked at connection time, redirects are answers (never followed) and no
/// proxy is used.
///
/// Reach the inner `reqwest::Client` only through [`request`](Self::request): a URL with an
/// address literal is checked there, since no resolver sees it.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    policy: Policy,
}

impl Client {
    /// A client with the caller's settings (timeouts, user agent) and the guard's, which
    /// come last so they cannot be undone. `configure` must not add DNS overrides
    /// (`resolve`, `resolve_to_addrs`): they would bypass the guard.
    pub fn new(
        policy: Policy,
        configure: impl FnOnce(reqwest::ClientBuilder) -> reqwest::ClientBuilder,
    ) -> reqwest::Result<Client> {
        let http = configure(reqwest::Client::builder())
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .dns_resolver(Arc::new(GuardedResolver(policy)))
            .build()?;
        Ok(Client { http, policy })
    }

    /// A request to `url` once it passes [`Policy::check`].
    pub fn request(&self, method: Method, url: &str) -> Result<RequestBuilder, Refusal> {
        let url = self.policy.check_url(url)?;
        Ok(self.http.request(method, url))
    }
}

/// The guard's own answer inside an HTTP error (reqwest wraps what the resolver returned a
/// few levels deep), if the error came from it.
pub fn resolve_error<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a ResolveError> {
    let mut current = Some(error);
    while let Some(e) = current {
        if let Some(found) = e.downcast_ref::<ResolveError>() {
            return Some(found);
        }
        current = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUBLIC_ONLY: Policy = Policy {
        allow_private: false,
    };
    const DEVELOPMENT: Policy = Policy {
        allow_private: true,
    };

    /// The range a URL is refused for, or `None` when it passes.
    fn refused_for(policy: Policy, url: &str) -> Option<Range> {
        match policy.check_url(url) {
            Ok(_) => None,
            Err(Refusal::Name { range, .. } | Refusal::Address { range, .. }) => Some(range),
            Err(other) => panic!("{url}: {other:?}"),
        }
    }

    #[test]
    fn every_spelling_of_a_non_public_target_is_refused() {
        use Range::*;
        let cases: &[(&str, Range)] = &[
            // The seventeen spellings of issue 8, all accepted before.
            ("http://127.0.0.1/hook", Loopback),
            ("http://169.254.169.254/latest/meta-data/", CloudMetadata),
            ("http://[::1]/hook", Loopback),
            ("http://localhost/hook", Loopback),
            ("http://10.0.0.1/hook", Private),
            ("http://10.255.255.254:8080/hook", Private),
            ("http://172.16.0.1/hook", Private),
            ("http://172.31.255.254/hook", Private),
            ("http://192.168.0.1/hook", Private),
            ("http://192.168.255.254/hook", Private),
            ("http://[fd00::1]/hook", UniqueLocal),
            ("http://[fdff:ffff::1]/hook", UniqueLocal),
            ("http://[::ffff:127.0.0.1]/hook", Loopback),
            ("http://2130706433/hook", Loopback),
            ("http://0x7f.0.0.1/hook", Loopback),
            ("http://127.1/hook", Loopback),
            (
                "http://metadata.google.internal/computeMetadata/v1/",
                CloudMetadata,
            ),
            // Other ways to write loopback and metadata.
            ("https://0177.0.0.1/", Loopback),
            ("https://0x7f000001/", Loopback),
            ("https://127.0.0.1./", Loopback),
            ("https://127.255.255.254/", Loopback),
            ("https://[0:0:0:0:0:ffff:7f00:1]/", Loopback),
            ("https://[::ffff:a9fe:a9fe]/", CloudMetadata),
            ("https://0xa9fea9fe/", CloudMetadata),
            ("https://2852039166/", CloudMetadata),
            ("https://[64:ff9b::127.0.0.1]/", Loopback), // NAT64 well-known prefix
            ("https://[64:ff9b::a9fe:a9fe]/", CloudMetadata),
            ("https://[2002:7f00:1::1]/", Loopback), // 6to4
            ("https://[2002:c0a8:101::]/", Private),
            ("https://[::127.0.0.1]/", Reserved), // IPv4-compatible
            ("https://LOCALHOST/", Loopback),
            ("https://localhost./", Loopback),
            ("https://localhost../", Loopback),
            ("https://api.localhost/", Loopback),
            ("https://%6c%6fcalhost/", Loopback),
            ("https://ｌｏｃａｌｈｏｓｔ/", Loopback),
            ("https://metadata.google.internal./", CloudMetadata),
            ("https://METADATA.GOOGLE.INTERNAL/", CloudMetadata),
            ("https://metadata/", CloudMetadata),
            ("https://metadata.goog/", CloudMetadata),
            ("https://instance-data/", CloudMetadata),
            ("https://instance-data.ec2.internal/", CloudMetadata),
            ("https://168.63.129.16/", CloudMetadata),
            ("https://100.100.100.200/", CloudMetadata),
            ("https://[fd00:ec2::254]/", CloudMetadata),
            ("https://169.254.170.2/v2/credentials", CloudMetadata),
            // Private-use names.
            ("https://intranet/", Private),
            ("https://erp.internal/", Private),
            ("https://printer.local/", Private),
            ("https://nas.home.arpa/", Private),
            ("https://box.localdomain/", Private),
            // The other IPv4 ranges.
            ("https://0.0.0.0/", Unspecified),
            ("https://0/", Unspecified),
            ("https://0.1.2.3/", Unspecified),
            ("https://100.64.0.1/", SharedAddressSpace),
            ("https://100.127.255.254/", SharedAddressSpace),
            ("https://169.254.1.1/", LinkLocal),
            ("https://192.0.0.8/", Reserved),
            ("https://192.0.2.10/", Documentation),
            ("https://198.51.100.7/", Documentation),
            ("https://203.0.113.9/", Documentation),
            ("https://198.18.0.1/", Benchmarking),
            ("https://198.19.255.254/", Benchmarking),
            ("https://224.0.0.1/", Multicast),
            ("https://239.255.255.250/", Multicast),
            ("https://255.255.255.255/", Multicast),
            ("https://240.0.0.1/", Reserved),
            // The IPv6 ranges.
            ("https://[::]/", Unspecified),
            ("https://[fc00::1]/", UniqueLocal),
            ("https://[fe80::1]/", LinkLocal),
            ("https://[febf:ffff::1]/", LinkLocal),
            ("https://[fec0::1]/", Reserved),
            ("https://[ff02::1]/", Multicast),
            ("https://[ff05::1:3]/", Multicast),
            ("https://[2001:db8::1]/", Documentation),
            ("https://[3fff::1]/", Documentation),
            ("https://[2001::1]/", Reserved), // Teredo
            ("https://[2001:2::1]/", Benchmarking),
            ("https://[100::1]/", Reserved),
            ("https://[64:ff9b:1::1]/", Private),
            ("https://[::ffff:0:7f00:1]/", Reserved),
            ("https://[4000::1]/", Reserved), // not global unicast
        ];
        for &(url, range) in cases {
            assert_eq!(refused_for(PUBLIC_ONLY, url), Some(range), "{url}");
        }
    }

    #[test]
    fn public_addresses_and_names_pass() {
        for url in [
            "https://erp.example.com.br/webhooks/kobana",
            "https://erp.example.com./hook",
            "http://8.8.8.8/hook",
            "https://1.1.1.1:8443/hook",
            "https://11.0.0.1/",
            "https://100.63.255.255/",
            "https://100.128.0.1/",
            "https://172.15.255.255/",
            "https://172.32.0.1/",
            "https://192.167.255.255/",
            "https://192.169.0.1/",
            "https://169.253.255.255/",
            "https://223.255.255.255/",
            "https://[2606:4700:4700::1111]/",
            "https://[2a00:1450:4001:80e::200e]/",
            "https://[64:ff9b::808:808]/", // NAT64 of a public address
            "https://[2002:808:808::1]/",  // 6to4 of a public address
            "https://[::ffff:8.8.8.8]/",
            "https://local.example.com/", // "local" only as a suffix counts
            "https://localhost.example.com/",
            "https://metadata.example.com/",
        ] {
            assert_eq!(refused_for(PUBLIC_ONLY, url), None, "{url}");
        }
    }

    #[test]
    fn the_development_setting_allows_private_networks_but_never_metadata() {
        for url in [
            "http://127.0.0.1:8080/hook",
            "http://localhost:3000/hook",
            "http://[::1]/hook",
            "http://10.1.2.3/hook",
            "http://192.168.0.10/hook",
            "http://[fd00::1]/hook",
            "http://receiver/hook",
            "http://erp.internal/hook",
            "http://169.254.1.1/hook",
        ] {
            assert_eq!(refused_for(DEVELOPMENT, url), None, "{url}");
        }
        for (url, range) in [
            ("http://169.254.169.254/", Range::CloudMetadata),
            ("http://[::ffff:169.254.169.254]/", Range::CloudMetadata),
            ("http://metadata.google.internal/", Range::CloudMetadata),
            ("http://[fd00:ec2::254]/", Range::CloudMetadata),
            ("http://0.0.0.0:8080/", Range::Unspecified),
            ("http://[::]/", Range::Unspecified),
            ("http://224.0.0.1/", Range::Multicast),
        ] {
            assert_eq!(refused_for(DEVELOPMENT, url), Some(range), "{url}");
        }
    }

    #[test]
    fn only_plain_http_urls_pass() {
        for (url, refusal) in [
            ("ftp://erp.example.com/hook", Refusal::NotHttp),
            ("file:///etc/passwd", Refusal::NotHttp),
            ("gopher://erp.example.com:70/", Refusal::NotHttp),
            ("not a url", Refusal::NotHttp),
            ("https://user:pw@erp.example.com/", Refusal::Credentials),
            ("https://user@erp.example.com/", Refusal::Credentials),
        ] {
            assert_eq!(DEVELOPMENT.check_url(url).unwrap_err(), refusal, "{url}");
        }
    }

    #[test]
    fn refusals_say_why_in_words() {
        let said = |url: &str| PUBLIC_ONLY.check_url(url).unwrap_err().to_string();
        assert_eq!(said("http://127.1/"), "127.0.0.1 is a loopback address");
        assert_eq!(said("http://[::1]/"), "::1 is a loopback address");
        assert_eq!(
            said("http://metadata.google.internal/"),
            "metadata.google.internal is a cloud metadata service"
        );
        assert_eq!(said("http://localhost./"), "localhost. names this machine");
        let resolved = Refusal::Address {
            host: "rebind.example.com".into(),
            address: "10.0.0.7".parse().unwrap(),
            range: Range::Private,
        };
        assert_eq!(
            resolved.to_string(),
            "rebind.example.com resolves to 10.0.0.7, a private network address"
        );
    }

    #[tokio::test]
    async fn a_name_is_resolved_then_every_address_is_checked() {
        // `localhost` resolves from /etc/hosts, without a DNS query (tests send nothing beyond
        // loopback); every address it has is loopback.
        match PUBLIC_ONLY.resolve("localhost").await {
            Err(ResolveError::Forbidden(Refusal::Address {
                host,
                address,
                range,
            })) => {
                assert_eq!(host, "localhost");
                assert!(address.is_loopback(), "{address}");
                assert_eq!(range, Range::Loopback);
            }
            other => panic!("{other:?}"),
        }
        let allowed = DEVELOPMENT.resolve("localhost").await.unwrap();
        assert!(!allowed.is_empty() && allowed.iter().all(IpAddr::is_loopback));
        assert!(matches!(
            PUBLIC_ONLY.resolve("[::1]").await,
            Err(ResolveError::Forbidden(_))
        ));
    }

    #[tokio::test]
    async fn the_client_connects_only_to_addresses_it_checked() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let client = Client::new(PUBLIC_ONLY, |b| b).unwrap();

        // The URL check refuses the name before anything happens...
        let url = format!("http://localhost:{port}/hook");
        assert!(matches!(
            client.request(Method::POST, &url),
            Err(Refusal::Name { .. })
        ));
        // ...and were it skipped, the resolver would still refuse what the name resolves to:
        // nothing reaches the socket.
        let error = client.http.post(&url).send().await.unwrap_err();
        match resolve_error(&error) {
            Some(ResolveError::Forbidden(Refusal::Address { range, .. })) => {
                assert_eq!(*range, Range::Loopback)
            }
            other => panic!("{other:?} in {error:?}"),
        }
        assert_eq!(
            listener.accept().unwrap_err().kind(),
            std::io::ErrorKind::WouldBlock,
            "no connection was made"
        );

        // With the development setting the same receiver is reached, through the resolver.
        let listener = tokio::net::TcpListener::from_std(listener).unwrap();
        let receiver = tokio::spawn(async move {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut request = [0u8; 1024];
            let _ = socket.read(&mut request).await.unwrap();
            socket
                .write_all(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n")
                .await
                .unwrap();
        });
        let client = Client::new(DEVELOPMENT, |b| b).unwrap();
        let answer = client
            .request(Method::POST, &url)
            .unwrap()
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), reqwest::StatusCode::NO_CONTENT);
        receiver.await.unwrap();
    }
}
