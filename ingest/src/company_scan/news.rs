//! Company monitoring's NEWS provider (SUPPLEMENT 4.8, a Decision): the news items we already
//! ingest (aviation news, climate news), read from the lake's current versions — those the lake
//! has: NEWS covers what the deployment ingests, and does not run where it ingests none.

use arrow::{
    array::{Array, StringArray, TimestampMillisecondArray},
    record_batch::RecordBatch,
};
use sitrep_lake::Lake;
use sitrep_schemas::{DatasetId, DatasetStatus};

/// The news datasets and the column each keeps its snippet in.
const DATASETS: [(DatasetId, &str); 2] = [(DatasetId::AVIATION_NEWS, "snippet"), (DatasetId::CLIMATE_NEWS, "summary")];

/// One ingested news item.
#[derive(Debug, Clone, PartialEq)]
pub struct NewsItem {
    pub id: String,
    pub title: String,
    pub url: String,
    pub source: String,
    pub snippet: String,
    pub published_at: i64,
}

/// Every news item of the current versions, and whether all their datasets are fresh (their
/// last ingest succeeded).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct News {
    pub items: Vec<NewsItem>,
    pub fresh: bool,
}

fn strings<'a>(batch: &'a RecordBatch, name: &str) -> Option<&'a StringArray> {
    batch.column_by_name(name)?.as_any().downcast_ref::<StringArray>()
}

fn items(batch: &RecordBatch, snippet_column: &str) -> Option<Vec<NewsItem>> {
    let (id, title, url, source) =
        (strings(batch, "id")?, strings(batch, "title")?, strings(batch, "url")?, strings(batch, "source_name")?);
    let snippet = strings(batch, snippet_column)?;
    let published = batch.column_by_name("published_at")?.as_any().downcast_ref::<TimestampMillisecondArray>()?;
    Some(
        (0..batch.num_rows())
            .filter(|&i| !published.is_null(i))
            .map(|i| NewsItem {
                id: id.value(i).to_string(),
                title: title.value(i).to_string(),
                url: url.value(i).to_string(),
                source: source.value(i).to_string(),
                snippet: snippet.value(i).to_string(),
                published_at: published.value(i),
            })
            .collect(),
    )
}

/// What NEWS has to read: it covers what the deployment ingests (issue 47's decision).
#[derive(Debug, Clone, PartialEq)]
pub enum NewsSource {
    /// The lake has no news dataset: this deployment ingests none, and NEWS does not run (a
    /// provider that cannot run is not listed, and does not hold coverage back forever).
    NotIngested,
    /// A news dataset the lake has cannot be read: NEWS fails.
    Unavailable,
    /// The items of every news dataset the lake has.
    Read(News),
}

/// The news items of the news datasets the lake has.
pub async fn load(lake: &Lake) -> NewsSource {
    let Ok(commit) = lake.latest_commit().await else { return NewsSource::Unavailable };
    let mut news = News { items: Vec::new(), fresh: true };
    let mut ingested = false;
    for (dataset, snippet_column) in DATASETS {
        let Some(entry) = commit.datasets.get(dataset.as_str()) else { continue };
        ingested = true;
        let read = match lake.read_rows(dataset, entry).await {
            Ok(Some(batch)) => items(&batch, snippet_column),
            _ => None,
        };
        let Some(read) = read else { return NewsSource::Unavailable };
        news.items.extend(read);
        news.fresh &= entry.freshness.status == DatasetStatus::Ok;
    }
    if ingested {
        NewsSource::Read(news)
    } else {
        NewsSource::NotIngested
    }
}
