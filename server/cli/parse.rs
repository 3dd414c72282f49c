//! Parsers of the command line's values: durations (`10s`, `500ms`, `30d`), the token cache's
//! time to live, rate limits (`120/minute`).

use std::time::Duration;

/// `10s`, `500ms`, `2m`, `12h`, `30d` or a bare number of seconds; zero is refused (it would
/// cut every connection at once).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a duration such as 10s, 500ms or 2m"))?;
    let duration = match unit.trim() {
        "ms" => Duration::from_millis(number),
        "" | "s" => Duration::from_secs(number),
        "m" | "min" => Duration::from_secs(number.saturating_mul(60)),
        "h" => Duration::from_secs(number.saturating_mul(3600)),
        "d" => Duration::from_secs(number.saturating_mul(86_400)),
        other => return Err(format!("'{other}' is not a unit; use ms, s, m, h or d")),
    };
    if duration.is_zero() {
        return Err("a timeout must be longer than zero".into());
    }
    Ok(duration)
}

/// At most 5 seconds, since revoked tokens must stop working within that; zero turns the
/// cache off.
pub fn parse_token_cache_ttl(text: &str) -> Result<Duration, String> {
    let ttl = match text.trim().trim_end_matches('s') {
        "0" | "0m" => Duration::ZERO,
        _ => parse_duration(text)?,
    };
    if ttl > Duration::from_secs(5) {
        return Err("the token cache keeps tokens at most 5s".into());
    }
    Ok(ttl)
}

/// Messages a second: a positive number, at most 10 000 (a fraction is a slower sender:
/// `0.5` is one every two seconds).
pub fn positive_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(rate) if rate > 0.0 && rate <= 10_000.0 => Ok(rate),
        _ => Err(format!(
            "'{text}': messages a second, a number above 0 and at most 10000"
        )),
    }
}

pub fn parse_rate_limit(text: &str) -> Result<(i64, i64), String> {
    let (count, period) = text
        .split_once('/')
        .ok_or("rate limit must look like 120/minute")?;
    let count: i64 = count
        .trim()
        .parse()
        .map_err(|_| format!("'{count}' is not a number of requests"))?;
    let seconds = match period.trim() {
        "s" | "sec" | "second" => 1,
        "m" | "min" | "minute" => 60,
        "h" | "hour" => 3600,
        "d" | "day" => 86_400,
        other => other
            .strip_suffix('s')
            .and_then(|n| n.parse::<i64>().ok())
            .ok_or(format!(
                "'{other}' is not a period (second, minute, hour, day or e.g. 30s)"
            ))?,
    };
    if count < 1 || seconds < 1 {
        return Err("rate limit and period must be positive".into());
    }
    Ok((count, seconds))
}

/// `demo`: seed the demo organizations into a new database (writing the credentials file as
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_rates_are_positive_numbers() {
        assert_eq!(positive_rate("1"), Ok(1.0));
        assert_eq!(positive_rate(" 0.5 "), Ok(0.5));
        for refused in ["0", "-1", "NaN", "inf", "fast", "10001"] {
            assert!(positive_rate(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn durations_take_a_unit_and_refuse_zero() {
        let cases = [
            ("10s", Some(Duration::from_secs(10))),
            ("500ms", Some(Duration::from_millis(500))),
            ("2m", Some(Duration::from_secs(120))),
            ("30", Some(Duration::from_secs(30))),
            ("0s", None),
            ("ten", None),
            ("5h", Some(Duration::from_secs(5 * 3600))),
            ("30d", Some(Duration::from_secs(30 * 86_400))),
            ("5w", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_duration(text).ok(), expected, "{text}");
        }
    }
}
