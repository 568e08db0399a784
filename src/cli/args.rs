//! Arguments several subcommands share: how they are parsed and completed.

use crate::store::{Agent, Encoding};
use clap::builder::{PossibleValuesParser, TypedValueParser};

/// `--encoding`: one of the encodings' names; anything else is a usage
/// error listing them, and `--help` lists them too.
pub fn encoding() -> impl TypedValueParser<Value = Encoding> {
    PossibleValuesParser::new(Encoding::ALL.map(Encoding::name))
        .map(|name| name.parse().expect("one of the possible values"))
}

/// `--agent`: one of the agents' names.
pub fn agent() -> impl TypedValueParser<Value = Agent> {
    PossibleValuesParser::new(Agent::ALL.map(Agent::name))
        .map(|name| name.parse().expect("one of the possible values"))
}

/// [`tokens`], at least 1: a budget of 0 would keep no message at all.
pub fn budget(text: &str) -> Result<u64, String> {
    match tokens(text)? {
        0 => Err("a budget of 0 tokens would keep no message; give at least 1 (50k, 1.5M)".into()),
        n => Ok(n),
    }
}

/// A number of tokens as people write it: `50000`, `50,000`, `50_000`,
/// `50k`, `1.5M` (k is a thousand, M a million; case does not matter).
pub fn tokens(text: &str) -> Result<u64, String> {
    let plain: String = text
        .trim()
        .chars()
        .filter(|c| *c != ',' && *c != '_')
        .collect();
    let (number, scale) = match plain.chars().last() {
        Some('k' | 'K') => (&plain[..plain.len() - 1], 1_000.0),
        Some('m' | 'M') => (&plain[..plain.len() - 1], 1_000_000.0),
        _ => (plain.as_str(), 1.0),
    };
    let bad = || format!("{text:?} is not a number of tokens (try 50000, 50k or 1.5M)");
    if scale == 1.0 {
        return number.parse().map_err(|_| bad());
    }
    let value: f64 = number.parse().map_err(|_| bad())?;
    if !value.is_finite() || value < 0.0 {
        return Err(bad());
    }
    Ok((value * scale).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::{budget, tokens};

    #[test]
    fn tokens_read_as_people_write_them() {
        assert_eq!(tokens("50000"), Ok(50_000));
        assert_eq!(tokens("50,000"), Ok(50_000));
        assert_eq!(tokens("50k"), Ok(50_000));
        assert_eq!(tokens("50K"), Ok(50_000));
        assert_eq!(tokens("1.5M"), Ok(1_500_000));
        assert_eq!(tokens("0.5k"), Ok(500));
        assert!(tokens("fifty").is_err());
        assert!(tokens("-3k").is_err());
        assert!(tokens("12.5").is_err(), "a count has no fraction");
    }

    #[test]
    fn a_budget_keeps_something() {
        assert!(budget("0").is_err());
        assert!(budget("0k").is_err());
        assert_eq!(budget("1"), Ok(1));
    }
}
