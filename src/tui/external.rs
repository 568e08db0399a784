//! Running the program the terminal is handed to (`o`: the transcript in
//! `$PAGER`; `O`: the session's file in `$EDITOR`), on the UI's thread
//! while the terminal is given back: what to say of it when it ends.

use crate::render::theme::Theme;
use crate::render::transcript::printed;
use crate::store::safe_text::safe_line;
use crate::tui::model::External;
use std::fs::File;

/// Columns when the terminal does not say.
const WIDTH: usize = 100;

/// Runs `program` on the terminal `tty` (never our stdout, which a shell
/// may be reading: `cd "$(loki-sessions)"`) and says how it went.
pub fn run(program: &External, theme: Theme, tty: &File) -> Result<String, String> {
    match program {
        External::Pager {
            context,
            counts,
            display,
        } => {
            let width = crossterm::terminal::size().map_or(WIDTH, |(w, _)| usize::from(w));
            let lines = printed::render(context, counts, *display, width, Some(theme));
            // Colours passed, and no quitting at once on a short one: the
            // person asked to read it.
            match printed::page(&lines, "R", Some(tty)) {
                Ok(true) => Ok("back from the pager".into()),
                Ok(false) => Err("no pager could be run: set PAGER (less by default)".into()),
                Err(e) => Err(format!("the pager failed: {e}")),
            }
        }
        External::Editor { path } => {
            let editor = ["VISUAL", "EDITOR"]
                .iter()
                .find_map(|v| std::env::var(v).ok().filter(|e| !e.trim().is_empty()))
                .unwrap_or_else(|| "vi".into());
            let words = shlex::split(&editor).unwrap_or_default();
            let Some((name, args)) = words.split_first() else {
                return Err(format!(
                    "cannot read the editor command {:?}",
                    safe_line(&editor)
                ));
            };
            let shown = safe_line(&path.to_string_lossy()).into_owned();
            let mut command = std::process::Command::new(name);
            command.args(args).arg(path);
            if let (Ok(i), Ok(o), Ok(e)) = (tty.try_clone(), tty.try_clone(), tty.try_clone()) {
                command.stdin(i).stdout(o).stderr(e);
            }
            match command.status() {
                Ok(status) if status.success() => {
                    Ok(format!("back from {} ({shown})", safe_line(name)))
                }
                Ok(status) => Err(format!("{} ended with {status} ({shown})", safe_line(name))),
                Err(e) => Err(format!(
                    "cannot run the editor {}: {e} (set VISUAL or EDITOR)",
                    safe_line(name)
                )),
            }
        }
    }
}
