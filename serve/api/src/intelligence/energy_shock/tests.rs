//! SUPPLEMENT 2.5.7's three worked examples with exactly their inputs and outputs, then one test
//! per assessment branch, limitation and gas branch.

use super::*;
use sitrep_platform::kit::wire_name::WireName;
use sitrep_schemas::energy::GasStorageTrend;

fn scenario(cc: &str, cp: &str, pct: i32, mode: &str) -> Scenario {
    Scenario::normalise(Some(cc), Some(cp), Some(pct), Some(mode))
}

fn products(a: &EnergyShockScenario) -> Vec<(&str, f64, f64)> {
    a.products.iter().map(|p| (p.product.as_str(), p.output_loss_kbd, p.deficit_pct)).collect()
}

fn japan() -> Inputs {
    Inputs {
        flow: Some(ChokepointFlow { flow_ratio: 0.9 }),
        jodi_oil: Some(JodiOil {
            crude_imports_kbd: Some(2400.0),
            crude_exports_kbd: Some(0.0),
            demand_kbd: [Some(820.0), Some(700.0), Some(180.0), Some(450.0)],
        }),
        comtrade: Some(Comtrade { gulf_value_usd: 46.0e9, total_value_usd: 50.0e9 }),
        iea: Some(IeaStocks { days_of_cover: Some(220), net_exporter: false, anomaly: false }),
        fossil_share: Some(68.0),
        spr: Some(SprEntry {
            regime: "government_spr".into(),
            operator: Some("JOGMEC".into()),
            capacity_mb: Some(324.0),
            iea_member: true,
        }),
        ..Default::default()
    }
}

fn pakistan() -> Inputs {
    Inputs {
        jodi_oil: Some(JodiOil {
            crude_imports_kbd: Some(200.0),
            crude_exports_kbd: None,
            demand_kbd: [Some(180.0), Some(160.0), Some(20.0), Some(0.0)],
        }),
        fossil_share: Some(62.0),
        ..Default::default()
    }
}

fn germany_gas() -> Inputs {
    Inputs {
        flow: Some(ChokepointFlow { flow_ratio: 0.9 }),
        jodi_gas: Some(JodiGas { lng_imports_tj: 60_000.0, total_demand_tj: 280_000.0, lng_share_of_imports: 0.2 }),
        storage: Some(GasStorageRow {
            fill_pct: 72.4,
            gas_twh: 180.5,
            trend: WireName(GasStorageTrend::Injecting),
            date: "2026-05-30".into(),
        }),
        ..Default::default()
    }
}

#[test]
fn example_a_japan_oil() {
    let a = compute(&scenario("jp", "hormuz_strait", 50, "oil"), &japan());
    assert_eq!((a.gulf_crude_share, a.crude_loss_kbd), (0.828, 993.6));
    assert_eq!(
        products(&a),
        [("Gasoline", 437.2, 53.3), ("Diesel", 298.1, 42.6), ("Jet fuel", 99.4, 55.2), ("LPG", 49.7, 11.0)]
    );
    assert_eq!(a.effective_cover_days, 531);
    assert_eq!(
        (a.coverage_level, a.chokepoint_confidence, a.live_flow_ratio),
        (CoverageLevel::Full, ChokepointConfidence::High, Some(0.9))
    );
    assert_eq!(a.limitations, [LIMIT_YIELDS]);
    assert_eq!(
        a.assessment,
        "With 220 days IEA cover, Japan can bridge a 50% Strait of Hormuz disruption for ~531 days."
    );
    assert_eq!(
        (a.country_code.as_str(), a.data_available, a.degraded, a.gas_impact.is_none()),
        ("JP", true, false, true)
    );
}

#[test]
fn example_b_pakistan_without_flow_data() {
    let a = compute(&scenario("PK", "hormuz_strait", 100, "oil"), &pakistan());
    assert_eq!((a.gulf_crude_share, a.crude_loss_kbd), (0.4, 80.0));
    assert_eq!(
        products(&a),
        [("Gasoline", 35.2, 19.6), ("Diesel", 24.0, 15.0), ("Jet fuel", 8.0, 40.0)],
        "no LPG demand"
    );
    assert_eq!(a.effective_cover_days, 0);
    assert_eq!(
        (a.coverage_level, a.degraded, a.chokepoint_confidence, a.live_flow_ratio),
        (CoverageLevel::Partial, true, ChokepointConfidence::None, None)
    );
    assert_eq!(a.limitations, [LIMIT_GULF_PROXY, LIMIT_IEA, LIMIT_YIELDS, LIMIT_PORTWATCH, LIMIT_UNCLASSIFIED]);
    assert_eq!(
        a.assessment,
        "Pakistan faces 40.0% jet fuel deficit under 100% Strait of Hormuz disruption; IEA cover: unknown. Gulf share proxied at 40% (live flow data unavailable, using historical baseline)."
    );
}

#[test]
fn example_c_germany_gas() {
    let a = compute(&scenario("DE", "hormuz_strait", 50, "gas"), &germany_gas());
    let g = a.gas_impact.as_ref().unwrap();
    assert_eq!((g.lng_disruption_tj, g.deficit_pct, g.lng_share_of_imports), (8100.0, 2.9, 0.2));
    let st = g.storage.as_ref().unwrap();
    assert_eq!(
        (st.buffer_days, st.fill_pct, st.gas_twh, st.trend.0.as_str(), st.scope.as_str(), st.date.as_str()),
        (2407, 72.4, 180.5, "injecting", "europe", "2026-05-30")
    );
    assert_eq!(g.assessment, "DE has 2407 days of gas storage buffer under 50% hormuz_strait LNG disruption.");
    assert_eq!((a.assessment.as_str(), g.data_source), (g.assessment.as_str(), GasDataSource::GieDaily));
    assert_eq!(a.coverage_level, CoverageLevel::Full);
    assert_eq!(
        (a.gulf_crude_share, a.crude_loss_kbd, a.products.len(), a.effective_cover_days),
        (0.0, 0.0, 0, 0),
        "oil zeroed"
    );
    assert!(!a.jodi_oil_coverage && !a.comtrade_coverage && !a.iea_stocks_coverage && a.portwatch_coverage);
    assert_eq!(a.limitations, [LIMIT_LNG]);
    assert!(a.data_available);
}

#[test]
fn normalising_the_parameters() {
    let s = Scenario::normalise(Some(" jp "), Some(" SUEZ "), Some(5), Some("GAS "));
    assert_eq!(
        s,
        Scenario {
            country_code: "JP".into(),
            chokepoint_id: "suez".into(),
            disruption_pct: 10,
            fuel_mode: FuelMode::Gas
        }
    );
    let s = Scenario::normalise(Some("jp"), None, None, Some("coal"));
    assert_eq!((s.chokepoint_id.as_str(), s.disruption_pct, s.fuel_mode), ("hormuz_strait", 10, FuelMode::Oil));
    assert_eq!(Scenario::normalise(None, None, Some(0), None).disruption_pct, 10);
    assert_eq!(Scenario::normalise(None, None, Some(75), None).disruption_pct, 75);
}

#[test]
fn empty_answers_for_an_invalid_country_or_chokepoint() {
    let a = compute(&scenario("JPN", "hormuz_strait", 50, "both"), &japan());
    assert_eq!(a.assessment, "Insufficient data to compute shock scenario for JPN.");
    assert_eq!(
        (a.coverage_level, a.data_available, a.limitations.len(), a.gas_impact.is_none()),
        (CoverageLevel::Unsupported, false, 0, true)
    );
    assert_eq!((a.chokepoint_confidence, a.live_flow_ratio, a.disruption_pct), (ChokepointConfidence::None, None, 50));
    let a = compute(&scenario("JP", "panama", 50, "oil"), &japan());
    assert_eq!(
        a.assessment,
        "Unknown chokepoint: panama. Valid chokepoints: hormuz_strait, malacca_strait, suez, bab_el_mandeb."
    );
    assert_eq!((a.chokepoint_id.as_str(), a.crude_loss_kbd), ("panama", 0.0));
}

#[test]
fn every_oil_assessment_branch() {
    let s = scenario("JP", "hormuz_strait", 50, "oil");
    // 1. No JODI oil: unsupported.
    let a = compute(&s, &Inputs { jodi_oil: None, ..japan() });
    assert_eq!(a.assessment, "Insufficient import data for Japan to model Strait of Hormuz exposure.");
    assert_eq!((a.coverage_level, a.data_available), (CoverageLevel::Unsupported, false));
    // 2. A net exporter by IEA, and by JODI when IEA has no record.
    let exporter =
        "Japan is a net oil exporter; Strait of Hormuz disruption affects export revenue, not domestic supply.";
    let a = compute(
        &s,
        &Inputs { iea: Some(IeaStocks { days_of_cover: None, net_exporter: true, anomaly: false }), ..japan() },
    );
    assert_eq!((a.assessment.as_str(), a.effective_cover_days), (exporter, -1));
    let mut by_jodi = japan();
    by_jodi.iea = None;
    by_jodi.jodi_oil.as_mut().unwrap().crude_exports_kbd = Some(3000.0);
    assert_eq!(compute(&s, &by_jodi).assessment, exporter);
    // 3. Low Gulf dependence: 4 % of 0.9.
    let a = compute(
        &s,
        &Inputs { comtrade: Some(Comtrade { gulf_value_usd: 4.0e9, total_value_usd: 100.0e9 }), ..japan() },
    );
    assert_eq!(
        a.assessment,
        "Japan has low Gulf crude dependence (4%); Strait of Hormuz disruption has limited direct impact."
    );
    // 4. Cover at the cap.
    let a = compute(
        &s,
        &Inputs { iea: Some(IeaStocks { days_of_cover: Some(900), net_exporter: false, anomaly: false }), ..japan() },
    );
    assert_eq!(a.effective_cover_days, 730);
    assert_eq!(a.assessment, "With 900 days IEA cover, Japan is indefinitely bridgeable against a 50% Strait of Hormuz disruption at this deficit rate.");
    // 5. Over 90 days: example A. 6. Otherwise: the worst deficit, the earlier product on a tie.
    let mut tie = japan();
    tie.iea = Some(IeaStocks { days_of_cover: Some(30), net_exporter: false, anomaly: false });
    // Gasoline 437.184 / 874.368 = 50 %, Diesel 298.08 / 596.16 = 50 %.
    tie.jodi_oil.as_mut().unwrap().demand_kbd = [Some(874.368), Some(596.16), None, None];
    let a = compute(&s, &tie);
    assert_eq!(a.effective_cover_days, 72);
    assert_eq!(
        a.assessment,
        "Japan faces 50.0% gasoline deficit under 50% Strait of Hormuz disruption; IEA cover: 30 days."
    );
    let mut none = tie.clone();
    none.jodi_oil.as_mut().unwrap().demand_kbd = [None; 4];
    assert_eq!(
        compute(&s, &none).assessment,
        "Japan faces 0.0% product deficit under 50% Strait of Hormuz disruption; IEA cover: 30 days."
    );
}

#[test]
fn iea_anomalies_and_negative_cover_are_not_coverage() {
    let s = scenario("JP", "hormuz_strait", 50, "oil");
    for iea in [
        IeaStocks { days_of_cover: Some(600), net_exporter: false, anomaly: true },
        IeaStocks { days_of_cover: Some(-5), net_exporter: false, anomaly: false },
    ] {
        let a = compute(&s, &Inputs { iea: Some(iea), ..japan() });
        assert_eq!((a.iea_stocks_coverage, a.coverage_level), (false, CoverageLevel::Partial));
        assert!(a.limitations.contains(&LIMIT_IEA.to_string()));
    }
    // Degraded flows alone make full coverage partial.
    let a = compute(&s, &Inputs { flow: Some(ChokepointFlow { flow_ratio: f64::NAN }), ..japan() });
    assert_eq!((a.degraded, a.coverage_level, a.gulf_crude_share), (true, CoverageLevel::Partial, 0.92));
    // Flow ratios are clamped to 0–1.5.
    let a = compute(&s, &Inputs { flow: Some(ChokepointFlow { flow_ratio: 2.4 }), ..japan() });
    assert_eq!(a.live_flow_ratio, Some(1.5));
}

#[test]
fn limitations_in_order() {
    let s = scenario("JP", "malacca_strait", 50, "both");
    let mut inputs = pakistan();
    inputs.fossil_share = Some(71.0);
    inputs.spr =
        Some(SprEntry { regime: "government_spr".into(), operator: None, capacity_mb: None, iea_member: false });
    inputs.jodi_gas = germany_gas().jodi_gas;
    let a = compute(&s, &inputs);
    assert_eq!(
        a.limitations,
        [
            LIMIT_GULF_PROXY,
            LIMIT_IEA,
            LIMIT_YIELDS,
            LIMIT_PORTWATCH,
            LIMIT_FOSSIL,
            "strategic reserves: government_spr (state-run, ?Mb capacity)",
            LIMIT_LNG
        ]
    );
    inputs.spr = Some(SprEntry {
        regime: "government_spr".into(),
        operator: Some("SPRO".into()),
        capacity_mb: Some(39.5),
        iea_member: false,
    });
    assert!(compute(&s, &inputs)
        .limitations
        .contains(&"strategic reserves: government_spr (SPRO, 39.5Mb capacity)".to_string()));
    inputs.spr = Some(SprEntry {
        regime: "mandatory_stockholding".into(),
        operator: None,
        capacity_mb: None,
        iea_member: false,
    });
    assert!(
        !compute(&s, &inputs).limitations.iter().any(|l| l.contains("strategic reserve")),
        "classified, not a government SPR"
    );
}

#[test]
fn every_gas_assessment_branch() {
    let s = scenario("DE", "hormuz_strait", 50, "gas");
    let a = compute(&s, &Inputs { jodi_gas: None, ..germany_gas() });
    let g = a.gas_impact.as_ref().unwrap();
    assert_eq!(g.assessment, "Insufficient gas import data for DE to model hormuz_strait LNG exposure.");
    assert_eq!(
        (g.data_available, g.data_source, a.coverage_level, a.data_available),
        (false, GasDataSource::Missing, CoverageLevel::Unsupported, false)
    );
    let gas = |lng: f64, share: f64, storage: bool| {
        let mut i = germany_gas();
        i.jodi_gas = Some(JodiGas { lng_imports_tj: lng, total_demand_tj: 280_000.0, lng_share_of_imports: share });
        if !storage {
            i.storage = None;
        }
        compute(&s, &i).gas_impact.unwrap()
    };
    assert_eq!(
        gas(0.0, 0.0, true).assessment,
        "DE imports gas via pipeline only (no LNG); hormuz_strait disruption has no direct LNG impact."
    );
    assert_eq!(gas(0.0, 0.0, true).storage.unwrap().buffer_days, 0);
    assert_eq!(
        gas(20_000.0, 0.06, true).assessment,
        "DE has low LNG dependence (6% of gas imports via LNG); hormuz_strait disruption has limited gas impact."
    );
    // 2,000,000 TJ of LNG: 270,000 TJ disrupted (96.4 % of demand), storage 180.5 TWh → 72 days.
    let heavy = gas(2_000_000.0, 0.9, true);
    assert_eq!(
        heavy.assessment,
        "DE faces 96.4% gas supply deficit under 50% hormuz_strait LNG disruption; gas storage covers ~72 days."
    );
    let no_storage = gas(60_000.0, 0.2, false);
    assert_eq!(no_storage.assessment, "DE faces 2.9% gas supply deficit under 50% hormuz_strait LNG disruption.");
    assert_eq!(no_storage.data_source, GasDataSource::JodiMonthly);
    // Degraded flows: partial coverage in gas mode, the LNG loss without the flow multiplier.
    let a = compute(&s, &Inputs { flow: None, ..germany_gas() });
    assert_eq!((a.coverage_level, a.gas_impact.unwrap().lng_disruption_tj), (CoverageLevel::Partial, 9000.0));
}

#[test]
fn both_modes_and_gas_without_oil() {
    let mut inputs = japan();
    inputs.jodi_gas = germany_gas().jodi_gas;
    let a = compute(&scenario("JP", "hormuz_strait", 50, "both"), &inputs);
    assert_eq!(a.crude_loss_kbd, 993.6, "the oil result stays");
    assert!(a.gas_impact.as_ref().is_some_and(|g| g.data_available));
    assert_eq!(a.limitations, [LIMIT_YIELDS, LIMIT_LNG]);
    let a = compute(&scenario("DE", "hormuz_strait", 50, "both"), &germany_gas());
    assert_eq!((a.coverage_level, a.data_available), (CoverageLevel::Partial, true));
    assert_eq!(a.assessment, "DE has 2407 days of gas storage buffer under 50% hormuz_strait LNG disruption.");
}
