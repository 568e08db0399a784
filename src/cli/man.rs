//! The manual page, `docs/loki-sessions.1`, generated from the CLI's own
//! definition (`Cli`) with clap_mangen, so `man` says what `--help` says:
//! one page, the global and UI options first, then every subcommand with its
//! synopsis, options and examples, then exit status, environment and files.
//! A test compares the file with what this writes; `UPDATE_DOCS=1 cargo
//! test --lib man_page` rewrites it. Only tests use clap_mangen (a
//! dev-dependency): the binary does not carry it.

use super::Cli;
use clap::CommandFactory;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};
use std::io::Write;

/// Where the page is, from the crate's root.
const PAGE: &str = "docs/loki-sessions.1";

/// What the page says after the one-line description.
const DESCRIPTION: &str = "Without a command, loki-sessions opens the terminal UI on the session \
    list (reading ~/.loki, or LOKI_HOME, or --root): type to filter, Tab to read a session's \
    messages and tokens and trim them, Enter to resume one, which prints its workspace, so \
    cd \"$(loki-sessions)\" goes there. F1 shows every key. The commands below do the same \
    from scripts, most of them with --json. Nothing is written or deleted that was not asked \
    for: every write is atomic and takes the session's lock, a trim is a fork the old context \
    survives, and a deletion asks first (or needs --yes).";

/// A paragraph of a section: a tagged one (`.TP`, the tag in bold) or,
/// without a tag, plain text.
type Paragraph = (Option<&'static str>, &'static str);

/// A section's title and paragraphs.
type Section = (&'static str, &'static [Paragraph]);

/// The sections clap does not know: how the program ends, what it reads
/// from the environment and the disk, and where to read more.
const CLOSING: &[Section] = &[
    (
        "EXIT STATUS",
        &[
            (Some("0"), "Success."),
            (
                Some("1"),
                "Not found or nothing to do: no such message, a trim that would change nothing, \
                 a purge with nothing stale, a search with no hit, a session already imported, \
                 a deletion answered No.",
            ),
            (
                Some("2"),
                "Bad input or usage: a store that is not there, an ambiguous SESSION, a damaged \
                 session asked to change, a refused delete, a question that no terminal can \
                 answer.",
            ),
            (
                Some("3"),
                "Busy, to try again later: a trim, edit or fork of a session an agent has open \
                 or wrote to while it was read, or of one another process holds locked (a \
                 delete of one in use is refused with 2).",
            ),
            (
                Some("130"),
                "The terminal UI was left without resuming a session.",
            ),
            (
                Some("128+N"),
                "The terminal UI ended on signal N (SIGTERM, SIGHUP, SIGINT), the terminal \
                 restored first.",
            ),
            (
                None,
                "With --exec (or resume_command) a resume ends with the command's exit status. \
                 A closed pipe (loki-sessions list | head) ends quietly with 0.",
            ),
        ],
    ),
    (
        "ENVIRONMENT",
        &[
            (
                Some("LOKI_HOME"),
                "The Loki home when --root is not given (else ~/.loki).",
            ),
            (
                Some("XDG_CONFIG_HOME"),
                "Where loki-sessions/config.toml and state.toml are (on Linux, else ~/.config).",
            ),
            (
                Some("XDG_CACHE_HOME"),
                "Where the search index is kept, in loki-sessions/ (on Linux, else ~/.cache).",
            ),
            (
                Some("XDG_DATA_HOME"),
                "Where the trash and the archive are kept, in loki-sessions/, and where \
                 OpenCode's opencode/opencode.db is listed from (on Linux, else ~/.local/share).",
            ),
            (
                Some("NO_COLOR"),
                "Set: no colours, only bold, dim, italic and reverse.",
            ),
            (
                Some("COLORFGBG"),
                "The terminal's colours, read to tell a light background from a dark one when \
                 the config does not say.",
            ),
            (
                Some("PAGER, LESS"),
                "show --format transcript pages through $PAGER (less by default, with LESS=FRX \
                 unless LESS is set).",
            ),
            (
                Some("CLAUDE_CONFIG_DIR"),
                "Claude Code's folder, whose projects/ is listed (else ~/.claude).",
            ),
            (
                Some("CODEX_HOME"),
                "Codex CLI's folder, whose sessions/ and archived_sessions/ are listed (else \
                 ~/.codex).",
            ),
            (
                Some("COPILOT_HOME"),
                "GitHub Copilot CLI's folder, whose session-state/ is listed (else ~/.copilot).",
            ),
            (
                Some("QWEN_HOME"),
                "Qwen Code's folder, whose projects/*/chats/ are listed (else ~/.qwen).",
            ),
            (
                Some("COMPLETE"),
                "Set by the completion scripts: the shell asks loki-sessions for completions.",
            ),
        ],
    ),
    (
        "FILES",
        &[
            (
                Some("~/.loki/users/USER/session/ID/"),
                "A Loki session: meta.json, workspace/, memory/ (the peteos conversation), cache/.",
            ),
            (
                Some("~/.config/loki-sessions/config.toml"),
                "Settings: keep, max_age, encoding, model_window, resume_command, theme, \
                 duplicate_names, [keys], [prices] and [resume]. Only read.",
            ),
            (
                Some("~/.claude/projects/, ~/.codex/sessions/, ~/.gemini/tmp/*/chats/"),
                "Claude Code's, Codex CLI's and Gemini CLI's sessions, listed, searched and read \
                 beside Loki's; never written.",
            ),
            (
                Some("~/.config/loki-sessions/state.toml"),
                "What the UI remembers (the transcript's settings), beside the config file.",
            ),
            (
                Some("~/.cache/loki-sessions/"),
                "The search index, one folder per session folder; a cache, safe to delete.",
            ),
        ],
    ),
    (
        "SEE ALSO",
        &[(
            None,
            "docs/GUIDE.md (the guide), docs/KEYS.md (every key), docs/FORMATS.md (the formats \
             read and written), docs/RELIABILITY.md and docs/PERFORMANCE.md, in the source \
             repository.",
        )],
    ),
];

/// The whole page, in roff.
pub fn page() -> String {
    let mut cmd = Cli::command();
    cmd.build();
    let man = Man::new(cmd.clone()).date("");
    let mut out = String::from(PREAMBLE);
    out += &rendered(|w| man.render_title(w));
    out += &rendered(|w| man.render_name_section(w));
    out += &rendered(|w| man.render_synopsis_section(w));
    out += &rendered(|w| man.render_description_section(w));
    let mut roff = Roff::new();
    roff.control("PP", []).text([roman(DESCRIPTION)]);
    out += &rendered(|w| roff.to_writer(w));
    out += &rendered(|w| man.render_options_section(w));
    let mut roff = Roff::new();
    roff.control("SH", ["COMMANDS"]);
    roff.text([roman(
        "Each command also answers --help, with its examples. The global options \
         (--root, --user, --peteos, --config) go before or after the command.",
    )]);
    out += &rendered(|w| roff.to_writer(w));
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        out += &command_section(sub);
    }
    let mut roff = Roff::new();
    if let Some(examples) = cmd.get_after_help() {
        roff.control("SH", ["EXAMPLES"]);
        help_text(&mut roff, &examples.to_string());
    }
    for (title, paragraphs) in CLOSING {
        roff.control("SH", [*title]);
        for (tag, text) in *paragraphs {
            match tag {
                Some(tag) => roff.control("TP", []).text([bold(*tag)]),
                None => roff.control("PP", []),
            };
            roff.text([roman(*text)]);
        }
    }
    out += &rendered(|w| roff.to_writer(w));
    out
}

/// One subcommand: a subsection with its synopsis, what it does, its own
/// options (the global ones are described once, above) and its examples.
fn command_section(sub: &clap::Command) -> String {
    let own = sub
        .clone()
        .mut_args(|a| if a.is_global_set() { a.hide(true) } else { a })
        .mut_arg("help", |a| a.hide(true));
    let man = Man::new(own.clone());
    let mut heading = Roff::new();
    heading.control("SS", [own.get_bin_name().unwrap_or(own.get_name())]);
    let mut out = rendered(|w| heading.to_writer(w));
    out += &without_heading(rendered(|w| man.render_synopsis_section(w)));
    out += ".PP\n";
    out += &without_heading(rendered(|w| man.render_description_section(w)));
    out += &without_heading(rendered(|w| man.render_options_section(w)));
    if let Some(after) = own.get_after_help() {
        let mut roff = Roff::new();
        roff.control("PP", []);
        help_text(&mut roff, &after.to_string());
        out += &rendered(|w| roff.to_writer(w));
    }
    out
}

/// What roff writes before every rendering: the definition of the
/// apostrophe string. The page needs it once, at the top.
const PREAMBLE: &str = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";

/// A rendering, without the preamble it repeats each time.
fn rendered(render: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> String {
    let mut bytes = Vec::new();
    render(&mut bytes).expect("write to memory");
    let text = String::from_utf8(bytes).expect("roff is text");
    match text.strip_prefix(PREAMBLE) {
        Some(rest) => rest.to_string(),
        None => panic!("roff's preamble changed: {text:?}"),
    }
}

/// A section clap_mangen renders, without its `.SH` heading: inside a
/// subcommand's subsection it is a paragraph, not a section of its own.
fn without_heading(text: String) -> String {
    let mut lines = text.lines();
    if let Some(first) = lines.next() {
        assert!(
            first.starts_with(".SH "),
            "a rendered section starts with its heading, not {first:?}"
        );
    }
    let rest: Vec<&str> = lines.collect();
    assert!(
        !rest.iter().any(|l| l.starts_with(".SH ")),
        "a subcommand's section has one heading (options under a help heading?)"
    );
    rest.iter().map(|l| format!("{l}\n")).collect()
}

/// Help text as clap holds it: indented lines (examples in columns) kept
/// as written, other lines filled as paragraphs, a blank line between them.
fn help_text(roff: &mut Roff, text: &str) {
    let mut verbatim = false;
    for line in text.lines() {
        if line.trim().is_empty() {
            if verbatim {
                roff.control("fi", []);
                verbatim = false;
            }
            roff.control("PP", []);
            continue;
        }
        let indented = line.starts_with(' ');
        if indented != verbatim {
            roff.control(if indented { "nf" } else { "fi" }, []);
            verbatim = indented;
        }
        roff.text([roman(line)]);
    }
    if verbatim {
        roff.control("fi", []);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// `docs/loki-sessions.1` says what the CLI's definition says.
    #[test]
    fn man_page_is_current() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(PAGE);
        let want = page();
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{PAGE} is stale: run UPDATE_DOCS=1 cargo test --lib man_page"
        );
    }

    /// Every subcommand and every option of the CLI is on the page.
    #[test]
    fn man_page_has_every_command_and_option() {
        let text = page();
        let cmd = Cli::command();
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            assert!(
                text.contains(&format!(".SS \"loki-sessions {}\"", sub.get_name()))
                    || text.contains(&format!(".SS loki-sessions {}", sub.get_name())),
                "{} has no subsection",
                sub.get_name()
            );
            for arg in sub.get_arguments().filter_map(|a| a.get_long()) {
                if arg != "help" {
                    assert!(
                        text.contains(&format!("\\-\\-{}", arg.replace('-', "\\-"))),
                        "--{arg} of {} is missing",
                        sub.get_name()
                    );
                }
            }
        }
    }
}
