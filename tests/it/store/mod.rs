//! The store on temporary trees.

mod concurrency;
mod count_cache;
mod crash;
mod isolation;
mod properties;
mod purge_safety;
mod search;
mod search_reference;
mod undo;
