//! Text normalisation of company-monitoring values (SUPPLEMENT 4.4): NFC, refusal of control and
//! invisible characters, trimming, whitespace runs collapsed. Every text value goes through it
//! before its limits are checked and before it enters a fingerprint, so two spellings that differ
//! only in these respects are one value.

use unicode_normalization::UnicodeNormalization;

/// Why a text value was refused (the descriptions of SUPPLEMENT 1.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextError {
    /// Empty once normalised.
    Required,
    /// A control or invisible character.
    Invisible,
}

impl TextError {
    pub fn description(&self) -> &'static str {
        match self {
            TextError::Required => "value is required",
            TextError::Invisible => "string must not contain control or invisible characters",
        }
    }
}

/// The code points 4.4 refuses: C0 and C1 controls, the soft hyphen, bidirectional and
/// zero-width marks, line and paragraph separators, invisible operators, the byte-order mark and
/// interlinear annotation marks.
fn refused(c: char) -> bool {
    matches!(c,
        '\u{0000}'..='\u{001F}'
        | '\u{007F}'..='\u{009F}'
        | '\u{00AD}'
        | '\u{061C}'
        | '\u{180E}'
        | '\u{200B}'..='\u{200F}'
        | '\u{2028}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}'
        | '\u{FEFF}'
        | '\u{FFF9}'..='\u{FFFB}')
}

/// `value` normalised, or why it cannot be.
pub fn normalise(value: &str) -> Result<String, TextError> {
    let composed: String = value.nfc().collect();
    if composed.chars().any(refused) {
        return Err(TextError::Invisible);
    }
    let collapsed = composed.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.is_empty() {
        return Err(TextError::Required);
    }
    Ok(collapsed)
}

/// An optional value: absent or empty stays empty (no `value is required`), else as [`normalise`].
pub fn normalise_optional(value: &str) -> Result<String, TextError> {
    match normalise(value) {
        Err(TextError::Required) => Ok(String::new()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composes_trims_and_collapses() {
        // "e" + combining acute → "é" (one code point).
        assert_eq!(normalise("  Cafe\u{301}   Nero\u{00A0} Ltd ").as_deref(), Ok("Café Nero Ltd"));
        assert_eq!(normalise("Acme\u{3000}Corp").as_deref(), Ok("Acme Corp"));
    }

    #[test]
    fn refuses_controls_and_invisibles_before_trimming() {
        for bad in ["a\tb", "line\nbreak", "\u{200B}Acme", "Ac\u{00AD}me", "Acme\u{FEFF}", "x\u{2066}y", "\u{85}"] {
            assert_eq!(normalise(bad), Err(TextError::Invisible), "{bad:?}");
        }
    }

    #[test]
    fn empty_after_normalisation_is_required() {
        assert_eq!(normalise("   "), Err(TextError::Required));
        assert_eq!(normalise(""), Err(TextError::Required));
        assert_eq!(normalise_optional("  ").as_deref(), Ok(""));
        assert_eq!(normalise_optional("\u{200B}"), Err(TextError::Invisible));
    }

    /// Property: normalisation is idempotent — what it returns normalises to itself — over
    /// 20,000 seeded random strings of letters, marks, spaces, digits and punctuation.
    #[test]
    fn normalisation_is_idempotent() {
        use rand::{rngs::StdRng, Rng, SeedableRng};
        // Composing marks, several kinds of space, and characters with compatibility forms.
        const PIECES: &[&str] = &[
            "a", "e", "Z", "ß", "\u{301}", "\u{308}", "\u{327}", " ", "  ", "\u{A0}", "\u{3000}", "\u{2003}", "7", "-",
            "&", "'", "é", "ﬁ", "Å", "\u{212B}", "中", "ö", ".",
        ];
        let mut rng = StdRng::seed_from_u64(0x7e47);
        for _ in 0..20_000 {
            let len = rng.gen_range(0..12);
            let input: String = (0..len).map(|_| PIECES[rng.gen_range(0..PIECES.len())]).collect();
            if let Ok(once) = normalise(&input) {
                assert_eq!(normalise(&once).as_deref(), Ok(once.as_str()), "{input:?}");
            }
        }
    }
}
