//! Dataset cursors (SUPPLEMENT 1.7): `dsc1.<base64url(json payload)>.<base64url(HMAC-SHA256)>`,
//! pinned to a dataset version and to the filters of the first page.

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CursorPayload {
    pub op: String,
    pub gen: u64,
    pub off: u64,
    pub fh: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e: Option<i64>,
}

fn sign(secret: &[u8], signed: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC accepts any key length");
    mac.update(signed.as_bytes());
    URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
}

pub fn encode(secret: &[u8], payload: &CursorPayload) -> String {
    let json = serde_json::to_vec(payload).unwrap_or_default();
    let signed = format!("dsc1.{}", URL_SAFE_NO_PAD.encode(json));
    let sig = sign(secret, &signed);
    format!("{signed}.{sig}")
}

/// The documented form of a dataset cursor (a regex body, without anchors).
pub const FORM: &str = "dsc1\\.[A-Za-z0-9_-]{8,512}\\.[A-Za-z0-9_-]{43}";

fn well_formed(c: &str) -> Option<(&str, &str)> {
    let rest = c.strip_prefix("dsc1.")?;
    let (payload, sig) = rest.rsplit_once('.')?;
    let ok = |s: &str| s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    ((8..=512).contains(&payload.len()) && sig.len() == 43 && ok(payload) && ok(sig)).then_some((payload, sig))
}

/// Verifies a cursor for `op` and the request's filter hash, in the documented check order.
/// The last check (version still retained) is the caller's.
pub fn decode(secret: &[u8], cursor: &str, op: &str, fh: &str) -> Result<CursorPayload, &'static str> {
    let (payload, sig) = well_formed(cursor).ok_or("cursor is malformed")?;
    let expected = sign(secret, &format!("dsc1.{payload}"));
    if !constant_time_eq(expected.as_bytes(), sig.as_bytes()) {
        return Err("cursor signature is invalid");
    }
    let parsed: CursorPayload = URL_SAFE_NO_PAD
        .decode(payload)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or("cursor payload is invalid")?;
    if parsed.op != op {
        return Err("cursor was issued for a different operation");
    }
    if parsed.fh != fh {
        return Err("cursor does not match the request filters");
    }
    Ok(parsed)
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub const NO_LONGER_AVAILABLE: &str =
    "cursor refers to a dataset version that is no longer available; restart from the first page";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_every_failure() {
        let key = b"secret";
        let fh = crate::kit::canonical::Canonical::new(vec![("country", "YE".into())]).filter_hash();
        let p =
            CursorPayload { op: "list-armed-events".into(), gen: 3, off: 100, fh: fh.clone(), s: Some(1), e: Some(2) };
        let c = encode(key, &p);
        assert_eq!(decode(key, &c, "list-armed-events", &fh), Ok(p));
        assert_eq!(decode(key, "nope", "list-armed-events", &fh), Err("cursor is malformed"));
        assert_eq!(decode(b"other", &c, "list-armed-events", &fh), Err("cursor signature is invalid"));
        assert_eq!(decode(key, &c, "list-violence-events", &fh), Err("cursor was issued for a different operation"));
        assert_eq!(decode(key, &c, "list-armed-events", "0000"), Err("cursor does not match the request filters"));
        let junk = format!("dsc1.{}", URL_SAFE_NO_PAD.encode(b"not json at all"));
        let forged = format!("{junk}.{}", sign(key, &junk));
        assert_eq!(decode(key, &forged, "list-armed-events", &fh), Err("cursor payload is invalid"));
    }
}
