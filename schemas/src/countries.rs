//! Country reference tables (ISO 3166-1 plus the names upstream providers use), compiled in from
//! `data/reference/`. Lookups are case-insensitive on names.

use std::{collections::HashMap, sync::OnceLock};

const COUNTRIES_CSV: &str = include_str!("../../data/reference/countries.csv");
const ALIASES_CSV: &str = include_str!("../../data/reference/country_aliases.csv");

/// The fixed `country_code` enum of API.md 4.6 (GetHumanitarianSummary).
pub const API_COUNTRY_CODES: &[&str] = &[
    "AD", "AE", "AF", "AG", "AI", "AL", "AM", "AO", "AQ", "AR", "AS", "AT", "AU", "AW", "AX", "AZ", "BA", "BB", "BD",
    "BE", "BF", "BG", "BH", "BI", "BJ", "BL", "BM", "BN", "BO", "BR", "BS", "BT", "BW", "BY", "BZ", "CA", "CD", "CF",
    "CG", "CH", "CI", "CK", "CL", "CM", "CN", "CO", "CR", "CU", "CV", "CW", "CY", "CZ", "DE", "DJ", "DK", "DM", "DO",
    "DZ", "EC", "EE", "EG", "EH", "ER", "ES", "ET", "FI", "FJ", "FK", "FM", "FO", "FR", "GA", "GB", "GD", "GE", "GG",
    "GH", "GI", "GL", "GM", "GN", "GQ", "GR", "GS", "GT", "GU", "GW", "GY", "HK", "HM", "HN", "HR", "HT", "HU", "ID",
    "IE", "IL", "IM", "IN", "IO", "IQ", "IR", "IS", "IT", "JE", "JM", "JO", "JP", "KE", "KG", "KH", "KI", "KM", "KN",
    "KP", "KR", "KW", "KY", "KZ", "LA", "LB", "LC", "LI", "LK", "LR", "LS", "LT", "LU", "LV", "LY", "MA", "MC", "MD",
    "ME", "MF", "MG", "MH", "MK", "ML", "MM", "MN", "MO", "MP", "MR", "MS", "MT", "MU", "MV", "MW", "MX", "MY", "MZ",
    "NA", "NC", "NE", "NF", "NG", "NI", "NL", "NO", "NP", "NR", "NU", "NZ", "OM", "PA", "PE", "PF", "PG", "PH", "PK",
    "PL", "PM", "PN", "PR", "PS", "PT", "PW", "PY", "QA", "RO", "RS", "RU", "RW", "SA", "SB", "SC", "SD", "SE", "SG",
    "SH", "SI", "SK", "SL", "SM", "SN", "SO", "SR", "SS", "ST", "SV", "SX", "SY", "SZ", "TC", "TD", "TF", "TG", "TH",
    "TJ", "TL", "TM", "TN", "TO", "TR", "TT", "TV", "TW", "TZ", "UA", "UG", "UM", "US", "UY", "UZ", "VA", "VC", "VE",
    "VG", "VI", "VN", "VU", "WF", "WS", "XK", "YE", "ZA", "ZM", "ZW",
];

pub fn is_api_country_code(code: &str) -> bool {
    API_COUNTRY_CODES.binary_search(&code).is_ok()
}

#[derive(Debug)]
struct Tables {
    by_numeric: HashMap<u16, &'static str>,
    by_alpha3: HashMap<&'static str, &'static str>,
    by_name: HashMap<String, &'static str>,
    name_of: HashMap<&'static str, &'static str>,
    numeric_of: HashMap<&'static str, &'static str>,
}

pub(crate) fn split_csv_line(line: &'static str) -> Vec<&'static str> {
    // The reference files quote only names containing commas; quotes never nest.
    let mut out = Vec::new();
    let mut rest = line;
    while !rest.is_empty() || out.is_empty() {
        if let Some(stripped) = rest.strip_prefix('"') {
            let end = stripped.find('"').unwrap_or(stripped.len());
            out.push(&stripped[..end]);
            rest = stripped.get(end + 1..).unwrap_or("");
            rest = rest.strip_prefix(',').unwrap_or(rest);
        } else {
            match rest.find(',') {
                Some(i) => {
                    out.push(&rest[..i]);
                    rest = &rest[i + 1..];
                    if rest.is_empty() {
                        out.push("");
                    }
                }
                None => {
                    out.push(rest);
                    rest = "";
                }
            }
        }
        if rest.is_empty() {
            break;
        }
    }
    out
}

fn data_lines(csv: &'static str) -> impl Iterator<Item = Vec<&'static str>> {
    csv.lines().skip(1).map(str::trim_end).filter(|l| !l.is_empty()).map(split_csv_line)
}

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = Tables {
            by_numeric: HashMap::new(),
            by_alpha3: HashMap::new(),
            by_name: HashMap::new(),
            name_of: HashMap::new(),
            numeric_of: HashMap::new(),
        };
        for cols in data_lines(COUNTRIES_CSV) {
            let [alpha2, alpha3, numeric, name] = cols[..] else { continue };
            if let Ok(n) = numeric.parse::<u16>() {
                t.by_numeric.insert(n, alpha2);
            }
            t.by_alpha3.insert(alpha3, alpha2);
            t.by_name.insert(name.to_lowercase(), alpha2);
            t.name_of.insert(alpha2, name);
            t.numeric_of.insert(alpha2, numeric);
        }
        for cols in data_lines(ALIASES_CSV) {
            let [alias, alpha2] = cols[..] else { continue };
            if let Some(code) = t.name_of.get_key_value(alpha2).map(|(k, _)| *k) {
                t.by_name.insert(alias.to_lowercase(), code);
            }
        }
        t
    })
}

/// ISO 3166-1 numeric (`"887"`, `"4"`) → alpha-2.
pub fn alpha2_from_numeric(numeric: &str) -> Option<&'static str> {
    let n: u16 = numeric.trim().parse().ok()?;
    tables().by_numeric.get(&n).copied()
}

/// ISO 3166-1 alpha-3 (`"SDN"`, and `"XKX"` for Kosovo) → alpha-2.
pub fn alpha2_from_alpha3(alpha3: &str) -> Option<&'static str> {
    tables().by_alpha3.get(alpha3.trim().to_ascii_uppercase().as_str()).copied()
}

/// English or provider-specific country name (`"DR Congo (Zaire)"`) → alpha-2.
pub fn alpha2_from_name(name: &str) -> Option<&'static str> {
    tables().by_name.get(&name.trim().to_lowercase()).copied()
}

/// Alpha-2 → ISO 3166-1 numeric, as written (`"392"`, `"004"`).
pub fn numeric_of(alpha2: &str) -> Option<&'static str> {
    tables().numeric_of.get(alpha2).copied()
}

/// Alpha-2 → English short name.
pub fn name_of(alpha2: &str) -> Option<&'static str> {
    tables().name_of.get(alpha2).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_codes_are_sorted_for_binary_search() {
        assert!(API_COUNTRY_CODES.windows(2).all(|w| w[0] < w[1]));
        assert!(is_api_country_code("YE") && is_api_country_code("XK") && !is_api_country_code("ZZ"));
    }

    #[test]
    fn lookups_cover_provider_forms() {
        assert_eq!(alpha2_from_numeric("887"), Some("YE"));
        assert_eq!(alpha2_from_numeric("4"), Some("AF"));
        assert_eq!(alpha2_from_alpha3("sdn"), Some("SD"));
        assert_eq!(alpha2_from_alpha3("XKX"), Some("XK"));
        for (name, code) in [
            ("Russia (Soviet Union)", "RU"),
            ("Yemen (North Yemen)", "YE"),
            ("DR Congo (Zaire)", "CD"),
            ("Myanmar (Burma)", "MM"),
            ("Cambodia (Kampuchea)", "KH"),
            ("Zimbabwe (Rhodesia)", "ZW"),
            ("Serbia (Yugoslavia)", "RS"),
            ("Madagascar (Malagasy)", "MG"),
            ("Ivory Coast", "CI"),
            ("Bosnia-Herzegovina", "BA"),
            ("sudan", "SD"),
        ] {
            assert_eq!(alpha2_from_name(name), Some(code), "{name}");
        }
        assert_eq!(name_of("NA"), Some("Namibia"));
        assert_eq!(alpha2_from_name("Atlantis"), None);
    }

    #[test]
    fn csv_lines_split_with_quotes_and_empty_fields() {
        assert_eq!(split_csv_line("XK,XKX,,Kosovo"), vec!["XK", "XKX", "", "Kosovo"]);
        assert_eq!(split_csv_line("\"Macedonia, FYR\",MK"), vec!["Macedonia, FYR", "MK"]);
    }
}
