//! A handler's rendered JSON body embedded in a larger document (ExecuteBatch results, MCP tool
//! results) without parsing it into a tree and serialising it again: the bytes are copied as
//! they are. Parsing a 40 KB page and writing it back cost more than the whole cached request.

use bytes::Bytes;
use serde::de::IgnoredAny;

/// A JSON text. Bodies our own pipeline labelled `application/json` were rendered by serde_json
/// and are valid by construction; anything else is checked (without building a tree) first.
#[derive(Debug, Clone)]
pub struct EmbeddedJson(Bytes);

impl EmbeddedJson {
    /// The body of an in-process response, if it is a JSON text.
    pub fn of_response(content_type: Option<&str>, body: Bytes) -> Option<Self> {
        let labelled_json = content_type.is_some_and(|c| c.starts_with("application/json"));
        if labelled_json || serde_json::from_slice::<IgnoredAny>(&body).is_ok() {
            Some(EmbeddedJson(body))
        } else {
            None
        }
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether the text is a JSON object.
    pub fn is_object(&self) -> bool {
        self.0.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
    }

    /// The text as a string (a JSON text is UTF-8).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or("null")
    }

    pub fn parse(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::from_slice(&self.0)
    }

    /// Appends the text itself to a document being written.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0);
    }
}

/// Appends `value` serialised (a string gets quoted and escaped).
pub fn write_value<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    // Serialising plain values into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labelled_bodies_are_taken_others_checked() {
        let page =
            EmbeddedJson::of_response(Some("application/json; charset=utf-8"), Bytes::from_static(b" {\"a\":1}"));
        assert!(page.as_ref().is_some_and(EmbeddedJson::is_object));
        assert!(
            EmbeddedJson::of_response(Some("text/plain"), Bytes::from_static(b"[1,2]")).is_some_and(|j| !j.is_object())
        );
        assert!(EmbeddedJson::of_response(Some("text/html"), Bytes::from_static(b"<html>")).is_none());
        let mut out = Vec::new();
        write_value(&mut out, "a\"b");
        page.unwrap().write_to(&mut out);
        assert_eq!(out, b"\"a\\\"b\" {\"a\":1}");
    }
}
