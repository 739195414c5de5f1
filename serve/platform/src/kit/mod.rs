//! The answer kit: what every handler uses to turn a request into an answer. Parsing and checking
//! parameters, the canonical form of a request, cursors, reading a dataset's current version, the
//! rendered-body cache with its ETags and encodings, jmespath, and the error edge.

pub mod answer;
pub mod canonical;
pub mod cursor;
pub mod dataset_read;
pub mod embedded_json;
pub mod encoding;
pub mod error;
pub mod jmes;
pub mod json_body;
pub mod paged_list;
pub mod params;
pub mod parse;
pub mod wire_name;
