//! Query parameters arrive as raw strings (`RawParam`) so that every malformed value produces the
//! exact violation messages of SUPPLEMENT 1.2–1.4 instead of poem's defaults; the OpenAPI document
//! still declares their real types.

use std::{borrow::Cow, marker::PhantomData};

use poem_openapi::{
    registry::{MetaSchema, MetaSchemaRef},
    types::{ParseFromParameter, ParseResult, Type},
};

use super::error::Violations;

pub trait Kind: Send + Sync + 'static {
    const NAME: &'static str;
    fn schema() -> MetaSchema;
}

pub struct Int32;
pub struct Int64String;
pub struct Text;

impl Kind for Int32 {
    const NAME: &'static str = "integer_int32";
    fn schema() -> MetaSchema {
        MetaSchema::new_with_format("integer", "int32")
    }
}
impl Kind for Int64String {
    const NAME: &'static str = "string_int64";
    fn schema() -> MetaSchema {
        MetaSchema::new_with_format("string", "int64")
    }
}
impl Kind for Text {
    const NAME: &'static str = "string";
    fn schema() -> MetaSchema {
        MetaSchema::new("string")
    }
}

/// A query value as sent (first occurrence wins), validated by the handler.
pub struct RawParam<K: Kind>(pub String, PhantomData<K>);

impl<K: Kind> Type for RawParam<K> {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;
    fn name() -> Cow<'static, str> {
        Cow::Borrowed(K::NAME)
    }
    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(K::schema()))
    }
    fn as_raw_value(&self) -> Option<&Self::RawValueType> {
        Some(self)
    }
    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(std::iter::once(self))
    }
}

impl<K: Kind> ParseFromParameter for RawParam<K> {
    fn parse_from_parameter(value: &str) -> ParseResult<Self> {
        Ok(RawParam(value.to_string(), PhantomData))
    }
}

/// The value, with "empty = absent" applied.
pub fn value<K: Kind>(p: &Option<RawParam<K>>) -> Option<&str> {
    p.as_ref().map(|p| p.0.as_str()).filter(|s| !s.is_empty())
}

/// int32 with "absent or 0 = default" and an inclusive range.
pub fn int32_param(v: &mut Violations, field: &str, raw: Option<&str>, min: i32, max: i32, default: i32) -> i32 {
    let Some(s) = raw else { return default };
    let n = match parse_int(s) {
        Ok(n) => n,
        Err(msg) => {
            v.push(field, msg);
            return default;
        }
    };
    if n == 0 {
        return default;
    }
    if n < min as i64 {
        v.push(field, format!("number must be greater than or equal to {min}"));
        default
    } else if n > max as i64 {
        v.push(field, format!("number must be less than or equal to {max}"));
        default
    } else {
        n as i32
    }
}

fn parse_int(s: &str) -> Result<i64, &'static str> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse::<i64>().map_err(|_| "value must be a finite number");
    }
    match s.parse::<f64>() {
        Ok(f) if f.is_finite() => Err("value must be an integer"),
        _ => Err("value must be a finite number"),
    }
}

/// int64 epoch-ms decimal string, ≥ 0.
pub fn epoch_ms_param(v: &mut Violations, field: &str, raw: Option<&str>) -> Option<i64> {
    let s = raw?;
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        v.push(field, "value must be a base-10 integer string");
        return None;
    }
    match s.parse::<i64>() {
        Ok(n) if n < 0 => {
            v.push(field, "number must be greater than or equal to 0");
            None
        }
        Ok(n) => Some(n),
        Err(_) => {
            v.push(field, "value must be a base-10 integer string");
            None
        }
    }
}

/// Optional ISO 3166-1 alpha-2 filter, upper-cased.
pub fn country_param(v: &mut Violations, field: &str, raw: Option<&str>) -> Option<String> {
    let s = raw?;
    if s.len() != 2 || !s.bytes().all(|b| b.is_ascii_alphabetic()) {
        v.push(field, "string must match pattern ^[A-Za-z]{2}$");
        return None;
    }
    Some(s.to_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int32_messages() {
        let mut v = Violations::default();
        assert_eq!(int32_param(&mut v, "pageSize", None, 1, 100, 100), 100);
        assert_eq!(int32_param(&mut v, "pageSize", Some("0"), 1, 100, 100), 100);
        assert_eq!(int32_param(&mut v, "pageSize", Some("7"), 1, 100, 100), 7);
        int32_param(&mut v, "pageSize", Some("abc"), 1, 100, 100);
        int32_param(&mut v, "pageSize", Some("1.5"), 1, 100, 100);
        int32_param(&mut v, "pageSize", Some("101"), 1, 100, 100);
        int32_param(&mut v, "pageSize", Some("-1"), 1, 100, 100);
        let d: Vec<&str> = v.0.iter().map(|x| x.description.as_str()).collect();
        assert_eq!(
            d,
            [
                "value must be a finite number",
                "value must be an integer",
                "number must be less than or equal to 100",
                "number must be greater than or equal to 1"
            ]
        );
    }

    #[test]
    fn epoch_and_country() {
        let mut v = Violations::default();
        assert_eq!(epoch_ms_param(&mut v, "start", Some("1780099200000")), Some(1_780_099_200_000));
        assert_eq!(epoch_ms_param(&mut v, "start", Some("12.5")), None);
        assert_eq!(epoch_ms_param(&mut v, "end", Some("-3")), None);
        assert_eq!(country_param(&mut v, "country", Some("ye")), Some("YE".into()));
        assert_eq!(country_param(&mut v, "country", Some("YEM")), None);
        assert_eq!(v.0.len(), 3);
    }
}
