//! GetFlightStatus (SUPPLEMENT 2.1.7, PRO): AviationStack through the read-through cache (120 s;
//! failures 30 s). Each live call spends one unit of the live and the monthly AviationStack
//! budgets, counted in the state store.

use poem::Request;
use sitrep_pipelines::aviationstack;

use super::{
    model::{Flight, FlightDataSource, GetFlightStatusResponse},
    params::{DATE, FLIGHT_NUMBER, ORIGIN},
};
use crate::read_through::Fresh;
use sitrep_platform::kit::wire_name::WireName;
use sitrep_platform::{
    app_state::AppState,
    kit::{
        answer::{live_get, Answer},
        canonical::{opt, Canonical},
        parse::{parse_with, Parsed},
    },
    registry::Operation,
};

const TTL: i64 = 120;
const FAILURE_TTL: i64 = 30;

/// `EK003` → `EK3`, ` ba 002 ` → `BA2`: upper case, no whitespace, no leading zeros in the number.
pub fn normalise_flight_number(raw: &str) -> String {
    let compact: String = raw.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_uppercase();
    if compact.len() <= 2 || !compact.is_char_boundary(2) {
        return compact;
    }
    let (airline, number) = compact.split_at(2);
    let digits_end = number.find(|c: char| !c.is_ascii_digit()).unwrap_or(number.len());
    let (digits, suffix) = number.split_at(digits_end);
    let trimmed = digits.trim_start_matches('0');
    let digits = if trimmed.is_empty() && !digits.is_empty() { "0" } else { trimmed };
    format!("{airline}{digits}{suffix}")
}

fn degraded(source: FlightDataSource) -> GetFlightStatusResponse {
    GetFlightStatusResponse { flights: Vec::new(), source: WireName(source), cache_hit: false }
}

pub async fn answer(state: &AppState, req: &Request, op: &'static Operation) -> Answer<GetFlightStatusResponse> {
    let Parsed { params: (number, date, origin), jmespath, .. } =
        match parse_with::<GetFlightStatusResponse, _>(req, op, |q, v| {
            let number = FLIGHT_NUMBER.checked(q, v);
            let date = DATE.checked(q, v);
            let origin = ORIGIN.raw(q).map(|o| o.trim().to_ascii_uppercase()).filter(|o| !o.is_empty());
            (number, date, origin)
        }) {
            Ok(parsed) => parsed,
            Err(e) => return e.into(),
        };
    let jmespath = jmespath.as_deref();
    let (number, date) = (normalise_flight_number(&number.unwrap_or_default()), date.unwrap_or_default());
    let rt = &crate::context(state).read_through;
    let replay = rt.is_replay();
    let Some(key) = rt.config.aviationstack_key.clone() else {
        return live_get(req, jmespath, &degraded(FlightDataSource::None), true, replay);
    };
    let asked = vec![("flight_number", number.clone()), ("date", date.clone()), ("origin", opt(&origin))];
    let cache_key = Canonical::new(asked).live_key("aviationstack-flight-status");
    let (mut answer, lease) = rt
        .get_or_fetch(
            &cache_key,
            || state.clock.now(),
            || async {
                let now = state.clock.now();
                let caller = crate::context::caller(state, req);
                let reserved = crate::context(state).reserve_aviationstack_call(&state.store, &caller, now).await;
                if let Some(ttl_seconds) = reserved.refusal_kept_for(FAILURE_TTL) {
                    return Fresh { value: degraded(FlightDataSource::Budget), ttl_seconds };
                }
                let mut query = vec![("flight_iata", number.as_str()), ("flight_date", date.as_str()), ("limit", "5")];
                if let Some(o) = &origin {
                    query.push(("dep_iata", o));
                }
                match aviationstack::flights(&rt.http, aviationstack::BASE, &key, &query, None).await {
                    Ok(rows) => {
                        let updated_at = now * 1000;
                        let flights =
                            rows.iter().map(|r| Flight::of_record(aviationstack::record(r), updated_at)).collect();
                        Fresh {
                            value: GetFlightStatusResponse {
                                flights,
                                source: WireName(FlightDataSource::Aviationstack),
                                cache_hit: false,
                            },
                            ttl_seconds: TTL,
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "aviationstack flight status failed");
                        Fresh { value: degraded(FlightDataSource::Error), ttl_seconds: FAILURE_TTL }
                    }
                }
            },
        )
        .await;
    answer.cache_hit = lease.hit;
    let degraded = answer.source.0 != FlightDataSource::Aviationstack;
    rt.answer(state, req, jmespath, &answer, degraded, lease)
}

#[cfg(test)]
mod tests {
    #[test]
    fn flight_numbers_are_normalised() {
        for (raw, normal) in [
            ("EK003", "EK3"),
            ("ba002", "BA2"),
            (" tk 1979 ", "TK1979"),
            ("TK0", "TK0"),
            ("U2100", "U2100"),
            ("LH000", "LH0"),
        ] {
            assert_eq!(super::normalise_flight_number(raw), normal, "{raw}");
        }
    }
}
