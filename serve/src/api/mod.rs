//! The REST surface: operation groups, the shared GET pipeline and the error edge. Which
//! operations exist, and who may call them, is declared in `crate::registry`.

pub mod answer;
pub mod aviation;
pub mod batch;
pub mod canonical;
pub mod climate;
pub mod conflict;
pub mod consumer_prices;
pub mod cursor;
pub mod dataset_read;
pub mod embedded_json;
pub mod encoding;
pub mod error;
pub mod intelligence;
pub mod jmes;
pub mod meta;
pub mod openapi_doc;
pub mod paged_list;
pub mod params;
pub mod records;
pub mod sql_values;
