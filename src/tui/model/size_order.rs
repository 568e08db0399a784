//! The viewer's messages largest first: the order of the rows, and where
//! each message stands in it, so the selection (a message) keeps its place
//! when the order changes.

/// Messages ordered by their token counts, largest first (ties in context
/// order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeOrder {
    /// The message shown on each row.
    rows: Vec<usize>,
    /// The row of each message.
    rank: Vec<usize>,
}

impl SizeOrder {
    /// The order of messages counted `counts`, largest first.
    pub fn largest_first(counts: &[u64]) -> Self {
        let mut rows: Vec<usize> = (0..counts.len()).collect();
        // Stable: equal counts keep the context's order.
        rows.sort_by(|&a, &b| counts[b].cmp(&counts[a]));
        let mut rank = vec![0; rows.len()];
        for (row, &message) in rows.iter().enumerate() {
            rank[message] = row;
        }
        SizeOrder { rows, rank }
    }

    /// The message on `row` (the row itself past the end).
    pub fn message_at(&self, row: usize) -> usize {
        self.rows.get(row).copied().unwrap_or(row)
    }

    /// The row of `message` (the message itself past the end).
    pub fn row_of(&self, message: usize) -> usize {
        self.rank.get(message).copied().unwrap_or(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_first_with_ties_in_context_order() {
        let order = SizeOrder::largest_first(&[5, 90, 5, 300, 0]);
        let rows: Vec<usize> = (0..5).map(|r| order.message_at(r)).collect();
        assert_eq!(rows, vec![3, 1, 0, 2, 4]);
        for message in 0..5 {
            assert_eq!(order.message_at(order.row_of(message)), message);
        }
    }
}
