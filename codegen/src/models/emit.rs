//! Rust source of the models: each emitter turns one IR value into a small token fragment.
//!
//! The file is items only, for `include!` inside a module (no inner attributes, no `//!`, no
//! `use`; every path is absolute or starts with `super::`). Its root holds the helpers it
//! needs (`Patch`, `Cents`) and the enums; below it, `request` and `response` hold the component
//! schemas' forms and each operation has a module of its own. Every item that names another
//! sits exactly one level below the root, so `super::` is always the root.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::ir::{Field, Item, Kind, Models, Place, Presence, Side, Ty, WebhookConsts};
use crate::FormatType;
use crate::names;

/// The Rust type of each format, parsed once: `(request, response)`.
pub(crate) type FormatTypes = Vec<(syn::Type, syn::Type)>;

/// Parses the settings' type paths; a path that is not a Rust type is an error naming it.
pub(crate) fn format_types(formats: &[FormatType]) -> Result<FormatTypes, String> {
    formats
        .iter()
        .map(|f| {
            let parse = |text: &str| {
                syn::parse_str::<syn::Type>(text).map_err(|e| {
                    format!(
                        "Settings::models.formats: `{}` names `{text}`, which is not a Rust type ({e})",
                        f.format
                    )
                })
            };
            Ok((parse(&f.request)?, parse(&f.response)?))
        })
        .collect()
}

/// The formatted models file.
pub(crate) fn source(models: &Models, formats: &FormatTypes) -> String {
    let cx = Cx { models, formats };
    let in_place = |place: Place| {
        models
            .items
            .iter()
            .filter(move |item| item.place == place)
            .map(|item| cx.item(item))
            .collect::<Vec<_>>()
    };
    let root = in_place(Place::Root);
    let request = in_place(Place::Request);
    let response = in_place(Place::Response);
    let operations = models.operations.iter().enumerate().map(|(index, op)| {
        let items = in_place(Place::Operation(index));
        let ident = ident(&op.ident);
        let doc = doc_lines(Some(&op.doc));
        let consts = op.webhook.as_ref().map(webhook_consts);
        quote! {
            #doc
            pub mod #ident {
                #consts
                #(#items)*
            }
        }
    });
    let webhooks = webhook_table(models);
    let (patch, cents) = uses(models, formats);
    let patch = patch.then(patch_helper);
    let cents = cents.then(cents_helper);
    let tokens = quote! {
        #patch
        #cents
        #webhooks
        #(#root)*
        /// The request forms of the document's component schemas (`readOnly` properties
        /// left out): read by the server.
        pub mod request {
            #(#request)*
        }
        /// The response forms of the document's component schemas (`writeOnly` properties
        /// left out): views the server writes, borrowing its values.
        pub mod response {
            #(#response)*
        }
        #(#operations)*
    };
    let file: syn::File = syn::parse2(tokens).expect("the model emitters produce valid Rust items");
    prettyplease::unparse(&file)
}

struct Cx<'a> {
    models: &'a Models,
    formats: &'a FormatTypes,
}

impl Cx<'_> {
    fn item(&self, item: &Item) -> TokenStream {
        match &item.kind {
            Kind::Struct { fields, closed } => self.structure(item, fields, *closed),
            Kind::Enum { variants } => enumeration(item, variants),
            Kind::Alias { ty, nullable } => self.alias(item, ty, *nullable),
        }
    }

    fn structure(&self, item: &Item, fields: &[Field], closed: bool) -> TokenStream {
        let name = ident(&item.name);
        let doc = doc_lines(item.doc.as_deref());
        let lifetime = lifetime(item.borrows);
        let fields = fields.iter().map(|f| self.field(f, item.side));
        match item.side {
            Side::Request => {
                let closed = closed.then(|| quote!(#[serde(deny_unknown_fields)]));
                quote! {
                    #doc
                    #[derive(Debug, Clone, ::serde::Deserialize)]
                    #closed
                    pub struct #name {
                        #(#fields,)*
                    }
                }
            }
            Side::Response => quote! {
                #doc
                #[derive(Debug, Clone, ::serde::Serialize)]
                pub struct #name #lifetime {
                    #(#fields,)*
                }
            },
        }
    }

    fn field(&self, field: &Field, side: Side) -> TokenStream {
        let doc = doc_lines(field.doc.as_deref());
        let name = ident(&field.ident);
        let rename = (field.ident != field.wire).then(|| {
            let wire = &field.wire;
            quote!(#[serde(rename = #wire)])
        });
        let mut ty = self.ty(&field.ty, side);
        if field.boxed {
            ty = quote!(::std::boxed::Box<#ty>);
        }
        let (ty, presence) = presence(ty, field.presence, side);
        quote! {
            #doc
            #rename
            #presence
            pub #name: #ty
        }
    }

    fn alias(&self, item: &Item, ty: &Ty, nullable: bool) -> TokenStream {
        let name = ident(&item.name);
        let doc = doc_lines(item.doc.as_deref());
        let lifetime = lifetime(item.borrows);
        let mut ty = self.ty(ty, item.side);
        if nullable {
            ty = quote!(::std::option::Option<#ty>);
        }
        quote! {
            #doc
            pub type #name #lifetime = #ty;
        }
    }

    /// The type of a value on `side`: owned in requests, borrowed in responses.
    fn ty(&self, ty: &Ty, side: Side) -> TokenStream {
        let borrowed = side == Side::Response;
        match ty {
            Ty::String if borrowed => quote!(&'a str),
            Ty::Json if borrowed => quote!(&'a ::serde_json::Value),
            Ty::JsonObject if borrowed => {
                quote!(&'a ::serde_json::Map<::std::string::String, ::serde_json::Value>)
            }
            // A list of views (structs that borrow): the views are made without copying, and
            // the list holds them.
            Ty::Array(item) if borrowed && self.is_view(item) => {
                let item = self.ty(item, side);
                quote!(::std::vec::Vec<#item>)
            }
            // Any other list borrows the server's own (`&'a [String]` from a row's `Vec`).
            Ty::Array(item) if borrowed => {
                let item = self.owned(item);
                quote!(&'a [#item])
            }
            Ty::Map(value) if borrowed => {
                let value = self.owned(value);
                quote!(&'a ::std::collections::BTreeMap<::std::string::String, #value>)
            }
            Ty::Array(item) => {
                let item = self.ty(item, side);
                quote!(::std::vec::Vec<#item>)
            }
            Ty::Map(value) => {
                let value = self.ty(value, side);
                quote!(::std::collections::BTreeMap<::std::string::String, #value>)
            }
            Ty::Format(index) => {
                let (request, response) = &self.formats[*index];
                if borrowed {
                    quote!(#response)
                } else {
                    quote!(#request)
                }
            }
            Ty::Item(index) => self.path(*index),
            Ty::String | Ty::Json | Ty::JsonObject | Ty::Bool | Ty::I32 | Ty::I64 | Ty::F64 => {
                scalar(ty)
            }
        }
    }

    /// Whether `ty` is a response view: an item that borrows.
    fn is_view(&self, ty: &Ty) -> bool {
        matches!(ty, Ty::Item(index) if self.models.items[*index].borrows)
    }

    /// What a borrowed slice or map of a response holds: the server's own values.
    fn owned(&self, ty: &Ty) -> TokenStream {
        match ty {
            Ty::Array(item) => {
                let item = self.owned(item);
                quote!(::std::vec::Vec<#item>)
            }
            Ty::Map(value) => {
                let value = self.owned(value);
                quote!(::std::collections::BTreeMap<::std::string::String, #value>)
            }
            Ty::Format(index) => {
                let (_, response) = &self.formats[*index];
                quote!(#response)
            }
            Ty::Item(index) => self.path(*index),
            other => scalar(other),
        }
    }

    /// The path of an item from any module one level below the root.
    fn path(&self, index: usize) -> TokenStream {
        let item = &self.models.items[index];
        let name = ident(&item.name);
        let lifetime = lifetime(item.borrows);
        match &item.place {
            Place::Root => quote!(super::#name #lifetime),
            Place::Request => quote!(super::request::#name #lifetime),
            Place::Response => quote!(super::response::#name #lifetime),
            Place::Operation(op) => {
                let module = ident(&self.models.operations[*op].ident);
                quote!(super::#module::#name #lifetime)
            }
        }
    }
}

/// `WEBHOOKS`, every webhook's name and body schema, when the document has any.
fn webhook_table(models: &Models) -> Option<TokenStream> {
    let entries: Vec<TokenStream> = models
        .operations
        .iter()
        .filter(|op| op.webhook.as_ref().is_some_and(|w| w.schema.is_some()))
        .map(|op| {
            let module = ident(&op.ident);
            quote!((#module::NAME, #module::SCHEMA))
        })
        .collect();
    if entries.is_empty() {
        return None;
    }
    Some(quote! {
        /// Every webhook of the document with a JSON body: its name and its body's JSON Schema,
        /// in the document's order.
        pub const WEBHOOKS: &[(&str, &str)] = &[#(#entries),*];
    })
}

/// A webhook module's `NAME` and `SCHEMA`.
fn webhook_consts(webhook: &WebhookConsts) -> TokenStream {
    let name = &webhook.name;
    let schema = webhook.schema.as_ref().map(|schema| {
        quote! {
            /// The body's JSON Schema (2020-12, self-contained), to check a body against.
            pub const SCHEMA: &str = #schema;
        }
    });
    quote! {
        /// The webhook's name in the document's `webhooks`.
        pub const NAME: &str = #name;
        #schema
    }
}

/// Owned scalars and JSON.
fn scalar(ty: &Ty) -> TokenStream {
    match ty {
        Ty::String => quote!(::std::string::String),
        Ty::Bool => quote!(bool),
        Ty::I32 => quote!(i32),
        Ty::I64 => quote!(i64),
        Ty::F64 => quote!(f64),
        Ty::JsonObject => quote!(::serde_json::Map<::std::string::String, ::serde_json::Value>),
        _ => quote!(::serde_json::Value),
    }
}

/// The field's type and attributes for its presence. Requests: a missing optional field is
/// `None` (or `Patch::Absent` when it may also be `null`). Responses: `None` and `Absent`
/// are left out of the JSON, a `null` is written.
fn presence(ty: TokenStream, presence: Presence, side: Side) -> (TokenStream, TokenStream) {
    let Presence { required, nullable } = presence;
    let ty = match (required, nullable) {
        (true, false) => ty,
        (false, true) => quote!(super::Patch<#ty>),
        _ => quote!(::std::option::Option<#ty>),
    };
    let attributes = match (side, required, nullable) {
        (_, true, _) => quote!(),
        (Side::Request, false, _) => quote!(#[serde(default)]),
        (Side::Response, false, false) => {
            quote!(#[serde(skip_serializing_if = "::std::option::Option::is_none")])
        }
        (Side::Response, false, true) => {
            quote!(#[serde(skip_serializing_if = "super::Patch::is_absent")])
        }
    };
    (ty, attributes)
}

fn enumeration(item: &Item, variants: &[(String, String)]) -> TokenStream {
    let name = ident(&item.name);
    let doc = doc_lines(item.doc.as_deref());
    let idents: Vec<Ident> = variants.iter().map(|(v, _)| ident(v)).collect();
    let words: Vec<&str> = variants.iter().map(|(_, w)| w.as_str()).collect();
    quote! {
        #doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ::serde::Serialize, ::serde::Deserialize)]
        pub enum #name {
            #(#[serde(rename = #words)] #idents,)*
        }
        impl #name {
            /// Every value, in the document's order.
            pub const ALL: &'static [#name] = &[#(#name::#idents),*];
            /// The word on the wire.
            pub fn as_str(self) -> &'static str {
                match self {
                    #(#name::#idents => #words,)*
                }
            }
            /// The value whose word is `word`, if the document lists it.
            pub fn from_word(word: &str) -> ::std::option::Option<#name> {
                match word {
                    #(#words => ::std::option::Option::Some(#name::#idents),)*
                    _ => ::std::option::Option::None,
                }
            }
        }
    }
}

/// Which helpers the file needs: `Patch` (a field optional and nullable) and `Cents` (a
/// format the settings give the models' own `Cents`).
fn uses(models: &Models, formats: &FormatTypes) -> (bool, bool) {
    let cents = quote!(super::Cents).to_string();
    let is_cents = |ty: &syn::Type| quote!(#ty).to_string() == cents;
    let mut patch = false;
    let mut money = false;
    let mut note = |ty: &Ty| {
        let mut ty = ty;
        while let Ty::Array(inner) | Ty::Map(inner) = ty {
            ty = inner;
        }
        if let Ty::Format(index) = ty {
            let (request, response) = &formats[*index];
            money |= is_cents(request) || is_cents(response);
        }
    };
    for item in &models.items {
        match &item.kind {
            Kind::Struct { fields, .. } => {
                for field in fields {
                    patch |= !field.presence.required && field.presence.nullable;
                    note(&field.ty);
                }
            }
            Kind::Alias { ty, .. } => note(ty),
            Kind::Enum { .. } => {}
        }
    }
    (patch, money)
}

/// `Patch`: absent, `null` or a value. Written into the models file (when a field needs it)
/// so that the file needs nothing beyond `serde` and `serde_json`.
fn patch_helper() -> TokenStream {
    quote! {
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
                let value: ::std::option::Option<T> = ::serde::Deserialize::deserialize(deserializer)?;
                ::std::result::Result::Ok(match value {
                    ::std::option::Option::Some(value) => Patch::Value(value),
                    ::std::option::Option::None => Patch::Null,
                })
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
    }
}

/// `Cents`: money in hundredths of its currency's unit, the default type of `x-format: money`
/// (written when used).
fn cents_helper() -> TokenStream {
    quote! {
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
                // 0.29 is 28.999999999999996 once scaled: float noise, not a third decimal.
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
                Cents::from_units(units).ok_or_else(|| {
                    <D::Error as ::serde::de::Error>::custom(
                        "an amount with at most two decimals",
                    )
                })
            }
        }
    }
}

fn lifetime(borrows: bool) -> TokenStream {
    if borrows { quote!(<'a>) } else { quote!() }
}

/// An identifier, raw when it is a keyword.
fn ident(text: &str) -> Ident {
    if names::is_keyword(text) {
        Ident::new_raw(text, Span::call_site())
    } else {
        Ident::new(text, Span::call_site())
    }
}

/// `///` lines of a description.
fn doc_lines(text: Option<&str>) -> TokenStream {
    let Some(text) = text else {
        return quote!();
    };
    let lines = text.lines().map(|line| {
        let line = format!(" {}", line.trim_end());
        quote!(#[doc = #line])
    });
    quote!(#(#lines)*)
}
