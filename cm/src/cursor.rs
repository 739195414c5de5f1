//! Signed opaque cursors `cmc1.<payload>.<sig>` (SUPPLEMENT 4.6): the payload is the claims JSON
//! in base64url, the signature HMAC-SHA256 over `cmc1.<payload>` with `CM_CURSOR_SECRET`.
//! Opening one runs the 13 checks of 4.6 in their order; the caller supplies what the cursor
//! must be bound to.

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Sha256;

const ENVELOPE: &str = "cmc1.";
const MAX_BYTES: usize = 2_048;
/// A cursor's longest lifetime, and the lifetime of those we issue.
pub const LIFETIME_MS: i64 = 24 * 3600 * 1000;
/// How far in the future an issue time may be (clock skew between replicas).
const SKEW_MS: i64 = 60_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    ListMonitoredCompanies,
    ListCompanyEventImpacts,
    ListCompanyEventChanges,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Snapshot,
    Poll,
}

/// What a cursor says (the claims JSON of 4.6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Claims {
    pub version: u64,
    pub owner_account_id: String,
    pub filter_hash: String,
    pub surface: String,
    pub mode: String,
    pub issued_at: i64,
    pub expires_at: i64,
    pub snapshot_generation: String,
    pub snapshot_as_of: String,
    pub watermark: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<Value>,
}

/// What the operation opening a cursor expects it to be bound to.
pub struct Expected<'a> {
    pub account_id: &'a str,
    pub surface: Surface,
    pub mode: Mode,
    /// The request's filter hash (snapshot cursors); poll cursors carry their filters.
    pub filter_hash: Option<&'a str>,
    pub generation: i64,
    pub now_ms: i64,
}

/// A refused cursor: the description of its violation on field `cursor`, or (check 13) a
/// snapshot generation that moved on, which ListCompanyEventChanges answers with 200.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CursorError {
    #[error("unsupported cursor envelope")]
    Envelope,
    #[error("signed opaque cursor is malformed")]
    Malformed,
    #[error("cursor signature is invalid")]
    Signature,
    #[error("cursor payload is invalid")]
    Payload,
    #[error("cursor version, surface or mode is not supported")]
    Unsupported,
    #[error("cursor lifetime is invalid")]
    Lifetime,
    #[error("cursor has expired")]
    Expired,
    #[error("cursor issue time is in the future")]
    Future,
    #[error("cursor is bound to a different account")]
    Account,
    #[error("cursor is bound to different filters")]
    Filters,
    #[error("cursor is bound to a different operation")]
    Operation,
    #[error("cursor mode does not match this operation")]
    ModeMismatch,
    #[error("cursor snapshot generation requires a new snapshot")]
    Generation,
}

fn mac(secret: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length.
    Hmac::<Sha256>::new_from_slice(secret).unwrap_or_else(|_| unreachable!("HMAC accepts every key length"))
}

fn is_token(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn surface_name(s: Surface) -> &'static str {
    match s {
        Surface::ListMonitoredCompanies => "ListMonitoredCompanies",
        Surface::ListCompanyEventImpacts => "ListCompanyEventImpacts",
        Surface::ListCompanyEventChanges => "ListCompanyEventChanges",
    }
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Snapshot => "snapshot",
        Mode::Poll => "poll",
    }
}

impl Claims {
    pub fn new(account_id: &str, surface: Surface, mode: Mode, filter_hash: &str, now_ms: i64) -> Claims {
        Claims {
            version: 1,
            owner_account_id: account_id.to_string(),
            filter_hash: filter_hash.to_string(),
            surface: surface_name(surface).to_string(),
            mode: mode_name(mode).to_string(),
            issued_at: now_ms,
            expires_at: now_ms + LIFETIME_MS,
            snapshot_generation: String::new(),
            snapshot_as_of: String::new(),
            watermark: String::new(),
            after_key: None,
            after_id: None,
            filters: None,
        }
    }

    /// The cursor text: `cmc1.<payload>.<signature>`.
    pub fn sign(&self, secret: &[u8]) -> String {
        let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(self).unwrap_or_default());
        let signed = format!("{ENVELOPE}{payload}");
        let mut m = mac(secret);
        m.update(signed.as_bytes());
        format!("{signed}.{}", URL_SAFE_NO_PAD.encode(m.finalize().into_bytes()))
    }

    /// Opens `cursor`, running the checks of 4.6 in order.
    pub fn open(secret: &[u8], cursor: &str, expected: &Expected) -> Result<Claims, CursorError> {
        // 1–2: envelope and shape.
        let rest = cursor.strip_prefix(ENVELOPE).ok_or(CursorError::Envelope)?;
        let (payload, signature) = rest.split_once('.').ok_or(CursorError::Malformed)?;
        if cursor.len() > MAX_BYTES
            || !(16..=1_536).contains(&payload.len())
            || signature.len() != 43
            || !is_token(payload)
            || !is_token(signature)
        {
            return Err(CursorError::Malformed);
        }
        // 3: the signature, compared in constant time.
        let sig = URL_SAFE_NO_PAD.decode(signature).map_err(|_| CursorError::Signature)?;
        let mut m = mac(secret);
        m.update(&cursor.as_bytes()[..ENVELOPE.len() + payload.len()]);
        m.verify_slice(&sig).map_err(|_| CursorError::Signature)?;
        // 4: the payload's JSON and types.
        let json = URL_SAFE_NO_PAD.decode(payload).map_err(|_| CursorError::Payload)?;
        let claims: Claims = serde_json::from_slice(&json).map_err(|_| CursorError::Payload)?;
        if claims.after_key.is_some() != claims.after_id.is_some() {
            return Err(CursorError::Payload);
        }
        // 5: what this build understands.
        let surfaces =
            [Surface::ListMonitoredCompanies, Surface::ListCompanyEventImpacts, Surface::ListCompanyEventChanges];
        let surface = surfaces.into_iter().find(|s| surface_name(*s) == claims.surface);
        let mode = [Mode::Snapshot, Mode::Poll].into_iter().find(|m| mode_name(*m) == claims.mode);
        let (Some(surface), Some(mode)) = (surface, mode) else { return Err(CursorError::Unsupported) };
        if claims.version != 1 {
            return Err(CursorError::Unsupported);
        }
        // 6–8: time.
        if claims.expires_at <= claims.issued_at || claims.expires_at - claims.issued_at > LIFETIME_MS {
            return Err(CursorError::Lifetime);
        }
        if claims.expires_at <= expected.now_ms {
            return Err(CursorError::Expired);
        }
        if claims.issued_at > expected.now_ms + SKEW_MS {
            return Err(CursorError::Future);
        }
        // 9–12: what it is bound to.
        if claims.owner_account_id != expected.account_id {
            return Err(CursorError::Account);
        }
        if mode == Mode::Snapshot && expected.filter_hash.is_some_and(|h| h != claims.filter_hash) {
            return Err(CursorError::Filters);
        }
        if surface != expected.surface {
            return Err(CursorError::Operation);
        }
        if mode != expected.mode {
            return Err(CursorError::ModeMismatch);
        }
        // 13: the account's snapshot generation.
        if claims.snapshot_generation != expected.generation.to_string() {
            return Err(CursorError::Generation);
        }
        Ok(claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";
    const NOW: i64 = 1_790_000_000_000;

    fn claims() -> Claims {
        let mut c = Claims::new("acct_a", Surface::ListMonitoredCompanies, Mode::Snapshot, "f00d", NOW);
        c.snapshot_generation = "7".into();
        c.snapshot_as_of = "2026-09-21T13:33:20.000Z".into();
        c.watermark = c.snapshot_as_of.clone();
        c
    }

    fn expected() -> Expected<'static> {
        Expected {
            account_id: "acct_a",
            surface: Surface::ListMonitoredCompanies,
            mode: Mode::Snapshot,
            filter_hash: Some("f00d"),
            generation: 7,
            now_ms: NOW + 1_000,
        }
    }

    fn open(cursor: &str, e: &Expected) -> Result<Claims, CursorError> {
        Claims::open(SECRET, cursor, e)
    }

    #[test]
    fn round_trip_and_shape() {
        let cursor = claims().sign(SECRET);
        let (payload, sig) = cursor.strip_prefix("cmc1.").unwrap().split_once('.').unwrap();
        assert!((16..=1_536).contains(&payload.len()) && sig.len() == 43);
        assert_eq!(open(&cursor, &expected()), Ok(claims()));
    }

    #[test]
    fn every_check_in_order() {
        let good = claims().sign(SECRET);
        let with = |f: fn(&mut Claims)| {
            let mut c = claims();
            f(&mut c);
            c.sign(SECRET)
        };
        let resigned = |payload: &str| {
            let signed = format!("cmc1.{}", URL_SAFE_NO_PAD.encode(payload));
            let mut m = mac(SECRET);
            m.update(signed.as_bytes());
            format!("{signed}.{}", URL_SAFE_NO_PAD.encode(m.finalize().into_bytes()))
        };
        let e = expected();
        let cases: Vec<(String, Expected, CursorError)> = vec![
            ("cmc2.abc.def".into(), expected(), CursorError::Envelope),
            ("cmc1.short.sig".into(), expected(), CursorError::Malformed),
            (format!("{good}x"), expected(), CursorError::Malformed),
            (format!("{}A", &good[..good.len() - 1]), expected(), CursorError::Signature),
            (Claims { ..claims() }.sign(b"another secret of 32 bytes or so"), expected(), CursorError::Signature),
            (resigned("{\"version\": \"1\", \"not\": \"claims\"}"), expected(), CursorError::Payload),
            (with(|c| c.after_key = Some("k".into())), expected(), CursorError::Payload),
            (with(|c| c.version = 2), expected(), CursorError::Unsupported),
            (with(|c| c.surface = "ListSomething".into()), expected(), CursorError::Unsupported),
            (with(|c| c.expires_at = c.issued_at + LIFETIME_MS + 1), expected(), CursorError::Lifetime),
            (with(|c| c.expires_at = c.issued_at), expected(), CursorError::Lifetime),
            (good.clone(), Expected { now_ms: NOW + LIFETIME_MS, ..expected() }, CursorError::Expired),
            (good.clone(), Expected { now_ms: NOW - 61_000, ..expected() }, CursorError::Future),
            (good.clone(), Expected { account_id: "acct_b", ..expected() }, CursorError::Account),
            (good.clone(), Expected { filter_hash: Some("beef"), ..expected() }, CursorError::Filters),
            (
                good.clone(),
                Expected { surface: Surface::ListCompanyEventImpacts, ..expected() },
                CursorError::Operation,
            ),
            (good.clone(), Expected { mode: Mode::Poll, ..expected() }, CursorError::ModeMismatch),
            (good.clone(), Expected { generation: 8, ..expected() }, CursorError::Generation),
        ];
        for (cursor, expected, error) in cases {
            assert_eq!(open(&cursor, &expected), Err(error.clone()), "{error}");
        }
        assert!(open(&good, &e).is_ok());
        // A skew within 60 s is accepted.
        assert!(open(&good, &Expected { now_ms: NOW - 59_000, ..expected() }).is_ok());
    }

    /// Property: any change to a valid cursor (a character replaced, inserted or removed, in the
    /// payload, the signature or the envelope) is refused — 20,000 seeded random changes.
    #[test]
    fn any_change_to_a_valid_cursor_is_refused() {
        use rand::{rngs::StdRng, Rng, SeedableRng};
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
        let mut rng = StdRng::seed_from_u64(0x5eed);
        let good = claims().sign(SECRET);
        assert!(open(&good, &expected()).is_ok());
        for case in 0..20_000 {
            let mut bytes = good.clone().into_bytes();
            let at = rng.gen_range(0..bytes.len());
            match rng.gen_range(0..3) {
                0 => {
                    let mut replacement = bytes[at];
                    while replacement == bytes[at] {
                        replacement = ALPHABET[rng.gen_range(0..ALPHABET.len())];
                    }
                    bytes[at] = replacement;
                }
                1 => bytes.insert(at, ALPHABET[rng.gen_range(0..ALPHABET.len())]),
                _ => {
                    bytes.remove(at);
                }
            }
            let changed = String::from_utf8(bytes).unwrap();
            if changed == good {
                continue;
            }
            assert!(open(&changed, &expected()).is_err(), "case {case}: {changed} was accepted");
        }
    }
}
