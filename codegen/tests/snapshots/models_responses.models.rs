/// The request forms of the document's component schemas (`readOnly` properties
/// left out): read by the server.
pub mod request {}
/// The response forms of the document's component schemas (`writeOnly` properties
/// left out): views the server writes, borrowing its values.
pub mod response {
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct Problem<'a> {
        pub status: i64,
        pub code: &'a str,
    }
}
/// `charges_get`: GET /charges/{id}
pub mod charges_get {
    /// The path parameters.
    #[derive(Debug, Clone, ::serde::Deserialize)]
    pub struct Path {
        pub id: ::std::string::String,
    }
    /// The charge.
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct Response200<'a> {
        pub data: super::charges_get::Response200Data<'a>,
    }
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct Response200Data<'a> {
        pub id: &'a str,
    }
    /// Not found.
    pub type Response404<'a> = super::response::Problem<'a>;
    /// Anything else.
    pub type ResponseDefault<'a> = super::response::Problem<'a>;
}
/// `charges_letter`: GET /charges/{id}/letter
pub mod charges_letter {
    /// The path parameters.
    #[derive(Debug, Clone, ::serde::Deserialize)]
    pub struct Path {
        pub id: ::std::string::String,
    }
}
/// `charges_count`: GET /charges/{id}/count
pub mod charges_count {
    /// The path parameters.
    #[derive(Debug, Clone, ::serde::Deserialize)]
    pub struct Path {
        pub id: ::std::string::String,
    }
    /// A bare number.
    pub type Response200 = i64;
}
