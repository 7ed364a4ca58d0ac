//! Work spread over threads, with results in a fixed order: what the
//! stages use to handle functions on every core (SSA construction, our
//! function passes, Cranelift's compilation).
//!
//! - One [`Pool`] serves a whole compilation: the driver makes it and
//!   passes it down in each stage's options (`PipelineOptions::pool`,
//!   `PassCtx::pool`, `CodegenOptions::pool`). Its worker threads are
//!   started by the first call that is worth running in parallel and live
//!   until the last clone of the pool is dropped, so pass rows and codegen
//!   do not pay a thread start each.
//! - The result of item `i` is always at index `i`, whatever thread ran
//!   it and in whatever order the items finished: callers merge results
//!   in item order, so the output never depends on the schedule.
//! - A call whose work (the caller's estimate, in IR statements) is below
//!   the pool's `min_work`, or with fewer than two items, or on a pool of
//!   one thread, runs everything on the calling thread, in item order, and
//!   starts no thread.
//! - A panic in a worker is raised again on the calling thread once every
//!   item has stopped.
//! - Workers get [`WORKER_STACK`] bytes of stack, like the compiler
//!   thread, so the recursion that input nesting bounds fits there too.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Stack size of each worker thread: as large as the compiler thread's
/// (`driver::COMPILER_STACK`), since workers run the same recursive code
/// on the same input. It is address space only; pages are touched as deep
/// as the recursion goes.
pub const WORKER_STACK: usize = 1 << 30;

/// Below this many IR statements in total, a call runs on the calling
/// thread. The pool costs about 0.4 ms per compilation (its start and a
/// hand-over per pass row); 2,000 statements take about 50 ms to compile
/// on one thread, so the pool costs at most about 1% where it cannot help
/// (docs/passes.md, "Threads", has the measurements).
pub const MIN_PARALLEL_WORK: usize = 2_000;

/// Source bytes per statement, roughly: the work estimate of a walk over
/// source text or syntax (lexing, type checking, a walk of every body) is
/// its bytes divided by this.
pub const SOURCE_BYTES_PER_STATEMENT: usize = 25;

/// How many pieces [`Pool::drop_on`] frees in parallel.
const DROP_PIECES: usize = 8;

/// How many items per worker [`Pool::overlapped`] lets wait for a worker
/// (Cranelift's translated functions: enough that no worker idles while
/// the next function is translated).
const OVERLAP_AHEAD: usize = 2;

/// Worker threads shared by the stages of one compilation (see the module
/// doc). Cloning shares the same workers. The default runs everything on
/// the calling thread.
#[derive(Clone)]
pub struct Pool {
    /// `None`: one per core, looked up when the workers start.
    threads: Option<usize>,
    min_work: usize,
    workers: Arc<OnceLock<Option<rayon::ThreadPool>>>,
}

impl Default for Pool {
    /// The calling thread only.
    fn default() -> Pool {
        Pool::new(1, 0)
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.threads {
            Some(n) => write!(f, "Pool({n} threads, min work {})", self.min_work),
            None => write!(f, "Pool(one thread per core, min work {})", self.min_work),
        }
    }
}

impl Pool {
    /// A pool of up to `threads` threads (0 or 1: the calling thread only)
    /// that runs a call in parallel when its work is at least `min_work`.
    /// No thread starts here.
    pub fn new(threads: usize, min_work: usize) -> Pool {
        Pool {
            threads: Some(threads),
            min_work,
            workers: Arc::default(),
        }
    }

    /// [`Pool::new`] with one thread per core (looked up only when the
    /// workers start, so a small program does not pay for it).
    pub fn per_core(min_work: usize) -> Pool {
        Pool {
            threads: None,
            min_work,
            workers: Arc::default(),
        }
    }

    /// The workers, started on first use; `None` on one core or when they
    /// could not be started (everything then runs on the calling thread).
    fn workers(&self) -> Option<&rayon::ThreadPool> {
        self.workers
            .get_or_init(|| {
                let cores = || std::thread::available_parallelism().map_or(1, |n| n.get());
                let n = self.threads.unwrap_or_else(cores);
                if n <= 1 {
                    return None;
                }
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .stack_size(WORKER_STACK)
                    .thread_name(|k| format!("toyc-worker-{k}"))
                    .build()
                    .ok()
            })
            .as_ref()
    }

    /// The workers for a call of `work` IR statements: `None` (run on the
    /// calling thread) on a pool of one thread or below `min_work`.
    fn workers_for(&self, work: usize) -> Option<&rayon::ThreadPool> {
        let one = self.threads.is_some_and(|n| n <= 1);
        if one || work < self.min_work {
            None
        } else {
            self.workers()
        }
    }

    /// Drops `items`, in pieces on the workers when `work` (IR statements)
    /// is worth it: freeing a large tree is otherwise one thread's work.
    pub fn drop_on<T: Send>(&self, mut items: Vec<T>, work: usize) {
        if items.len() < 2 || !self.would_parallelize(work) {
            return;
        }
        let per = items.len().div_ceil(DROP_PIECES);
        let mut pieces = Vec::with_capacity(DROP_PIECES);
        while items.len() > per {
            pieces.push(items.split_off(items.len() - per));
        }
        pieces.push(items);
        self.map_mut(&mut pieces, work, |_, piece| drop(std::mem::take(piece)));
    }

    /// Whether a call of `work` IR statements would run on the workers
    /// (starting them if it would).
    pub fn would_parallelize(&self, work: usize) -> bool {
        self.workers_for(work).is_some()
    }

    /// Runs `f(i, &mut items[i])` for every item and returns the results
    /// in item order; on the workers when `work` (the caller's estimate of
    /// the items' size in IR statements) is at least the pool's `min_work`.
    /// Items are handed out one at a time, in item order, so a few large
    /// items do not leave a thread idle while another has a long queue.
    pub fn map_mut<T, R, F>(&self, items: &mut [T], work: usize, f: F) -> Vec<R>
    where
        T: Send,
        R: Send,
        F: Fn(usize, &mut T) -> R + Sync,
    {
        self.map_mut_largest_first(items, work, |_| 0, f)
    }

    /// [`Pool::map_mut`], handing the items out largest first by `size`
    /// (ties in item order) when it runs on the workers: the largest item
    /// then starts first instead of being the last one a thread is left
    /// with while the others are idle. Results are still in item order.
    pub fn map_mut_largest_first<T, R, S, F>(
        &self,
        items: &mut [T],
        work: usize,
        size: S,
        f: F,
    ) -> Vec<R>
    where
        T: Send,
        R: Send,
        S: Fn(&T) -> usize,
        F: Fn(usize, &mut T) -> R + Sync,
    {
        let workers = if items.len() < 2 {
            None
        } else {
            self.workers_for(work)
        };
        let Some(workers) = workers else {
            return items.iter_mut().enumerate().map(|(i, t)| f(i, t)).collect();
        };
        let order = largest_first(items.iter().map(size));
        // Each item is taken exactly once, through the queue position that
        // names it; the locks are never contended.
        let cells: Vec<Mutex<Option<&mut T>>> =
            items.iter_mut().map(|t| Mutex::new(Some(t))).collect();
        let results: Vec<Mutex<Option<R>>> = cells.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let take = |k: usize| {
            let i = order[k];
            let item = cells[i].lock().ok().and_then(|mut c| c.take());
            (i, item)
        };
        workers.scope(|s| {
            for _ in 0..workers.current_num_threads() {
                s.spawn(|_| {
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k >= order.len() {
                            break;
                        }
                        if let (i, Some(item)) = take(k) {
                            let r = f(i, item);
                            if let Ok(mut slot) = results[i].lock() {
                                *slot = Some(r);
                            }
                        }
                    }
                });
            }
        });
        results
            .into_iter()
            .map(|r| {
                r.into_inner()
                    .ok()
                    .flatten()
                    .expect("every item ran (a worker's panic is raised by the scope)")
            })
            .collect()
    }

    /// Runs `produce` on the calling thread, which passes items to the
    /// sink it is given; each item runs through `consume(k, item)` (`k`:
    /// its position among the items) on the workers while `produce` goes
    /// on, in the order given. Returns the results in that order once
    /// every item is done, or the error `produce` stopped with (after the
    /// items it had passed are done). Serially (below `min_work`, one
    /// thread), each item is consumed as soon as it is passed.
    ///
    /// At most [`OVERLAP_AHEAD`] items per worker wait for a worker at any
    /// time: an item passed beyond that is consumed on the calling thread
    /// before `produce` goes on, so a producer faster than the workers
    /// does not hold every item in memory at once.
    pub fn overlapped<I, R, E, P, C>(
        &self,
        work: usize,
        produce: P,
        consume: C,
    ) -> Result<Vec<R>, E>
    where
        I: Send,
        R: Send,
        P: FnOnce(&mut dyn FnMut(I)) -> Result<(), E>,
        C: Fn(usize, I) -> R + Sync,
    {
        let Some(workers) = self.workers_for(work) else {
            let mut out = Vec::new();
            produce(&mut |item| {
                let k = out.len();
                out.push(consume(k, item));
            })?;
            return Ok(out);
        };
        let results: Mutex<Vec<Option<R>>> = Mutex::new(Vec::new());
        let store = |k: usize, r: R| {
            if let Ok(mut slots) = results.lock() {
                if slots.len() <= k {
                    slots.resize_with(k + 1, || None);
                }
                slots[k] = Some(r);
            }
        };
        let waiting = AtomicUsize::new(0);
        let limit = OVERLAP_AHEAD * workers.current_num_threads();
        let (store_ref, consume_ref, waiting_ref) = (&store, &consume, &waiting);
        let mut count = 0;
        let produced = workers.in_place_scope(|s| {
            produce(&mut |item| {
                let k = count;
                count += 1;
                if waiting_ref.load(Ordering::Acquire) >= limit {
                    store_ref(k, consume_ref(k, item));
                    return;
                }
                waiting_ref.fetch_add(1, Ordering::AcqRel);
                s.spawn(move |_| {
                    waiting_ref.fetch_sub(1, Ordering::AcqRel);
                    store_ref(k, consume_ref(k, item));
                });
            })
        });
        produced?;
        let slots = results.into_inner().unwrap_or_default();
        Ok(slots
            .into_iter()
            .map(|r| r.expect("every item ran (a worker's panic is raised by the scope)"))
            .collect())
    }

    /// [`Pool::map_mut`] over the indices `0..n`: `f(i)` for each, results
    /// in index order.
    pub fn map<R, F>(&self, n: usize, work: usize, f: F) -> Vec<R>
    where
        R: Send,
        F: Fn(usize) -> R + Sync,
    {
        let mut indices: Vec<usize> = (0..n).collect();
        self.map_mut(&mut indices, work, |_, &mut i| f(i))
    }
}

/// The indices of `sizes`, largest size first, ties in index order: the
/// order [`Pool::map_mut_largest_first`] hands items out in.
fn largest_first(sizes: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut order: Vec<(usize, usize)> = sizes.enumerate().map(|(i, s)| (s, i)).collect();
    order.sort_by_key(|&(size, i)| (std::cmp::Reverse(size), i));
    order.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_in_item_order_with_any_thread_count() {
        let serial: Vec<u64> = (0..100).map(|i| 3 * i).collect();
        for threads in [0, 1, 2, 5] {
            let pool = Pool::new(threads, 0);
            // Two calls on the same pool: its workers serve both.
            for _ in 0..2 {
                let mut items: Vec<u64> = (0..100).collect();
                let out = pool.map_mut(&mut items, 100, |i, x| {
                    // Uneven item costs, so items finish out of order.
                    if i % 7 == 0 {
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    }
                    *x *= 2;
                    (i as u64) + *x
                });
                assert_eq!(out, serial, "{threads} threads");
                assert_eq!(items, (0..100).map(|i| 2 * i).collect::<Vec<u64>>());
            }
        }
    }

    #[test]
    fn drop_on_drops_every_item() {
        let one = Arc::new(());
        for (threads, n) in [(1, 100), (2, 100), (3, 9), (3, 1)] {
            let items: Vec<Arc<()>> = (0..n).map(|_| one.clone()).collect();
            Pool::new(threads, 0).drop_on(items, 100);
            assert_eq!(Arc::strong_count(&one), 1, "{threads} threads, {n} items");
        }
    }

    #[test]
    fn the_largest_items_are_handed_out_first() {
        let sizes = [3, 1, 50, 2, 40, 7, 40];
        assert_eq!(largest_first(sizes.into_iter()), vec![2, 4, 6, 5, 0, 3, 1]);
        let pool = Pool::new(2, 0);
        let mut items: Vec<usize> = sizes.to_vec();
        let out = pool.map_mut_largest_first(
            &mut items,
            100,
            |&x| x,
            |i, x| {
                *x += 1;
                (i, *x)
            },
        );
        let expect: Vec<(usize, usize)> = sizes.iter().map(|&x| x + 1).enumerate().collect();
        assert_eq!(out, expect, "results in item order");
    }

    #[test]
    fn overlapped_items_come_back_in_the_order_given() {
        for threads in [1, 2, 3] {
            let pool = Pool::new(threads, 0);
            let out = pool.overlapped(
                100,
                |sink| {
                    for i in 0..50u64 {
                        sink(i);
                    }
                    Ok::<(), String>(())
                },
                |k, i| {
                    if i % 7 == 0 {
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    }
                    (k as u64, i * i)
                },
            );
            let expect: Vec<(u64, u64)> = (0..50).map(|i| (i, i * i)).collect();
            assert_eq!(out, Ok(expect), "{threads} threads");
            let stopped = pool.overlapped(
                100,
                |sink| {
                    sink(1);
                    Err("stopped".to_string())
                },
                |_, i: u64| i,
            );
            assert_eq!(stopped, Err("stopped".to_string()));
        }
    }

    #[test]
    fn a_fast_producer_waits_on_at_most_a_few_items_per_worker() {
        let pool = Pool::new(2, 0);
        let waiting = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let caller = std::thread::current().id();
        let on_caller = AtomicUsize::new(0);
        let out = pool.overlapped(
            100,
            |sink| {
                for i in 0..40u64 {
                    let now = waiting.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    sink(i);
                }
                Ok::<(), String>(())
            },
            |_, i| {
                waiting.fetch_sub(1, Ordering::SeqCst);
                if std::thread::current().id() == caller {
                    on_caller.fetch_add(1, Ordering::SeqCst);
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
                i * 2
            },
        );
        assert_eq!(out, Ok((0..40).map(|i| i * 2).collect::<Vec<u64>>()));
        // Two workers: at most 2 * OVERLAP_AHEAD wait, plus the one being
        // passed; the others ran on the producer's thread.
        assert!(
            most.load(Ordering::SeqCst) <= 2 * OVERLAP_AHEAD + 1,
            "{most:?}"
        );
        assert!(on_caller.load(Ordering::SeqCst) > 0);
    }

    #[test]
    fn small_work_runs_on_the_calling_thread() {
        let pool = Pool::new(4, 1000);
        let caller = std::thread::current().id();
        let on_caller = pool.map(50, 999, |_| std::thread::current().id() == caller);
        assert!(on_caller.iter().all(|&c| c));
        assert!(pool.workers.get().is_none(), "no worker was started");
        let default = Pool::default();
        let on_caller = default.map(50, usize::MAX, |_| std::thread::current().id() == caller);
        assert!(on_caller.iter().all(|&c| c), "the default pool is serial");
        let names = pool.map(50, 1000, |_| {
            std::thread::current().name().map(String::from)
        });
        assert!(
            names
                .iter()
                .all(|n| n.as_deref().is_some_and(|n| n.starts_with("toyc-worker-"))),
            "{names:?}"
        );
    }

    #[test]
    fn a_worker_panic_reaches_the_caller() {
        let pool = Pool::new(2, 0);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.map(8, 8, |i| {
                if i == 5 {
                    panic!("item five");
                }
                i
            })
        }));
        assert!(caught.is_err());
        // The pool still works after a panic.
        assert_eq!(pool.map(4, 4, |i| i * i), vec![0, 1, 4, 9]);
    }
}
