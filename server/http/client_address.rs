//! Who a request comes from, for the limits kept per client address: the socket's peer
//! (`ConnectInfo`, which `serve` puts on every request), or, when that peer is a reverse
//! proxy the operator named with `--trusted-proxy`, the address the proxy says it forwarded
//! for in `X-Forwarded-For`.
//!
//! `X-Forwarded-For` is read from the right: each proxy appends the address it received the
//! request from, so the rightmost entries are the ones our own proxies wrote, and the first
//! one from the right that is not a trusted proxy is the client. Whatever a client writes in
//! the header itself stays on the left of that and is never believed; nor is the header of a
//! peer that is not a trusted proxy. An entry that is not an address ends the walk at the
//! proxy that wrote it. `Forwarded` (RFC 7239) is not read: the proxies in front of this
//! server (nginx, HAProxy, the cloud load balancers) all write `X-Forwarded-For`.

use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use axum::extract::ConnectInfo;
use http::{Extensions, HeaderMap, HeaderName};

const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// An address or a network (`10.0.0.0/8`, `fd00::/8`, `192.0.2.10`) of trusted proxies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Network {
    address: IpAddr,
    bits: u8,
}

impl Network {
    /// Whether `ip` is in this network.
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.address, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(self.bits)).unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.bits))
                    .unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

impl FromStr for Network {
    type Err = String;

    fn from_str(text: &str) -> Result<Network, String> {
        let text = text.trim();
        let (address, bits) = match text.split_once('/') {
            Some((address, bits)) => (address, Some(bits)),
            None => (text, None),
        };
        let address: IpAddr = address.parse().map_err(|_| {
            format!("'{text}' is not an IP address or a network such as 10.0.0.0/8")
        })?;
        let address = address.to_canonical();
        let most = if address.is_ipv4() { 32 } else { 128 };
        let bits = match bits {
            None => most,
            Some(bits) => bits
                .parse::<u8>()
                .ok()
                .filter(|bits| *bits <= most)
                .ok_or_else(|| format!("'{text}': the prefix length is 0 to {most}"))?,
        };
        Ok(Network { address, bits })
    }
}

/// The peer address `serve` put on the request; `None` for a request made in-process.
pub fn peer(extensions: &Extensions) -> Option<IpAddr> {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip().to_canonical())
}

/// The client's address: `peer`, or behind trusted proxies the address they forwarded for.
pub fn client(peer: Option<IpAddr>, headers: &HeaderMap, trusted: &[Network]) -> Option<IpAddr> {
    let peer = peer?;
    let is_trusted = |ip: IpAddr| trusted.iter().any(|network| network.contains(ip));
    if !is_trusted(peer) {
        return Some(peer);
    }
    // Several header lines read as one list, in order.
    let mut hops: Vec<&str> = Vec::new();
    for value in headers.get_all(X_FORWARDED_FOR) {
        let Ok(text) = value.to_str() else {
            return Some(peer);
        };
        hops.extend(text.split(','));
    }
    let mut last_trusted = peer;
    for hop in hops.iter().rev() {
        let Some(ip) = hop_address(hop.trim()) else {
            return Some(last_trusted);
        };
        if !is_trusted(ip) {
            return Some(ip);
        }
        last_trusted = ip;
    }
    Some(last_trusted)
}

/// An entry of `X-Forwarded-For`: an address, with a port as some proxies write it
/// (`192.0.2.1:4711`, `[2001:db8::1]:4711`).
fn hop_address(text: &str) -> Option<IpAddr> {
    text.parse::<IpAddr>()
        .or_else(|_| text.parse::<SocketAddr>().map(|s| s.ip()))
        .ok()
        .map(|ip| ip.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn forwarded(values: &[&'static str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(X_FORWARDED_FOR, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn networks_are_addresses_or_prefixes_and_contain_what_they_should() {
        let net: Network = "10.1.0.0/16".parse().unwrap();
        assert!(net.contains(ip("10.1.200.3")));
        assert!(!net.contains(ip("10.2.0.1")));
        assert!(net.contains(ip("::ffff:10.1.0.9")), "a mapped IPv4 address");
        let one: Network = "192.0.2.10".parse().unwrap();
        assert!(one.contains(ip("192.0.2.10")) && !one.contains(ip("192.0.2.11")));
        let v6: Network = "fd00::/8".parse().unwrap();
        assert!(v6.contains(ip("fd12::1")) && !v6.contains(ip("fe80::1")));
        let all: Network = "0.0.0.0/0".parse().unwrap();
        assert!(all.contains(ip("203.0.113.5")) && !all.contains(ip("::1")));
        for bad in ["10.0.0.0/33", "::/129", "proxy", "10.0.0.0/x", ""] {
            assert!(bad.parse::<Network>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_header_is_believed_only_from_a_trusted_proxy_and_read_from_the_right() {
        let trusted: Vec<Network> = vec!["10.0.0.0/8".parse().unwrap()];
        let proxy = Some(ip("10.0.0.2"));
        let stranger = Some(ip("203.0.113.9"));
        let spoofed = forwarded(&["192.0.2.1"]);
        assert_eq!(
            client(stranger, &spoofed, &trusted),
            stranger,
            "not a proxy"
        );
        assert_eq!(client(proxy, &spoofed, &[]), proxy, "no proxy is trusted");
        assert_eq!(client(proxy, &spoofed, &trusted), Some(ip("192.0.2.1")));
        // The client wrote the first entry; the proxies appended the rest.
        let chain = forwarded(&["192.0.2.1, 198.51.100.4", "10.9.9.9"]);
        assert_eq!(client(proxy, &chain, &trusted), Some(ip("198.51.100.4")));
        let with_port = forwarded(&["[2001:db8::7]:4711"]);
        assert_eq!(client(proxy, &with_port, &trusted), Some(ip("2001:db8::7")));
        // Garbage where an address should be: the proxy that wrote it is as far as we know.
        let garbage = forwarded(&["192.0.2.1, unknown, 10.3.3.3"]);
        assert_eq!(client(proxy, &garbage, &trusted), Some(ip("10.3.3.3")));
        assert_eq!(
            client(proxy, &HeaderMap::new(), &trusted),
            proxy,
            "no header"
        );
        assert_eq!(client(None, &spoofed, &trusted), None, "in-process");
    }
}
