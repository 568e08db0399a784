//! Against the real peteos.

mod conformance;
mod folder;
