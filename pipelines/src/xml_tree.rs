//! A small element tree over quick-xml for record-shaped XML documents (FAA NAS Status): names,
//! attributes, text and children, nothing else. Entities are decoded; CDATA is text.

use quick_xml::{events::Event, Reader};

use crate::SourceError;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    /// The element's own text (children's text excluded), trimmed.
    pub text: String,
    pub children: Vec<Element>,
}

impl Element {
    pub fn children_named<'e>(&'e self, name: &'e str) -> impl Iterator<Item = &'e Element> + 'e {
        self.children.iter().filter(move |c| c.name == name)
    }

    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    /// The trimmed text of the first child named `name`, or "".
    pub fn child_text(&self, name: &str) -> &str {
        self.child(name).map(|c| c.text.as_str()).unwrap_or("")
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

fn open(e: &quick_xml::events::BytesStart) -> Result<Element, SourceError> {
    let mut attrs = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(|e| SourceError::parse("xml attribute", e))?;
        let value = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|e| SourceError::parse("xml attribute", e))?;
        attrs.push((String::from_utf8_lossy(a.key.as_ref()).into_owned(), value.into_owned()));
    }
    Ok(Element { name: String::from_utf8_lossy(e.name().as_ref()).into_owned(), attrs, ..Default::default() })
}

/// The document's root element.
pub fn parse(body: &[u8]) -> Result<Element, SourceError> {
    let mut reader = Reader::from_reader(body);
    // Text is trimmed per element at its end tag: trimming events would eat the spaces around
    // entity references (`one &amp; two`).
    let mut stack: Vec<Element> = Vec::new();
    let mut buf = Vec::new();
    let mut root = None;
    loop {
        let event = reader.read_event_into(&mut buf).map_err(|e| SourceError::parse("xml", e))?;
        match event {
            Event::Start(e) => stack.push(open(&e)?),
            Event::Empty(e) => {
                let element = open(&e)?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(element),
                    None => root = Some(element),
                }
            }
            Event::Text(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&t.decode().map_err(|e| SourceError::parse("xml text", e))?);
                }
            }
            Event::GeneralRef(r) => {
                if let Some(top) = stack.last_mut() {
                    let name = String::from_utf8_lossy(&r);
                    let decoded = quick_xml::escape::unescape(&format!("&{name};"))
                        .map(|c| c.into_owned())
                        .unwrap_or_else(|_| format!("&{name};"));
                    top.text.push_str(&decoded);
                }
            }
            Event::CData(c) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&String::from_utf8_lossy(&c));
                }
            }
            Event::End(_) => {
                let mut element = stack.pop().ok_or_else(|| SourceError::parse("xml", "unbalanced end tag"))?;
                element.text = element.text.trim().to_string();
                match stack.last_mut() {
                    Some(parent) => parent.children.push(element),
                    None => root = Some(element),
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    if !stack.is_empty() {
        return Err(SourceError::parse("xml", "truncated document"));
    }
    root.ok_or_else(|| SourceError::parse("xml", "no root element"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_with_attributes_entities_and_empty_elements() {
        let root = parse(br#"<?xml version="1.0"?><A x="1"><B>one &amp; two</B><C/><B>three</B></A>"#).unwrap();
        assert_eq!((root.name.as_str(), root.attr("x")), ("A", Some("1")));
        assert_eq!(root.children_named("B").map(|b| b.text.as_str()).collect::<Vec<_>>(), ["one & two", "three"]);
        assert!(root.child("C").is_some());
        assert_eq!(root.child_text("missing"), "");
        assert!(parse(b"<A><B></A>").is_err());
        assert!(parse(b"<A><B>").is_err(), "a truncated document is an error");
    }
}
