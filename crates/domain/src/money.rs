//! Money in BRL: stored and computed as integer centavos, shown as a JSON number with two
//! decimals.

/// An amount in centavos. Never built from a float without [`Cents::from_reais`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Cents(pub i64);

impl Cents {
    /// Convert a JSON number in reais, refusing more than two decimals or absurd values.
    pub fn from_reais(value: f64) -> Option<Cents> {
        if !value.is_finite() || value.abs() > 1e12 {
            return None;
        }
        let scaled = value * 100.0;
        let rounded = scaled.round();
        // A decimal like 0.29 is 28.999999999999996 once scaled: accept float noise, not a
        // third decimal place.
        if (scaled - rounded).abs() > 1e-6 {
            return None;
        }
        Some(Cents(rounded as i64))
    }

    /// The amount in reais, for JSON output.
    pub fn to_reais(self) -> f64 {
        self.0 as f64 / 100.0
    }

    /// Brazilian formatting: `R$ 1.234,56`.
    pub fn to_brl(self) -> String {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let reais = (abs / 100).to_string();
        let mut grouped = String::new();
        for (i, c) in reais.chars().enumerate() {
            if i > 0 && (reais.len() - i).is_multiple_of(3) {
                grouped.push('.');
            }
            grouped.push(c);
        }
        format!("{sign}R$ {grouped},{:02}", abs % 100)
    }
}

/// On the wire an amount is a number of reais (`150.0`, `99.9`), as the document's
/// `x-format: money` says.
impl serde::Serialize for Cents {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.to_reais())
    }
}

/// A number of reais with at most two decimals; anything else is refused (the request's
/// schema has said so already, with the field's name).
impl<'de> serde::Deserialize<'de> for Cents {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Cents, D::Error> {
        let reais = f64::deserialize(d)?;
        Cents::from_reais(reais).ok_or_else(|| {
            serde::de::Error::custom("must be an amount in reais with at most two decimals")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reais_with_two_decimals_convert_exactly() {
        for (value, cents) in [
            (0.29, 29),
            (1234.56, 123456),
            (0.01, 1),
            (100.0, 10000),
            (19.99, 1999),
        ] {
            assert_eq!(Cents::from_reais(value), Some(Cents(cents)), "{value}");
        }
    }

    #[test]
    fn a_third_decimal_is_refused() {
        assert_eq!(Cents::from_reais(1.001), None);
        assert_eq!(Cents::from_reais(f64::NAN), None);
    }

    #[test]
    fn brl_formatting_groups_thousands() {
        assert_eq!(Cents(123456).to_brl(), "R$ 1.234,56");
        assert_eq!(Cents(5).to_brl(), "R$ 0,05");
        assert_eq!(Cents(100000000).to_brl(), "R$ 1.000.000,00");
    }
}
