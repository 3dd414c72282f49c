//! Enums stored and shown as one of a fixed set of words (a charge's state, a negativation's
//! status, …): [`words!`](crate::words) declares one, and [`Words`] is what the store reads it
//! through, so the rules that match on the variants need no database driver.

/// A value named by one word of a fixed set: the stored text and the API's.
pub trait Words: Sized + Copy + 'static {
    /// Every word, in the order the API documents them.
    const ALL: &'static [&'static str];
    /// The value's word.
    fn as_str(self) -> &'static str;
    /// The value a word names.
    fn parse(text: &str) -> Option<Self>;
}

/// Declare an enum stored as one of a fixed set of words: the word is both the stored text
/// and the API's (`as_str`, `Display`, `Serialize`), and `ALL` lists them in order.
#[macro_export]
macro_rules! words {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident { $($(#[$variant_attr:meta])* $variant:ident = $word:literal),+ $(,)? }
    ) => {
        $(#[$attr])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name { $($(#[$variant_attr])* $variant),+ }

        impl $name {
            /// Every value, in the order the API documents them.
            pub const ALL: &'static [&'static str] = &[$($word),+];

            /// The stored (and API) word.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $word),+ }
            }

            /// The value a stored word names.
            pub fn parse(text: &str) -> Option<Self> {
                match text { $($word => Some($name::$variant),)+ _ => None }
            }
        }

        impl $crate::words::Words for $name {
            const ALL: &'static [&'static str] = $name::ALL;
            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }
            fn parse(text: &str) -> Option<Self> {
                $name::parse(text)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::std::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::Words;

    crate::words! {
        enum Light {
            Red = "red",
            Green = "green",
        }
    }

    #[test]
    fn a_word_enum_reads_and_writes_its_words() {
        assert_eq!(Light::ALL, &["red", "green"]);
        assert_eq!(<Light as Words>::parse("green"), Some(Light::Green));
        assert_eq!(Light::parse("blue"), None);
        assert_eq!(Light::Red.to_string(), "red");
        assert_eq!(serde_json::to_string(&Light::Green).unwrap(), "\"green\"");
    }
}
