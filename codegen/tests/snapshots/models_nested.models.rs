/// The request forms of the document's component schemas (`readOnly` properties
/// left out): read by the server.
pub mod request {
    #[derive(Debug, Clone, ::serde::Deserialize)]
    pub struct Node {
        pub name: ::std::string::String,
        #[serde(default)]
        pub parent: ::std::option::Option<::std::boxed::Box<super::request::Node>>,
        #[serde(default)]
        pub children: ::std::option::Option<::std::vec::Vec<super::request::Node>>,
    }
}
/// The response forms of the document's component schemas (`writeOnly` properties
/// left out): views the server writes, borrowing its values.
pub mod response {
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct Me<'a> {
        pub organization: super::response::MeOrganization<'a>,
        #[serde(skip_serializing_if = "::std::option::Option::is_none")]
        pub labels: ::std::option::Option<
            &'a ::std::collections::BTreeMap<::std::string::String, i64>,
        >,
        #[serde(skip_serializing_if = "::std::option::Option::is_none")]
        pub metadata: ::std::option::Option<
            &'a ::serde_json::Map<::std::string::String, ::serde_json::Value>,
        >,
        #[serde(skip_serializing_if = "::std::option::Option::is_none")]
        pub anything: ::std::option::Option<&'a ::serde_json::Value>,
        /// A keyword as a property name.
        #[serde(skip_serializing_if = "::std::option::Option::is_none")]
        pub r#type: ::std::option::Option<&'a str>,
    }
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct MeOrganization<'a> {
        pub id: &'a str,
        #[serde(skip_serializing_if = "::std::option::Option::is_none")]
        pub owner: ::std::option::Option<super::response::MeOrganizationOwner<'a>>,
    }
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct MeOrganizationOwner<'a> {
        #[serde(skip_serializing_if = "::std::option::Option::is_none")]
        pub name: ::std::option::Option<&'a str>,
    }
    #[derive(Debug, Clone, ::serde::Serialize)]
    pub struct Node<'a> {
        pub name: &'a str,
        #[serde(skip_serializing_if = "::std::option::Option::is_none")]
        pub parent: ::std::option::Option<::std::boxed::Box<super::response::Node<'a>>>,
        #[serde(skip_serializing_if = "::std::option::Option::is_none")]
        pub children: ::std::option::Option<::std::vec::Vec<super::response::Node<'a>>>,
    }
}
/// `me_get`: GET /me
pub mod me_get {
    /// Who the token belongs to.
    pub type Response200<'a> = super::response::Me<'a>;
}
/// `nodes_create`: POST /nodes
pub mod nodes_create {
    pub type Body = super::request::Node;
    /// The node.
    pub type Response201<'a> = super::response::Node<'a>;
}
