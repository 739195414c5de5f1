//! Company monitoring (SUPPLEMENT Part 4): the domain of the ten operations and of the monitoring
//! pipeline, without HTTP. Text normalisation and validation of company inputs, the enums and
//! identifiers, signed cursors, and the store of companies and their claims. The API group (`sitrep_api::company_monitoring`) maps requests
//! onto it; the ingest worker runs its scans.

pub mod company_input;
pub mod cursor;
pub mod filters;
pub mod ids;
pub mod impacts;
pub mod patch;
pub mod pipeline;
pub mod records;
pub mod settings;
pub mod store;
pub mod text;
pub mod violations;
