//! How many values `$ref` expansion may copy, shared across a file and across a catalog: one
//! schema's own budget ([`super::refs::INLINE_BUDGET`]) is not enough when a file holds a hundred
//! such schemas. Past a shared budget, a schema keeps its `$ref`s (shown as written, with a note).
//! The budgets follow the load onto the threads it uses ([`current`], [`install`]).

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Values expansion may copy for all the schemas of one file.
pub const FILE_BUDGET: usize = 100_000;
/// Values expansion may copy for a whole catalog.
pub const CATALOG_BUDGET: usize = 250_000;

/// What is left to spend, for the file being read and for the catalog it joins.
#[derive(Clone, Debug)]
pub struct Budgets {
    file: Arc<AtomicUsize>,
    catalog: Arc<AtomicUsize>,
}

thread_local! {
    static CURRENT: RefCell<Option<Budgets>> = const { RefCell::new(None) };
}

/// The budgets in force on this thread, to hand to the threads a load starts.
pub fn current() -> Option<Budgets> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Runs `work` with `budgets` in force on this thread (none: no shared budget).
pub fn install<R>(budgets: Option<Budgets>, work: impl FnOnce() -> R) -> R {
    let before = CURRENT.with(|c| c.replace(budgets));
    let result = work();
    CURRENT.with(|c| c.replace(before));
    result
}

/// Runs `work` (a catalog's load) with a fresh catalog budget, unless one is in force already.
pub fn for_catalog<R>(work: impl FnOnce() -> R) -> R {
    match current() {
        Some(_) => work(),
        None => install(Some(fresh(Arc::new(AtomicUsize::new(CATALOG_BUDGET)))), work),
    }
}

/// Runs `work` (one file's load) with a fresh file budget, within the catalog's.
pub fn for_file<R>(work: impl FnOnce() -> R) -> R {
    let catalog = current().map_or_else(|| Arc::new(AtomicUsize::new(CATALOG_BUDGET)), |b| b.catalog);
    install(Some(fresh(catalog)), work)
}

fn fresh(catalog: Arc<AtomicUsize>) -> Budgets {
    Budgets { file: Arc::new(AtomicUsize::new(FILE_BUDGET)), catalog }
}

/// Why `cost` more values cannot be copied, or `None` once they are charged to both budgets.
pub fn charge(cost: usize) -> Option<&'static str> {
    let budgets = current()?;
    let take = |left: &AtomicUsize| left.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(cost));
    if take(&budgets.file).is_err() {
        return Some("the file's");
    }
    if take(&budgets.catalog).is_err() {
        budgets.file.fetch_add(cost, Ordering::SeqCst);
        return Some("the catalog's");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_share_the_catalog_budget_and_each_has_its_own() {
        assert_eq!(charge(usize::MAX), None, "no budget in force: nothing to charge");
        for_catalog(|| {
            for_file(|| {
                assert_eq!(charge(FILE_BUDGET), None);
                assert_eq!(charge(1), Some("the file's"));
            });
            for_file(|| assert_eq!(charge(FILE_BUDGET), None));
            for_file(|| assert_eq!(charge(FILE_BUDGET), Some("the catalog's")));
            let handed = current();
            std::thread::spawn(move || install(handed, || assert!(charge(CATALOG_BUDGET).is_some())))
                .join()
                .expect("the thread ran");
        });
        assert!(current().is_none());
    }
}
