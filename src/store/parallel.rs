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
/// again here rather than losing the results of its slice.
pub fn map_ordered<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = workers();
    if items.len() < 2 || workers < 2 {
        return items.iter().map(f).collect();
    }
    let per = items.len().div_ceil(workers);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(per)
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        let mut out = Vec::with_capacity(items.len());
        for h in handles {
            out.extend(
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
