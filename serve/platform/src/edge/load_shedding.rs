//! Load shedding by the work under way, not by the requests waiting (issue 58).
//!
//! The server refuses a request at once (503 `overloaded`, before any work) when
//! `max_in_flight` requests are already *at work*. A request parked behind another's work — the
//! 999 identical requests of a cold burst waiting for the one upstream fetch their single flight
//! makes, or the callers of a diff being computed — costs a task and a socket and no CPU, so it
//! steps out of the count while it waits ([`parked`]) and back in when it resumes. It is never
//! refused once admitted. A request whose wait hands it its answer (the read-through fetch)
//! stays out ([`answered`]): what remains is rendering a value already computed. What bounds the parked is the listener's connection cap and the
//! request deadline, and what they wait for is bounded where it runs (one upstream fetch per key,
//! one diff per pair and per account).

use std::{
    future::Future,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
};

tokio::task_local! {
    /// The request being answered (none outside a request, e.g. in a background job, or for a
    /// request never counted, a health probe: its waits change nothing).
    static ADMITTED: Option<Arc<Admitted>>;
}

/// A request admitted into the count: its parked waits now, and whether it is in the count (it
/// gives its place back when it ends only if it is).
struct Admitted {
    at_work: Arc<AtWork>,
    state: Mutex<Standing>,
}

#[derive(Debug, Clone, Copy)]
struct Standing {
    /// Waits parked now (a batch's sub-operations may wait at once: the request is out of the
    /// count while any of them is).
    parked: usize,
    counted: bool,
}

impl Admitted {
    fn standing(&self) -> std::sync::MutexGuard<'_, Standing> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn step_out(&self) {
        let mut s = self.standing();
        s.parked += 1;
        if std::mem::replace(&mut s.counted, false) {
            self.at_work.count.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// A wait ended: with the last, the request is back in the count (without asking: a request
    /// once admitted is never refused) — unless what it waited for was its answer.
    fn step_back(&self, then: AfterTheWait) {
        let mut s = self.standing();
        s.parked -= 1;
        if s.parked == 0 && then == AfterTheWait::Work && !s.counted {
            s.counted = true;
            self.at_work.count.fetch_add(1, Ordering::AcqRel);
        }
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        if self.state.get_mut().map_or_else(|p| p.into_inner().counted, |s| s.counted) {
            self.at_work.count.fetch_sub(1, Ordering::Release);
        }
    }
}

/// Requests at work, and how many may be.
#[derive(Debug)]
pub struct AtWork {
    count: AtomicUsize,
    max: usize,
}

/// A request's place among those at work, given back when the request ends (once the place and
/// the request's scope, [`AtWork::run`], are both dropped) if the request is in the count then.
#[must_use = "the place is given back when it is dropped"]
pub struct Place(Arc<Admitted>);

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
        let standing = Standing { parked: 0, counted: true };
        Some(Place(Arc::new(Admitted { at_work: self.clone(), state: Mutex::new(standing) })))
    }

    /// Requests at work now.
    pub fn now(&self) -> usize {
        self.count.load(Ordering::Acquire)
    }

    /// Runs `request`, admitted with `place` (none: not counted), so that the waits inside it
    /// ([`parked`], [`answered`]) step out of the count.
    /// Not an `async fn`: one would hold `request` and the scope it is moved into, twice its size
    /// in every request's future.
    pub fn run<F: Future>(place: Option<&Place>, request: F) -> impl Future<Output = F::Output> {
        ADMITTED.scope(place.map(|p| p.0.clone()), request)
    }
}

/// What a request does once a wait of it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AfterTheWait {
    /// Work of its own (it counts again).
    Work,
    /// Sends the answer it waited for (it stays out).
    Answer,
}

/// A wait out of the count, stepped back from when it is dropped, whether it ended or was
/// cancelled.
struct Away(Arc<Admitted>, AfterTheWait);

impl Drop for Away {
    fn drop(&mut self) {
        self.0.step_back(self.1);
    }
}

async fn away<F: Future>(wait: F, then: AfterTheWait) -> F::Output {
    let away = ADMITTED.try_with(|a| a.clone()).ok().flatten().map(|admitted| {
        admitted.step_out();
        Away(admitted, then)
    });
    let out = wait.await;
    drop(away);
    out
}

/// Awaits `wait` — another's work this request waits for, costing it no CPU — out of the count of
/// requests at work; the request counts again when it resumes its own work.
pub async fn parked<F: Future>(wait: F) -> F::Output {
    away(wait, AfterTheWait::Work).await
}

/// Awaits `wait` — a computation shared by every request that asks for it (a read-through
/// fetch), whose result is this request's answer — out of the count, and leaves the request out
/// when it ends: what remains is rendering a value already computed. Counting the waiters back
/// in refused the burst they came in: a thousand identical cold requests resumed together held
/// more than the cap for a few milliseconds, and the burst's own late arrivals were answered 503.
pub async fn answered<F: Future>(wait: F) -> F::Output {
    away(wait, AfterTheWait::Answer).await
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
                AtWork::run(Some(&place), async {
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
                let place = at_work.enter().expect("a place");
                AtWork::run(Some(&place), parked(std::future::pending::<()>())).await;
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
        let seen = AtWork::run(Some(&place), async {
            let (a, b) = (parked(tokio::task::yield_now()), parked(async { at_work.now() }));
            futures::future::join(a, b).await.1
        })
        .await;
        assert_eq!(seen, 1, "out once while both wait");
        assert_eq!(at_work.now(), 2, "and back in once");
        drop(place);
    }

    /// Issue 58: the waiters of a shared computation whose result is their answer stay out of the
    /// count when it ends, and give nothing back when they end; a later wait for work of their
    /// own brings them back in.
    #[tokio::test]
    async fn a_request_handed_its_answer_stays_out_of_the_count() {
        let at_work = AtWork::new(2);
        let place = at_work.enter().expect("a place");
        AtWork::run(Some(&place), async {
            answered(async {}).await;
            assert_eq!(at_work.now(), 0, "out once its answer is in");
            let next = at_work.enter().expect("its place is free");
            assert_eq!(at_work.now(), 1, "only the next request counts");
            drop(next);
        })
        .await;
        drop(place);
        assert_eq!(at_work.now(), 0, "nothing given back twice");

        let place = at_work.enter().expect("a place");
        AtWork::run(Some(&place), async {
            answered(async {}).await;
            parked(async {}).await;
            assert_eq!(at_work.now(), 1, "back in for work of its own");
        })
        .await;
        drop(place);
        assert_eq!(at_work.now(), 0);
    }

    #[tokio::test]
    async fn a_request_not_counted_changes_nothing_by_waiting() {
        let at_work = AtWork::new(1);
        let _other = at_work.enter().expect("a place");
        AtWork::run(None, parked(async {})).await;
        assert_eq!(at_work.now(), 1);
    }

    #[tokio::test]
    async fn outside_a_request_a_wait_changes_nothing() {
        let at_work = AtWork::new(1);
        let _place = at_work.enter().expect("a place");
        parked(async {}).await;
        assert_eq!(at_work.now(), 1);
    }
}
