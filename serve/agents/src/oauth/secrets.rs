//! Opaque secrets of the authorization server (codes, tokens, nonces) and PKCE (RFC 7636 S256).
//! Secrets are ≥ 128 bits of randomness, base64url; only their SHA-256 hex is ever stored
//! (`state::hash_secret`).

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use rand::RngCore;
use sha2::{Digest, Sha256};

/// A new opaque secret: 32 random bytes, base64url without padding.
pub fn new_secret() -> String {
    let mut raw = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut raw);
    URL_SAFE_NO_PAD.encode(raw)
}

/// A `code_challenge`: 43 base64url characters (a SHA-256 digest).
pub fn is_challenge(s: &str) -> bool {
    s.len() == 43 && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A `code_verifier`: 43–128 characters of `[A-Za-z0-9-._~]`.
pub fn is_verifier(s: &str) -> bool {
    (43..=128).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

/// The S256 challenge a PKCE verifier makes: BASE64URL(SHA-256(verifier)).
pub fn challenge_of(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_s256() {
        // RFC 7636 appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(is_verifier(verifier) && is_challenge(challenge));
        assert_eq!(challenge_of(verifier), challenge);
        assert!(!is_verifier("short") && !is_challenge("x"));
        let a = new_secret();
        assert!(a.len() >= 43 && a != new_secret());
        assert_eq!(sitrep_platform::state::hash_secret(&a).len(), 64);
    }
}
