//! A panic while serving a message becomes an error answer, on the request's own task.
//!
//! Spawning a task per message would isolate a panic too, but it costs a wake-up of another
//! task (and often another thread) for every call: about two context switches per request,
//! which on a loaded machine is most of what MCP added over REST. Catching the unwind where
//! the future is polled keeps the guarantee — the server lives on, the other messages of a
//! batch are still answered — without the hop.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::task::Poll;

/// Run `future` to completion; `Err` with the panic's message if polling it panicked.
pub async fn catching<F: Future>(future: F) -> Result<F::Output, String> {
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(move |cx| {
        // A future that panicked is never polled again: whatever it held is dropped with it,
        // as a spawned task's would be, so nothing half-updated is observed afterwards.
        match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(message(payload.as_ref()))),
        }
    })
    .await
}

fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        format!("panicked: {text}")
    } else if let Some(text) = payload.downcast_ref::<String>() {
        format!("panicked: {text}")
    } else {
        "panicked".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_while_polling_becomes_an_error_and_others_still_run() {
        let failed = catching(async {
            tokio::task::yield_now().await;
            panic!("boom");
        })
        .await;
        assert_eq!(failed.unwrap_err(), "panicked: boom");
        let fine = catching(async {
            tokio::task::yield_now().await;
            7
        })
        .await;
        assert_eq!(fine.unwrap(), 7);
    }
}
