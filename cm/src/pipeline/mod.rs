//! The monitoring pipeline's rules (SUPPLEMENT 4.8), without I/O: which companies an item is
//! about and how surely (`matching`, on `words`), what kind of event it reports (`lexicon`),
//! which URLs are evidence (`evidence_url`), how candidates become events and impacts
//! (`events`, which keeps reports stating different `numbers` apart), and what a scan makes of
//! a company's coverage (`coverage`, 4.9). The scan (in the ingest worker) feeds them provider
//! results and stores the outcome.

pub mod coverage;
pub mod events;
pub mod evidence_url;
pub mod filings;
pub mod lexicon;
pub mod matching;
pub mod numbers;
pub mod words;
