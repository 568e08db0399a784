//! The driver of the transition tests: press a key or act, check what the
//! model asks for, answer it. Every test does these three steps again and
//! again; written out by hand, each check of the effects took a dozen lines.
//!
//! The checks are macros, not functions, because what is checked is a
//! pattern (`StoreOp::List(ListOp::Scan)`, `ViewerOp::Export { force: true,
//! .. }`) whose fields the test often wants back. Each panics with the
//! pattern it wanted and the effects it got.

use super::*;

/// Sends `action` to the model, as a key bound to it would.
pub(crate) fn act(m: &mut Model, action: Action) -> Vec<Effect> {
    update(m, Msg::Action(action))
}

/// What the keymap makes of `code` pressed alone, on the model's screen.
pub(crate) fn key(m: &Model, code: KeyCode) -> Option<Msg> {
    press(m, code, KeyModifiers::NONE)
}

/// What the keymap makes of `code` pressed with `modifiers` held.
pub(crate) fn press(m: &Model, code: KeyCode, modifiers: KeyModifiers) -> Option<Msg> {
    keymap::to_msg(m, KeyEvent::new(code, modifiers))
}

/// Feeds the worker's `answer` to request `req` back to the model; what it
/// asks for next.
pub(crate) fn reply(m: &mut Model, req: u64, answer: impl Into<Reply>) -> Vec<Effect> {
    update(m, Msg::reply(req, answer))
}

/// The one effect of `effects` (a `Vec<Effect>`, taken), which must match
/// the `Effect` pattern; gives `=> out` (built from the pattern's fields,
/// moved out) or `()`. Any other effect, or none, panics.
macro_rules! only {
    ($effects:expr, $effect:pat $(if $guard:expr)?) => {
        only!($effects, $effect $(if $guard)? => ())
    };
    ($effects:expr, $effect:pat $(if $guard:expr)? => $out:expr) => {{
        let effects: Vec<$crate::tui::effect::Effect> = $effects;
        match <[$crate::tui::effect::Effect; 1]>::try_from(effects) {
            Ok([$effect]) $(if $guard)? => $out,
            Ok([other]) => panic!(
                "wanted the one effect {}, got {other:?}",
                stringify!($effect)
            ),
            Err(effects) => panic!(
                "wanted the one effect {}, got {} of them: {effects:?}",
                stringify!($effect),
                effects.len()
            ),
        }
    }};
}

/// The one effect of `effects` (a `Vec<Effect>`, taken), which must be a
/// store request whose op matches the `StoreOp` pattern; gives its tag, or
/// `(tag, out)` with `=> out`. Any other effect, or none, panics.
macro_rules! only_store {
    ($effects:expr, $op:pat $(if $guard:expr)?) => {
        only!($effects, $crate::tui::effect::Effect::Store { req, op: $op } $(if $guard)? => req)
    };
    ($effects:expr, $op:pat $(if $guard:expr)? => $out:expr) => {
        only!(
            $effects,
            $crate::tui::effect::Effect::Store { req, op: $op } $(if $guard)? => (req, $out)
        )
    };
}

/// The one effect among `effects` (borrowed, beside any others) matching the
/// `Effect` pattern: gives `out`, built from its fields (references). None,
/// or more than one, panics.
macro_rules! among {
    ($effects:expr, $effect:pat $(if $guard:expr)? => $out:expr) => {{
        let effects: &[$crate::tui::effect::Effect] = $effects;
        let mut found: Vec<_> = effects
            .iter()
            .filter_map(|e| match e {
                $effect $(if $guard)? => Some($out),
                _ => None,
            })
            .collect();
        if found.len() != 1 {
            panic!(
                "wanted one effect {} among the effects, found {}: {effects:?}",
                stringify!($effect),
                found.len()
            );
        }
        found.remove(0)
    }};
}

/// The one store request among `effects` (borrowed, beside any others)
/// whose op matches the `StoreOp` pattern: its tag, or `(tag, out)` with
/// `=> out`. None, or more than one, panics.
macro_rules! among_store {
    ($effects:expr, $op:pat $(if $guard:expr)?) => {
        among!($effects, $crate::tui::effect::Effect::Store { req, op: $op } $(if $guard)? => *req)
    };
    ($effects:expr, $op:pat $(if $guard:expr)? => $out:expr) => {
        among!(
            $effects,
            $crate::tui::effect::Effect::Store { req, op: $op } $(if $guard)? => (*req, $out)
        )
    };
}

/// The first effect of `effects` (borrowed, among any others) matching the
/// `Effect` pattern: `Some(out)`, built from its fields (references), or
/// `None`.
macro_rules! first {
    ($effects:expr, $effect:pat $(if $guard:expr)? => $out:expr) => {{
        let effects: &[$crate::tui::effect::Effect] = $effects;
        effects.iter().find_map(|e| match e {
            $effect $(if $guard)? => Some($out),
            _ => None,
        })
    }};
}

/// The first store request of `effects` (borrowed, among any others) whose
/// op matches the `StoreOp` pattern: `Some(tag)`, or `Some((tag, out))`
/// with `=> out`, or `None`.
macro_rules! first_store {
    ($effects:expr, $op:pat $(if $guard:expr)?) => {
        first!($effects, $crate::tui::effect::Effect::Store { req, op: $op } $(if $guard)? => *req)
    };
    ($effects:expr, $op:pat $(if $guard:expr)? => $out:expr) => {
        first!(
            $effects,
            $crate::tui::effect::Effect::Store { req, op: $op } $(if $guard)? => (*req, $out)
        )
    };
}

/// Whether `effects` (borrowed, among any others) ask the store for an op
/// matching the `StoreOp` pattern.
macro_rules! asks {
    ($effects:expr, $op:pat $(if $guard:expr)?) => {{
        let effects: &[$crate::tui::effect::Effect] = $effects;
        effects.iter().any(|e| {
            matches!(e, $crate::tui::effect::Effect::Store { op: $op, .. } $(if $guard)?)
        })
    }};
}
