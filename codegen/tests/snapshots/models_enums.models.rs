/// A field that may be absent, `null` or a value (optional and nullable in the
/// document): a PATCH-like body tells "keep" (absent) from "clear" (`null`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Patch<T> {
    /// Not in the JSON.
    #[default]
    Absent,
    /// `null`.
    Null,
    /// A value.
    Value(T),
}
impl<T> Patch<T> {
    /// Whether the field was not in the JSON.
    pub fn is_absent(&self) -> bool {
        matches!(self, Patch::Absent)
    }
    /// The value, if there is one (absent and `null` are both `None`).
    pub fn into_option(self) -> ::std::option::Option<T> {
        match self {
            Patch::Value(value) => ::std::option::Option::Some(value),
            Patch::Absent | Patch::Null => ::std::option::Option::None,
        }
    }
    /// A `Patch` of a reference to the value.
    pub fn as_ref(&self) -> Patch<&T> {
        match self {
            Patch::Absent => Patch::Absent,
            Patch::Null => Patch::Null,
            Patch::Value(value) => Patch::Value(value),
        }
    }
}
impl<'de, T: ::serde::Deserialize<'de>> ::serde::Deserialize<'de> for Patch<T> {
    fn deserialize<D: ::serde::Deserializer<'de>>(
        deserializer: D,
    ) -> ::std::result::Result<Self, D::Error> {
        let value: ::std::option::Option<T> = ::serde::Deserialize::deserialize(
            deserializer,
        )?;
        ::std::result::Result::Ok(
            match value {
                ::std::option::Option::Some(value) => Patch::Value(value),
                ::std::option::Option::None => Patch::Null,
            },
        )
    }
}
impl<T: ::serde::Serialize> ::serde::Serialize for Patch<T> {
    fn serialize<S: ::serde::Serializer>(
        &self,
        serializer: S,
    ) -> ::std::result::Result<S::Ok, S::Error> {
        match self {
            Patch::Value(value) => serializer.serialize_some(value),
            Patch::Absent | Patch::Null => serializer.serialize_none(),
        }
    }
}
/// Channel used to reach a debtor.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    ::serde::Serialize,
    ::serde::Deserialize
)]
pub enum Channel {
    #[serde(rename = "email")]
    Email,
    #[serde(rename = "sms")]
    Sms,
    #[serde(rename = "whatsapp")]
    Whatsapp,
}
impl Channel {
    /// Every value, in the document's order.
    pub const ALL: &'static [Channel] = &[
        Channel::Email,
        Channel::Sms,
        Channel::Whatsapp,
    ];
    /// The word on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Email => "email",
            Channel::Sms => "sms",
            Channel::Whatsapp => "whatsapp",
        }
    }
    /// The value whose word is `word`, if the document lists it.
    pub fn from_word(word: &str) -> ::std::option::Option<Channel> {
        match word {
            "email" => ::std::option::Option::Some(Channel::Email),
            "sms" => ::std::option::Option::Some(Channel::Sms),
            "whatsapp" => ::std::option::Option::Some(Channel::Whatsapp),
            _ => ::std::option::Option::None,
        }
    }
}
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    ::serde::Serialize,
    ::serde::Deserialize
)]
pub enum ChargeStatus {
    #[serde(rename = "pending")]
    Pending,
    #[serde(rename = "in_agreement")]
    InAgreement,
    #[serde(rename = "customers:read")]
    CustomersRead,
    #[serde(rename = "2xx")]
    V2xx,
    #[serde(rename = "")]
    Empty,
}
impl ChargeStatus {
    /// Every value, in the document's order.
    pub const ALL: &'static [ChargeStatus] = &[
        ChargeStatus::Pending,
        ChargeStatus::InAgreement,
        ChargeStatus::CustomersRead,
        ChargeStatus::V2xx,
        ChargeStatus::Empty,
    ];
    /// The word on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ChargeStatus::Pending => "pending",
            ChargeStatus::InAgreement => "in_agreement",
            ChargeStatus::CustomersRead => "customers:read",
            ChargeStatus::V2xx => "2xx",
            ChargeStatus::Empty => "",
        }
    }
    /// The value whose word is `word`, if the document lists it.
    pub fn from_word(word: &str) -> ::std::option::Option<ChargeStatus> {
        match word {
            "pending" => ::std::option::Option::Some(ChargeStatus::Pending),
            "in_agreement" => ::std::option::Option::Some(ChargeStatus::InAgreement),
            "customers:read" => ::std::option::Option::Some(ChargeStatus::CustomersRead),
            "2xx" => ::std::option::Option::Some(ChargeStatus::V2xx),
            "" => ::std::option::Option::Some(ChargeStatus::Empty),
            _ => ::std::option::Option::None,
        }
    }
}
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    ::serde::Serialize,
    ::serde::Deserialize
)]
pub enum ChargeStage {
    #[serde(rename = "first")]
    First,
    #[serde(rename = "second")]
    Second,
}
impl ChargeStage {
    /// Every value, in the document's order.
    pub const ALL: &'static [ChargeStage] = &[ChargeStage::First, ChargeStage::Second];
    /// The word on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ChargeStage::First => "first",
            ChargeStage::Second => "second",
        }
    }
    /// The value whose word is `word`, if the document lists it.
    pub fn from_word(word: &str) -> ::std::option::Option<ChargeStage> {
        match word {
            "first" => ::std::option::Option::Some(ChargeStage::First),
            "second" => ::std::option::Option::Some(ChargeStage::Second),
            _ => ::std::option::Option::None,
        }
    }
}
/// The request forms of the document's component schemas (`readOnly` properties
/// left out): read by the server.
pub mod request {}
/// The response forms of the document's component schemas (`writeOnly` properties
/// left out): views the server writes, borrowing its values.
pub mod response {
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct Charge<'a> {
        pub status: super::ChargeStatus,
        #[serde(skip_serializing_if = "super::Patch::is_absent")]
        pub stage: super::Patch<super::ChargeStage>,
        /// Channel used to reach a debtor.
        pub channel: super::Channel,
        pub scopes: &'a [super::Channel],
    }
}
/// `charges_list`: GET /charges
pub mod charges_list {
    /// The query string.
    #[derive(Debug, Clone, ::serde::Deserialize)]
    pub struct Query {
        #[serde(default)]
        pub sort_order: ::std::option::Option<super::charges_list::SortOrder>,
        #[serde(default)]
        pub channel: ::std::option::Option<super::Channel>,
    }
    #[derive(
        Debug,
        Clone,
        Copy,
        PartialEq,
        Eq,
        Hash,
        ::serde::Serialize,
        ::serde::Deserialize
    )]
    pub enum SortOrder {
        #[serde(rename = "asc")]
        Asc,
        #[serde(rename = "desc")]
        Desc,
    }
    impl SortOrder {
        /// Every value, in the document's order.
        pub const ALL: &'static [SortOrder] = &[SortOrder::Asc, SortOrder::Desc];
        /// The word on the wire.
        pub fn as_str(self) -> &'static str {
            match self {
                SortOrder::Asc => "asc",
                SortOrder::Desc => "desc",
            }
        }
        /// The value whose word is `word`, if the document lists it.
        pub fn from_word(word: &str) -> ::std::option::Option<SortOrder> {
            match word {
                "asc" => ::std::option::Option::Some(SortOrder::Asc),
                "desc" => ::std::option::Option::Some(SortOrder::Desc),
                _ => ::std::option::Option::None,
            }
        }
    }
    /// A charge.
    pub type Response200<'a> = super::response::Charge<'a>;
}
