//! Which names may be one file name of ours: session ids, user names and
//! context ids all become a single path component, so none may climb out.

/// Why `name` cannot be a single file name of ours, if it cannot.
pub fn check_component(name: &str, what: &str) -> std::result::Result<(), String> {
    if name.is_empty() {
        return Err(format!("the {what} is empty"));
    }
    if name == "." || name == ".." {
        return Err(format!("the {what} may not be . or .."));
    }
    if name.starts_with('.') {
        return Err(format!("the {what} may not start with a dot"));
    }
    if name.contains(['/', '\\', '\0']) {
        return Err(format!("the {what} may not contain / \\ or NUL"));
    }
    if name.len() > 200 {
        return Err(format!("the {what} is longer than 200 bytes"));
    }
    Ok(())
}
