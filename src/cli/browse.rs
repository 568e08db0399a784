//! `loki-sessions` with no subcommand: the terminal UI, then the resume.

use crate::cli::resume::ResumeOutput;
use crate::cli::resume_preflight;
use crate::cli::{CliEnv, CliError, RootFrom, TuiArgs};
use crate::config;
use crate::demo::{self, DemoSpec};
use crate::render::theme::Background;
use crate::store::{AgentHomes, Encoding, PurgePolicy, Store, StoreKind};
use crate::tui::keymap::CustomKeys;
use crate::tui::model::{Exit, ResumeCheck, Settings};
use std::sync::Arc;

/// Whose sessions the `--demo` store holds.
const DEMO_USER: &str = "demo";

/// Where in the `--demo` store its search index lives.
const DEMO_INDEX: &str = ".index";

/// How long ago the demo's other agents' files look written: longer than a
/// session an agent may still be writing (a delete refuses those).
const DEMO_SETTLED: f64 = 10.0 * 60.0;

/// Where in the `--demo` store its trash lives: a delete in the demo
/// moves a demo session there, never into the person's own trash (nor
/// lists theirs), and it goes with the demo store.
const DEMO_TRASH: &str = ".trash";
/// The demo's archive, inside its store: gone with it.
const DEMO_ARCHIVE: &str = ".archive";

/// The model window the gauge measures against when nothing else is set.
pub const DEFAULT_WINDOW: u64 = 128_000;

/// The settings the UI opens with on a store of `kind` when no config file
/// and no flag says otherwise (what [`run`] starts from), with the disk not
/// followed, nothing asked before a resume and no folders named for an
/// empty list: tests and benchmarks start from these, so that a figure
/// they show (a session's FILL against its agent's window) is the one a
/// person sees.
pub fn default_settings(kind: StoreKind) -> Settings {
    Settings {
        encoding: Encoding::default(),
        window_tokens: DEFAULT_WINDOW,
        policy: PurgePolicy::default(),
        store_kind: kind,
        display: Default::default(),
        watch: None,
        windows: config::Config::default()
            .agent_windows()
            .expect("the default windows are valid"),
        resume_check: Default::default(),
        looked_in: None,
        archive_due: None,
        hosts: Vec::new(),
        host_timeout: std::time::Duration::from_secs(20),
        open_hosts: Vec::new(),
    }
}

/// Opens the UI; prints (or runs) the resume result. Cancel exits 130. A
/// root or folder given that is not there is an error; the default root may
/// be missing (the UI starts the first session). The demo store is removed
/// on exit unless `--keep` (or a resume) keeps it, and either is said.
pub fn run(env: &CliEnv, args: &TuiArgs, asked_hosts: &[String]) -> Result<(), CliError> {
    if !args.demo && (env.root_from != RootFrom::Default || env.peteos_flag) {
        env.check_folder()?;
    }
    // The person's keys are checked before anything is made or drawn.
    let file = env
        .config_path
        .as_deref()
        .map_or("the config".into(), |p| p.display().to_string());
    let keys = CustomKeys::from_entries(&env.config.keys, &file).map_err(CliError::usage)?;
    let mut demo_dir = None;
    let store = if args.demo {
        let dir = tempfile::Builder::new()
            .prefix("loki-sessions-demo-")
            .tempdir()
            .map_err(|e| {
                CliError::usage(format!(
                    "cannot make a temporary directory for the demo: {e}"
                ))
            })?;
        let user = DEMO_USER;
        crate::note!(
            "loki-sessions: making a demo store in {} …",
            dir.path().display()
        );
        demo::generate(dir.path(), &DemoSpec::tui_demo(user, env.now), &|_| {})?;
        // Other agents' sessions of the demo live in a home of its own,
        // never the person's; its search index lives inside it, so it goes
        // with the store.
        let home = dir.path().join("home");
        demo::agents::generate(&home, &demo::agents::AgentsSpec::demo(env.now))?;
        demo::agents::settle(&home, env.now - DEMO_SETTLED)?;
        let store = Store::loki(dir.path(), user)?
            .with_cache_dir(&dir.path().join(DEMO_INDEX))
            .with_trash_dir(&dir.path().join(DEMO_TRASH))
            .with_archive_dir(&dir.path().join(DEMO_ARCHIVE))
            .with_agents(&AgentHomes::under(&home))
            .only_agents(&env.agents);
        demo_dir = Some(dir);
        store
    } else {
        env.store.clone()
    };
    let output = match args
        .exec
        .clone()
        .or_else(|| env.config.resume_command.clone())
    {
        Some(template) => ResumeOutput::Exec(template),
        // Nothing asked: another agent's session resumes in the agent.
        None => args.print.map_or(ResumeOutput::Usual, ResumeOutput::Print),
    };
    let resume_check = {
        let (table, output) = (env.config.resume.clone(), output.clone());
        ResumeCheck::new(move |target| resume_preflight::check(table.as_ref(), target, &output))
    };
    let hosts = env.config.hosts().map_err(CliError::usage)?;
    // `--host` opens on the other machines' pane; this machine's sessions
    // are the list behind it.
    let open_hosts: Vec<crate::hosts::Host> = crate::hosts::chosen(asked_hosts, &hosts)
        .map_err(CliError::usage)?
        .into_iter()
        .filter(|h| !h.is_local())
        .collect();
    let host_timeout = env.config.host_timeout().map_err(CliError::usage)?;
    let settings = Settings {
        hosts,
        host_timeout,
        open_hosts,
        encoding: env.encoding(args.encoding)?,
        window_tokens: args
            .window
            .or(env.config.model_window)
            .unwrap_or(DEFAULT_WINDOW),
        policy: env.policy(None, None)?,
        watch: env.config.watch_options().map_err(CliError::usage)?,
        windows: env.config.agent_windows().map_err(CliError::usage)?,
        resume_check,
        looked_in: (demo_dir.is_none()).then(|| env.looked_in()),
        archive_due: env.archive_due()?,
        ..default_settings(store.kind())
    };
    let background = match env.config.theme.as_deref() {
        Some(name) => Some(
            name.parse::<Background>()
                .map_err(|e| CliError::usage(format!("bad config: {e}")))?,
        ),
        None => None,
    };
    let state = env.config_path.as_deref().and_then(config::state_path);
    let mut settings = settings;
    if let Some(path) = &state {
        settings.display = config::load_display(path);
    }
    let remembered = settings.display;
    let outcome = crate::tui::run(store.clone(), settings, background, Arc::new(keys))
        .map_err(|e| CliError::usage(format!("the terminal UI failed: {e} (is this a terminal?)")));
    // A host still being asked when the UI ended is not waited for.
    crate::hosts::stop_all();
    if let (Ok(outcome), Some(path)) = (&outcome, &state)
        && outcome.display != remembered
        && let Err(e) = config::save_display(path, outcome.display)
    {
        crate::note!("loki-sessions: {e}");
    }
    let exit = outcome.map(|o| o.exit);
    // The resumed workspace must outlive us: a resume keeps the demo store.
    let resumed = matches!(exit, Ok(Exit::Resume(_)));
    if let Some(dir) = demo_dir.take() {
        end_demo(dir, DEMO_USER, args.keep || resumed);
    }
    let record = match exit? {
        Exit::Cancel => {
            return Err(CliError {
                code: 130,
                message: String::new(),
            });
        }
        Exit::Signal(signal) => {
            return Err(CliError {
                code: u8::try_from(128 + signal).unwrap_or(u8::MAX),
                message: String::new(),
            });
        }
        Exit::Resume(record) => record,
        Exit::ResumeRemote { host, id } => return resume_remote(&output, host, &id, host_timeout),
    };
    let target = store.target(&record);
    crate::cli::resume::finish(env, &target, &output)
}

/// Enter on another machine's session: resumed there over `ssh -t`, as
/// `loki-sessions --host NAME resume ID` does. `--print` promised a path
/// of this machine on stdout, which a session there has not.
fn resume_remote(
    output: &ResumeOutput,
    host: crate::hosts::Host,
    id: &str,
    deadline: std::time::Duration,
) -> Result<(), CliError> {
    if let ResumeOutput::Print(_) = output {
        return Err(CliError::usage(format!(
            "session {id} is on {}: with --print nothing of it is here to print; resume it with `loki-sessions --host {0} resume {id}`",
            host.name
        )));
    }
    crate::note!(
        "loki-sessions: resuming {id} on {} (loki-sessions --host {0} resume {id})",
        host.name
    );
    crate::cli::hosts::resume(
        std::slice::from_ref(&host),
        &["resume".to_string(), id.to_string()],
        deadline,
    )
}

/// Keeps or removes the demo store, saying which (and where) on stderr.
fn end_demo(dir: tempfile::TempDir, user: &str, keep: bool) {
    if keep {
        let kept = dir.keep();
        crate::note!(
            "loki-sessions: the demo store stays in {} (open it again with --root {0} --user {user})",
            kept.display()
        );
        return;
    }
    // Removing thousands of files just written can take seconds on some
    // file systems: a child process does it, and the shell has its prompt
    // back at once (the terminal is already restored).
    let path = dir.keep();
    let removal = std::process::Command::new("rm")
        .arg("-rf")
        .arg("--")
        .arg(&path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match removal {
        // We exit next: the child is reparented, never left a zombie of ours.
        #[allow(clippy::zombie_processes)]
        Ok(_) => crate::note!(
            "loki-sessions: removing the demo store {} (in the background)",
            path.display()
        ),
        Err(_) => match std::fs::remove_dir_all(&path) {
            Ok(()) => crate::note!("loki-sessions: removed the demo store {}", path.display()),
            Err(e) => crate::note!(
                "loki-sessions: could not remove the demo store {}: {e}",
                path.display()
            ),
        },
    }
}
