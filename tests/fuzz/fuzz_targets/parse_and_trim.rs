//! Arbitrary bytes as meta.json, session.json and a context: parsing never
//! panics; a context that parses can be rendered, counted, windowed and
//! forked, and the results keep the window properties.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loki_sessions::store::jsonfile;
use loki_sessions::store::format::Meta;
use loki_sessions::store::format::{Context, fork, window};
use loki_sessions::store::format::tokens::{self, Encoding};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.json");
    let Ok(map) = jsonfile::parse_object(path, data) else { return };
    let _ = Meta::from_raw(map.clone(), path);
    let Ok(ctx) = Context::from_raw(map, path) else { return };
    let mut counts = Vec::new();
    for m in ctx.messages() {
        let _ = m.one_line();
        counts.push(tokens::effective_count(&m, Encoding::Cl100kBase).expect("counting never fails"));
    }
    let specials = ctx.special_indices();
    let special_tokens: u64 = specials.iter().map(|&i| counts[i]).sum();
    let budget = counts.iter().sum::<u64>() / 2;
    if let Some(kept) = window::rolling_token_window(&ctx, &counts, budget) {
        assert!(kept.windows(2).all(|w| w[0] < w[1]));
        assert!(specials.iter().all(|s| kept.contains(s)));
        let total: u64 = kept.iter().map(|&i| counts[i]).sum();
        assert!(total <= budget.max(special_tokens));
        if let Ok(child) = fork(&ctx, &kept, "child", "2026-01-01T00:00:00") {
            assert_eq!(child.len(), kept.len());
        }
    }
    if let Ok(Some(kept)) = window::rolling_sequence_window(&ctx, 1) {
        assert!(specials.iter().all(|s| kept.contains(s)));
    }
});
