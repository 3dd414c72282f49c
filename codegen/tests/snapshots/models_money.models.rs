/// Money in hundredths of its currency's unit (`x-format: money`): on the wire, a
/// number of units with at most two decimals (`12.34` is `Cents(1234)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Cents(pub i64);
impl Cents {
    /// An amount in units of the currency, refusing a third decimal and absurd values.
    pub fn from_units(units: f64) -> ::std::option::Option<Cents> {
        if !units.is_finite() || units.abs() > 1e12 {
            return ::std::option::Option::None;
        }
        let scaled = units * 100.0;
        let rounded = scaled.round();
        if (scaled - rounded).abs() > 1e-6 {
            return ::std::option::Option::None;
        }
        ::std::option::Option::Some(Cents(rounded as i64))
    }
    /// The amount in units of the currency.
    pub fn to_units(self) -> f64 {
        self.0 as f64 / 100.0
    }
}
impl ::serde::Serialize for Cents {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.to_units())
    }
}
impl<'de> ::serde::Deserialize<'de> for Cents {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        let units: f64 = ::serde::Deserialize::deserialize(deserializer)?;
        Cents::from_units(units)
            .ok_or_else(|| {
                <D::Error as ::serde::de::Error>::custom(
                    "an amount with at most two decimals",
                )
            })
    }
}
/// The request forms of the document's component schemas (`readOnly` properties
/// left out): read by the server.
pub mod request {}
/// The response forms of the document's component schemas (`writeOnly` properties
/// left out): views the server writes, borrowing its values.
pub mod response {
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct Charge {
        pub amount: super::Cents,
        pub amount_due: super::Cents,
    }
}
/// `charges_list`: GET /charges
pub mod charges_list {
    /// The query string.
    #[derive(Debug, Clone, ::serde::Deserialize)]
    pub struct Query {
        #[serde(default)]
        pub amount_min: ::std::option::Option<super::Cents>,
    }
    /// A charge.
    pub type Response200 = super::response::Charge;
}
/// `charges_create`: POST /charges
pub mod charges_create {
    #[derive(Debug, Clone, ::serde::Deserialize)]
    pub struct Body {
        pub amount: super::Cents,
        /// A percentage is not money.
        #[serde(default)]
        pub fine_percent: ::std::option::Option<f64>,
    }
    /// The charge.
    pub type Response201 = super::response::Charge;
}
