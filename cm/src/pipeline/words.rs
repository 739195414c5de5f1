//! Words as the pipeline compares them (SUPPLEMENT 4.8): lower-cased runs of letters and digits,
//! whole-phrase matching on them, the content tokens events are grouped by, and the common-words
//! list of the ambiguity guard.

use std::{collections::BTreeSet, sync::LazyLock};

use unicode_normalization::{char::is_combining_mark, UnicodeNormalization};

/// The words of `text`, folded as 4.8 compares both sides: NFKC, accents removed, lower-cased
/// (Nestlé = Nestle); `&` inside a token stays part of it (AT&T, H&M: never "at t"), elsewhere it
/// is "and" (Marks & Spencer = Marks and Spencer); anything else but letters and digits —
/// punctuation, hyphens — separates words.
pub fn words(text: &str) -> Vec<String> {
    tokens(text).into_iter().map(|t| t.word).collect()
}

/// A word of running text ([`words`]) with what its writing says beside the folded word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub word: String,
    /// Written with a capital first letter.
    pub capitalised: bool,
    /// Written all in capitals (an acronym such as CEO, or shouting).
    pub upper: bool,
    /// The first word of the text or of a sentence (after `.`, `!`, `?` or `:`; not after a `.`
    /// the next word follows in lower case, as after "Inc." or "approx.": see [`ends_a_sentence`]).
    pub sentence_start: bool,
    /// A comma stands between it and the word before.
    pub after_comma: bool,
}

/// The words of `text` as [`words`] folds them, each with how it was written.
pub fn tokens(text: &str) -> Vec<Token> {
    let folded: String = text.nfkc().collect::<String>().nfd().filter(|c| !is_combining_mark(*c)).collect();
    let mut out = Vec::new();
    // What separated the next word from the one before it.
    let (mut sentence_start, mut after_comma, mut period) = (true, false, false);
    let push = |out: &mut Vec<Token>, written: &str, sentence_start: &mut bool, after_comma: &mut bool| {
        let letters = || written.chars().filter(|c| c.is_alphabetic());
        out.push(Token {
            word: written.to_lowercase(),
            capitalised: written.chars().next().is_some_and(char::is_uppercase),
            upper: letters().count() >= 2 && letters().all(char::is_uppercase),
            sentence_start: std::mem::take(sentence_start),
            after_comma: std::mem::take(after_comma),
        });
    };
    let is_word_char = |c: char| c.is_alphanumeric() || c == '&';
    let mut rest = folded.as_str();
    while !rest.is_empty() {
        let gap = rest.find(is_word_char).unwrap_or(rest.len());
        let mut chars = rest[..gap].chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                // A full stop ends a sentence before a space: not a decimal point ("23.5 mln"),
                // nor the stops inside "U.S.".
                '.' => period |= chars.peek().is_some_and(|n| n.is_whitespace() || "\"'’”)".contains(*n)),
                '!' | '?' | ':' => sentence_start = true,
                ',' => after_comma = true,
                _ => {}
            }
        }
        rest = &rest[gap..];
        if std::mem::take(&mut period) && ends_a_sentence(rest) {
            sentence_start = true;
        }
        let len = rest.find(|c: char| !is_word_char(c)).unwrap_or(rest.len());
        let chunk: Vec<char> = rest[..len].chars().collect();
        rest = &rest[len..];
        let mut token = String::new();
        for (i, &c) in chunk.iter().enumerate() {
            if c != '&' {
                token.push(c);
                continue;
            }
            let joins =
                i > 0 && chunk[i - 1].is_alphanumeric() && chunk.get(i + 1).is_some_and(|n| n.is_alphanumeric());
            if joins {
                token.push('&');
            } else {
                if !token.is_empty() {
                    push(&mut out, &std::mem::take(&mut token), &mut sentence_start, &mut after_comma);
                }
                push(&mut out, "and", &mut sentence_start, &mut after_comma);
            }
        }
        if !token.is_empty() {
            push(&mut out, &token, &mut sentence_start, &mut after_comma);
        }
    }
    out
}

/// Whether most of a title's longer words (four letters or more, after the first word) are
/// capitalised: a headline in title case, where capitals say nothing about names. (Not asked of
/// a snippet: running text naming three brands in a row is not title case.)
pub fn headline_cased(text: &[Token]) -> bool {
    let long: Vec<&Token> =
        text.iter().skip(1).filter(|t| t.word.chars().filter(|c| c.is_alphabetic()).count() >= 4).collect();
    long.len() >= 2 && long.iter().filter(|t| t.capitalised).count() * 10 >= long.len() * 6
}

/// Whether a full stop before `next` (the text after it and its spaces) ends a sentence: not
/// when the next word is written in lower case, since sentences open with a capital or a figure
/// and abbreviations do not ("Acme Inc. has been selected", "approx. 120 jobs" read on).
pub fn ends_a_sentence(next: &str) -> bool {
    !next.trim_start().chars().next().is_some_and(char::is_lowercase)
}

/// Where `phrase` (its words) occurs in `text` (its words) as whole words: spans [start, end).
pub fn phrase_spans(phrase: &[String], text: &[String]) -> Vec<(usize, usize)> {
    if phrase.is_empty() || phrase.len() > text.len() {
        return Vec::new();
    }
    (0..=text.len() - phrase.len())
        .filter(|&i| text[i..i + phrase.len()] == *phrase)
        .map(|i| (i, i + phrase.len()))
        .collect()
}

/// Whether `needle` (lower-case, like a domain) occurs in `haystack` with no letter, digit, `-`
/// or `.`-joined letter on either side: `acme.com` in "see acme.com." but not in "notacme.com".
pub fn contains_bounded(haystack: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let hay = haystack.to_lowercase();
    let joined = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '-');
    let mut from = 0;
    while let Some(at) = hay[from..].find(needle) {
        let start = from + at;
        let end = start + needle.len();
        let before = hay[..start].chars().next_back();
        let mut after = hay[end..].chars();
        let next = after.next();
        // A trailing dot ends a sentence; a dot followed by more of a name continues the host.
        let continues = next == Some('.') && joined(after.next());
        if !joined(before) && before != Some('.') && !joined(next) && !continues {
            return true;
        }
        from = start + needle.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Words dropped from a name before judging whether it is distinctive (4.8).
pub const GENERIC_CORPORATE: &[&str] = &[
    "inc",
    "incorporated",
    "ltd",
    "limited",
    "plc",
    "llc",
    "lp",
    "group",
    "holdings",
    "company",
    "co",
    "corp",
    "corporation",
    "the",
    "and",
];

/// The frequent English words of `data/reference/common-words.txt`.
static COMMON: LazyLock<BTreeSet<&'static str>> = LazyLock::new(|| {
    include_str!("../../../data/reference/common-words.txt").lines().filter(|l| !l.is_empty()).collect()
});

pub fn is_common(word: &str) -> bool {
    COMMON.contains(word)
}

/// Whether a name or alias identifies a company on its own (4.8's ambiguity guard): without
/// the generic corporate words it keeps two or more words, or one of six or more characters
/// that is not a common English word.
pub fn is_distinctive(name_words: &[String]) -> bool {
    match core_words(name_words).as_slice() {
        [one] => one.chars().count() >= 6 && !is_common(one),
        many => many.len() >= 2,
    }
}

/// A name's words without the generic corporate ones: names and aliases that differ only in case
/// or corporate words ("Apple Inc", "APPLE") have the same core and count as one alias.
pub fn core_words(name_words: &[String]) -> Vec<String> {
    name_words.iter().filter(|w| !GENERIC_CORPORATE.contains(&w.as_str())).cloned().collect()
}

/// The words of a trade that follow a company's own word in its name ("Aldermoor Engineering",
/// "Carrow Pipelines", "Lark Airways"): after its first mention, news names such a company by
/// its own word alone ("Aldermoor was sued…"). The sectors of the industry classifications
/// newsrooms file companies under, as the words company names use for them.
const TRADE_WORDS: &[&str] = &[
    "aerospace",
    "airlines",
    "airways",
    "aviation",
    "bank",
    "biologics",
    "brewing",
    "brewery",
    "capital",
    "chemicals",
    "cloud",
    "components",
    "construction",
    "dairies",
    "data",
    "drinks",
    "electric",
    "electronics",
    "energy",
    "engineering",
    "foods",
    "freight",
    "health",
    "healthcare",
    "homes",
    "hotels",
    "industrial",
    "industries",
    "insurance",
    "lines",
    "logistics",
    "media",
    "metals",
    "microsystems",
    "mining",
    "motors",
    "networks",
    "partners",
    "payments",
    "pharma",
    "pharmaceuticals",
    "pipelines",
    "power",
    "rail",
    "renewables",
    "restaurants",
    "retail",
    "security",
    "semiconductor",
    "semiconductors",
    "shipping",
    "software",
    "steel",
    "systems",
    "technologies",
    "telecom",
    "therapeutics",
    "utilities",
    "water",
];

/// A name's short form, its own word alone, when the rest of its core is trade words and that
/// word would be distinctive on its own ("Aldermoor Engineering" → "aldermoor"). News uses it
/// as a second reference, so the matcher treats it as a name that is not distinctive: it needs
/// a second signal, or to be written as a name.
pub fn short_form(name_words: &[String]) -> Option<Vec<String>> {
    let core = core_words(name_words);
    let (own, trade) = core.split_first()?;
    let distinctive = own.chars().count() >= 6 && !is_common(own) && own.chars().all(char::is_alphabetic);
    (distinctive && !trade.is_empty() && trade.iter().all(|w| TRADE_WORDS.contains(&w.as_str())))
        .then(|| vec![own.clone()])
}

/// The legal forms a company's name may end in.
pub const LEGAL_FORMS: &[&str] =
    &["inc", "incorporated", "ltd", "limited", "plc", "llc", "lp", "co", "corp", "corporation"];

/// The forms of a name that news uses: the name itself and, when it differs, the name without
/// a leading "the" and trailing corporate words ("Ashgrove Pharma Ltd" → "Ashgrove Pharma").
pub fn name_forms(name_words: &[String]) -> Vec<Vec<String>> {
    let suffixes = LEGAL_FORMS;
    let mut core = name_words;
    while let [first, rest @ ..] = core {
        if first != "the" || rest.is_empty() {
            break;
        }
        core = rest;
    }
    while let [rest @ .., last] = core {
        if !suffixes.contains(&last.as_str()) || rest.is_empty() {
            break;
        }
        core = rest;
    }
    let mut forms = vec![name_words.to_vec()];
    if core.len() != name_words.len() && !core.is_empty() {
        forms.push(core.to_vec());
    }
    forms
}

/// Function words left out of the content an event is grouped by.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "against", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "before",
    "but", "by", "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "his", "how",
    "i", "if", "in", "into", "is", "it", "its", "it's", "just", "more", "most", "new", "no", "not", "now", "of", "on",
    "or", "our", "out", "over", "s", "said", "says", "she", "so", "than", "that", "the", "their", "them", "then",
    "there", "these", "they", "this", "to", "up", "was", "we", "were", "what", "when", "which", "while", "who", "will",
    "with", "would", "you", "your",
];

/// The content tokens of an item for grouping: its words without stop words and without the
/// words of the company's own names (`own`), so two stories about one company are not alike
/// merely for naming it.
pub fn content_tokens(text: &str, own: &BTreeSet<String>) -> BTreeSet<String> {
    words(text).into_iter().filter(|w| !STOP_WORDS.contains(&w.as_str()) && !own.contains(w)).collect()
}

/// |a ∩ b| / |a ∪ b| (0 for two empty sets).
pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// A title as syndication compares it: its words joined by single spaces.
pub fn normalised_title(title: &str) -> String {
    words(title).join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        words(s)
    }

    #[test]
    fn phrases_match_whole_words_only() {
        assert_eq!(phrase_spans(&w("Ashgrove Pharma"), &w("Shares of ASHGROVE pharma fell.")), [(2, 4)]);
        assert!(phrase_spans(&w("Ash"), &w("Ashgrove Pharma")).is_empty());
        assert_eq!(phrase_spans(&w("Johnson & Johnson"), &w("Johnson & Johnson recalls")), [(0, 3)]);
    }

    /// Issue 46: both sides folded the same way.
    #[test]
    fn text_is_folded_as_newsrooms_write_names() {
        assert_eq!(w("AT&T cuts jobs"), ["at&t", "cuts", "jobs"], "AT&T stays one token");
        assert!(phrase_spans(&w("AT&T"), &w("Layoffs at T-Mobile")).is_empty());
        assert_eq!(phrase_spans(&w("AT&T"), &w("Outage hits AT&T customers")), [(2, 3)]);
        assert_eq!(phrase_spans(&w("H&M"), &w("H&M shuts stores")), [(0, 1)]);
        assert_eq!(phrase_spans(&w("Marks and Spencer"), &w("Marks & Spencer cyber-attack")), [(0, 3)]);
        assert_eq!(phrase_spans(&w("Marks & Spencer"), &w("Marks and Spencer hit by hackers")), [(0, 3)]);
        assert_eq!(phrase_spans(&w("Nestlé"), &w("Nestle recalls baby food")), [(0, 1)]);
        assert_eq!(phrase_spans(&w("Nestle"), &w("NESTLÉ profits fall")), [(0, 1)]);
        assert_eq!(w("ＡＢＣ Corp"), ["abc", "corp"], "NFKC: full-width letters");
        assert_eq!(w("cyber-attack"), ["cyber", "attack"], "hyphens separate");
    }

    #[test]
    fn a_full_stop_before_a_lower_case_word_ends_no_sentence() {
        let starts = |text: &str| -> Vec<String> {
            tokens(text).into_iter().filter(|t| t.sentence_start).map(|t| t.word).collect()
        };
        assert_eq!(starts("Acme Pizza Inc. has been selected. It said so"), ["acme", "it"]);
        assert_eq!(starts("Acme Inc. The company said: jobs go! Why?"), ["acme", "the", "jobs", "why"]);
        assert_eq!(starts("Sales fell. 120 jobs go"), ["sales", "120"], "a figure opens a sentence");
        assert_eq!(starts("Juniper agrees 23.5 mln pound deal for Honeycomb"), ["juniper"], "a decimal point");
        assert_eq!(starts("U.S. regulators fined Acme"), ["u"], "an abbreviation's stops");
        assert_eq!(starts("\"Acme cut jobs.\" Then it hired"), ["acme", "then"], "a stop inside a quote");
    }

    #[test]
    fn domains_match_with_boundaries() {
        assert!(contains_bounded("Visit acme.com. Or not", "acme.com"));
        assert!(contains_bounded("(acme.com)", "acme.com"));
        assert!(!contains_bounded("notacme.com", "acme.com"));
        assert!(!contains_bounded("acme.com.evil.example", "acme.com"));
        assert!(!contains_bounded("mail.acme.com", "acme.com"), "a different host");
    }

    #[test]
    fn distinctive_names_and_their_forms() {
        assert!(is_distinctive(&w("Ashgrove Pharma Ltd")));
        assert!(is_distinctive(&w("Ashgrove")), "six letters, not a common word");
        assert!(!is_distinctive(&w("Summit Group")), "a common word with a generic one");
        assert!(!is_distinctive(&w("Acme Inc")), "four letters");
        assert!(!is_distinctive(&w("The Company")));
        assert!(is_common("summit") && COMMON.len() >= 5_000);
        assert_eq!(name_forms(&w("The Ashgrove Pharma Ltd")), [w("The Ashgrove Pharma Ltd"), w("Ashgrove Pharma")]);
        assert_eq!(name_forms(&w("Acme")), [w("Acme")]);
    }

    #[test]
    fn content_tokens_leave_out_the_company() {
        let own: BTreeSet<String> = w("Ashgrove Pharma").into_iter().collect();
        let a = content_tokens("Ashgrove Pharma sued over vaccine patent", &own);
        let b = content_tokens("Vaccine patent lawsuit filed against Ashgrove", &own);
        assert_eq!(a, ["patent", "sued", "vaccine"].iter().map(|s| s.to_string()).collect());
        // {patent, vaccine} of {filed, lawsuit, patent, sued, vaccine}.
        assert!((jaccard(&a, &b) - 2.0 / 5.0).abs() < 1e-9);
    }
}
