//! Upstream connectors: one module per upstream, each a connector (HTTP requests, paging, auth),
//! a parser (the upstream's exact wire format) and a normaliser (→ Arrow rows of a lake schema).
//!
//! Architecture invariant: this crate knows nothing about the lake, scheduling or API serving.
//! Live and replay modes share every line of parsing code; only [`transport::Transport`] differs
//! (the upstream origin vs the local [`replay::FixtureServer`] that replays `data/fixtures/`).

pub mod acled;
pub mod admin0;
pub mod adsb;
pub mod airport_delays;
pub mod airport_flights;
pub mod arrow_util;
pub mod aviation_news;
pub mod aviationstack;
pub mod budget;
pub mod climate_disasters;
pub mod climate_news;
pub mod comtrade;
pub mod config;
pub mod consumer_prices;
pub mod edgar;
pub mod ember;
pub mod error;
pub mod feeds;
pub mod flight_search;
pub mod gas_storage;
pub mod hdx;
pub mod http;
pub mod iea_stocks;
pub mod iran;
pub mod jodi_csv;
pub mod jodi_gas;
pub mod jodi_oil;
pub mod lenient;
pub mod noaa_gml;
pub mod ocean_ice;
pub mod open_meteo;
pub mod openaq;
pub mod pace;
pub mod portwatch;
pub mod positions;
pub mod public_fetch;
pub mod registry;
pub mod replay;
pub mod source;
pub mod spr_registry;
pub mod synthetic;
pub mod time;
pub mod transport;
pub mod travelpayouts;
pub mod ucdp;
pub mod watch_lists;
pub mod web_search;
pub mod xml_tree;
pub mod youtube;

pub use config::UpstreamConfig;
pub use error::SourceError;
pub use source::{FetchContext, Fetched, Scope, Source, Window};
