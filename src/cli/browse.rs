//! `loki-sessions` with no subcommand: the terminal UI, then the resume.

use crate::cli::{CliEnv, CliError, PrintWhat, TuiArgs, output, resume_command};
use crate::demo::{self, DemoSpec};
use crate::store::Store;
use crate::tui::model::{Exit, Settings};

/// The model window the gauge measures against when nothing else is set.
pub const DEFAULT_WINDOW: u64 = 128_000;

/// Opens the UI; prints (or runs) the resume result. Cancel exits 130.
pub fn run(env: &CliEnv, args: &TuiArgs) -> Result<(), CliError> {
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
        let user = "demo";
        eprintln!(
            "loki-sessions: making a demo store in {} …",
            dir.path().display()
        );
        demo::generate(dir.path(), &DemoSpec::tui_demo(user, env.now), &|_| {})?;
        let store = Store::loki(dir.path(), user)?;
        demo_dir = Some(dir);
        store
    } else {
        env.store.clone()
    };
    let settings = Settings {
        encoding: env.encoding(args.encoding.as_deref())?,
        window_tokens: args
            .window
            .or(env.config.model_window)
            .unwrap_or(DEFAULT_WINDOW),
        policy: env.policy(None, None)?,
        store_kind: store.kind(),
    };
    let exit = crate::tui::run(store.clone(), settings).map_err(|e| {
        CliError::usage(format!("the terminal UI failed: {e} (is this a terminal?)"))
    })?;
    let record = match exit {
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
    };
    if let Some(dir) = demo_dir.take() {
        // The resumed workspace must outlive us: the demo store stays.
        let kept = dir.keep();
        eprintln!("loki-sessions: the demo store stays in {}", kept.display());
    }
    let target = store.target(&record);
    let command = args
        .exec
        .clone()
        .or_else(|| env.config.resume_command.clone());
    if let Some(template) = command {
        let argv = resume_command::argv(
            &template,
            &record.id,
            &target.workspace().to_string_lossy(),
            &record.path.to_string_lossy(),
        )?;
        return match resume_command::run(&argv)? {
            0 => Ok(()),
            code => Err(CliError {
                code,
                message: String::new(),
            }),
        };
    }
    output::print_lines([crate::cli::resume::printed(
        &target,
        args.print.unwrap_or(PrintWhat::Workspace),
    )])
}
