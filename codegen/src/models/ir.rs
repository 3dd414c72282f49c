//! The models' intermediate representation: every Rust type the document's schemas give,
//! named and placed, decided before any token is written (`build` makes it, `emit` writes it).

/// Which side of a call a type serves. The two forms of one schema differ: a request form
/// owns its values and drops `readOnly` properties (the server sets them); a response form
/// borrows them and drops `writeOnly` ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Side {
    /// Read by the server: `Deserialize`, owned.
    Request,
    /// Written by the server: `Serialize`, a view borrowing `'a`.
    Response,
}

/// Where an item lives, one level below the models root (the root itself holds the enums and
/// the helpers, which no other item names with a path of its own).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Place {
    /// The models root: enums (one form serves both sides) and the helpers.
    Root,
    /// `request`: request forms of the document's component schemas.
    Request,
    /// `response`: response forms of the document's component schemas.
    Response,
    /// An operation's or a webhook's own module (index into [`Models::operations`]).
    Operation(usize),
}

/// The Rust type of a value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ty {
    /// `string` (owned `String` in requests, `&'a str` in responses).
    String,
    /// `boolean`
    Bool,
    /// `integer` with `format: int32`.
    I32,
    /// `integer`
    I64,
    /// `number`
    F64,
    /// A format the settings map to a Rust type (index into the settings' formats).
    Format(usize),
    /// Anything JSON: a schema without a type, or one this generator cannot say in Rust.
    Json,
    /// An object without declared properties: a JSON object as it is.
    JsonObject,
    /// An array.
    Array(Box<Ty>),
    /// An object whose properties are all of one schema (`additionalProperties: {...}`).
    Map(Box<Ty>),
    /// A struct, enum or alias of [`Models::items`].
    Item(usize),
}

/// Whether a field may be missing and whether it may be `null`: the four cases are four
/// Rust types (see `emit`), so a PATCH body keeps "absent" apart from "clear it".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Presence {
    /// Listed in the schema's `required`.
    pub(crate) required: bool,
    /// `nullable: true` (or `null` among its types or enum values).
    pub(crate) nullable: bool,
}

/// One property of a struct.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Field {
    /// The JSON name.
    pub(crate) wire: String,
    /// The Rust name (without `r#`).
    pub(crate) ident: String,
    pub(crate) ty: Ty,
    pub(crate) presence: Presence,
    /// Held in a `Box`: the field's type contains the struct itself.
    pub(crate) boxed: bool,
    pub(crate) doc: Option<String>,
}

/// What an item is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// An object with declared properties.
    Struct {
        fields: Vec<Field>,
        /// `additionalProperties: false` (requests refuse unknown fields).
        closed: bool,
    },
    /// Enumerated strings: `(variant, wire word)`.
    Enum { variants: Vec<(String, String)> },
    /// Another type under this name (a response that is a component, a list alias).
    Alias { ty: Ty, nullable: bool },
}

/// A named Rust type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Item {
    pub(crate) name: String,
    pub(crate) place: Place,
    /// The side whose form this is (enums serve both; theirs is [`Side::Request`]).
    pub(crate) side: Side,
    pub(crate) kind: Kind,
    pub(crate) doc: Option<String>,
    /// A response form that borrows (`<'a>`), settled once every item is known.
    pub(crate) borrows: bool,
}

/// One operation's module, or one webhook's.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OperationModule {
    /// The module's name (`todos_list`, `charge_paid`).
    pub(crate) ident: String,
    /// What the module's documentation says: the tool, the method and the path (a webhook:
    /// its name, the method and its summary).
    pub(crate) doc: String,
    /// A webhook's module: what it says besides its types.
    pub(crate) webhook: Option<WebhookConsts>,
}

/// A webhook's name and its body's JSON Schema, as constants of its module (`NAME`,
/// `SCHEMA`): a sender checks what it sends against the document with them, and a receiver
/// tells which webhook a request is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WebhookConsts {
    /// The webhook's key in the document's `webhooks` (`charge.paid`).
    pub(crate) name: String,
    /// The request body's JSON Schema (2020-12, self-contained), compact JSON; none when the
    /// webhook declares no JSON body.
    pub(crate) schema: Option<String>,
}

/// Everything the models file holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Models {
    pub(crate) items: Vec<Item>,
    pub(crate) operations: Vec<OperationModule>,
}
