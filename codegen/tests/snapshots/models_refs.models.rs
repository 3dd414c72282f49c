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
/// The request forms of the document's component schemas (`readOnly` properties
/// left out): read by the server.
pub mod request {
    #[derive(Debug, Clone, ::serde::Deserialize)]
    pub struct Webhook {
        pub url: ::std::string::String,
        #[serde(default)]
        pub secret: ::std::option::Option<::std::string::String>,
    }
    #[derive(Debug, Clone, ::serde::Deserialize)]
    pub struct Contact {
        #[serde(default)]
        pub name: ::std::option::Option<::std::string::String>,
        #[serde(default)]
        pub address: ::std::option::Option<super::request::ContactAddress>,
    }
    #[derive(Debug, Clone, ::serde::Deserialize)]
    pub struct ContactAddress {
        #[serde(default)]
        pub city: ::std::option::Option<::std::string::String>,
    }
}
/// The response forms of the document's component schemas (`writeOnly` properties
/// left out): views the server writes, borrowing its values.
pub mod response {
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct Webhook<'a> {
        #[serde(skip_serializing_if = "::std::option::Option::is_none")]
        pub id: ::std::option::Option<&'a str>,
        pub url: &'a str,
    }
}
/// `webhooks_create`: POST /webhooks
pub mod webhooks_create {
    pub type Body = super::request::Webhook;
    /// The webhook.
    pub type Response201<'a> = super::response::Webhook<'a>;
}
/// `contacts_create`: POST /contacts
pub mod contacts_create {
    pub type Body = super::request::Contact;
    /// The contact.
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct Response200<'a> {
        pub name: &'a str,
        #[serde(skip_serializing_if = "super::Patch::is_absent")]
        pub kind: super::Patch<&'a str>,
    }
}
