//! The one way tooldeck takes a lock, and the one way it spreads work over the cores.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, also when a thread panicked while holding it: what it guards (logs, lists,
/// a child process) stays usable, and one panicked task must not take every later one down.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// How many cores the process may use, asked of the system once: the answer is read from
/// files (cgroup limits), and a parse that asked at every large array spent seconds in it on a
/// one-core machine.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `work` over every item on all cores, results in the items' order. Each result is written in
/// its item's place: a file of 69,000 tools moves each finished tool once, where gathering the
/// workers' results and sorting them moved it three times more (and faulted in fresh memory each
/// time). A worker that panics loses the items it held (left out of the results), not the run.
pub fn in_parallel<T: Send, R: Send>(items: Vec<T>, work: impl Fn(T) -> R + Sync) -> Vec<R> {
    let threads = cores().min(items.len());
    if threads <= 1 {
        return items.into_iter().map(work).collect();
    }
    // How many items a worker takes at a time: enough that taking is rare, few enough that the
    // cores finish together (one at a time for a handful of files).
    let chunk = items.len().div_ceil(threads * 8).clamp(1, 64);
    let mut items: Vec<Option<T>> = items.into_iter().map(Some).collect();
    let mut results: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    let chunks = Mutex::new(items.chunks_mut(chunk).zip(results.chunks_mut(chunk)));
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    // The guard is dropped at the end of the statement: `work` runs unlocked.
                    while let Some((items, results)) = lock(&chunks).next() {
                        for (item, result) in items.iter_mut().zip(results) {
                            *result = item.take().map(&work);
                        }
                    }
                })
            })
            .collect();
        for worker in workers {
            let _ = worker.join();
        }
    });
    // `filter_map` collects in place (`flatten` would copy every result into fresh memory).
    #[allow(clippy::filter_map_identity)]
    results.into_iter().filter_map(|result| result).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_in_parallel_keeps_the_order_and_survives_a_panic() {
        let squares = in_parallel((0..1000u64).collect(), |n| n * n);
        assert_eq!(squares, (0..1000u64).map(|n| n * n).collect::<Vec<_>>());
        let survivors = in_parallel((0..1000u64).collect(), |n| if n == 500 { panic!("one item fails") } else { n });
        assert!(!survivors.contains(&500) && survivors.len() >= 1000 - 64, "{}", survivors.len());
        assert!(survivors.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_poisoned_lock_is_still_taken() {
        let mutex = std::sync::Arc::new(Mutex::new(vec![1]));
        let held = mutex.clone();
        let _ = std::thread::spawn(move || {
            let _guard = held.lock().unwrap();
            panic!("poisons the lock");
        })
        .join();
        assert!(mutex.is_poisoned());
        lock(&mutex).push(2);
        assert_eq!(*lock(&mutex), [1, 2]);
    }
}
