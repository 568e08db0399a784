//! Work over many items on all cores, results in the items' order.

/// How many threads to use: the cores, at most eight. Asked of the
/// system once: the answer reads the control group's files each time.
pub fn workers() -> usize {
    static WORKERS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *WORKERS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .min(8)
    })
}

/// `items.iter().map(f)` on all cores, in order. A panic in `f` is raised
/// again here rather than losing the results of its slice. Each thread
/// writes its results into their places in the one vector returned: made
/// apart and then gathered, 100k sessions' stats were held twice at the
/// peak of a listing.
pub fn map_ordered<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_ordered_with(items, || (), |(), item| f(item))
}

/// [`map_ordered`] where each thread keeps a state of its own, made by
/// `state` and handed to `f` with each of its items (in their order: a
/// thread's items are consecutive).
pub fn map_ordered_with<T: Sync, S, R: Send>(
    items: &[T],
    state: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    let workers = workers();
    if items.len() < 2 || workers < 2 {
        let mut own = state();
        return items.iter().map(|item| f(&mut own, item)).collect();
    }
    let per = items.len().div_ceil(workers);
    let (f, state) = (&f, &state);
    let mut out: Vec<R> = Vec::with_capacity(items.len());
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(per)
            .zip(out.spare_capacity_mut().chunks_mut(per))
            .map(|(part, places)| {
                scope.spawn(move || {
                    let mut own = state();
                    for (item, place) in part.iter().zip(places) {
                        place.write(f(&mut own, item));
                    }
                })
            })
            .collect();
        for h in handles {
            // A panic leaves the results written so far unfreed (never
            // read): the vector's length is still 0.
            h.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
    });
    // SAFETY: both are cut `per` at a time from the start, so each chunk
    // of `items` pairs with the places of the same positions (the spare
    // capacity holds at least items.len()); every thread wrote a place
    // for each of its items and was joined without a panic (a panic is
    // raised above, before this line), so places 0..items.len() are set.
    unsafe { out.set_len(items.len()) };
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_results_come_back_whole_and_in_order() {
        let items: Vec<u32> = (0..1001).collect();
        let made = map_ordered(&items, |x| format!("item {x}"));
        assert_eq!(made.len(), items.len());
        assert!(
            made.iter()
                .zip(&items)
                .all(|(m, x)| *m == format!("item {x}"))
        );
    }

    #[test]
    #[should_panic(expected = "item 700")]
    fn a_panic_in_one_thread_is_raised_again() {
        let items: Vec<u32> = (0..1000).collect();
        map_ordered(&items, |x| {
            assert!(*x != 700, "item {x}");
            x.to_string()
        });
    }

    #[test]
    fn each_thread_keeps_its_state_across_its_items() {
        let items: Vec<u32> = (0..1000).collect();
        // Each item gets how many items its thread has handled, itself
        // included: a state shared or made afresh per item would break the
        // count.
        let seen = map_ordered_with(
            &items,
            || 0u32,
            |handled, _| {
                *handled += 1;
                *handled
            },
        );
        let per = items.len().div_ceil(workers().min(items.len()));
        for (k, n) in seen.iter().enumerate() {
            assert_eq!(*n as usize, k % per + 1, "item {k}");
        }
    }

    #[test]
    fn keeps_order() {
        let items: Vec<u32> = (0..10_000).collect();
        assert_eq!(
            map_ordered(&items, |x| x * 2),
            items.iter().map(|x| x * 2).collect::<Vec<_>>()
        );
        assert_eq!(map_ordered(&[] as &[u32], |x| *x), Vec::<u32>::new());
    }
}
