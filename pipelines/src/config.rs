//! What the connectors need from the deployment: credentials and upstream origins. Filled by the
//! binaries from `SITREP_*` flags and the upstream env names of SUPPLEMENT.md; never logged.

use std::{fmt, path::PathBuf};

use crate::budget::AviationStackBudget;

#[derive(Clone, Default)]
pub struct UpstreamConfig {
    pub acled_email: Option<String>,
    pub acled_password: Option<String>,
    pub acled_access_token: Option<String>,
    pub ucdp_access_token: Option<String>,
    pub hdx_app_identifier: Option<String>,
    pub iran_events_enabled: bool,
    pub iran_events_file: Option<PathBuf>,
    /// `ADSB_BASE_URL`: any readsb / ADSBExchange-v2-compatible service (default adsb.lol).
    pub adsb_base_url: Option<String>,
    /// `AVIATIONSTACK_API`: the AviationStack access key.
    pub aviationstack_key: Option<String>,
    /// AviationStack's monthly and live budgets and their cycle.
    pub aviationstack_budget: AviationStackBudget,
    /// `ICAO_API_KEY`: the ICAO API Data Service key (NOTAM).
    pub icao_api_key: Option<String>,
    /// `AVIATION_WATCH_AIRPORTS`: IATA codes whose flights are a scheduled dataset.
    pub aviation_watch_airports: Vec<String>,
    /// `WINGBITS_API_KEY`: aircraft positions (TrackAircraft).
    pub wingbits_api_key: Option<String>,
    /// `OPENSKY_REDISTRIBUTION=on` with `OPENSKY_CLIENT_ID` / `OPENSKY_CLIENT_SECRET`: OpenSky as a
    /// position source (off by default: its terms restrict redistribution).
    pub opensky: Option<(String, String)>,
    /// `TRAVELPAYOUTS_API_TOKEN`: SearchFlightPrices fares.
    pub travelpayouts_token: Option<String>,
    /// `AVIATION_DEMO_PRICES=1`: labelled synthetic quotes when no Travelpayouts token is set.
    pub demo_prices: bool,
    /// `FLIGHT_SEARCH_PROVIDER_URL` and the optional `FLIGHT_SEARCH_PROVIDER_TOKEN`.
    pub flight_search_provider: Option<(String, Option<String>)>,
    /// `AVIATION_WATCH_ROUTES` (`IST-LHR,JFK-CDG`): routes whose fares are a scheduled dataset.
    pub aviation_watch_routes: Vec<(String, String)>,
    /// `AVIATION_WATCH_BBOXES` (`38,26,43,34;…` as sw_lat,sw_lon,ne_lat,ne_lon): boxes whose
    /// aircraft are a scheduled dataset.
    pub aviation_watch_bboxes: Vec<[f64; 4]>,
    /// `OPENAQ_API_KEY`: OpenAQ v3 (air quality).
    pub openaq_api_key: Option<String>,
    /// `RELIEFWEB_APPNAME`: ReliefWeb's API (climate news reports; disasters); absent = skipped.
    pub reliefweb_appname: Option<String>,
    /// `GIE_API_KEY`: GIE AGSI+ (gas-storage); absent = skipped.
    pub gie_api_key: Option<String>,
    /// Whether connectors keep their upstreams' fair-use spacing between calls (Open-Meteo 750 ms,
    /// Comtrade 3 s): on live, off against the recordings, which every test ingest replays.
    pub pace_calls: bool,
    /// `CONSUMER_PRICES_FEED_URL` and the optional `CONSUMER_PRICES_FEED_TOKEN`: the retail basket
    /// observations feed (a file or a directory listing of files).
    pub consumer_prices_feed: Option<(String, Option<String>)>,
}

/// `IST-LHR,JFK-CDG` → pairs of upper-case IATA codes.
pub fn route_list(name: &str, value: &str) -> Result<Vec<(String, String)>, String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(|r| {
            let (o, d) = r.split_once('-').ok_or_else(|| format!("{name}: `{r}` is not ORIGIN-DESTINATION"))?;
            let codes = iata_list(name, &format!("{o},{d}"))?;
            match codes.as_slice() {
                [o, d] => Ok((o.clone(), d.clone())),
                _ => Err(format!("{name}: `{r}` is not ORIGIN-DESTINATION")),
            }
        })
        .collect()
}

/// `38,26,43,34;…` → boxes of four coordinates in range.
pub fn bbox_list(name: &str, value: &str) -> Result<Vec<[f64; 4]>, String> {
    value
        .split(';')
        .map(str::trim)
        .filter(|b| !b.is_empty())
        .map(|b| {
            let n: Vec<f64> = b
                .split(',')
                .map(|x| x.trim().parse::<f64>())
                .collect::<Result<_, _>>()
                .map_err(|_| format!("{name}: `{b}` is not sw_lat,sw_lon,ne_lat,ne_lon"))?;
            let ok = n.len() == 4
                && n.iter().all(|x| x.is_finite())
                && [n[0], n[2]].iter().all(|l| (-90.0..=90.0).contains(l))
                && [n[1], n[3]].iter().all(|l| (-180.0..=180.0).contains(l))
                && (n[0], n[1]) != (n[2], n[3]);
            if ok {
                Ok([n[0], n[1], n[2], n[3]])
            } else {
                Err(format!("{name}: `{b}` is not a box sw_lat,sw_lon,ne_lat,ne_lon in range"))
            }
        })
        .collect()
}

/// A box's key in the lake and in queries: the four numbers as Rust prints them (`38,26,43,34`).
pub fn bbox_key(b: &[f64; 4]) -> String {
    format!("{},{},{},{}", b[0], b[1], b[2], b[3])
}

/// A comma-separated list of IATA airport codes (`IST,ESB`), upper-cased; anything else is an error.
pub fn iata_list(name: &str, value: &str) -> Result<Vec<String>, String> {
    let codes: Vec<String> =
        value.split(',').map(|c| c.trim().to_ascii_uppercase()).filter(|c| !c.is_empty()).collect();
    match codes.iter().find(|c| c.len() != 3 || !c.bytes().all(|b| b.is_ascii_uppercase())) {
        Some(bad) => Err(format!("{name}: `{bad}` is not a three-letter IATA code")),
        None => Ok(codes),
    }
}

fn default_watch_airports() -> Vec<String> {
    crate::airport_flights::DEFAULT_WATCH_AIRPORTS.iter().map(|c| c.to_string()).collect()
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl UpstreamConfig {
    /// Live-mode upstream settings from the environment (the names of SUPPLEMENT 1.16); a
    /// malformed number is an error.
    pub fn from_env() -> Result<Self, String> {
        let flag = |name: &str| {
            env(name).is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "on" | "yes"))
        };
        Ok(UpstreamConfig {
            acled_email: env("ACLED_EMAIL"),
            acled_password: env("ACLED_PASSWORD"),
            acled_access_token: env("ACLED_ACCESS_TOKEN"),
            ucdp_access_token: env("UCDP_ACCESS_TOKEN"),
            hdx_app_identifier: env("HDX_HAPI_APP_IDENTIFIER"),
            iran_events_enabled: flag("IRAN_EVENTS_ENABLED"),
            iran_events_file: env("IRAN_EVENTS_FILE").map(PathBuf::from),
            adsb_base_url: env("ADSB_BASE_URL"),
            aviationstack_key: env("AVIATIONSTACK_API"),
            aviationstack_budget: AviationStackBudget::from_env()?,
            icao_api_key: env("ICAO_API_KEY"),
            aviation_watch_airports: match env("AVIATION_WATCH_AIRPORTS") {
                Some(v) => iata_list("AVIATION_WATCH_AIRPORTS", &v)?,
                None => default_watch_airports(),
            },
            wingbits_api_key: env("WINGBITS_API_KEY"),
            opensky: match (flag("OPENSKY_REDISTRIBUTION"), env("OPENSKY_CLIENT_ID"), env("OPENSKY_CLIENT_SECRET")) {
                (true, Some(id), Some(secret)) => Some((id, secret)),
                (true, _, _) => {
                    return Err("OPENSKY_REDISTRIBUTION=on needs OPENSKY_CLIENT_ID and OPENSKY_CLIENT_SECRET".into())
                }
                (false, _, _) => None,
            },
            travelpayouts_token: env("TRAVELPAYOUTS_API_TOKEN"),
            demo_prices: flag("AVIATION_DEMO_PRICES"),
            flight_search_provider: env("FLIGHT_SEARCH_PROVIDER_URL").map(|u| (u, env("FLIGHT_SEARCH_PROVIDER_TOKEN"))),
            aviation_watch_routes: route_list(
                "AVIATION_WATCH_ROUTES",
                &env("AVIATION_WATCH_ROUTES").unwrap_or_default(),
            )?,
            aviation_watch_bboxes: bbox_list(
                "AVIATION_WATCH_BBOXES",
                &env("AVIATION_WATCH_BBOXES").unwrap_or_default(),
            )?,
            openaq_api_key: env("OPENAQ_API_KEY"),
            reliefweb_appname: env("RELIEFWEB_APPNAME"),
            gie_api_key: env("GIE_API_KEY"),
            pace_calls: true,
            consumer_prices_feed: env("CONSUMER_PRICES_FEED_URL").map(|u| (u, env("CONSUMER_PRICES_FEED_TOKEN"))),
        })
    }

    /// Credentials used in replay mode: the fixture server ignores them, but the connectors still
    /// run their real auth flows (token request, headers) against the recordings.
    pub fn replay(fixtures: &std::path::Path) -> Self {
        UpstreamConfig {
            acled_email: Some("replay@sitrep.invalid".into()),
            acled_password: Some("replay".into()),
            acled_access_token: None,
            ucdp_access_token: Some("replay".into()),
            hdx_app_identifier: Some("c2l0cmVwOnJlcGxheUBzaXRyZXAuaW52YWxpZA==".into()),
            iran_events_enabled: true,
            iran_events_file: Some(fixtures.join("iran/normal/export.json")),
            adsb_base_url: None,
            // The recordings carry the key as `REDACTED` (SUPPLEMENT Part 7).
            aviationstack_key: Some("REDACTED".into()),
            aviationstack_budget: AviationStackBudget::default(),
            icao_api_key: Some("REDACTED".into()),
            aviation_watch_airports: default_watch_airports(),
            wingbits_api_key: Some("REDACTED".into()),
            // OpenSky stays off in replay as it does by default live; tests turn it on.
            opensky: None,
            travelpayouts_token: Some("REDACTED".into()),
            demo_prices: false,
            flight_search_provider: Some(("https://flight-search.provider.example".into(), Some("REDACTED".into()))),
            // The recordings hold one watched route and one watched box, so replay shows both paths.
            aviation_watch_routes: vec![("IST".into(), "LHR".into())],
            aviation_watch_bboxes: vec![[38.0, 26.0, 43.0, 34.0]],
            openaq_api_key: Some("REDACTED".into()),
            reliefweb_appname: Some("sitrep-replay".into()),
            gie_api_key: Some("REDACTED".into()),
            pace_calls: false,
            consumer_prices_feed: Some((
                "https://feed.sitrep.example/consumer-prices/".into(),
                Some("REDACTED".into()),
            )),
        }
    }
}

// Secrets never reach a log line: Debug prints only which credentials are present.
impl fmt::Debug for UpstreamConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UpstreamConfig")
            .field("acled", &(self.acled_access_token.is_some() || self.acled_email.is_some()))
            .field("ucdp", &self.ucdp_access_token.is_some())
            .field("hdx", &self.hdx_app_identifier.is_some())
            .field("iran_events_enabled", &self.iran_events_enabled)
            .field("iran_events_file", &self.iran_events_file)
            .field("aviationstack", &self.aviationstack_key.is_some())
            .field("aviationstack_budget", &self.aviationstack_budget)
            .field("icao", &self.icao_api_key.is_some())
            .field("aviation_watch_airports", &self.aviation_watch_airports)
            .field("wingbits", &self.wingbits_api_key.is_some())
            .field("opensky", &self.opensky.is_some())
            .field("travelpayouts", &self.travelpayouts_token.is_some())
            .field("demo_prices", &self.demo_prices)
            .field("flight_search_provider", &self.flight_search_provider.as_ref().map(|(url, _)| url))
            .field("aviation_watch_routes", &self.aviation_watch_routes)
            .field("aviation_watch_bboxes", &self.aviation_watch_bboxes)
            .field("openaq", &self.openaq_api_key.is_some())
            .field("consumer_prices_feed", &self.consumer_prices_feed.as_ref().map(|(u, _)| u))
            .field("reliefweb_appname", &self.reliefweb_appname)
            .field("gie", &self.gie_api_key.is_some())
            .field("pace_calls", &self.pace_calls)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watch_lists_parse_or_say_why_not() {
        assert_eq!(iata_list("X", " ist, esb ").unwrap(), ["IST", "ESB"]);
        assert!(iata_list("X", "IST,ISTA").unwrap_err().contains("ISTA"));
        assert_eq!(
            route_list("R", "ist-lhr, JFK-CDG").unwrap(),
            [("IST".into(), "LHR".into()), ("JFK".into(), "CDG".into())]
        );
        assert!(route_list("R", "ISTLHR").is_err());
        assert_eq!(
            bbox_list("B", "38,26,43,34; -25,175,-15,-175").unwrap(),
            [[38.0, 26.0, 43.0, 34.0], [-25.0, 175.0, -15.0, -175.0]]
        );
        assert!(bbox_list("B", "91,0,10,10").is_err());
        assert!(bbox_list("B", "1,1,1,1").is_err(), "degenerate");
        assert_eq!(bbox_key(&[38.0, 26.5, 43.0, -34.0]), "38,26.5,43,-34");
    }
}
