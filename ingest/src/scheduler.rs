//! The scheduler: each dataset on its own UTC cron cadence. tokio-cron-scheduler has no overlap
//! protection, so each job holds a per-dataset guard and skips a tick while its previous run is
//! still going.

use std::sync::Arc;

use sitrep_schemas::DatasetId;
use tokio::sync::Mutex;
use tokio_cron_scheduler::{Job, JobScheduler};

use crate::{runner::Runner, IngestError};

/// Runs one dataset unless its previous run is still in progress; returns whether it ran.
pub async fn guarded_run(runner: &Runner, guard: &Mutex<()>, dataset: DatasetId) -> bool {
    let Ok(_held) = guard.try_lock() else {
        tracing::warn!(%dataset, "previous run still in progress; skipping this tick");
        return false;
    };
    if let Err(e) = runner.run(&[dataset]).await {
        tracing::error!(%dataset, error = %e, "scheduled run could not publish");
    }
    crate::memory::release_freed_pages();
    true
}

pub async fn start(runner: Arc<Runner>, datasets: &[DatasetId]) -> Result<JobScheduler, IngestError> {
    let err = |e: tokio_cron_scheduler::JobSchedulerError| IngestError::Usage(format!("scheduler: {e}"));
    let sched = JobScheduler::new().await.map_err(err)?;
    for &dataset in datasets {
        let guard = Arc::new(Mutex::new(()));
        let runner = runner.clone();
        let job = Job::new_async(dataset.cron(), move |_, _| {
            let (runner, guard) = (runner.clone(), guard.clone());
            Box::pin(async move {
                guarded_run(&runner, &guard, dataset).await;
            })
        })
        .map_err(err)?;
        sched.add(job).await.map_err(err)?;
        tracing::info!(%dataset, cron = dataset.cron(), "scheduled");
    }
    sched.start().await.map_err(err)?;
    Ok(sched)
}
