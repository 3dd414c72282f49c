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
/// Every webhook of the document with a JSON body: its name and its body's JSON Schema,
/// in the document's order.
pub const WEBHOOKS: &[(&str, &str)] = &[
    (order_shipped::NAME, order_shipped::SCHEMA),
    (order_canceled::NAME, order_canceled::SCHEMA),
];
/// The request forms of the document's component schemas (`readOnly` properties
/// left out): read by the server.
pub mod request {}
/// The response forms of the document's component schemas (`writeOnly` properties
/// left out): views the server writes, borrowing its values.
pub mod response {
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct Order<'a> {
        pub id: &'a str,
    }
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct OrderShipped<'a> {
        pub order_id: &'a str,
        pub carrier: &'a str,
        #[serde(skip_serializing_if = "super::Patch::is_absent")]
        pub tracking: super::Patch<&'a str>,
    }
}
/// `orders_get`: GET /orders/{id}
pub mod orders_get {
    /// The path parameters.
    #[derive(Debug, Clone, ::serde::Deserialize)]
    pub struct Path {
        pub id: ::std::string::String,
    }
    /// The order.
    pub type Response200<'a> = super::response::Order<'a>;
}
/// The `order.shipped` webhook: POST by the service. An order left the warehouse
pub mod order_shipped {
    /// The webhook's name in the document's `webhooks`.
    pub const NAME: &str = "order.shipped";
    /// The body's JSON Schema (2020-12, self-contained), to check a body against.
    pub const SCHEMA: &str = "{\"allOf\":[{\"type\":\"object\",\"properties\":{\"type\":{\"enum\":[\"order.shipped\"]},\"data\":{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"order_id\",\"carrier\"],\"properties\":{\"order_id\":{\"type\":\"string\"},\"carrier\":{\"type\":\"string\"},\"tracking\":{\"type\":[\"string\",\"null\"]}}}}},{\"type\":\"object\",\"required\":[\"id\",\"type\",\"data\"],\"properties\":{\"id\":{\"type\":\"string\"},\"type\":{\"type\":\"string\"},\"data\":{\"type\":\"object\"}}}]}";
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct Body<'a> {
        pub r#type: super::order_shipped::BodyType,
        pub data: super::response::OrderShipped<'a>,
        pub id: &'a str,
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
    pub enum BodyType {
        #[serde(rename = "order.shipped")]
        OrderShipped,
    }
    impl BodyType {
        /// Every value, in the document's order.
        pub const ALL: &'static [BodyType] = &[BodyType::OrderShipped];
        /// The word on the wire.
        pub fn as_str(self) -> &'static str {
            match self {
                BodyType::OrderShipped => "order.shipped",
            }
        }
        /// The value whose word is `word`, if the document lists it.
        pub fn from_word(word: &str) -> ::std::option::Option<BodyType> {
            match word {
                "order.shipped" => ::std::option::Option::Some(BodyType::OrderShipped),
                _ => ::std::option::Option::None,
            }
        }
    }
}
/// The `order.canceled` webhook: POST by the service. An order was canceled
pub mod order_canceled {
    /// The webhook's name in the document's `webhooks`.
    pub const NAME: &str = "order.canceled";
    /// The body's JSON Schema (2020-12, self-contained), to check a body against.
    pub const SCHEMA: &str = "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"order_id\",\"reason\"],\"properties\":{\"order_id\":{\"type\":\"string\"},\"reason\":{\"type\":[\"string\",\"null\"]},\"refund\":{\"type\":[\"object\",\"null\"],\"required\":[\"amount\"],\"properties\":{\"amount\":{\"type\":\"integer\"}}}}}";
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct Body<'a> {
        pub order_id: &'a str,
        pub reason: ::std::option::Option<&'a str>,
        #[serde(skip_serializing_if = "super::Patch::is_absent")]
        pub refund: super::Patch<super::order_canceled::BodyRefund>,
    }
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct BodyRefund {
        pub amount: i64,
    }
}
