//! A store on disk: JSON lines, one [`Record`] per finished cell, appended
//! one whole line at a time.
//!
//! A process killed while writing can leave at most its last line torn
//! (cut short, so without its newline): reading reports it and leaves it
//! out, and opening for append cuts it away first, so it is never joined to
//! the next record. A whole line that does not read, last or not, is not a
//! torn write but a damaged store: an error naming `file:line`.

use super::record::Record;
use super::StoreError;
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What a store holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StoreContents {
    /// The records, in file order.
    pub records: Vec<Record>,
    /// Torn last lines left out (0 or 1).
    pub torn: usize,
    /// Bytes of the file up to the end of the last whole record.
    pub valid_len: u64,
    /// Keys of the records that no field of this goalc reads (a hand edit,
    /// a store of an older build), in the order first met: they are read
    /// without, and a store written from these records leaves them out.
    pub unknown: Vec<UnknownKey>,
}

/// A key no field of a [`Record`] reads, with where it was first met.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownKey {
    /// Its path in the record, `report.comment` or `axes.extra`.
    pub key: String,
    /// The first line (from 1) that has it.
    pub line: usize,
    /// How many lines have it.
    pub lines: usize,
}

/// A store open for appending.
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
    file: Mutex<File>,
}

impl Store {
    /// Reads the store at `path`; a missing file is an empty store, and
    /// anything but a regular file an error (a device or a pipe would be
    /// read for ever).
    pub fn read(path: &Path) -> Result<StoreContents, StoreError> {
        match std::fs::metadata(path) {
            // Bad input, as a damaged store is; `Refused` is for stores
            // that read but cannot be united.
            Ok(m) if !m.is_file() => {
                return Err(StoreError::io(
                    path,
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        "not a regular file, so not a store",
                    ),
                ))
            }
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(StoreError::io(path, e))
            }
            _ => {}
        }
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(StoreError::io(path, e)),
        };
        parse(path, &bytes)
    }

    /// Opens the store at `path` for appending (creating it), after
    /// cutting away a torn last line; returns what it held.
    pub fn open(path: &Path) -> Result<(Store, StoreContents), StoreError> {
        let contents = Store::read(path)?;
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| StoreError::io(path, e))?;
        let len = file.metadata().map_err(|e| StoreError::io(path, e))?.len();
        if len != contents.valid_len {
            file.set_len(contents.valid_len)
                .map_err(|e| StoreError::io(path, e))?;
        }
        file.seek(SeekFrom::End(0))
            .map_err(|e| StoreError::io(path, e))?;
        Ok((
            Store {
                path: path.to_path_buf(),
                file: Mutex::new(file),
            },
            contents,
        ))
    }

    /// Appends one record: one `write_all` of its whole line, then a flush
    /// to the file system, so a kill loses only the cells still running.
    pub fn append(&self, record: &Record) -> Result<(), StoreError> {
        let line = record.to_line();
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        file.write_all(line.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|e| StoreError::io(&self.path, e))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Replaces the file at `path` with `bytes` in one rename, so a reader
/// (or a kill) sees the old file or the new one, never half of it. A
/// symbolic link is followed, so the file it names is replaced, not the
/// link; anything but a regular file there (a device, a pipe, a folder)
/// is refused, as a rename would put a file in its place.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let target = replaceable(path)?;
    let mut tmp = target.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    // An error names the file asked for: the temporary one beside it is
    // not the user's (a missing folder is the same for both).
    std::fs::write(&tmp, bytes).map_err(|e| StoreError::io(path, e))?;
    std::fs::rename(&tmp, &target).map_err(|e| StoreError::io(path, e))
}

/// Where [`write_atomically`] would put a file for `path` (the end of its
/// links), or why it may not: found out before a long run, not after.
pub fn replaceable(path: &Path) -> Result<PathBuf, StoreError> {
    let target = link_target(path).map_err(|e| StoreError::io(path, e))?;
    match std::fs::metadata(&target) {
        Ok(m) if !m.is_file() => Err(StoreError::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file, so not written (it would be replaced by one)",
            ),
        )),
        _ => Ok(target),
    }
}

/// The path a chain of symbolic links from `path` ends at (`path` itself
/// when it is none), whether or not a file is there.
fn link_target(path: &Path) -> std::io::Result<PathBuf> {
    let mut at = path.to_path_buf();
    // As the kernel's own limit on links followed in one lookup.
    for _ in 0..40 {
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&at)?;
                // A relative link is relative to the link's folder.
                at = match at.parent() {
                    Some(dir) => dir.join(link),
                    None => link,
                };
            }
            _ => return Ok(at),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// Records of a store's bytes; see the module's comment for torn lines.
pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Result<StoreContents, StoreError> {
    let mut out = StoreContents::default();
    let mut start = 0usize;
    let mut line_no = 0usize;
    while start < bytes.len() {
        line_no += 1;
        let (end, complete) = match memchr::memchr(b'\n', &bytes[start..]) {
            Some(i) => (start + i, true),
            None => (bytes.len(), false),
        };
        let text = &bytes[start..end];
        let mut unknown = Vec::new();
        let mut de = serde_json::Deserializer::from_slice(text);
        let record = serde_ignored::deserialize(&mut de, |key| unknown.push(key.to_string()))
            .and_then(|r: Record| de.end().map(|()| r));
        match (record, complete) {
            (Ok(r), true) => {
                out.records.push(r);
                out.valid_len = (end + 1) as u64;
                for key in unknown {
                    note_unknown(&mut out.unknown, key, line_no);
                }
            }
            // A line without its newline can only be the last, and only a
            // write that did not finish leaves one: the newline goes out
            // with the record. A whole line that does not read is damage,
            // wherever it is, and is never cut away.
            (_, false) => {
                out.torn = 1;
                break;
            }
            (Err(e), true) => {
                // serde_json counts the columns of a line from 1, and says 0
                // with "EOF" for one with nothing to read.
                let blank = text.iter().all(u8::is_ascii_whitespace);
                return Err(StoreError::BadLine {
                    path: path.display().to_string(),
                    line: line_no,
                    column: e.column().max(1),
                    message: if blank {
                        "a blank line, where each line is one record".to_string()
                    } else {
                        // Its place is said in front, counted in the file.
                        let at = format!(" at line {} column {}", e.line(), e.column());
                        let message = e.to_string();
                        message.strip_suffix(&at).unwrap_or(&message).to_string()
                    },
                });
            }
        }
        start = end + 1;
    }
    Ok(out)
}

impl UnknownKey {
    /// What to tell the user of this key in the store at `path`.
    pub fn said(&self, path: &Path) -> String {
        let more = match self.lines {
            1 => String::new(),
            n => format!(" (on {n} lines)"),
        };
        format!(
            "{}:{}: `{}` is no field of a store record{more}: read without it, and left out of any store goalc writes from it",
            path.display(),
            self.line,
            self.key
        )
    }
}

/// Counts `key`, met on `line`, among the unknown keys.
fn note_unknown(known: &mut Vec<UnknownKey>, key: String, line: usize) {
    match known.iter_mut().find(|k| k.key == key) {
        Some(k) => k.lines += 1,
        None => known.push(UnknownKey {
            key,
            line,
            lines: 1,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: u32) -> String {
        let mut r = crate::store::record::sample();
        r.key = format!("k{n}");
        r.to_line()
    }

    #[test]
    fn a_cut_last_line_is_torn_and_left_out() {
        let whole = line(1) + &line(2);
        let cut = &line(3)[..40];
        let bytes = format!("{whole}{cut}");
        let c = parse(Path::new("s.jsonl"), bytes.as_bytes()).unwrap();
        assert_eq!(c.records.len(), 2);
        assert_eq!(c.torn, 1);
        assert_eq!(c.valid_len, whole.len() as u64);
    }

    #[test]
    fn a_whole_last_record_without_its_newline_is_torn() {
        let l = line(2);
        let bytes = line(1) + l.trim_end();
        let c = parse(Path::new("s.jsonl"), bytes.as_bytes()).unwrap();
        assert_eq!((c.records.len(), c.torn), (1, 1));
    }

    #[test]
    fn a_bad_line_in_the_middle_names_its_place() {
        let bytes = line(1) + "{\"format\": 1}\n" + &line(3);
        let e = parse(Path::new("s.jsonl"), bytes.as_bytes()).unwrap_err();
        assert!(e.to_string().starts_with("s.jsonl:2:"), "{e}");
        // serde_json's own place (line 1 of the line it was given) is cut.
        assert!(!e.to_string().contains("at line"), "{e}");
    }

    #[test]
    fn anything_after_a_record_on_its_line_is_damage() {
        let two = line(2);
        let bytes = line(1) + two.trim_end() + " {}\n";
        let e = parse(Path::new("s.jsonl"), bytes.as_bytes()).unwrap_err();
        assert!(e.to_string().starts_with("s.jsonl:2:"), "{e}");
        assert!(e.to_string().contains("trailing characters"), "{e}");
    }

    #[test]
    fn unknown_keys_are_counted_from_their_first_line() {
        let with = |l: String, key: &str| l.replacen('{', &format!("{{\"{key}\":[1],"), 1);
        let bytes = line(1) + &with(line(2), "x") + &with(with(line(3), "y"), "x");
        let c = parse(Path::new("s.jsonl"), bytes.as_bytes()).unwrap();
        assert_eq!(c.records.len(), 3);
        let found: Vec<(&str, usize, usize)> = c
            .unknown
            .iter()
            .map(|k| (k.key.as_str(), k.line, k.lines))
            .collect();
        assert_eq!(found, [("x", 2, 2), ("y", 3, 1)]);
    }

    #[test]
    fn a_blank_line_is_said_to_be_one() {
        let bytes = line(1) + "\n";
        let e = parse(Path::new("s.jsonl"), bytes.as_bytes()).unwrap_err();
        assert!(e.to_string().starts_with("s.jsonl:2:1: "), "{e}");
        assert!(e.to_string().contains("a blank line"), "{e}");
    }

    #[test]
    fn a_whole_unreadable_last_line_is_damage_not_a_torn_write() {
        // Cut away on opening, it would be lost: say where it is instead.
        let bytes = line(1) + "{\"format\": 1}\n";
        let e = parse(Path::new("s.jsonl"), bytes.as_bytes()).unwrap_err();
        assert!(e.to_string().starts_with("s.jsonl:2:"), "{e}");
    }

    #[test]
    fn a_device_or_a_folder_is_not_a_store() {
        for path in ["/dev/zero", "/tmp"] {
            let e = Store::read(Path::new(path)).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("{path}: not a regular file, so not a store")
            );
        }
    }

    #[test]
    fn a_write_replaces_the_file_a_link_names_and_never_a_device() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.jsonl");
        std::fs::write(&real, "old").unwrap();
        // A relative link to a relative link.
        std::os::unix::fs::symlink("real.jsonl", dir.path().join("one")).unwrap();
        std::os::unix::fs::symlink("one", dir.path().join("two")).unwrap();
        let link = dir.path().join("two");
        write_atomically(&link, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        // A dangling link: the file is made where it points.
        std::os::unix::fs::symlink("later.jsonl", dir.path().join("dangling")).unwrap();
        write_atomically(&dir.path().join("dangling"), b"x").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("later.jsonl")).unwrap(),
            "x"
        );
        // A folder, and a link to a device, are refused and left as they were.
        let e = write_atomically(dir.path(), b"x").unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        std::os::unix::fs::symlink("/dev/null", dir.path().join("null")).unwrap();
        let e = write_atomically(&dir.path().join("null"), b"x").unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        assert!(!Path::new("/dev/null.tmp").exists());
        // A folder that is not there is said for the file asked for.
        let missing = dir.path().join("none").join("m.jsonl");
        let e = write_atomically(&missing, b"x").unwrap_err();
        assert!(
            e.to_string()
                .starts_with(&format!("{}: ", missing.display())),
            "{e}"
        );
        // A link that leads back to itself.
        std::os::unix::fs::symlink("loop", dir.path().join("loop")).unwrap();
        let e = write_atomically(&dir.path().join("loop"), b"x").unwrap_err();
        assert!(e.to_string().contains("symbolic links"), "{e}");
    }

    #[test]
    fn opening_cuts_the_torn_line_before_appending() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, line(1) + &line(2)[..25]).unwrap();
        let (store, c) = Store::open(&path).unwrap();
        assert_eq!((c.records.len(), c.torn), (1, 1));
        let r: Record = serde_json::from_str(&line(3)).unwrap();
        store.append(&r).unwrap();
        drop(store);
        let again = Store::read(&path).unwrap();
        assert_eq!(again.torn, 0);
        let keys: Vec<&str> = again.records.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["k1", "k3"]);
    }
}
