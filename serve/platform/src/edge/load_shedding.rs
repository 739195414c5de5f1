//! Load shedding by the work under way, not by the requests waiting (issue 58).
//!
//! The server refuses a request at once (503 `overloaded`, before any work) when
//! `max_in_flight` requests are already *at work*. A request parked behind another's work — the
//! 999 identical requests of a cold burst waiting for the one upstream fetch their single flight
//! makes, or the callers of a diff being computed — costs a task and a socket and no CPU, so it
//! steps out of the count while it waits ([`parked`]) and back in when it resumes. It is never
//! refused once admitted. What bounds the parked is the listener's connection cap and the
//! request deadline, and what they wait for is bounded where it runs (one upstream fetch per key,
//! one diff per pair and per account).

use std::{
    future::Future,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
};

tokio::task_local! {
    /// The request being answered (absent outside a request, e.g. in a background job: its waits
    /// change nothing).
    static ADMITTED: Arc<Admitted>;
}

/// A request admitted into a count, and how many of its waits are parked now (a batch's
/// sub-operations may wait at once: the request is out of the count while any of them is).
struct Admitted {
    at_work: Arc<AtWork>,
    parked: AtomicUsize,
}

/// Requests at work, and how many may be.
#[derive(Debug)]
pub struct AtWork {
    count: AtomicUsize,
    max: usize,
}

/// A request's place among those at work, given back when it is dropped.
#[must_use = "the place is given back when it is dropped"]
pub struct Place(Arc<AtWork>);

impl Drop for Place {
    fn drop(&mut self) {
        self.0.count.fetch_sub(1, Ordering::Release);
    }
}

impl AtWork {
    pub fn new(max: usize) -> Arc<AtWork> {
        Arc::new(AtWork { count: AtomicUsize::new(0), max: max.max(1) })
    }

    /// A place among the requests at work, or `None` when all are taken.
    pub fn enter(self: &Arc<Self>) -> Option<Place> {
        if self.count.fetch_add(1, Ordering::AcqRel) >= self.max {
            self.count.fetch_sub(1, Ordering::Release);
            return None;
        }
        Some(Place(self.clone()))
    }

    /// Requests at work now.
    pub fn now(&self) -> usize {
        self.count.load(Ordering::Acquire)
    }

    /// Runs `request` (admitted with a [`Place`] in `self`) so that [`parked`] waits inside it
    /// step out of the count.
    /// Not an `async fn`: one would hold `request` and the scope it is moved into, twice its size
    /// in every request's future.
    pub fn run<F: Future>(self: &Arc<Self>, request: F) -> impl Future<Output = F::Output> {
        let admitted = Arc::new(Admitted { at_work: self.clone(), parked: AtomicUsize::new(0) });
        ADMITTED.scope(admitted, request)
    }
}

/// A parked wait: the request is back in the count when its last parked wait is dropped, whether
/// the wait ended or was cancelled (the request's own [`Place`] then gives its place back as usual).
struct Away(Arc<Admitted>);

impl Drop for Away {
    fn drop(&mut self) {
        if self.0.parked.fetch_sub(1, Ordering::AcqRel) == 1 {
            // Back in without asking: a request once admitted is never refused.
            self.0.at_work.count.fetch_add(1, Ordering::AcqRel);
        }
    }
}

/// Awaits `wait` — another's work this request waits for, costing it no CPU — out of the count of
/// requests at work.
pub async fn parked<F: Future>(wait: F) -> F::Output {
    let away = ADMITTED.try_with(|admitted| {
        if admitted.parked.fetch_add(1, Ordering::AcqRel) == 0 {
            admitted.at_work.count.fetch_sub(1, Ordering::AcqRel);
        }
        Away(admitted.clone())
    });
    let out = wait.await;
    drop(away);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_parked_step_out_of_the_count_and_back_in() {
        let at_work = AtWork::new(2);
        let first = at_work.enter().expect("a place");
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let (parked_now, is_parked) = tokio::sync::oneshot::channel::<()>();
        let waiting = {
            let at_work = at_work.clone();
            tokio::spawn(async move {
                let place = at_work.enter().expect("a second place");
                at_work
                    .run(async {
                        parked(async {
                            parked_now.send(()).unwrap();
                            released.await.unwrap();
                        })
                        .await;
                        assert_eq!(at_work.now(), 2, "back in once the wait is over");
                    })
                    .await;
                drop(place);
            })
        };
        is_parked.await.unwrap();
        assert_eq!(at_work.now(), 1, "the parked request is not at work");
        let third = at_work.enter().expect("the parked one's place is free for work");
        assert!(at_work.enter().is_none(), "two at work: the cap");
        drop(third);
        release.send(()).unwrap();
        waiting.await.unwrap();
        drop(first);
        assert_eq!(at_work.now(), 0);
    }

    #[tokio::test]
    async fn a_request_cancelled_while_parked_gives_its_place_back_once() {
        let at_work = AtWork::new(4);
        let request = {
            let at_work = at_work.clone();
            async move {
                let _place = at_work.enter().expect("a place");
                at_work.run(parked(std::future::pending::<()>())).await;
            }
        };
        assert!(tokio::time::timeout(std::time::Duration::from_millis(20), request).await.is_err());
        assert_eq!(at_work.now(), 0, "neither counted twice nor leaked");
    }

    #[tokio::test]
    async fn two_waits_of_one_request_step_out_once() {
        let at_work = AtWork::new(4);
        let _other = at_work.enter().expect("another request at work");
        let place = at_work.enter().expect("a place");
        let seen = at_work
            .run(async {
                let (a, b) = (parked(tokio::task::yield_now()), parked(async { at_work.now() }));
                futures::future::join(a, b).await.1
            })
            .await;
        assert_eq!(seen, 1, "out once while both wait");
        assert_eq!(at_work.now(), 2, "and back in once");
        drop(place);
    }

    #[tokio::test]
    async fn outside_a_request_a_wait_changes_nothing() {
        let at_work = AtWork::new(1);
        let _place = at_work.enter().expect("a place");
        parked(async {}).await;
        assert_eq!(at_work.now(), 1);
    }
}
