//! Content negotiation of response compression (RFC 9110 12.5.3): zstd, br or gzip, chosen from
//! `Accept-Encoding` by q-value (ties: zstd, br, gzip). A cached body keeps each compressed form
//! it was asked for, so a cache hit never compresses again.

use std::{io::Write, sync::OnceLock};

use bytes::Bytes;

/// Bodies smaller than this go out as they are: compressing them saves less than the headers cost.
pub const MIN_COMPRESSED_BYTES: usize = 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Zstd,
    Brotli,
    Gzip,
}

impl Coding {
    /// Our order of preference among equally weighted codings.
    const PREFERENCE: [Coding; 3] = [Coding::Zstd, Coding::Brotli, Coding::Gzip];

    pub fn token(self) -> &'static str {
        match self {
            Coding::Zstd => "zstd",
            Coding::Brotli => "br",
            Coding::Gzip => "gzip",
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    fn encode(self, body: &[u8]) -> std::io::Result<Vec<u8>> {
        match self {
            Coding::Zstd => zstd::bulk::compress(body, 3),
            Coding::Brotli => {
                let mut out = Vec::with_capacity(body.len() / 4);
                {
                    let mut w = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
                    w.write_all(body)?;
                }
                Ok(out)
            }
            Coding::Gzip => {
                let mut w =
                    flate2::write::GzEncoder::new(Vec::with_capacity(body.len() / 4), flate2::Compression::fast());
                w.write_all(body)?;
                w.finish()
            }
        }
    }
}

/// The coding to answer with, if any: the highest q-value among the codings we speak; `*` stands
/// for any coding not listed; `identity` or nothing acceptable means no compression.
pub fn negotiate(accept_encoding: Option<&str>) -> Option<Coding> {
    let header = accept_encoding?;
    let mut weights: [Option<f32>; 3] = [None; 3];
    let mut star: Option<f32> = None;
    for item in header.split(',') {
        let mut parts = item.split(';');
        let token = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q=").or_else(|| p.trim().strip_prefix("Q=")))
            .find_map(|v| v.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        match token.as_str() {
            "zstd" => weights[Coding::Zstd.index()] = Some(q),
            "br" => weights[Coding::Brotli.index()] = Some(q),
            "gzip" | "x-gzip" => weights[Coding::Gzip.index()] = Some(q),
            "*" => star = Some(q),
            _ => {}
        }
    }
    let mut best: Option<(Coding, f32)> = None;
    for c in Coding::PREFERENCE {
        let q = weights[c.index()].or(star).unwrap_or(0.0);
        if q > 0.0 && best.is_none_or(|(_, bq)| q > bq) {
            best = Some((c, q));
        }
    }
    best.map(|(c, _)| c)
}

/// A body with the compressed forms made of it so far.
#[derive(Debug, Default)]
pub struct Encodings {
    forms: [OnceLock<Option<Bytes>>; 3],
}

impl Encodings {
    /// `body` in `coding`, compressed on first use; `None` when it is not worth it (small body,
    /// no gain) or failed — the identity body is sent then.
    pub fn get(&self, coding: Coding, body: &Bytes) -> Option<Bytes> {
        if body.len() < MIN_COMPRESSED_BYTES {
            return None;
        }
        self.forms[coding.index()]
            .get_or_init(|| coding.encode(body).ok().filter(|c| c.len() < body.len()).map(Bytes::from))
            .clone()
    }

    /// Bytes held by the compressed forms (the body cache counts them against its budget).
    pub fn bytes(&self) -> usize {
        self.forms.iter().filter_map(|f| f.get()).flatten().map(Bytes::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn negotiation_follows_q_values_then_our_preference() {
        assert_eq!(negotiate(None), None);
        assert_eq!(negotiate(Some("identity")), None);
        assert_eq!(negotiate(Some("gzip")), Some(Coding::Gzip));
        assert_eq!(negotiate(Some("gzip, deflate, br")), Some(Coding::Brotli));
        assert_eq!(negotiate(Some("gzip, br, zstd")), Some(Coding::Zstd));
        assert_eq!(negotiate(Some("br;q=0.5, gzip;q=0.9")), Some(Coding::Gzip));
        assert_eq!(negotiate(Some("*")), Some(Coding::Zstd));
        assert_eq!(negotiate(Some("zstd;q=0, *;q=0.1")), Some(Coding::Brotli));
        assert_eq!(negotiate(Some("gzip;q=0")), None);
    }

    #[test]
    fn every_coding_round_trips_and_is_made_once() {
        let body = Bytes::from(serde_json::to_vec(&vec!["sitrep"; 2000]).unwrap());
        let enc = Encodings::default();
        let z = enc.get(Coding::Zstd, &body).unwrap();
        assert_eq!(zstd::bulk::decompress(&z, body.len()).unwrap(), body);
        let b = enc.get(Coding::Brotli, &body).unwrap();
        let mut out = Vec::new();
        brotli::Decompressor::new(&b[..], 4096).read_to_end(&mut out).unwrap();
        assert_eq!(out, body);
        let g = enc.get(Coding::Gzip, &body).unwrap();
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&g[..]).read_to_end(&mut out).unwrap();
        assert_eq!(out, body);
        assert!(enc.get(Coding::Gzip, &body).unwrap().as_ptr() == g.as_ptr(), "the same bytes, not compressed again");
        assert_eq!(enc.bytes(), z.len() + b.len() + g.len());
        assert!(enc.get(Coding::Gzip, &Bytes::from_static(b"{}")).is_none(), "small bodies go as they are");
    }
}
