//! Other machines' sessions, through the person's own `ssh` (their
//! config, keys and agent; one shared connection per host): the same
//! `loki-sessions` runs on each host named, its answer comes back as it
//! printed it, and is checked like any file before anything of it is
//! shown. Nothing runs on a host the person did not name; no daemon or
//! server of ours is involved. `ssh.rs` runs the program, `answer.rs`
//! checks what comes back, `sessions.rs` reads a host's rows from it.

pub mod answer;
mod sessions;
mod ssh;

pub use sessions::{MAX_ANSWER, RemoteSession, answered_rows, fetch_pack, list};
pub use ssh::{Reply, ask, ask_each, interactive, stop_all};

/// A host of the config's `[hosts]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    /// Its name in the config and on `--host`.
    pub name: String,
    /// Where `ssh` connects: `user@machine`, or a name of the person's
    /// ssh config.
    pub destination: String,
    /// The program run there (`loki-sessions` from its PATH by default).
    pub command: String,
}

/// The name `--host` gives for this machine (its answer is asked of this
/// same program, as a host's is).
pub const LOCAL: &str = "local";

/// `--host all`: this machine and every configured host.
pub const ALL: &str = "all";

impl Host {
    /// A host from the config, its name and destination checked: neither
    /// may become an option of `ssh` or hold what a terminal acts on.
    pub fn new(name: &str, destination: &str, command: Option<&str>) -> Result<Host, String> {
        check_name(name)?;
        let plain = |c: char| !c.is_whitespace() && !c.is_control();
        if destination.is_empty() || destination.starts_with('-') || !destination.chars().all(plain)
        {
            return Err(format!(
                "hosts.{name}: {:?} is not an ssh destination (user@machine, or a Host of your ssh config)",
                crate::store::safe_text::safe_line(destination)
            ));
        }
        let command = command.unwrap_or("loki-sessions");
        if command.is_empty() || command.chars().any(char::is_control) {
            return Err(format!(
                "hosts.{name}: the command is empty or holds control characters"
            ));
        }
        Ok(Host {
            name: name.into(),
            destination: destination.into(),
            command: command.into(),
        })
    }

    /// This machine, answered by this program itself.
    pub fn local() -> Host {
        Host {
            name: LOCAL.into(),
            destination: String::new(),
            command: String::new(),
        }
    }

    /// True for this machine.
    pub fn is_local(&self) -> bool {
        self.name == LOCAL && self.destination.is_empty()
    }
}

/// A host's name: letters, digits, `-`, `_` and `.`, at most 64, and
/// neither `local` nor `all`.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if name.is_empty() || name.len() > 64 || !name.chars().all(ok) {
        return Err(format!(
            "{:?} is not a host name (letters, digits, -, _ and ., at most 64)",
            crate::store::safe_text::safe_line(name)
        ));
    }
    if name == LOCAL || name == ALL {
        return Err(format!(
            "\"{name}\" names this machine or every host: pick another name"
        ));
    }
    Ok(())
}

/// The hosts `asked` names (`local`, `all`, or names of `configured`), in
/// the order given, each once.
pub fn chosen(asked: &[String], configured: &[Host]) -> Result<Vec<Host>, String> {
    let mut out: Vec<Host> = Vec::new();
    let mut add = |host: Host| {
        if !out.iter().any(|h| h.name == host.name) {
            out.push(host);
        }
    };
    for name in asked {
        match name.as_str() {
            ALL => {
                add(Host::local());
                configured.iter().cloned().for_each(&mut add);
            }
            LOCAL => add(Host::local()),
            _ => match configured.iter().find(|h| &h.name == name) {
                Some(host) => add(host.clone()),
                None => {
                    let known: Vec<&str> = configured.iter().map(|h| h.name.as_str()).collect();
                    return Err(format!(
                        "no host {:?} in the config's [hosts] ({}); `local` is this machine, `all` every host",
                        crate::store::safe_text::safe_line(name),
                        if known.is_empty() {
                            format!(
                                "it names none: add `{} = \"user@machine\"` under [hosts]",
                                crate::store::safe_text::safe_line(name)
                            )
                        } else {
                            format!("it names {}", known.join(", "))
                        }
                    ));
                }
            },
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_destinations_that_could_become_options_are_refused() {
        assert!(Host::new("dev", "me@devbox", None).is_ok());
        assert!(Host::new("dev", "-oProxyCommand=sh", None).is_err());
        assert!(Host::new("dev", "me@devbox touch x", None).is_err());
        assert!(Host::new("dev", "me@devbox\u{1b}]0;x", None).is_err());
        assert!(Host::new("dev box", "devbox", None).is_err());
        assert!(Host::new("all", "devbox", None).is_err());
        assert!(Host::new("local", "devbox", None).is_err());
    }

    #[test]
    fn all_is_this_machine_and_every_host_once() {
        let dev = Host::new("dev", "devbox", None).unwrap();
        let gpu = Host::new("gpu", "gpu.example", None).unwrap();
        let names = |asked: &[&str]| -> Vec<String> {
            let asked: Vec<String> = asked.iter().map(|s| s.to_string()).collect();
            chosen(&asked, &[dev.clone(), gpu.clone()])
                .unwrap()
                .into_iter()
                .map(|h| h.name)
                .collect()
        };
        assert_eq!(names(&["all"]), ["local", "dev", "gpu"]);
        assert_eq!(names(&["gpu", "all", "gpu"]), ["gpu", "local", "dev"]);
        assert!(
            chosen(&["nope".into()], &[dev])
                .unwrap_err()
                .contains("it names dev")
        );
        let none = chosen(&["dev".into()], &[]).unwrap_err();
        assert!(
            none.contains(r#"add `dev = "user@machine"` under [hosts]"#),
            "{none}"
        );
    }
}
