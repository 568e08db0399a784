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
