//! Exporting the context on screen: a file name is asked (the session's
//! name in the current directory, the format by its extension), the store
//! writes it on a worker, never inside the session tree and never over a
//! file unless the person said yes to replacing it.

use crate::store::TranscriptFormat;
use crate::tui::effect::Effect;
use crate::tui::model::{App, Confirm, ConfirmAction, Input, InputPurpose, Overlay, Viewer};
use crate::tui::ops::{ErrorKind, UiError, ViewerOp};
use crate::tui::update::Step;
use std::path::{Path, PathBuf};

/// Asks where to write, offering `<session name>.md` in the current directory.
pub fn ask(viewer: &Viewer, app: &mut App) {
    if viewer.loaded.is_none() {
        return;
    }
    let name = format!("{}.md", file_stem(&viewer.record.name));
    app.overlay = Some(Overlay::Input(Input::new(InputPurpose::Export, &name)));
}

/// A session's name as a file name: no separators, no leading dot.
fn file_stem(name: &str) -> String {
    let stem: String = name
        .chars()
        .map(|c| if c == '/' || c.is_control() { '-' } else { c })
        .collect();
    let stem = stem.trim_start_matches('.').trim();
    if stem.is_empty() {
        "context".into()
    } else {
        stem.to_string()
    }
}

/// The file name typed: written if its extension names a format, else
/// asked again.
pub fn on_path_typed(viewer: &mut Viewer, app: &mut App, text: &str) -> Step {
    let path = PathBuf::from(text);
    if text.is_empty() || TranscriptFormat::for_path(&path).is_none() {
        app.complain("name a file ending in .md, .html, .txt or .json");
        app.overlay = Some(Overlay::Input(Input::new(InputPurpose::Export, text)));
        return Step::none();
    }
    write(viewer, app, path, false)
}

/// The person said yes to replacing `path`.
pub fn on_replace_confirmed(viewer: &mut Viewer, app: &mut App, path: &Path) -> Step {
    write(viewer, app, path.to_path_buf(), true)
}

fn write(viewer: &mut Viewer, app: &mut App, path: PathBuf, force: bool) -> Step {
    let (Some(loaded), Some(format)) = (&viewer.loaded, TranscriptFormat::for_path(&path)) else {
        return Step::none();
    };
    let req = app.request();
    viewer.pending.export = req;
    app.say(format!("writing {}…", path.display()));
    Step::effect(Effect::store(
        req,
        ViewerOp::Export {
            record: viewer.record.clone(),
            context_id: loaded.context.id().to_string(),
            path,
            format,
            force,
        },
    ))
}

/// The store's answer: where it went, a question if the file exists, or
/// why it was not written.
pub fn on_exported(
    viewer: &Viewer,
    app: &mut App,
    req: u64,
    path: PathBuf,
    result: Result<PathBuf, UiError>,
) {
    if req != viewer.pending.export {
        return;
    }
    match result {
        Ok(written) => app.say(format!("exported the context to {}", written.display())),
        Err(e) if e.kind == ErrorKind::Exists => {
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into(),
            );
            app.status = None;
            app.overlay = Some(Overlay::Confirm(Confirm {
                title: format!("Replace {name}?"),
                lines: vec![
                    format!("{} exists already.", path.display()),
                    "Yes replaces it with this context's transcript; No leaves it as it is.".into(),
                ],
                action: ConfirmAction::ReplaceExport { path },
            }));
        }
        Err(e) => app.complain(format!("not exported: {e}")),
    }
}
