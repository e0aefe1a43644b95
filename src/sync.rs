//! The one way tooldeck takes a lock.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, also when a thread panicked while holding it: what it guards (logs, lists,
/// a child process) stays usable, and one panicked task must not take every later one down.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

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
