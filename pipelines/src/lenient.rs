//! Upstreams send numbers as strings (ACLED), strings as numbers, or nulls. `Lenient` accepts any
//! JSON scalar as borrowed text without allocating, so parsers stay fast and forgiving.

use std::borrow::Cow;

use serde::de::{self, Deserializer, Visitor};

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Lenient<'a>(pub Cow<'a, str>);

impl<'a> Lenient<'a> {
    pub fn as_str(&self) -> &str {
        self.0.trim()
    }
    pub fn f64(&self) -> Option<f64> {
        self.as_str().parse::<f64>().ok().filter(|v| v.is_finite())
    }
    pub fn i64(&self) -> Option<i64> {
        let s = self.as_str();
        s.parse::<i64>().ok().or_else(|| s.parse::<f64>().ok().filter(|v| v.is_finite()).map(|v| v as i64))
    }
}

impl<'de: 'a, 'a> de::Deserialize<'de> for Lenient<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Lenient<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string, number, boolean or null")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Lenient(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Lenient(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Lenient(Cow::Owned(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Lenient(Cow::Owned(v.to_string())))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Lenient(Cow::Owned(v.to_string())))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(Lenient(Cow::Owned(v.to_string())))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(Lenient(Cow::Borrowed(if v { "true" } else { "false" })))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Lenient::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Lenient::default())
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_every_scalar() {
        let v: Vec<Lenient> = serde_json::from_str(r#"["3", 4, 1.5, null, true, " 7 "]"#).unwrap();
        assert_eq!(v[0].i64(), Some(3));
        assert_eq!(v[1].i64(), Some(4));
        assert_eq!(v[2].f64(), Some(1.5));
        assert_eq!(v[3].as_str(), "");
        assert_eq!(v[4].as_str(), "true");
        assert_eq!(v[5].i64(), Some(7));
        assert!(Lenient(Cow::Borrowed("unknown")).i64().is_none());
    }
}
