//! An output that is one of the command's inputs would be written over the
//! file just read: refused before anything is written.

use crate::CliError;
use std::path::Path;

/// Whether `a` and `b` name one file: the same device and inode when both
/// exist (so a symbolic or hard link, or `./x` for `x`, is caught), else
/// the same path once links are followed (a file not made yet).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    if let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        use std::os::unix::fs::MetadataExt;
        return (ma.dev(), ma.ino()) == (mb.dev(), mb.ino());
    }
    let whole = |p: &Path| {
        std::fs::canonicalize(p)
            .or_else(|_| std::path::absolute(p))
            .ok()
    };
    whole(a).is_some_and(|a| Some(a) == whole(b))
}

/// Refuses `output` (named by its option, `what`) when it is the same file
/// as one of `inputs` (each with what it is: "the trace").
pub fn refuse_input_as_output<'a>(
    what: &str,
    output: &Path,
    inputs: impl IntoIterator<Item = (&'a str, &'a Path)>,
) -> Result<(), CliError> {
    for (input_what, input) in inputs {
        if same_file(input, output) {
            return Err(CliError::Usage(format!(
                "{input_what} `{}` and {what} `{}` are the same file: {what} would be \
                 written over {input_what}",
                input.display(),
                output.display()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_spellings_of_one_file_are_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.swf");
        std::fs::write(&file, "x").unwrap();
        let other = dir.path().join("b.swf");
        std::fs::write(&other, "x").unwrap();
        let link = dir.path().join("link.swf");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let hard = dir.path().join("hard.swf");
        std::fs::hard_link(&file, &hard).unwrap();
        let dotted = dir.path().join(".").join("a.swf");
        for same in [&file, &link, &hard, &dotted] {
            assert!(same_file(&file, same), "{}", same.display());
        }
        assert!(!same_file(&file, &other));
        // Not made yet: compared by path.
        let new = dir.path().join("new.swf");
        assert!(same_file(&new, &dir.path().join(".").join("new.swf")));
        assert!(!same_file(&new, &file));
    }
}
