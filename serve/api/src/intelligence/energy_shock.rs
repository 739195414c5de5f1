//! ComputeEnergyShockScenario's computation (SUPPLEMENT 2.5.1, 2.5.4–2.5.6): the scenario's
//! parameters normalised, then the oil and gas effects of a chokepoint disruption on a country from
//! its inputs — chokepoint flows, JODI oil and gas balances, Comtrade's Gulf crude share, IEA stock
//! cover, the Ember fossil share, the SPR registry and EU gas storage. No IO: the operation
//! gathers the inputs from one generation and calls [`compute`].

use poem_openapi::{Enum, Object};
use serde::Serialize;
use sitrep_platform::kit::wire_name::WireName;
use sitrep_schemas::{energy::GasStorageTrend, numbers::round_to};

/// The chokepoints: id, display name, crude exposure, LNG exposure (2.5.4).
const CHOKEPOINTS: [(&str, &str, f64, f64); 4] = [
    ("hormuz_strait", "Strait of Hormuz", 1.0, 0.30),
    ("malacca_strait", "Strait of Malacca", 0.7, 0.50),
    ("suez", "Suez Canal", 0.6, 0.20),
    ("bab_el_mandeb", "Bab el-Mandeb", 1.0, 0.20),
];
const PROXIED_GULF_SHARE: f64 = 0.40;
const COVER_CAP_DAYS: i64 = 730;
const LIMIT_GULF_PROXY: &str = "Gulf crude share proxied at 40% (no Comtrade data)";
const LIMIT_IEA: &str = "IEA strategic stock data unavailable";
const LIMIT_YIELDS: &str = "refinery yields: US-average EIA basis, gasoline 44%, diesel 30%, jet 10%, LPG 5%";
const LIMIT_PORTWATCH: &str = "PortWatch flow data unavailable, using historical baseline multipliers";
const LIMIT_FOSSIL: &str = "high fossil grid dependency: limited electricity substitution capacity";
const LIMIT_UNCLASSIFIED: &str = "strategic reserve policy: not classified for this country";
const LIMIT_LNG: &str = "LNG chokepoint exposure estimates based on global trade route shares";
/// What gas mode drops from the oil limitations.
const OIL_ONLY: [&str; 4] = ["refinery yield", "Gulf crude share", "IEA strategic stock", "strategic reserve"];

/// The products, in order, with their refinery yields (2.5.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Product {
    Gasoline,
    Diesel,
    JetFuel,
    Lpg,
}

impl Product {
    pub const ALL: [Product; 4] = [Product::Gasoline, Product::Diesel, Product::JetFuel, Product::Lpg];

    pub fn name(self) -> &'static str {
        match self {
            Product::Gasoline => "Gasoline",
            Product::Diesel => "Diesel",
            Product::JetFuel => "Jet fuel",
            Product::Lpg => "LPG",
        }
    }

    fn refinery_yield(self) -> f64 {
        match self {
            Product::Gasoline => 0.44,
            Product::Diesel => 0.30,
            Product::JetFuel => 0.10,
            Product::Lpg => 0.05,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FuelMode {
    Oil,
    Gas,
    Both,
}

/// The scenario after 2.5.1's normalisation.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub country_code: String,
    pub chokepoint_id: String,
    pub disruption_pct: i32,
    pub fuel_mode: FuelMode,
}

impl Scenario {
    /// 2.5.1: the country trimmed and upper-cased; the chokepoint trimmed and lower-cased
    /// (absent: hormuz_strait); disruption 0/absent or 1–9 → 10 (callers refuse values outside
    /// 0–100 first); any fuel mode but gas or both → oil.
    pub fn normalise(
        country: Option<&str>,
        chokepoint: Option<&str>,
        disruption_pct: Option<i32>,
        fuel_mode: Option<&str>,
    ) -> Scenario {
        let chokepoint = chokepoint.map(|c| c.trim().to_lowercase()).filter(|c| !c.is_empty());
        Scenario {
            country_code: country.unwrap_or("").trim().to_uppercase(),
            chokepoint_id: chokepoint.unwrap_or_else(|| "hormuz_strait".into()),
            disruption_pct: match disruption_pct.unwrap_or(0) {
                p if p < 10 => 10,
                p => p,
            },
            fuel_mode: match fuel_mode.map(|m| m.trim().to_lowercase()).as_deref() {
                Some("gas") => FuelMode::Gas,
                Some("both") => FuelMode::Both,
                _ => FuelMode::Oil,
            },
        }
    }
}

/// A chokepoint's current flow (dataset chokepoint-flows).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChokepointFlow {
    pub flow_ratio: f64,
}

/// A country's JODI oil balance (kb/d): crude imports and exports, and each product's demand.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JodiOil {
    pub crude_imports_kbd: Option<f64>,
    pub crude_exports_kbd: Option<f64>,
    /// Demand per product, in [`Product::ALL`] order.
    pub demand_kbd: [Option<f64>; 4],
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comtrade {
    pub gulf_value_usd: f64,
    pub total_value_usd: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IeaStocks {
    pub days_of_cover: Option<i64>,
    pub net_exporter: bool,
    pub anomaly: bool,
}

/// A country's entry in our SPR registry.
#[derive(Debug, Clone, PartialEq)]
pub struct SprEntry {
    pub regime: String,
    pub operator: Option<String>,
    pub capacity_mb: Option<f64>,
    pub iea_member: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JodiGas {
    pub lng_imports_tj: f64,
    pub total_demand_tj: f64,
    pub lng_share_of_imports: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GasStorageRow {
    pub fill_pct: f64,
    pub gas_twh: f64,
    pub trend: WireName<GasStorageTrend>,
    pub date: String,
}

/// Everything the computation reads for one country and chokepoint; `None` = no record.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inputs {
    pub flow: Option<ChokepointFlow>,
    pub jodi_oil: Option<JodiOil>,
    pub comtrade: Option<Comtrade>,
    pub iea: Option<IeaStocks>,
    /// Ember's fossil share of generation, %.
    pub fossil_share: Option<f64>,
    pub spr: Option<SprEntry>,
    pub jodi_gas: Option<JodiGas>,
    /// Only for the EU set (AGSI+).
    pub storage: Option<GasStorageRow>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Enum)]
#[serde(rename_all = "lowercase")]
#[oai(rename_all = "lowercase")]
pub enum CoverageLevel {
    Full,
    Partial,
    Unsupported,
}

/// How far the live chokepoint flow can be trusted: `high` with a current PortWatch ratio.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Enum)]
#[serde(rename_all = "lowercase")]
#[oai(rename_all = "lowercase")]
pub enum ChokepointConfidence {
    High,
    None,
}

/// Where a gas impact's figures come from: daily EU storage, or JODI's monthly balance alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Enum)]
#[serde(rename_all = "snake_case")]
#[oai(rename_all = "snake_case")]
pub enum GasDataSource {
    GieDaily,
    JodiMonthly,
    /// No gas record.
    #[serde(rename = "")]
    #[oai(rename = "")]
    Missing,
}

#[derive(Debug, Clone, Serialize, Object, PartialEq)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ProductImpact {
    pub product: String,
    pub output_loss_kbd: f64,
    pub demand_kbd: f64,
    pub deficit_pct: f64,
}

#[derive(Debug, Clone, Serialize, Object, PartialEq)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GasStorage {
    pub fill_pct: f64,
    pub gas_twh: f64,
    pub buffer_days: i64,
    /// GasStorageTrend.
    pub trend: WireName<GasStorageTrend>,
    /// YYYY-MM-DD.
    pub date: String,
    /// "europe".
    pub scope: String,
}

#[derive(Debug, Clone, Serialize, Object, PartialEq)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GasImpact {
    pub lng_share_of_imports: f64,
    pub lng_imports_tj: f64,
    pub lng_disruption_tj: f64,
    pub total_demand_tj: f64,
    pub deficit_pct: f64,
    pub data_available: bool,
    pub assessment: String,
    /// GasDataSource: "" without gas data.
    pub data_source: GasDataSource,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage: Option<GasStorage>,
}

#[derive(Debug, Clone, Serialize, Object, PartialEq)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct EnergyShockScenario {
    pub country_code: String,
    pub chokepoint_id: String,
    pub disruption_pct: i32,
    pub gulf_crude_share: f64,
    pub crude_loss_kbd: f64,
    pub products: Vec<ProductImpact>,
    pub effective_cover_days: i32,
    pub assessment: String,
    pub data_available: bool,
    pub jodi_oil_coverage: bool,
    pub comtrade_coverage: bool,
    pub iea_stocks_coverage: bool,
    pub portwatch_coverage: bool,
    pub coverage_level: CoverageLevel,
    pub limitations: Vec<String>,
    pub degraded: bool,
    /// ChokepointConfidence (`low` is reserved by the contract and never produced, so not declared).
    pub chokepoint_confidence: ChokepointConfidence,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_flow_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gas_impact: Option<GasImpact>,
}

/// 700.0 → "700", 69.5 → "69.5".
fn plain_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

fn country_name(code: &str) -> String {
    sitrep_schemas::countries::name_of(code).unwrap_or(code).to_string()
}

/// 2.5.6's EMPTY answer: invalid country or chokepoint.
fn empty(s: &Scenario, assessment: String) -> EnergyShockScenario {
    EnergyShockScenario {
        country_code: s.country_code.clone(),
        chokepoint_id: s.chokepoint_id.clone(),
        disruption_pct: s.disruption_pct,
        gulf_crude_share: 0.0,
        crude_loss_kbd: 0.0,
        products: Vec::new(),
        effective_cover_days: 0,
        assessment,
        data_available: false,
        jodi_oil_coverage: false,
        comtrade_coverage: false,
        iea_stocks_coverage: false,
        portwatch_coverage: false,
        coverage_level: CoverageLevel::Unsupported,
        limitations: Vec::new(),
        degraded: false,
        chokepoint_confidence: ChokepointConfidence::None,
        live_flow_ratio: None,
        gas_impact: None,
    }
}

/// The scenario's answer from its inputs (2.5.5, 2.5.6).
pub fn compute(s: &Scenario, inputs: &Inputs) -> EnergyShockScenario {
    let valid_country = s.country_code.len() == 2 && s.country_code.bytes().all(|b| b.is_ascii_uppercase());
    if !valid_country {
        return empty(s, format!("Insufficient data to compute shock scenario for {}.", s.country_code));
    }
    let Some(&(cp_id, cp_name, crude_exposure, lng_exposure)) = CHOKEPOINTS.iter().find(|c| c.0 == s.chokepoint_id)
    else {
        let valid = CHOKEPOINTS.map(|c| c.0).join(", ");
        return empty(s, format!("Unknown chokepoint: {}. Valid chokepoints: {valid}.", s.chokepoint_id));
    };
    let pct = s.disruption_pct as f64;
    let country = country_name(&s.country_code);

    // 1–2. Flows.
    let live = inputs.flow.map(|f| f.flow_ratio).filter(|r| r.is_finite()).map(|r| r.clamp(0.0, 1.5));
    let degraded = live.is_none();
    let exposure_mult = crude_exposure * live.unwrap_or(1.0);
    // 3–4. Coverage.
    let jodi = inputs.jodi_oil.as_ref();
    let comtrade = inputs.comtrade.filter(|c| c.total_value_usd > 0.0);
    let iea = inputs.iea.filter(|i| !i.anomaly && (i.net_exporter || i.days_of_cover.is_some_and(|d| d >= 0)));
    let coverage_level = match (jodi, comtrade, iea) {
        (None, _, _) => CoverageLevel::Unsupported,
        (Some(_), None, _) => CoverageLevel::Partial,
        (Some(_), Some(_), None) => CoverageLevel::Partial,
        _ if degraded => CoverageLevel::Partial,
        _ => CoverageLevel::Full,
    };
    // 5–7. Crude and products.
    let gulf_share =
        comtrade.map(|c| c.gulf_value_usd / c.total_value_usd).unwrap_or(PROXIED_GULF_SHARE) * exposure_mult;
    let imports = jodi.and_then(|j| j.crude_imports_kbd).unwrap_or(0.0);
    let crude_loss = imports * gulf_share * pct / 100.0;
    let products: Vec<(Product, f64, f64, f64)> = Product::ALL
        .iter()
        .zip(jodi.map(|j| j.demand_kbd).unwrap_or_default())
        .filter_map(|(p, demand)| {
            let demand = demand.filter(|d| *d > 0.0)?;
            let loss = crude_loss * p.refinery_yield();
            Some((*p, loss, demand, (loss / demand * 100.0).clamp(0.0, 100.0)))
        })
        .collect();
    // 8. Cover.
    let net_exporter = match inputs.iea {
        Some(i) => i.net_exporter,
        None => jodi.is_some_and(|j| j.crude_exports_kbd.unwrap_or(0.0) > j.crude_imports_kbd.unwrap_or(0.0)),
    };
    let days = iea.and_then(|i| i.days_of_cover).unwrap_or(0);
    let cover_days = if net_exporter {
        -1
    } else if days > 0 && crude_loss > 0.0 && imports > 0.0 {
        ((days as f64 / (crude_loss / imports)).round() as i64).min(COVER_CAP_DAYS)
    } else {
        days.min(COVER_CAP_DAYS)
    };
    // 9. Limitations.
    let mut limitations: Vec<String> = Vec::new();
    if jodi.is_some() && comtrade.is_none() {
        limitations.push(LIMIT_GULF_PROXY.into());
    }
    if iea.is_none() {
        limitations.push(LIMIT_IEA.into());
    }
    limitations.push(LIMIT_YIELDS.into());
    if degraded {
        limitations.push(LIMIT_PORTWATCH.into());
    }
    if inputs.fossil_share.is_some_and(|f| f > 70.0) {
        limitations.push(LIMIT_FOSSIL.into());
    }
    match &inputs.spr {
        Some(spr) if spr.regime == "government_spr" && !spr.iea_member => limitations.push(format!(
            "strategic reserves: government_spr ({}, {}Mb capacity)",
            spr.operator.as_deref().unwrap_or("state-run"),
            spr.capacity_mb.map(plain_number).unwrap_or_else(|| "?".into())
        )),
        Some(_) => {}
        None => limitations.push(LIMIT_UNCLASSIFIED.into()),
    }
    let wants_gas = s.fuel_mode != FuelMode::Oil;
    if wants_gas && inputs.jodi_gas.is_some() {
        limitations.push(LIMIT_LNG.into());
    }
    // 10. Assessment.
    let note = if degraded { " (live flow data unavailable, using historical baseline)" } else { "" };
    let assessment = if coverage_level == CoverageLevel::Unsupported {
        format!("Insufficient import data for {country} to model {cp_name} exposure.")
    } else if cover_days == -1 {
        format!("{country} is a net oil exporter; {cp_name} disruption affects export revenue, not domestic supply.")
    } else if comtrade.is_some() && gulf_share < 0.1 {
        format!(
            "{country} has low Gulf crude dependence ({}%); {cp_name} disruption has limited direct impact.",
            (gulf_share * 100.0).round() as i64
        )
    } else if cover_days >= COVER_CAP_DAYS {
        format!(
            "With {days} days IEA cover, {country} is indefinitely bridgeable against a {pct}% {cp_name} disruption at this deficit rate{note}.",
            pct = s.disruption_pct
        )
    } else if cover_days > 90 {
        format!(
            "With {days} days IEA cover, {country} can bridge a {pct}% {cp_name} disruption for ~{cover_days} days{note}.",
            pct = s.disruption_pct
        )
    } else {
        // Worst deficit; the earlier product on a tie.
        let worst = products.iter().fold(None::<&(Product, f64, f64, f64)>, |w, p| match w {
            Some(w) if w.3 >= p.3 => Some(w),
            _ => Some(p),
        });
        let phrase = match worst {
            Some(w) => format!("{:.1}% {}", round_to(w.3, 1), w.0.name().to_lowercase()),
            None => "0.0% product".into(),
        };
        let cover = if iea.is_some() { format!("{days} days") } else { "unknown".into() };
        let proxied = if comtrade.is_none() { ". Gulf share proxied at 40%" } else { "" };
        format!(
            "{country} faces {phrase} deficit under {pct}% {cp_name} disruption; IEA cover: {cover}{proxied}{note}.",
            pct = s.disruption_pct
        )
    };

    let mut answer = EnergyShockScenario {
        country_code: s.country_code.clone(),
        chokepoint_id: cp_id.into(),
        disruption_pct: s.disruption_pct,
        gulf_crude_share: round_to(gulf_share, 3),
        crude_loss_kbd: round_to(crude_loss, 1),
        products: products
            .iter()
            .map(|(p, loss, demand, deficit)| ProductImpact {
                product: p.name().into(),
                output_loss_kbd: round_to(*loss, 1),
                demand_kbd: round_to(*demand, 1),
                deficit_pct: round_to(*deficit, 1),
            })
            .collect(),
        effective_cover_days: cover_days as i32,
        assessment,
        data_available: jodi.is_some(),
        jodi_oil_coverage: jodi.is_some(),
        comtrade_coverage: comtrade.is_some(),
        iea_stocks_coverage: iea.is_some(),
        portwatch_coverage: !degraded,
        coverage_level,
        limitations,
        degraded,
        chokepoint_confidence: if degraded { ChokepointConfidence::None } else { ChokepointConfidence::High },
        live_flow_ratio: live.map(|r| round_to(r, 3)),
        gas_impact: None,
    };
    if !wants_gas {
        return answer;
    }
    let gas = gas_impact(s, inputs, cp_id, lng_exposure, live);
    match s.fuel_mode {
        FuelMode::Gas => {
            answer.assessment = gas.assessment.clone();
            answer.data_available = gas.data_available;
            answer.coverage_level = match (&inputs.jodi_gas, degraded) {
                (None, _) => CoverageLevel::Unsupported,
                (Some(_), true) => CoverageLevel::Partial,
                (Some(_), false) => CoverageLevel::Full,
            };
            answer.gulf_crude_share = 0.0;
            answer.crude_loss_kbd = 0.0;
            answer.products.clear();
            answer.effective_cover_days = 0;
            answer.jodi_oil_coverage = false;
            answer.comtrade_coverage = false;
            answer.iea_stocks_coverage = false;
            answer.limitations.retain(|l| !OIL_ONLY.iter().any(|o| l.contains(o)));
        }
        FuelMode::Both if jodi.is_none() && inputs.jodi_gas.is_some() => {
            answer.coverage_level = CoverageLevel::Partial;
            answer.data_available = true;
            answer.assessment = gas.assessment.clone();
        }
        _ => {}
    }
    answer.gas_impact = Some(gas);
    answer
}

/// 2.5.6's gasImpact; present in gas and both modes, with dataAvailable false without a record.
fn gas_impact(s: &Scenario, inputs: &Inputs, cp_id: &str, lng_exposure: f64, live: Option<f64>) -> GasImpact {
    let (cc, pct) = (&s.country_code, s.disruption_pct);
    let Some(g) = inputs.jodi_gas else {
        return GasImpact {
            lng_share_of_imports: 0.0,
            lng_imports_tj: 0.0,
            lng_disruption_tj: 0.0,
            total_demand_tj: 0.0,
            deficit_pct: 0.0,
            data_available: false,
            assessment: format!("Insufficient gas import data for {cc} to model {cp_id} LNG exposure."),
            data_source: GasDataSource::Missing,
            storage: None,
        };
    };
    let disruption = g.lng_imports_tj * lng_exposure * live.unwrap_or(1.0) * pct as f64 / 100.0;
    let deficit =
        if g.total_demand_tj > 0.0 { (disruption / g.total_demand_tj * 100.0).clamp(0.0, 100.0) } else { 0.0 };
    let storage = inputs.storage.as_ref().map(|st| GasStorage {
        fill_pct: st.fill_pct,
        gas_twh: st.gas_twh,
        buffer_days: if disruption > 0.0 { (st.gas_twh * 3600.0 / (disruption / 30.0)).round() as i64 } else { 0 },
        trend: st.trend,
        date: st.date.clone(),
        scope: "europe".into(),
    });
    let assessment = if g.lng_imports_tj == 0.0 {
        format!("{cc} imports gas via pipeline only (no LNG); {cp_id} disruption has no direct LNG impact.")
    } else if g.lng_share_of_imports < 0.1 {
        format!(
            "{cc} has low LNG dependence ({}% of gas imports via LNG); {cp_id} disruption has limited gas impact.",
            (g.lng_share_of_imports * 100.0).round() as i64
        )
    } else if let Some(st) = storage.as_ref().filter(|st| st.buffer_days > 90) {
        format!("{cc} has {} days of gas storage buffer under {pct}% {cp_id} LNG disruption.", st.buffer_days)
    } else {
        let covers =
            storage.as_ref().map(|st| format!("; gas storage covers ~{} days", st.buffer_days)).unwrap_or_default();
        format!(
            "{cc} faces {:.1}% gas supply deficit under {pct}% {cp_id} LNG disruption{covers}.",
            round_to(deficit, 1)
        )
    };
    GasImpact {
        lng_share_of_imports: round_to(g.lng_share_of_imports, 3),
        lng_imports_tj: g.lng_imports_tj,
        lng_disruption_tj: round_to(disruption, 1),
        total_demand_tj: g.total_demand_tj,
        deficit_pct: round_to(deficit, 1),
        data_available: true,
        assessment,
        data_source: if storage.is_some() { GasDataSource::GieDaily } else { GasDataSource::JodiMonthly },
        storage,
    }
}

#[cfg(test)]
mod tests;
