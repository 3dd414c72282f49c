/// The request forms of the document's component schemas (`readOnly` properties
/// left out): read by the server.
pub mod request {}
/// The response forms of the document's component schemas (`writeOnly` properties
/// left out): views the server writes, borrowing its values.
pub mod response {
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct Charge<'a> {
        pub id: &'a str,
        pub tags: &'a [::std::string::String],
        #[serde(skip_serializing_if = "::std::option::Option::is_none")]
        pub scores: ::std::option::Option<&'a [f64]>,
        #[serde(skip_serializing_if = "::std::option::Option::is_none")]
        pub grid: ::std::option::Option<&'a [::std::vec::Vec<i32>]>,
    }
}
/// `charges_list`: GET /charges
pub mod charges_list {
    /// A page of charges.
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct Response200<'a> {
        pub data: ::std::vec::Vec<super::response::Charge<'a>>,
        pub meta: super::charges_list::Response200Meta,
    }
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct Response200Meta {
        pub total: i64,
    }
}
/// `charges_import`: POST /charges
pub mod charges_import {
    #[derive(Debug, Clone, ::serde::Deserialize)]
    pub struct BodyItem {
        pub description: ::std::string::String,
        #[serde(default)]
        pub tags: ::std::option::Option<::std::vec::Vec<::std::string::String>>,
    }
    pub type Body = ::std::vec::Vec<super::charges_import::BodyItem>;
}
