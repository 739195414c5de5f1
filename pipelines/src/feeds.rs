//! RSS 2.0 and Atom feeds, read leniently: the fields of SUPPLEMENT 2.1.11 (title, link, date,
//! description, image) from `<item>` or `<entry>`, whichever the feed uses. Text and CDATA are both
//! taken; markup inside descriptions is stripped later by [`plain_text`].

use std::time::Duration;

use chrono::{DateTime, Utc};
use quick_xml::{events::Event, Reader};
use reqwest::{header::HeaderMap, Method};
use url::Url;

use crate::{http::Http, SourceError};

/// Every feed of `feeds` (name, URL) fetched at once, each parsed from at most `max_chars`
/// characters of its body; one result per feed, in order. A failed feed is logged here.
pub async fn fetch_feeds(
    http: &Http,
    feeds: &[(&'static str, &'static str)],
    timeout: Duration,
    max_chars: usize,
) -> Vec<(&'static str, Result<Vec<FeedItem>, SourceError>)> {
    let answers = futures::future::join_all(feeds.iter().map(|(_, url)| async move {
        let url = Url::parse(url).map_err(|e| SourceError::parse("feed url", e))?;
        let reply = http.send(Method::GET, &url, HeaderMap::new(), None, Some(timeout)).await?;
        let reply = crate::http::ensure_ok(&url, reply)?;
        let body = String::from_utf8_lossy(&reply.body);
        let cut = body.char_indices().nth(max_chars).map(|(i, _)| i).unwrap_or(body.len());
        parse(&body.as_bytes()[..cut])
    }))
    .await;
    feeds
        .iter()
        .zip(answers)
        .map(|((name, _), answer)| {
            if let Err(e) = &answer {
                tracing::warn!(feed = name, error = %e, "feed failed");
            }
            (*name, answer)
        })
        .collect()
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct FeedItem {
    pub title: String,
    pub link: String,
    pub published: Option<DateTime<Utc>>,
    /// The description (RSS) or summary/content (Atom), as given (may hold HTML).
    pub description: String,
    /// An image: an `enclosure` with an image type, else `media:content` / `media:thumbnail`.
    pub image: String,
}

fn attr(e: &quick_xml::events::BytesStart, name: &[u8]) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.as_ref() == name)
        .map(|a| decode_entities(&String::from_utf8_lossy(&a.value)))
}

fn date(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim();
    DateTime::parse_from_rfc2822(s).or_else(|_| DateTime::parse_from_rfc3339(s)).ok().map(|d| d.with_timezone(&Utc))
}

/// Every item of an RSS or Atom document, in document order.
pub fn parse(body: &[u8]) -> Result<Vec<FeedItem>, SourceError> {
    let mut reader = Reader::from_reader(body);
    reader.config_mut().trim_text(true);
    let mut items = Vec::new();
    let mut current: Option<FeedItem> = None;
    let mut field: Option<Vec<u8>> = None;
    let mut text = String::new();
    let mut buf = Vec::new();
    let mut saw_root = false;
    loop {
        let event = reader.read_event_into(&mut buf).map_err(|e| SourceError::parse("feed", e))?;
        match event {
            Event::Start(e) | Event::Empty(e) if current.is_none() => {
                saw_root = true;
                if matches!(e.name().as_ref(), b"item" | b"entry") {
                    current = Some(FeedItem::default());
                }
            }
            Event::Start(e) => {
                let name = e.name().as_ref().to_vec();
                if name.as_slice() == b"link" {
                    if let (Some(item), Some(href)) = (current.as_mut(), attr(&e, b"href")) {
                        item.link = href;
                    }
                }
                field = Some(name);
                text.clear();
            }
            Event::Empty(e) => {
                let item = current.as_mut().expect("inside an item");
                match e.name().as_ref() {
                    // Atom: <link href="…" rel="alternate"/>; other rels are not the article.
                    b"link" => {
                        let rel = attr(&e, b"rel").unwrap_or_else(|| "alternate".into());
                        if rel == "alternate" && item.link.is_empty() {
                            item.link = attr(&e, b"href").unwrap_or_default();
                        }
                    }
                    b"enclosure" if attr(&e, b"type").is_some_and(|t| t.starts_with("image/")) => {
                        item.image = attr(&e, b"url").unwrap_or_default();
                    }
                    b"media:content" | b"media:thumbnail" if item.image.is_empty() => {
                        item.image = attr(&e, b"url").unwrap_or_default();
                    }
                    _ => {}
                }
            }
            Event::Text(t) if field.is_some() => {
                text.push_str(&t.decode().map_err(|e| SourceError::parse("feed text", e))?);
            }
            // References are kept as written; `plain_text` decodes them once.
            Event::GeneralRef(r) if field.is_some() => {
                text.push('&');
                text.push_str(&String::from_utf8_lossy(&r));
                text.push(';');
            }
            Event::CData(c) if field.is_some() => text.push_str(&String::from_utf8_lossy(&c)),
            Event::End(e) => {
                let name = e.name().as_ref().to_vec();
                if matches!(name.as_slice(), b"item" | b"entry") {
                    if let Some(item) = current.take() {
                        items.push(item);
                    }
                } else if let Some(item) = current.as_mut() {
                    let value = std::mem::take(&mut text);
                    match name.as_slice() {
                        b"title" => item.title = plain_text(&value, usize::MAX),
                        b"link" if item.link.is_empty() => item.link = value.trim().to_string(),
                        b"pubDate" | b"published" => item.published = date(&value).or(item.published),
                        b"updated" | b"dc:date" if item.published.is_none() => item.published = date(&value),
                        b"description" | b"summary" => item.description = value,
                        b"content" | b"content:encoded" if item.description.is_empty() => item.description = value,
                        _ => {}
                    }
                }
                field = None;
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    if !saw_root {
        return Err(SourceError::parse("feed", "no XML elements"));
    }
    Ok(items)
}

fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let Some(end) = tail.find(';').filter(|e| *e <= 10) else {
            out.push('&');
            rest = &tail[1..];
            continue;
        };
        let name = &tail[1..end];
        let decoded = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some(' '),
            n if n.starts_with("#x") || n.starts_with("#X") => {
                u32::from_str_radix(&n[2..], 16).ok().and_then(char::from_u32)
            }
            n if n.starts_with('#') => n[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &tail[end + 1..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Tags stripped, entities decoded (twice-escaped feeds included), whitespace collapsed, at most
/// `max_chars` characters.
pub fn plain_text(html: &str, max_chars: usize) -> String {
    let decoded = decode_entities(html);
    let mut stripped = String::with_capacity(decoded.len());
    let mut in_tag = false;
    for c in decoded.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                stripped.push(' ');
            }
            c if !in_tag => stripped.push(c),
            _ => {}
        }
    }
    let text = decode_entities(&stripped);
    text.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(max_chars).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rss_and_atom() {
        let rss = br#"<?xml version="1.0"?><rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>X</title>
            <item><title><![CDATA[Airbus & Boeing <b>deliveries</b>]]></title><link>https://x.example/a</link>
              <pubDate>Fri, 20 Nov 2026 05:10:00 +0000</pubDate><description>&lt;p&gt;Deliveries rose&amp;nbsp;sharply&lt;/p&gt;</description>
              <enclosure url="https://x.example/a.jpg" type="image/jpeg" length="1"/></item>
            <item><title>No date</title><link>https://x.example/b</link><media:thumbnail url="https://x.example/b.png"/></item>
            </channel></rss>"#;
        let items = parse(rss).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].title, "Airbus & Boeing deliveries");
        assert_eq!(items[0].published.unwrap().to_rfc3339(), "2026-11-20T05:10:00+00:00");
        assert_eq!(plain_text(&items[0].description, 200), "Deliveries rose sharply");
        assert_eq!(items[0].image, "https://x.example/a.jpg");
        assert_eq!((items[1].published, items[1].image.as_str()), (None, "https://x.example/b.png"));
        let atom = br#"<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>Atom item</title>
            <link rel="alternate" href="https://y.example/1"/><updated>2026-11-19T10:00:00Z</updated><summary>S</summary></entry></feed>"#;
        let items = parse(atom).unwrap();
        assert_eq!((items[0].link.as_str(), items[0].description.as_str()), ("https://y.example/1", "S"));
        assert!(items[0].published.is_some());
        assert!(parse(b"<rss><channel><item><title>broken").is_err() || parse(b"not xml at all").is_err());
    }

    #[test]
    fn plain_text_collapses_and_cuts() {
        assert_eq!(plain_text("<p>a  &amp;\n b</p><br/>c", 200), "a & b c");
        assert_eq!(plain_text("abcdef", 3), "abc");
        assert_eq!(plain_text("&#8217;s &#x2014; &bogus; &", 200), "\u{2019}s \u{2014} &bogus; &");
    }
}
