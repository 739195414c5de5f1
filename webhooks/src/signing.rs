//! The Standard Webhooks signature (standardwebhooks.com, "Signature scheme"): HMAC-SHA256 over
//! `<webhook-id>.<webhook-timestamp>.<body>` keyed by the secret's bytes, sent as
//! `v1,<base64>`; the secret is shown as `whsec_<base64 of its bytes>`. The receivers' own
//! libraries verify exactly this, which `make test` proves with them.

use base64::{engine::general_purpose::STANDARD, Engine};
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

/// The prefix Standard Webhooks' libraries strip from a secret before decoding it.
const PREFIX: &str = "whsec_";
/// 32 random bytes: the key length HMAC-SHA256 is best used with.
const SECRET_BYTES: usize = 32;

/// An endpoint's signing secret, as shown (`whsec_…`). Its `Debug` does not print it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(whsec_…)")
    }
}

impl Secret {
    /// A new random secret.
    pub fn generate() -> Secret {
        let mut bytes = [0u8; SECRET_BYTES];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        Secret(format!("{PREFIX}{}", STANDARD.encode(bytes)))
    }

    /// A stored secret; `None` when it is not one this module wrote.
    pub fn parse(shown: &str) -> Option<Secret> {
        let decoded = STANDARD.decode(shown.strip_prefix(PREFIX)?).ok()?;
        (!decoded.is_empty()).then(|| Secret(shown.to_string()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    fn key(&self) -> Vec<u8> {
        // Parsed or generated: always the prefix and valid base64.
        STANDARD.decode(&self.0[PREFIX.len()..]).unwrap_or_default()
    }

    /// The signature of one attempt: `v1,<base64 HMAC-SHA256>`.
    pub fn sign(&self, webhook_id: &str, timestamp_s: i64, body: &[u8]) -> String {
        // HMAC takes a key of any length.
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&self.key()) else { unreachable!("HMAC takes any key") };
        mac.update(webhook_id.as_bytes());
        mac.update(b".");
        mac.update(timestamp_s.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
    }
}

/// The `webhook-signature` header: one signature per valid secret, space-separated (the current
/// one first; during a rotation the previous one too, so a receiver holding either verifies).
pub fn signature_header(secrets: &[&Secret], webhook_id: &str, timestamp_s: i64, body: &[u8]) -> String {
    secrets.iter().map(|s| s.sign(webhook_id, timestamp_s, body)).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_specifications_example_signature() {
        // The example of the Standard Webhooks specification's "Signature scheme" section.
        let secret = Secret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").expect("secret");
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            secret.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn secrets_are_random_and_never_printed() {
        let (a, b) = (Secret::generate(), Secret::generate());
        assert_ne!(a, b);
        assert!(Secret::parse(a.expose()).is_some());
        assert!(!format!("{a:?}").contains(&a.expose()[6..]));
        assert!(Secret::parse("whsec_").is_none() && Secret::parse("nope").is_none());
        let header = signature_header(&[&a, &b], "msg_1", 1, b"{}");
        assert_eq!(header.split(' ').count(), 2);
        assert!(header.split(' ').all(|s| s.starts_with("v1,")));
    }
}
