//! Work spread over threads, with results in a fixed order: what the
//! stages use to handle functions on every core (SSA construction, our
//! function passes, Cranelift's compilation).
//!
//! - The result of item `i` is always at index `i`, whatever thread ran
//!   it and in whatever order the items finished: callers merge results
//!   in item order, so the output never depends on the schedule.
//! - With `threads <= 1` (or fewer than two items) everything runs on the
//!   calling thread, in item order, with no thread started.
//! - A panic in a worker is raised again on the calling thread once every
//!   worker has stopped.
//! - Workers get [`WORKER_STACK`] bytes of stack, like the compiler
//!   thread, so the recursion that input nesting bounds fits there too.
//!
//! How many threads to use is the caller's argument: the driver decides it
//! (`driver::build::threads_for`) and passes it down in each stage's options.

use std::sync::Mutex;

/// Stack size of each worker thread: as large as the compiler thread's
/// (`driver::COMPILER_STACK`), since workers run the same recursive code
/// on the same input. It is address space only; pages are touched as deep
/// as the recursion goes.
pub const WORKER_STACK: usize = 1 << 30;

/// Runs `f(i, &mut items[i])` for every item on up to `threads` threads
/// (the calling thread is one of them) and returns the results in item
/// order. Items are handed out one at a time, so a few large items do not
/// leave a thread idle while another has a long queue.
pub fn map_mut<T, R, F>(items: &mut [T], threads: usize, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(usize, &mut T) -> R + Sync,
{
    let threads = threads.min(items.len());
    if threads <= 1 {
        return items.iter_mut().enumerate().map(|(i, t)| f(i, t)).collect();
    }
    let n = items.len();
    let queue = Mutex::new(items.iter_mut().enumerate());
    let work = || {
        let mut done = Vec::new();
        loop {
            let next = match queue.lock() {
                Ok(mut q) => q.next(),
                Err(_) => None,
            };
            let Some((i, item)) = next else { break };
            done.push((i, f(i, item)));
        }
        done
    };
    let mut slots: Vec<Option<R>> = (0..n).map(|_| None).collect();
    std::thread::scope(|s| {
        let workers: Vec<_> = (1..threads)
            .map(|k| {
                std::thread::Builder::new()
                    .name(format!("toyc-worker-{k}"))
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(s, work)
            })
            .collect();
        let mut all = vec![work()];
        // A worker that could not start took nothing: the calling thread
        // has done its share.
        for handle in workers.into_iter().flatten() {
            match handle.join() {
                Ok(done) => all.push(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        for (i, r) in all.into_iter().flatten() {
            slots[i] = Some(r);
        }
    });
    slots
        .into_iter()
        .map(|r| r.expect("every item was handed to a worker"))
        .collect()
}

/// [`map_mut`] over the indices `0..n`: `f(i)` for each, results in index
/// order.
pub fn map<R, F>(n: usize, threads: usize, f: F) -> Vec<R>
where
    R: Send,
    F: Fn(usize) -> R + Sync,
{
    let mut indices: Vec<usize> = (0..n).collect();
    map_mut(&mut indices, threads, |_, &mut i| f(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_in_item_order_with_any_thread_count() {
        for threads in [0, 1, 2, 5] {
            let mut items: Vec<u64> = (0..100).collect();
            let out = map_mut(&mut items, threads, |i, x| {
                *x *= 2;
                (i as u64) + *x
            });
            assert_eq!(out, (0..100).map(|i| 3 * i).collect::<Vec<u64>>());
            assert_eq!(items, (0..100).map(|i| 2 * i).collect::<Vec<u64>>());
        }
    }

    #[test]
    fn a_worker_panic_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| {
            map(8, 2, |i| {
                if i == 5 {
                    panic!("item five");
                }
                i
            })
        });
        assert!(caught.is_err());
    }
}
