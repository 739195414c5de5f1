//! Validation of JSON request values into SUPPLEMENT 1.4's violations: every violation of a
//! request is collected (none returns early), each on the camelCase JSON path of its value.

use serde_json::{Map, Value};

use crate::{
    records::WireEnum,
    text::{self, TextError},
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub field: String,
    pub description: String,
}

#[derive(Debug, Default)]
pub struct Violations(pub Vec<Violation>);

/// How a text field is bounded: its byte limit once normalised, and whether it may be absent.
#[derive(Debug, Clone, Copy)]
pub struct TextRule {
    pub max_bytes: usize,
    pub required: bool,
}

impl Violations {
    pub fn push(&mut self, field: impl Into<String>, description: impl Into<String>) {
        self.0.push(Violation { field: field.into(), description: description.into() });
    }

    /// A required JSON object at `field`.
    pub fn object<'a>(&mut self, field: &str, value: Option<&'a Value>) -> Option<&'a Map<String, Value>> {
        match value {
            None | Some(Value::Null) => self.push(field, "value is required"),
            Some(Value::Object(o)) => return Some(o),
            Some(_) => self.push(field, "value must be an object"),
        }
        None
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A text value normalised and within its limit (`None` when refused or absent and optional;
    /// an absent optional value is the empty string).
    pub fn text(&mut self, field: &str, value: Option<&Value>, rule: TextRule) -> Option<String> {
        let raw = match value {
            None | Some(Value::Null) if rule.required => {
                self.push(field, TextError::Required.description());
                return None;
            }
            None | Some(Value::Null) => return Some(String::new()),
            Some(Value::String(s)) => s,
            Some(_) => {
                self.push(field, "value must be a string");
                return None;
            }
        };
        let normalised = if rule.required { text::normalise(raw) } else { text::normalise_optional(raw) };
        match normalised {
            Err(e) => {
                self.push(field, e.description());
                None
            }
            Ok(s) if s.len() > rule.max_bytes => {
                self.push(field, format!("string UTF-8 length must be at most {} bytes", rule.max_bytes));
                None
            }
            Ok(s) => Some(s),
        }
    }

    /// An optional array of text values, each normalised and within `item` (then `refine`d, which
    /// may refuse it with a description), de-duplicated and sorted.
    pub fn text_list(
        &mut self,
        field: &str,
        value: Option<&Value>,
        max_items: usize,
        item: TextRule,
        refine: impl Fn(String) -> Result<String, String>,
    ) -> Vec<String> {
        let items = match value {
            None | Some(Value::Null) => return Vec::new(),
            Some(Value::Array(items)) => items,
            Some(_) => {
                self.push(field, "value must be an array");
                return Vec::new();
            }
        };
        if items.len() > max_items {
            self.push(field, format!("array must contain at most {max_items} item(s)"));
            return Vec::new();
        }
        let mut out = Vec::with_capacity(items.len());
        for (i, v) in items.iter().enumerate() {
            let path = format!("{field}[{i}]");
            let Some(s) = self.text(&path, Some(v), TextRule { required: true, ..item }) else { continue };
            match refine(s) {
                Ok(s) => out.push(s),
                Err(description) => self.push(path, description),
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

impl Violations {
    /// A required request enum at `field`, by its full name only (4.2): UNSPECIFIED is a missing
    /// value, digits are the numeric form this API refuses.
    pub fn request_enum<E: WireEnum>(&mut self, field: &str, value: Option<&Value>) -> Option<E> {
        match value {
            None | Some(Value::Null) => self.push(field, "value is required"),
            Some(x) if is_numeric_enum(x) => self.push(field, NUMERIC_ENUM),
            Some(Value::String(s)) if s.strip_prefix(E::PREFIX) == Some("UNSPECIFIED") => {
                self.push(field, "value is required")
            }
            Some(Value::String(s)) => match E::from_full_name(s) {
                Some(e) => return Some(e),
                None => self.push(field, "enum value must be defined"),
            },
            Some(_) => self.push(field, "value must be a string"),
        }
        None
    }
}

/// Whether a JSON value is the numeric proto3-JSON form of an enum (a number, or a string of digits).
pub fn is_numeric_enum(value: &Value) -> bool {
    match value {
        Value::Number(_) => true,
        Value::String(s) => {
            let s = s.trim();
            !s.is_empty() && s.trim_start_matches('-').bytes().all(|b| b.is_ascii_digit())
        }
        _ => false,
    }
}

pub const NUMERIC_ENUM: &str =
    "value must be an enum name (this API does not accept the numeric proto3-JSON enum form)";
