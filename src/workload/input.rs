//! Opening an input file that is read whole (a trace, a goal file).

use std::fs::File;
use std::io;
use std::path::Path;

/// Opens `path` to be read whole: a regular file, or a pipe (as
/// `<(zcat trace.swf.gz)` gives); a folder, device or socket is refused
/// before anything is read, since reading `/dev/zero` whole would never
/// end.
pub fn open_whole(path: &Path) -> io::Result<File> {
    // Asked of the path first: opening a device may itself have effects.
    let kind = std::fs::metadata(path)?.file_type();
    if kind.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a folder, not a file",
        ));
    }
    if !(kind.is_file() || is_pipe(&kind)) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file or pipe (a device or socket), so not read",
        ));
    }
    File::open(path)
}

/// The whole of `path` (see [`open_whole`]).
pub fn read_whole(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = open_whole(path)?;
    let size = file.metadata().map_or(0, |m| m.len() as usize);
    let mut bytes = Vec::with_capacity(size);
    io::Read::read_to_end(&mut file, &mut bytes)?;
    Ok(bytes)
}

/// The first `limit` bytes of `path` at most (see [`open_whole`]): enough
/// of a file that has a size limit to tell that it is over it.
pub fn read_at_most(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut io::Read::take(open_whole(path)?, limit), &mut bytes)?;
    Ok(bytes)
}

#[cfg(unix)]
fn is_pipe(kind: &std::fs::FileType) -> bool {
    std::os::unix::fs::FileTypeExt::is_fifo(kind)
}

#[cfg(not(unix))]
fn is_pipe(_: &std::fs::FileType) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_opened_and_folders_and_devices_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.swf");
        std::fs::write(&file, "x").unwrap();
        assert_eq!(read_whole(&file).unwrap(), b"x");
        assert_eq!(read_at_most(&file, 0).unwrap(), b"");
        let e = open_whole(dir.path()).unwrap_err();
        assert_eq!(e.to_string(), "a folder, not a file");
        if Path::new("/dev/zero").exists() {
            let e = read_whole(Path::new("/dev/zero")).unwrap_err();
            assert!(e.to_string().contains("a device or socket"), "{e}");
        }
        assert_eq!(
            open_whole(&dir.path().join("none")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }
}
