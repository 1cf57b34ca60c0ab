//! How file-service work runs on the blocking pool: at most [`MAX_RUNNING`] operations at
//! once in the process and at most [`MAX_WAITING`] waiting for a turn (more are refused at
//! once as busy), so a flood of requests cannot queue without bound behind tokio's blocking
//! pool; and each operation is told when its request was cancelled (the caller's future
//! was dropped: the client cancelled, the stream closed, a timeout fired), so walks and
//! edit matching stop at their next step instead of running to the end for nobody.
//!
//! The cancellation flag reaches the blocking code through a thread-local set for the
//! duration of the operation ([`cancelled`]), so the walkers and the edit matcher check it
//! without every function taking it.

use super::error::{FsError, FsErrorKind, FsResult};
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tokio::sync::Semaphore;

/// Operations running at once.
pub(crate) const MAX_RUNNING: usize = 64;

/// Operations waiting for a turn; past it, `busy`.
pub(crate) const MAX_WAITING: usize = 1024;

static RUNNING: Semaphore = Semaphore::const_new(MAX_RUNNING);
static WAITING: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static CANCEL: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Whether the operation running on this thread was cancelled.
pub(crate) fn cancelled() -> bool {
    CANCEL.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    })
}

/// Sets the flag when dropped before [`Done::disarm`]: the operation's future went away.
struct CancelOnDrop(Option<Arc<AtomicBool>>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(flag) = self.0.take() {
            flag.store(true, Ordering::Relaxed);
        }
    }
}

/// Counts a waiter while it waits.
struct Waiting;

impl Drop for Waiting {
    fn drop(&mut self) {
        WAITING.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Runs `f` on the blocking pool in its turn, with the cancellation flag visible to it.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> FsResult<T> {
    let permit = match RUNNING.try_acquire() {
        Ok(permit) => permit,
        Err(_) => {
            if WAITING.fetch_add(1, Ordering::AcqRel) >= MAX_WAITING {
                WAITING.fetch_sub(1, Ordering::AcqRel);
                return Err(FsError::new(
                    FsErrorKind::Busy,
                    "the file service is busy with other requests; retry shortly",
                ));
            }
            let waiting = Waiting;
            let permit = RUNNING.acquire().await.map_err(|_| busy_closed())?;
            drop(waiting);
            permit
        }
    };
    let flag = Arc::new(AtomicBool::new(false));
    let mut guard = CancelOnDrop(Some(flag.clone()));
    let joined = tokio::task::spawn_blocking(move || {
        CANCEL.with(|c| *c.borrow_mut() = Some(flag));
        let out = f();
        CANCEL.with(|c| *c.borrow_mut() = None);
        out
    })
    .await;
    guard.0 = None;
    drop(permit);
    joined.map_err(|_| FsError::new(FsErrorKind::Io, "internal error in the file service"))
}

fn busy_closed() -> FsError {
    FsError::new(FsErrorKind::Busy, "the file service is shutting down")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_dropped_operation_is_told_it_was_cancelled() {
        let (saw_tx, saw_rx) = tokio::sync::oneshot::channel();
        let (started_tx, started_rx) = tokio::sync::oneshot::channel();
        let op = tokio::spawn(blocking(move || {
            let _ = started_tx.send(());
            let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while !cancelled() && std::time::Instant::now() < until {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            let _ = saw_tx.send(cancelled());
        }));
        started_rx.await.unwrap();
        op.abort();
        let saw = tokio::time::timeout(std::time::Duration::from_secs(5), saw_rx)
            .await
            .expect("the operation ended")
            .unwrap();
        assert!(
            saw,
            "the operation ran to its end without hearing of the cancel"
        );
        assert!(
            !cancelled(),
            "the flag belongs to the operation's thread only"
        );
    }
}
