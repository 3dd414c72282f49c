//! YAML text straight to `serde_json::Value`, without `serde_yaml_ng::Value` in between.
//!
//! `serde_yaml_ng::Value` refuses integers beyond 64 bits (a real document has
//! `maximum: 18446744073709552000`) and keeps non-string keys (`200:` in `responses` is an
//! integer), which `serde_json::Value` cannot hold. This visitor reads numbers as JSON Schema
//! numbers whatever their size (beyond 64 bits: the nearest `f64`, as a JSON parser does),
//! turns scalar keys into their text and applies `<<` merge keys.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Parses YAML text into JSON.
pub(crate) fn from_str(text: &str) -> Result<Value, serde_yaml_ng::Error> {
    serde_yaml_ng::from_str::<Json>(text).map(|j| j.0)
}

struct Json(Value);

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor).map(Json)
    }
}

struct JsonVisitor;

fn float<E: de::Error>(f: f64) -> Result<Value, E> {
    Number::from_f64(f)
        .map(Value::Number)
        .ok_or_else(|| E::custom(format!("{f} is not a JSON number")))
}

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        match i64::try_from(v) {
            Ok(i) => Ok(Value::from(i)),
            Err(_) => float(v as f64),
        }
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        match u64::try_from(v) {
            Ok(u) => Ok(Value::from(u)),
            Err(_) => float(v as f64),
        }
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        float(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Json::deserialize(d).map(|j| j.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Json(item)) = seq.next_element()? {
            out.push(item);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        let mut merges = Vec::new();
        while let Some(Json(key)) = map.next_key()? {
            let Json(value) = map.next_value()?;
            let key = match key {
                Value::String(s) => s,
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Null => "null".to_owned(),
                other => {
                    return Err(de::Error::custom(format!(
                        "a mapping key must be a scalar, found {other}"
                    )));
                }
            };
            if key == "<<" {
                merges.push(value);
            } else if out.contains_key(&key) {
                // YAML requires unique keys; a parser that keeps the last one silently drops
                // what the first said (a second `x-mcp:` of an operation, say).
                return Err(de::Error::custom(format!("duplicate mapping key `{key}`")));
            } else {
                out.insert(key, value);
            }
        }
        // YAML merge keys: the mapping's own keys win, then earlier merged mappings.
        for merge in merges {
            let sources = match merge {
                Value::Array(items) => items,
                other => vec![other],
            };
            for source in sources {
                let Value::Object(source) = source else {
                    return Err(de::Error::custom(
                        "`<<` must merge a mapping or a list of mappings",
                    ));
                };
                for (k, v) in source {
                    out.entry(k).or_insert(v);
                }
            }
        }
        Ok(Value::Object(out))
    }

    /// Tagged values (`!foo value`): the tag is dropped, the value kept.
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        use de::VariantAccess;
        let (_tag, variant): (de::IgnoredAny, _) = data.variant()?;
        variant.newtype_variant::<Json>().map(|j| j.0)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn integers_beyond_64_bits_become_json_numbers() {
        let v = from_str("a: 18446744073709552000\nb: -170141183460469231731687303715884105728\nc: 340282366920938463463374607431768211456\nd: 12\n").unwrap();
        assert_eq!(v["a"].as_f64(), Some(18446744073709552000.0));
        assert_eq!(v["b"].as_f64(), Some(-1.7014118346046923e38));
        assert!(v["c"].as_f64().is_some_and(|f| f > 3.4e38));
        assert_eq!(v["d"], json!(12));
    }

    #[test]
    fn keys_become_text_and_merge_keys_apply() {
        let v = from_str("base: &b {x: 1, y: 2}\nthing:\n  <<: *b\n  y: 3\n200: ok\ntrue: yes\n")
            .unwrap();
        assert_eq!(v["thing"], json!({"y": 3, "x": 1}));
        assert_eq!(v["200"], "ok");
        assert_eq!(v["true"], "yes");
    }

    #[test]
    fn tags_are_dropped() {
        let v = from_str("a: !custom 5\n").unwrap();
        assert_eq!(v["a"], json!(5));
    }

    #[test]
    fn a_key_said_twice_is_an_error_naming_it() {
        let error = from_str("op:\n  x-mcp:\n    a: 1\n  tags: [t]\n  x-mcp:\n    b: 2\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("duplicate mapping key `x-mcp`"), "{error}");
        // Keys that become the same text collide too: JSON could hold only one.
        assert!(from_str("200: a\n'200': b\n").is_err());
        // A merged mapping's keys are not duplicates: the mapping's own win.
        assert!(from_str("b: &b {x: 1}\nt:\n  <<: *b\n  x: 2\n").is_ok());
    }
}
