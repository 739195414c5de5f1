//! Company monitoring's NEWS provider (SUPPLEMENT 4.8, a Decision): the news items we already
//! ingest (aviation news, climate news), read from the lake's current versions.

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

/// The news items, or `None` when a news dataset is unavailable (never published, or unreadable).
pub async fn load(lake: &Lake) -> Option<News> {
    let commit = lake.latest_commit().await.ok()?;
    let mut news = News { items: Vec::new(), fresh: true };
    for (dataset, snippet_column) in DATASETS {
        let entry = commit.datasets.get(dataset.as_str())?;
        let batch = lake.read_rows(dataset, entry).await.ok()??;
        news.items.extend(items(&batch, snippet_column)?);
        news.fresh &= entry.freshness.status == DatasetStatus::Ok;
    }
    Some(news)
}
