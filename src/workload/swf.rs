//! The Standard Workload Format (SWF v2.2) of the Parallel Workloads Archive:
//! `;` header comments, then one job a line with 18 whitespace-separated
//! numeric fields, `-1` meaning unknown.
//!
//! Reading is a hand-rolled byte scanner rather than `str::split_whitespace`
//! plus `parse`, because traces of a million jobs must load in well under a
//! second; the scanner still checks every field and names the first bad one.

use super::{DropReason, Job, Time, Workload, MAX_TIME};
use flate2::read::MultiGzDecoder;
use std::fmt;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod reader;
mod scan;
mod shared;
mod zone;

use reader::Reader;
use shared::{Piece, Queue};

/// Names of the 18 SWF fields, 1-based in messages.
pub const FIELD_NAMES: [&str; 18] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average cpu time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable",
    "queue",
    "partition",
    "preceding job",
    "think time",
];

/// All 18 fields of one SWF line. Fields 6 and 7 (average CPU time, used
/// memory) may be fractional in the archive's traces; every other field is
/// an integer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwfRecord {
    pub job_number: i64,
    pub submit: i64,
    pub wait: i64,
    pub run_time: i64,
    pub allocated_procs: i64,
    pub avg_cpu_time: f64,
    pub used_memory: f64,
    pub requested_procs: i64,
    pub requested_time: i64,
    pub requested_memory: i64,
    pub status: i64,
    pub user: i64,
    pub group: i64,
    pub executable: i64,
    pub queue: i64,
    pub partition: i64,
    pub preceding_job: i64,
    pub think_time: i64,
}

impl SwfRecord {
    /// A record with every field unknown (-1).
    pub fn unknown() -> Self {
        SwfRecord {
            job_number: -1,
            submit: -1,
            wait: -1,
            run_time: -1,
            allocated_procs: -1,
            avg_cpu_time: -1.0,
            used_memory: -1.0,
            requested_procs: -1,
            requested_time: -1,
            requested_memory: -1,
            status: -1,
            user: -1,
            group: -1,
            executable: -1,
            queue: -1,
            partition: -1,
            preceding_job: -1,
            think_time: -1,
        }
    }
}

/// The header comments of a trace, kept verbatim, with the fields the
/// simulator uses parsed out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SwfHeader {
    /// Comment lines without their leading `;`, in order.
    pub lines: Vec<String>,
    pub unix_start_time: Option<i64>,
    /// Where the lines were read, so that an error quoting one names its
    /// `file:line`; `None` for a header made in code.
    pub source: Option<Arc<HeaderSource>>,
}

/// A header line as read: its number, its text, and its bytes when they
/// are not UTF-8 (the text then has U+FFFD in their place).
type HeaderLine = (usize, String, Option<Box<[u8]>>);

/// The file a header was read from, and its lines as read, each with its
/// line number. Kept apart from [`SwfHeader::lines`], which transforms edit
/// (a scaled machine's `MaxProcs`, notes): a line is found by its text, so
/// an edited header can leave a line without a number, but the number it
/// gives is always that of a file line reading just so.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderSource {
    pub path: PathBuf,
    /// 1-based line number and text (as in [`SwfHeader::lines`]).
    pub lines: Vec<(usize, String)>,
    /// The bytes of the lines that are not UTF-8, by line number: their
    /// text has U+FFFD in place of what it cannot say, and [`write`] gives
    /// such a line, left as read, its own bytes back.
    pub bytes: Vec<(usize, Box<[u8]>)>,
}

impl HeaderSource {
    /// The bytes read for the `k`th (from 0) header line of this text, when
    /// it is not UTF-8: two such lines may read the same with U+FFFD.
    fn bytes_of(&self, line: &str, k: usize) -> Option<&[u8]> {
        if self.bytes.is_empty() {
            return None;
        }
        let (n, _) = self.lines.iter().filter(|(_, read)| read == line).nth(k)?;
        self.bytes
            .iter()
            .find(|(m, _)| m == n)
            .map(|(_, bytes)| &bytes[..])
    }
}

impl SwfHeader {
    /// Value of a `; Key: value` header line, first occurrence.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.lines.iter().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim().eq_ignore_ascii_case(key)).then(|| v.trim())
        })
    }

    /// The machine size the header gives: `MaxProcs`, else `MaxNodes`
    /// (`-1`, the SWF's "unknown", counts as absent). A value that is not a
    /// whole number from 1 to `u32::MAX`, or two lines of the key used that
    /// disagree, are errors quoting the lines: the other key, or a default,
    /// would give a machine the trace does not describe.
    pub fn machine_size(&self) -> Result<Option<u32>, String> {
        for key in ["MaxProcs", "MaxNodes"] {
            let size = self.one_value(key, "machine size (give it with --procs)", |v| {
                let value = v.split_whitespace().next().unwrap_or("");
                if value == "-1" {
                    return Ok(None);
                }
                match value.parse::<u32>() {
                    Ok(n) if n > 0 => Ok(Some(n)),
                    _ => Err(format!(
                        "`{}` is not a number of processors from 1 to {} (give the \
                         machine size with --procs)",
                        clip(value),
                        u32::MAX
                    )),
                }
            })?;
            if size.is_some() {
                return Ok(size);
            }
        }
        Ok(None)
    }

    /// The value the `key` lines give, read by `parse` from the text after
    /// the colon (`Ok(None)`: the line says "unknown"): `None` without one.
    /// A line `parse` refuses, or two that disagree on `what`, is an error
    /// quoting them: taking the first in silence would run the trace on a
    /// machine or a clock it may not have had.
    fn one_value<T: PartialEq>(
        &self,
        key: &str,
        what: &str,
        parse: impl Fn(&str) -> Result<Option<T>, String>,
    ) -> Result<Option<T>, String> {
        let mut found: Option<(T, &str)> = None;
        for line in &self.lines {
            let Some((k, v)) = line.split_once(':') else {
                continue;
            };
            if !k.trim().eq_ignore_ascii_case(key) {
                continue;
            }
            let Some(value) = parse(v.trim())
                .map_err(|why| format!("{}header `;{}`: {why}", self.place(line), clip(line)))?
            else {
                continue;
            };
            match &found {
                Some((seen, first)) if *seen != value => {
                    // At the second line, where the disagreement is found;
                    // the first by its number, as a repeated job number is.
                    let first_line = match self.line_number(first) {
                        Some(n) => format!(" (line {n})"),
                        None => String::new(),
                    };
                    return Err(format!(
                        "{}header `;{}`{first_line} and `;{}` disagree on the {what}",
                        self.place(line),
                        clip(first),
                        clip(line)
                    ));
                }
                Some(_) => {}
                None => found = Some((value, line)),
            }
        }
        Ok(found.map(|(value, _)| value))
    }

    /// The 1-based number of `line` (a line of [`SwfHeader::lines`]) in
    /// the file it was read from: the first line of that text, which is the
    /// one [`SwfHeader::one_value`] quotes (a line it quotes is the first
    /// of its text to say what it says). `None` for a line made in code.
    fn line_number(&self, line: &str) -> Option<usize> {
        let source = self.source.as_ref()?;
        source
            .lines
            .iter()
            .find(|(_, read)| read == line)
            .map(|&(n, _)| n)
    }

    /// `file:line: ` of `line` for an error quoting it, or nothing for a
    /// line made in code.
    fn place(&self, line: &str) -> String {
        match (&self.source, self.line_number(line)) {
            (Some(source), Some(n)) => format!("{}:{n}: ", source.path.display()),
            _ => String::new(),
        }
    }

    /// `file:line: ` of the first `key` line with a value, for an error
    /// about the value it gives (a time zone goalc does not know), or
    /// nothing without one read from a file.
    pub fn place_of(&self, key: &str) -> String {
        let line = self.lines.iter().find(|l| {
            l.split_once(':')
                .is_some_and(|(k, v)| k.trim().eq_ignore_ascii_case(key) && !v.trim().is_empty())
        });
        line.map_or_else(String::new, |l| self.place(l))
    }

    /// The header of a trace read from `path`: its comment lines, each with
    /// its line number.
    fn read(path: &Path, read: Vec<HeaderLine>) -> Self {
        let mut lines = Vec::with_capacity(read.len());
        let mut bytes = Vec::new();
        for (n, line, raw) in read {
            if let Some(raw) = raw {
                bytes.push((n, raw));
            }
            lines.push((n, line));
        }
        let mut h = SwfHeader {
            lines: lines.iter().map(|(_, l)| l.clone()).collect(),
            source: Some(Arc::new(HeaderSource {
                path: path.to_path_buf(),
                lines,
                bytes,
            })),
            ..Default::default()
        };
        // Unusable, it counts as missing here; what needs it asks
        // `start_time` for the reason.
        h.unix_start_time = h.start_time().ok().flatten();
        h
    }

    /// The start time in use: [`SwfHeader::unix_start_time`] (which a
    /// workload made in code may set without a line), else what the lines
    /// say: `None` without one, or why the one there cannot be used.
    pub fn unix_start(&self) -> Result<Option<i64>, String> {
        match self.unix_start_time {
            Some(t) => Ok(Some(t)),
            None => self.start_time(),
        }
    }

    /// The header's `UnixStartTime`: `None` without one (`-1`, the SWF's
    /// "unknown", counts as absent, as for the machine size: read as a time
    /// it would date the trace to 1969); an error quoting the line for a
    /// value that is not whole seconds within ±[`MAX_TIME`] (out of range
    /// it would overflow date arithmetic), or quoting two lines that
    /// disagree.
    pub fn start_time(&self) -> Result<Option<i64>, String> {
        self.one_value("UnixStartTime", "start time", |v| {
            let value = v.split_whitespace().next().unwrap_or("");
            if value == "-1" {
                return Ok(None);
            }
            match value.parse::<i64>() {
                Ok(t) if t.unsigned_abs() <= MAX_TIME as u64 => Ok(Some(t)),
                _ => Err(format!(
                    "`{}` is not a time in whole seconds since 1970 (within ±{MAX_TIME})",
                    clip(value)
                )),
            }
        })
    }

    /// The header's `TimeZoneString` as first written (an empty one counts
    /// as absent): `None` without one; an error quoting two lines that
    /// name different zones (two names of one zone, such as `US/Eastern`
    /// and `America/New_York`, agree). Whether goalc knows the zone is for
    /// its user to say.
    pub fn time_zone(&self) -> Result<Option<String>, String> {
        let zone = self.one_value("TimeZoneString", "time zone", |v| {
            Ok((!v.is_empty()).then(|| ZoneName(v.to_string())))
        })?;
        Ok(zone.map(|z| z.0))
    }
}

/// A header text as an error quotes it: cut after 60 characters, since a
/// line of megabytes (a file that is not a trace) would make a message of
/// megabytes.
fn clip(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}... ({} bytes)", &text[..at], text.len()).into(),
        None => text.into(),
    }
}

/// A `TimeZoneString` value, equal to another name of the same zone.
struct ZoneName(String);

impl PartialEq for ZoneName {
    fn eq(&self, other: &Self) -> bool {
        zone::same_zone(&self.0, &other.0)
    }
}

/// What went wrong reading a trace, with the place.
#[derive(Debug, thiserror::Error)]
pub enum SwfError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{path}:{line}: field {field} ({}): {message}", FIELD_NAMES[*field - 1])]
    Field {
        path: PathBuf,
        line: usize,
        field: usize,
        message: String,
    },
    #[error("{path}:{line}: {message}")]
    Line {
        path: PathBuf,
        line: usize,
        message: String,
    },
    /// A header line that cannot be used: its `file:line:` begins the
    /// message ([`SwfHeader`] knows where its lines were read).
    #[error("{0}")]
    Header(String),
    #[error("{path}: {message}")]
    Trace { path: PathBuf, message: String },
}

impl SwfError {
    /// The error of a line counted from `from`, counted from `to` instead.
    fn renumbered(mut self, from: usize, to: usize) -> SwfError {
        if let SwfError::Field { line, .. } | SwfError::Line { line, .. } = &mut self {
            *line = *line - from + to;
        }
        self
    }
}

/// How to read a trace.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Machine size to use instead of the header's MaxProcs/MaxNodes.
    pub procs: Option<u32>,
    /// Threads that may read the text at once; 0 or 1 reads it on the
    /// calling thread (a gzip file is inflated on a second either way).
    pub threads: usize,
    /// Leave each job's SWF record out ([`Job::swf`] `None`): only writing
    /// SWF back needs it, and filling it is more than half of each job.
    pub without_records: bool,
}

/// Reads a `.swf` or `.swf.gz` file (gzip is recognised by its magic bytes,
/// not the name). The workload is named for the file, without extensions.
pub fn read_path(path: &Path, opts: &ReadOptions) -> Result<Workload, SwfError> {
    let raw = super::input::read_whole(path).map_err(|source| SwfError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let name = trace_name(path);
    if !raw.starts_with(&[0x1f, 0x8b]) {
        return parse(&raw, path, &name, opts);
    }
    // Inflating takes about half as long as reading the text, so a second
    // thread inflates while this one reads what it has handed over, and
    // then reads the rest from the other end (see `shared`).
    let size = gzip_size_hint(&raw);
    let records = !opts.without_records;
    let mut reader = Reader::new(size, records);
    // It reads less than half, whatever is left once it has inflated all.
    let helper = Reader::new(size / 4, records);
    let queue = Queue::<Vec<u8>>::new();
    std::thread::scope(|scope| {
        let inflating = std::thread::Builder::new().spawn_scoped(scope, || {
            // Should inflating panic, the reader must not wait for pieces
            // that will never come: the panic reaches it at the join.
            let closing = queue.closing();
            inflate(&raw, &queue);
            drop(closing);
            shared::help(&queue, helper, path)
        });
        // Without a thread to inflate (the system refused one) there is no
        // text either: an error, not an empty trace.
        let inflating = inflating.map_err(|source| SwfError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        shared::read_front(&queue, &mut reader, path, || vec![shared::join(inflating)])
    })?;
    reader.finish(path, &name, opts)
}

/// A decoder's error said as one about the file: "unexpected end of file"
/// alone reads as if the trace ended early, where it may be a whole gzip
/// stream with other bytes after it.
fn gzip_error(e: io::Error) -> io::Error {
    let what = match e.kind() {
        io::ErrorKind::UnexpectedEof => {
            "the gzip data is cut short, or followed by bytes that are not gzip".to_string()
        }
        _ => format!("not valid gzip data ({e})"),
    };
    io::Error::new(e.kind(), what)
}

/// UTF-8's byte order mark, which editors on Windows put in front of a
/// text: not part of the first line.
const BYTE_ORDER_MARK: &[u8] = b"\xef\xbb\xbf";

/// Inflates the gzip stream `raw` into `queue`, in pieces of whole lines
/// (a line longer than a piece makes that piece longer), then closes it.
fn inflate(raw: &[u8], queue: &Queue<Vec<u8>>) {
    let mut gz = MultiGzDecoder::new(raw);
    // The end of the last piece after its last newline, begun again.
    let mut partial = Vec::new();
    let mut at_start = true;
    loop {
        // Read pieces come back to be filled again, so the text costs no
        // fresh pages (and no zeroing) for each.
        let mut piece = queue.spare().unwrap_or_default();
        piece.clear();
        piece.append(&mut partial);
        loop {
            let from = piece.len();
            piece.resize(from + PIECE, 0);
            let mut filled = from;
            while filled < piece.len() {
                match gz.read(&mut piece[filled..]) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return queue.close(Some(gzip_error(e))),
                }
            }
            piece.truncate(filled);
            if at_start {
                at_start = false;
                if piece.starts_with(BYTE_ORDER_MARK) {
                    piece.drain(..BYTE_ORDER_MARK.len());
                    filled -= BYTE_ORDER_MARK.len();
                }
            }
            if filled == from {
                // The end: what follows the last newline is the last line.
                queue.push(Piece {
                    text: piece,
                    last: true,
                });
                return queue.close(None);
            }
            // No newline yet: the piece goes on (growing, so a long line
            // costs its length once).
            if let Some(at) = memchr::memrchr(b'\n', &piece[from..]) {
                partial.extend_from_slice(&piece[from + at + 1..]);
                piece.truncate(from + at + 1);
                queue.push(Piece {
                    text: piece,
                    last: false,
                });
                break;
            }
        }
    }
}

/// Bytes of decompressed text handed from the inflating thread at a time:
/// enough to make the hand-over cheap, little enough to stay in cache.
const PIECE: usize = 64 * 1024;

/// The decompressed size a gzip file gives in its trailer (of its last
/// member, modulo 4 GiB), bounded by a generous compression ratio so that a
/// damaged trailer cannot reserve absurd memory: only a capacity hint.
fn gzip_size_hint(raw: &[u8]) -> usize {
    let trailer = raw.len().checked_sub(4).map_or(&[][..], |at| &raw[at..]);
    let size = <[u8; 4]>::try_from(trailer).map_or(0, u32::from_le_bytes);
    (size as usize).min(raw.len().saturating_mul(16))
}

/// The file name without `.gz` and `.swf`.
pub fn trace_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    name.strip_suffix(".swf").unwrap_or(name).to_string()
}

/// Parses SWF text. `path` is only used in error messages.
pub fn parse(
    text: &[u8],
    path: &Path,
    name: &str,
    opts: &ReadOptions,
) -> Result<Workload, SwfError> {
    let text = text.strip_prefix(BYTE_ORDER_MARK).unwrap_or(text);
    let size = shared::piece_size(text.len(), opts.threads);
    shared::read_plain(text, size, opts.threads, path, !opts.without_records)?
        .finish(path, name, opts)
}

/// The simulator's view of one record, or why it cannot run, keeping the
/// record. Processors: requested when given, else allocated. Estimate:
/// requested time when given, else the run time itself.
pub fn job_from_record(r: &SwfRecord, machine_procs: u32) -> Result<Job, DropReason> {
    let mut job = job_without_record(r, machine_procs)?;
    job.swf = Some(Box::new(*r));
    Ok(job)
}

/// [`job_from_record`] without the record.
pub(crate) fn job_without_record(r: &SwfRecord, machine_procs: u32) -> Result<Job, DropReason> {
    if r.submit < 0 {
        return Err(DropReason::SubmitMissing);
    }
    if r.run_time <= 0 {
        return Err(DropReason::RuntimeMissing);
    }
    let procs = if r.requested_procs > 0 {
        r.requested_procs
    } else {
        r.allocated_procs
    };
    if procs <= 0 {
        return Err(DropReason::ProcsMissing);
    }
    if procs > machine_procs as i64 {
        return Err(DropReason::TooWide);
    }
    let estimate = if r.requested_time > 0 {
        r.requested_time
    } else {
        r.run_time
    };
    Ok(Job {
        number: r.job_number,
        submit: r.submit as Time,
        runtime: r.run_time as Time,
        estimate: estimate as Time,
        procs: procs as u32,
        user: r.user,
        group: r.group,
        user_group: 0,
        deadline: None,
        deadline_job: false,
        measured: true,
        follows: None,
        speedup: None,
        no_requested_time: r.requested_time <= 0,
        bad_requested_procs: r.requested_procs <= 0 && r.requested_procs != -1,
        swf: None,
    })
}

/// Formats one record as an SWF line (no newline).
pub struct RecordLine<'a>(pub &'a SwfRecord);

impl fmt::Display for RecordLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.0;
        write!(
            f,
            "{} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
            r.job_number,
            r.submit,
            r.wait,
            r.run_time,
            r.allocated_procs,
            r.avg_cpu_time,
            r.used_memory,
            r.requested_procs,
            r.requested_time,
            r.requested_memory,
            r.status,
            r.user,
            r.group,
            r.executable,
            r.queue,
            r.partition,
            r.preceding_job,
            r.think_time
        )
    }
}

/// Writes a header and records as SWF text.
pub fn write<'a, W: Write>(
    out: &mut W,
    header: &SwfHeader,
    records: impl IntoIterator<Item = &'a SwfRecord>,
) -> io::Result<()> {
    for (i, line) in header.lines.iter().enumerate() {
        let bytes = header.source.as_ref().and_then(|s| {
            let k = header.lines[..i].iter().filter(|l| *l == line).count();
            s.bytes_of(line, k)
        });
        match bytes {
            Some(bytes) => {
                out.write_all(b";")?;
                out.write_all(bytes)?;
                out.write_all(b"\n")?;
            }
            None => writeln!(out, ";{line}")?,
        }
    }
    for r in records {
        writeln!(out, "{}", RecordLine(r))?;
    }
    Ok(())
}

/// Writes a workload's jobs as SWF, each as its record says.
pub fn write_workload<W: Write>(out: &mut W, w: &Workload) -> io::Result<()> {
    let records = w
        .jobs
        .iter()
        .map(|j| record_of(w, j))
        .collect::<io::Result<Vec<&SwfRecord>>>()?;
    write(out, &w.header, records)
}

/// Job `j`'s record, or the error of a workload made without records.
fn record_of<'w>(w: &Workload, j: &'w Job) -> io::Result<&'w SwfRecord> {
    j.swf.as_deref().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "job {} of `{}` has no SWF record to write: the workload was made without them",
                j.number, w.name
            ),
        )
    })
}

/// Writes a simulated schedule as SWF: each job's own record with wait and
/// run time as simulated (`runs[i]` is job i's start and end); jobs that
/// never ran (rejected at admission) get wait and run time -1 and status 5
/// (cancelled). The header says which policy made it and which jobs of the
/// trace were not simulated.
pub fn write_schedule<W: Write>(
    out: &mut W,
    w: &Workload,
    policy: &str,
    runs: impl IntoIterator<Item = Option<(Time, Time)>>,
) -> io::Result<()> {
    let mut header = w.header.clone();
    header.lines.push(format!(
        " Note: schedule simulated by goalc, policy {policy}"
    ));
    if w.dropped.total() > 0 {
        header.lines.push(format!(
            " Note: {} jobs of the trace not simulated: {}",
            w.dropped.total(),
            w.dropped
        ));
    }
    let records = w
        .jobs
        .iter()
        .zip(runs)
        .map(|(j, run)| {
            let mut r = *record_of(w, j)?;
            match run {
                Some((start, end)) => {
                    r.wait = start - j.submit;
                    r.run_time = end - start;
                }
                None => {
                    r.wait = -1;
                    r.run_time = -1;
                    r.status = 5;
                }
            }
            Ok(r)
        })
        .collect::<io::Result<Vec<SwfRecord>>>()?;
    write(out, &header, &records)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(s: &str) -> Result<Workload, SwfError> {
        parse(
            s.as_bytes(),
            Path::new("t.swf"),
            "t",
            &ReadOptions::default(),
        )
    }

    const HEADER: &str = "; Version: 2.2\n; MaxProcs: 8\n; MaxNodes: 4\n; UnixStartTime: 1000\n";

    #[test]
    fn a_start_time_is_whole_seconds_in_range_or_an_error_quoting_it() {
        let start = |line: &str| {
            let h = SwfHeader::read(Path::new("t.swf"), vec![(1, line.to_string(), None)]);
            (h.unix_start_time, h.start_time())
        };
        assert_eq!(start(" UnixStartTime: -5 (UTC)"), (Some(-5), Ok(Some(-5))));
        assert_eq!(start(" MaxProcs: 5"), (None, Ok(None)));
        for bad in ["abc", "1e3", "9007199254740992", ""] {
            let (kept, said) = start(&format!(" UnixStartTime: {bad}"));
            assert_eq!(kept, None, "{bad}");
            let e = said.unwrap_err();
            assert!(
                e.starts_with(&format!(
                    "t.swf:1: header `; UnixStartTime: {bad}`: `{bad}` is not a time in whole \
                     seconds"
                )),
                "{e}"
            );
        }
    }

    /// Two `UnixStartTime` or `TimeZoneString` lines that disagree are an
    /// error quoting both, as two `MaxProcs` lines are; the first won in
    /// silence once. Lines that agree are one value.
    #[test]
    fn header_lines_of_one_key_that_disagree_are_an_error_quoting_both() {
        // Lines 1, 2, ... of t.swf.
        let header = |lines: &[&str]| {
            let numbered = (1..)
                .zip(lines.iter())
                .map(|(n, l)| (n, l.to_string(), None));
            SwfHeader::read(Path::new("t.swf"), numbered.collect())
        };
        let h = header(&[" UnixStartTime: 843480031", " UnixStartTime: 946684800"]);
        assert_eq!(h.unix_start_time, None);
        assert_eq!(
            h.unix_start(),
            Err(
                "t.swf:2: header `; UnixStartTime: 843480031` (line 1) and `; UnixStartTime: \
                 946684800` disagree on the start time"
                    .into()
            )
        );
        let h = header(&[" UnixStartTime: 1000", " unixstarttime: 1000 (UTC)"]);
        assert_eq!(h.unix_start(), Ok(Some(1000)));
        // A second line that is unusable is said too, not passed over.
        let e = header(&[" UnixStartTime: 1000", " UnixStartTime: soon"])
            .start_time()
            .unwrap_err();
        assert!(
            e.starts_with("t.swf:2: header `; UnixStartTime: soon`: `soon` is not"),
            "{e}"
        );
        let zones = |lines: &[&str]| header(lines).time_zone();
        assert_eq!(
            zones(&[
                " TimeZoneString: Europe/Stockholm",
                " TimeZoneString: Asia/Tokyo"
            ]),
            Err(
                "t.swf:2: header `; TimeZoneString: Europe/Stockholm` (line 1) and \
                 `; TimeZoneString: Asia/Tokyo` disagree on the time zone"
                    .into()
            )
        );
        assert_eq!(
            zones(&[
                " TimeZoneString: US/Eastern",
                " TimeZoneString:  US/Eastern "
            ]),
            Ok(Some("US/Eastern".into()))
        );
        // Two names of one zone (a link and its target) agree; the first
        // is the one given.
        assert_eq!(
            zones(&[
                " TimeZoneString: US/Eastern",
                " TimeZoneString: America/New_York"
            ]),
            Ok(Some("US/Eastern".into()))
        );
        // Zones that agree today but not in their history do not.
        assert!(zones(&[
            " TimeZoneString: Europe/Paris",
            " TimeZoneString: Europe/Berlin"
        ])
        .is_err());
        // An empty one says nothing, as when there is none.
        assert_eq!(
            zones(&[" TimeZoneString:", " TimeZoneString: UTC"]),
            Ok(Some("UTC".into()))
        );
        assert_eq!(zones(&[" MaxProcs: 4"]), Ok(None));
    }

    #[test]
    fn reads_header_and_fields() {
        let w = parse_str(&format!(
            "{HEADER}1 0 5 100 2 1.5 -1 4 200 -1 1 7 3 -1 1 -1 -1 -1\n"
        ))
        .unwrap();
        assert_eq!(w.procs, 8);
        assert_eq!(w.header.get("MaxNodes"), Some("4"));
        assert_eq!(w.header.unix_start_time, Some(1000));
        let j = &w.jobs[0];
        assert_eq!(
            (j.procs, j.runtime, j.estimate, j.user, j.group),
            (4, 100, 200, 7, 3)
        );
        assert_eq!(j.swf.as_ref().unwrap().avg_cpu_time, 1.5);
    }

    #[test]
    fn falls_back_to_allocated_and_runtime() {
        let w = parse_str(&format!(
            "{HEADER}1 0 5 100 2 -1 -1 -1 -1 -1 1 7 3 -1 1 -1 -1 -1\n"
        ))
        .unwrap();
        assert_eq!((w.jobs[0].procs, w.jobs[0].estimate), (2, 100));
    }

    #[test]
    fn drops_and_counts_unrunnable_jobs() {
        let w = parse_str(&format!(
            "{HEADER}\
             1 0 0 -1 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1\n\
             2 0 0 10 -1 -1 -1 -1 10 -1 1 1 1 -1 1 -1 -1 -1\n\
             3 0 0 10 9 -1 -1 9 10 -1 1 1 1 -1 1 -1 -1 -1\n\
             4 0 0 0 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n\
             5 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n"
        ))
        .unwrap();
        assert_eq!(w.jobs.len(), 1);
        assert_eq!(w.dropped.get(DropReason::RuntimeMissing), 2);
        assert_eq!(w.dropped.get(DropReason::ProcsMissing), 1);
        assert_eq!(w.dropped.get(DropReason::TooWide), 1);
        assert_eq!(w.dropped.total(), 4);
    }

    #[test]
    fn malformed_line_names_line_and_field() {
        let e = parse_str(&format!(
            "{HEADER}1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n2 0 0 1x 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n"
        ))
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.swf:6: field 4 (run time): `1x` is not a number"
        );
        let e = parse_str(&format!("{HEADER}1 0 0 10\n")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.swf:5: 4 fields, expected 18 (missing field 5, allocated processors)"
        );
    }

    #[test]
    fn times_beyond_the_largest_are_errors_naming_line_and_field() {
        let fields = [
            "1", "0", "0", "10", "1", "-1", "-1", "1", "10", "-1", "1", "1", "1", "-1", "1", "-1",
            "-1", "-1",
        ];
        let line_with = |field: usize, value: &str| {
            let mut f = fields;
            f[field - 1] = value;
            format!("{HEADER}{}\n", f.join(" "))
        };
        for (field, name) in [
            (2, "submit time"),
            (4, "run time"),
            (6, "average cpu time"),
            (9, "requested time"),
            (18, "think time"),
        ] {
            let e = parse_str(&line_with(field, "9223372036854775807")).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "t.swf:5: field {field} ({name}): `9223372036854775807` is above \
                     9007199254740991, the largest time goalc accepts"
                )
            );
            let e = parse_str(&line_with(field, "9007199254740992")).unwrap_err();
            assert!(
                e.to_string()
                    .starts_with(&format!("t.swf:5: field {field} ")),
                "{e}"
            );
            let e = parse_str(&line_with(field, "-9007199254740992")).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "t.swf:5: field {field} ({name}): `-9007199254740992` is below \
                     -9007199254740991, the smallest time goalc accepts"
                )
            );
            // Not a time: as large as an i64 goes.
            parse_str(&line_with(1, "9223372036854775807")).unwrap();
        }
        let e = parse_str(&line_with(6, "1e300")).unwrap_err();
        assert!(e.to_string().contains("`1e300` is above"), "{e}");
        // The wait is carried through, not computed with: any integer.
        for wait in [
            "9223372036854775807",
            "9007199254740992",
            "-9223372036854775808",
        ] {
            let w = parse_str(&line_with(3, wait)).unwrap();
            assert_eq!(w.jobs[0].swf.as_ref().unwrap().wait.to_string(), wait);
        }
        // Past 64 bits: said so, not "not an integer"; in a time field,
        // beyond the largest time.
        for past in [
            "9223372036854775808",
            "-9223372036854775809",
            "99999999999999999999999",
        ] {
            let e = parse_str(&line_with(12, past)).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "t.swf:5: field 12 (user id): `{past}` is beyond the range of a 64-bit integer"
                )
            );
            let e = parse_str(&line_with(4, past)).unwrap_err().to_string();
            assert!(
                e.contains("the largest time") || e.contains("the smallest time"),
                "{e}"
            );
        }
        // Used memory is read as a double: past 2^53 it would be written
        // back changed, so it is refused there, and kept exactly below.
        for (past, kept) in [
            ("99999999999999999999", false),
            ("-1e300", false),
            ("9007199254740991", true),
        ] {
            let read = parse_str(&line_with(7, past));
            match kept {
                true => assert_eq!(
                    read.unwrap().jobs[0]
                        .swf
                        .as_ref()
                        .unwrap()
                        .used_memory
                        .to_string(),
                    past
                ),
                false => assert_eq!(
                    read.unwrap_err().to_string(),
                    format!(
                        "t.swf:5: field 7 (used memory): `{past}` is beyond ±9007199254740991, \
                         the largest goalc keeps exactly in this field"
                    )
                ),
            }
        }
        // A field of megabytes is quoted by its start and its length.
        let long = format!("1{}", "0".repeat(99_999));
        let e = parse_str(&line_with(12, &long)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "t.swf:5: field 12 (user id): `1{}...` (100000 bytes) is beyond the range of a \
                 64-bit integer",
                "0".repeat(39)
            )
        );
    }

    #[test]
    fn time_fields_with_fractions_read_to_the_nearest_second() {
        // "It is permissible to use floating point values for time fields"
        // (the SWF's definition); other fields stay whole numbers.
        let w = parse_str(&format!(
            "{HEADER}1 0.5 0.4 10.5 1 -1 -1 1 1e2 -1 1 1 1 -1 1 -1 -1 2.49\n\
             2 3.5 -1 0.3 1 -1 -1 1 -1.0 -1 1 1 1 -1 1 -1 -1 -1\n"
        ))
        .unwrap();
        let j = &w.jobs[0];
        assert_eq!((j.submit, j.runtime, j.estimate), (1, 11, 100));
        let r = j.swf.as_deref().unwrap();
        assert_eq!((r.wait, r.think_time), (0, 2));
        // Under half a second is no run time, as in a log of whole seconds.
        assert_eq!(w.jobs.len(), 1);
        assert_eq!(w.dropped.get(DropReason::RuntimeMissing), 1);
        let e = parse_str(&format!(
            "{HEADER}1 0 0 10 1.5 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n"
        ))
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.swf:5: field 5 (allocated processors): `1.5` is not an integer"
        );
        for (value, said) in [
            ("9007199254740992.0", "is above 9007199254740991"),
            ("-1e300", "is below -9007199254740991"),
            ("nan", "is not a number"),
            ("inf", "is not a number"),
        ] {
            let e = parse_str(&format!(
                "{HEADER}1 0 0 {value} 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n"
            ))
            .unwrap_err();
            assert!(e.to_string().contains(said), "{value}: {e}");
        }
        let e = parse_str(&format!(
            "{HEADER}1 0 1e19 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n"
        ))
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("beyond the range of a 64-bit integer"),
            "{e}"
        );
    }

    #[test]
    fn a_field_with_a_control_character_is_shown_escaped() {
        // A vertical tab is not whitespace here: shown as is, the field
        // would read `-1`, a fine integer.
        let e = parse_str(&format!(
            "{HEADER}1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\x0b\n"
        ))
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.swf:5: field 18 (think time): `-1\\u{b}` is not a number"
        );
    }

    #[test]
    fn a_schedule_with_waits_beyond_the_largest_time_reads_back() {
        // One processor, jobs of nearly the largest time one after
        // another: the last waits twice that.
        let max = MAX_TIME.to_string();
        let w = parse_str(&format!(
            "{HEADER}1 0 -1 {max} 1 -1 -1 1 {max} -1 1 1 1 -1 1 -1 -1 -1\n\
             2 0 -1 {max} 1 -1 -1 1 {max} -1 1 1 1 -1 1 -1 -1 -1\n\
             3 0 -1 1 1 -1 -1 1 1 -1 1 1 1 -1 1 -1 -1 -1\n"
        ))
        .unwrap();
        let runs = [
            (0, MAX_TIME),
            (MAX_TIME, 2 * MAX_TIME),
            (2 * MAX_TIME, 2 * MAX_TIME + 1),
        ];
        let mut out = Vec::new();
        write_schedule(&mut out, &w, "fcfs", runs.map(Some)).unwrap();
        let again = parse(&out[..], Path::new("s.swf"), "s", &ReadOptions::default()).unwrap();
        let waits: Vec<i64> = again
            .jobs
            .iter()
            .map(|j| j.swf.as_ref().unwrap().wait)
            .collect();
        assert_eq!(waits, [0, MAX_TIME, 2 * MAX_TIME]);
    }

    /// A comment that is not UTF-8 (Latin-1 here) is written back in its
    /// own bytes, where U+FFFD once took their place without a word; a
    /// line a transform edits is its text.
    #[test]
    fn a_header_line_that_is_not_utf8_is_written_back_as_read() {
        let mut text = b"; MaxProcs: 4\n; Installation: Universit\xe4t \xa0 \r\n".to_vec();
        // Two lines that read the same with U+FFFD keep their own bytes.
        text.extend_from_slice(b"; Note: caf\xe9\n; Note: caf\xe8\n");
        text.extend_from_slice(b"1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n");
        let w = parse(&text[..], Path::new("t.swf"), "t", &ReadOptions::default()).unwrap();
        assert_eq!(
            w.header.lines[1],
            " Installation: Universit\u{fffd}t \u{fffd}"
        );
        let mut out = Vec::new();
        write_schedule(&mut out, &w, "fcfs", [Some((0, 10))]).unwrap();
        assert!(
            out.starts_with(
                b"; MaxProcs: 4\n; Installation: Universit\xe4t \xa0\n; Note: caf\xe9\n\
                  ; Note: caf\xe8\n; Note: schedule"
            ),
            "{}",
            String::from_utf8_lossy(&out)
        );
        // A line a transform edits is written as its text.
        let mut edited = w.clone();
        edited.header.lines[1] = " Installation: elsewhere".into();
        let mut out = Vec::new();
        write_workload(&mut out, &edited).unwrap();
        assert!(out.starts_with(
            b"; MaxProcs: 4\n; Installation: elsewhere\n; Note: caf\xe9\n; Note: caf\xe8\n1 "
        ));
    }

    /// A negative submit time is dropped as a missing one is, and said so.
    #[test]
    fn a_negative_submit_time_is_dropped_and_said() {
        let w = parse_str(&format!(
            "{HEADER}1 -5 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n\
             2 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n"
        ))
        .unwrap();
        assert_eq!(w.jobs.len(), 1);
        assert_eq!(w.dropped.to_string(), "1 submit time missing or < 0");
    }

    #[test]
    fn the_largest_time_reads_fine() {
        let max = MAX_TIME.to_string();
        let w = parse_str(&format!(
            "{HEADER}1 {max} {max} {max} 1 {max} -1 1 {max} -1 1 1 1 -1 1 -1 -1 {max}\n"
        ))
        .unwrap();
        let j = &w.jobs[0];
        assert_eq!(
            (j.submit, j.runtime, j.estimate),
            (MAX_TIME, MAX_TIME, MAX_TIME)
        );
        let r = j.swf.as_deref().unwrap();
        assert_eq!((r.wait, r.think_time), (MAX_TIME, MAX_TIME));
        assert_eq!(r.avg_cpu_time, MAX_TIME as f64);
    }

    #[test]
    fn unix_start_time_beyond_the_largest_time_is_unusable() {
        let w = parse_str(
            "; MaxProcs: 8\n; UnixStartTime: 9223372036854775807\n\
             1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n",
        )
        .unwrap();
        assert_eq!(w.header.unix_start_time, None);
    }

    #[test]
    fn unix_start_time_minus_one_is_unknown() {
        // The SWF's "unknown", as for the machine size; a date in 1969 else.
        let w = parse_str(
            "; MaxProcs: 8\n; UnixStartTime: -1\n\
             1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n",
        )
        .unwrap();
        assert_eq!(w.header.unix_start(), Ok(None));
        // -2 is a time, a second before -1.
        let w = parse_str(
            "; MaxProcs: 8\n; UnixStartTime: -2\n\
             1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n",
        )
        .unwrap();
        assert_eq!(w.header.unix_start(), Ok(Some(-2)));
    }

    #[test]
    fn gzip_is_read_in_pieces_like_plain_text() {
        use flate2::write::GzEncoder;
        // Long enough for several pieces, with a line across each boundary.
        let mut text = String::from(HEADER);
        for i in 1..=40_000 {
            text.push_str(&format!(
                "{i} {} 0 {} 1 -1 -1 1 100 -1 1 {} 1 -1 1 -1 -1 -1\n",
                i * 3,
                i % 97 + 1,
                i % 13
            ));
        }
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("test.swf");
        let gz = dir.path().join("test.swf.gz");
        std::fs::write(&plain, &text).unwrap();
        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(text.as_bytes()).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        let a = read_path(&plain, &ReadOptions::default()).unwrap();
        let b = read_path(&gz, &ReadOptions::default()).unwrap();
        assert_eq!(a.jobs.len(), 40_000);
        assert_eq!(a.jobs, b.jobs);
        // The same lines and numbers; only the file differs.
        assert_eq!(a.header.lines, b.header.lines);
        let numbered = |w: &Workload| w.header.source.as_ref().unwrap().lines.clone();
        assert_eq!(numbered(&a), numbered(&b));
        // An error in the gzip text names the same line as in plain text.
        text.push_str("40001 1 0 1x 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n");
        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(text.as_bytes()).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        let e = read_path(&gz, &ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with(".swf.gz:40005: field 4 (run time): `1x` is not a number"),
            "{e}"
        );
    }

    /// A gzip file cut short, with other bytes after it, or with a byte
    /// changed inside is an error naming the file and saying so, not a
    /// trace of the lines read before.
    #[test]
    fn a_damaged_gzip_file_is_an_error_saying_what_is_wrong() {
        use flate2::write::GzEncoder;
        let mut text = String::from(HEADER);
        for i in 1..=2_000 {
            text.push_str(&format!(
                "{i} {i} 0 {} 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n",
                i % 89 + 1
            ));
        }
        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(text.as_bytes()).unwrap();
        let whole = enc.finish().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let gz = dir.path().join("t.swf.gz");
        let read = |bytes: &[u8]| {
            std::fs::write(&gz, bytes).unwrap();
            read_path(&gz, &ReadOptions::default()).map(|w| w.jobs.len())
        };
        assert_eq!(read(&whole).unwrap(), 2_000);
        let ends = "t.swf.gz: the gzip data is cut short, or followed by bytes that are not gzip";
        let cut = read(&whole[..whole.len() / 2]).unwrap_err().to_string();
        assert!(cut.ends_with(ends), "{cut}");
        let followed = read(&[&whole[..], b"garbage\n"].concat())
            .unwrap_err()
            .to_string();
        assert!(followed.ends_with(ends), "{followed}");
        // The checksum at the end, over text that reads fine.
        let mut changed = whole.clone();
        changed[whole.len() - 8] ^= 0xff;
        let changed = read(&changed).unwrap_err().to_string();
        assert!(
            changed.contains("t.swf.gz: not valid gzip data ("),
            "{changed}"
        );
    }

    /// `text` written plain and gzipped in a new folder, both read.
    fn read_both(text: &[u8]) -> [Result<Workload, SwfError>; 2] {
        use flate2::write::GzEncoder;
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("t.swf");
        let gz = dir.path().join("t.swf.gz");
        std::fs::write(&plain, text).unwrap();
        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(text).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        [&plain, &gz].map(|p| read_path(p, &ReadOptions::default()))
    }

    #[test]
    fn a_byte_order_mark_before_the_text_is_not_read() {
        let text = format!("{HEADER}1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n");
        let marked = [BYTE_ORDER_MARK, text.as_bytes()].concat();
        let [want, _] = read_both(text.as_bytes());
        let want = want.unwrap();
        let numbered = |w: &Workload| w.header.source.as_ref().unwrap().lines.clone();
        for got in read_both(&marked) {
            let got = got.unwrap();
            assert_eq!(
                (&got.jobs, &got.header.lines),
                (&want.jobs, &want.header.lines)
            );
            // Line 1 is still line 1.
            assert_eq!(numbered(&got), numbered(&want));
        }
        // One anywhere else is no part of SWF.
        let late = format!("{HEADER}\u{feff}1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n");
        for got in read_both(late.as_bytes()) {
            let e = got.unwrap_err().to_string();
            assert!(e.contains(":5: field 1 (job number)"), "{e}");
        }
    }

    #[test]
    fn lines_ended_by_a_carriage_return_alone_are_said_to_be() {
        let line = "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1";
        let said = "a carriage return (CR) inside the line";
        // Read as one line: a comment, or a line of too many fields.
        let from_comment = format!("{HEADER}{line}\n{line}\n").replace('\n', "\r");
        let from_job = format!("{line}\r{line}\r");
        for text in [from_comment, from_job] {
            for got in read_both(text.as_bytes()) {
                let e = got.unwrap_err().to_string();
                assert!(e.contains(&format!(":1: {said}")), "{e}");
            }
        }
        // CR LF is read as LF.
        let crlf = format!("{HEADER}{line}\n").replace('\n', "\r\n");
        for got in read_both(crlf.as_bytes()) {
            assert_eq!(got.unwrap().jobs.len(), 1);
        }
    }

    #[test]
    fn a_gzip_line_longer_than_a_piece_is_read_whole() {
        use flate2::write::GzEncoder;
        let good = "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n";
        // Five pieces long, one line: 19 fields and then some.
        let long = "7 ".repeat(5 * PIECE / 2);
        let text = format!("{HEADER}{good}{long}\n{good}");
        let dir = tempfile::tempdir().unwrap();
        let gz = dir.path().join("long.swf.gz");
        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(text.as_bytes()).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        let e = read_path(&gz, &ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with(".swf.gz:6: more than 18 fields (extra `7`)"),
            "{e}"
        );
    }

    #[test]
    fn jobs_out_of_submit_order_are_sorted() {
        let w = parse_str(&format!(
            "{HEADER}\
             1 50 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n\
             3 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n\
             2 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n"
        ))
        .unwrap();
        let order: Vec<i64> = w.jobs.iter().map(|j| j.number).collect();
        assert_eq!(order, vec![2, 3, 1]);
    }

    #[test]
    fn missing_machine_size_is_an_error() {
        let e = parse_str("1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n").unwrap_err();
        assert!(e.to_string().starts_with("t.swf: no `MaxProcs`"), "{e}");
    }

    #[test]
    fn an_unusable_machine_size_in_the_header_is_an_error_quoting_it() {
        const JOB: &str = "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n";
        let read = |header: &str| parse_str(&format!("{header}{JOB}")).map(|w| w.procs);
        // Not falling back to the nodes: 16 is not the machine described.
        for bad in ["4294967296", "abc", "0", "-5", "16.5"] {
            let e = read(&format!("; MaxProcs: {bad}\n; MaxNodes: 16\n")).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "t.swf:1: header `; MaxProcs: {bad}`: `{bad}` is not a number of processors \
                     from 1 to 4294967295 (give the machine size with --procs)"
                )
            );
        }
        let e = read("; MaxNodes: x\n").unwrap_err();
        assert!(
            e.to_string().starts_with("t.swf:1: header `; MaxNodes: x`"),
            "{e}"
        );
        let e = read("; MaxProcs: 8\n; MaxProcs: 16\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.swf:2: header `; MaxProcs: 8` (line 1) and `; MaxProcs: 16` disagree on the \
             machine size (give it with --procs)"
        );
        // Agreeing lines, notes after the number, and -1 for unknown.
        assert_eq!(
            read("; MaxProcs: 8\n; maxprocs: 8 (all usable)\n").unwrap(),
            8
        );
        assert_eq!(read("; MaxProcs: -1\n; MaxNodes: 4\n").unwrap(), 4);
        assert_eq!(read("; MaxProcs: 4294967295\n").unwrap(), u32::MAX);
        // A value of megabytes is quoted cut, in the line and alone.
        let e = read(&format!("; MaxProcs: 1{}\n", "0".repeat(99_999))).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "t.swf:1: header `; MaxProcs: 1{}... (100011 bytes)`: `1{}... (100000 bytes)` \
                 is not a number of processors from 1 to 4294967295 (give the machine size \
                 with --procs)",
                "0".repeat(48),
                "0".repeat(59)
            )
        );
        // With the size given, the header is not asked.
        let given = parse(
            format!("; MaxProcs: abc\n{JOB}").as_bytes(),
            Path::new("t.swf"),
            "t",
            &ReadOptions {
                procs: Some(3),
                ..ReadOptions::default()
            },
        )
        .unwrap();
        assert_eq!(given.procs, 3);
    }

    /// Header errors name the line, as job-line errors do: counted over
    /// blank lines, and over the pieces a gzip text is read in for a
    /// comment line after the jobs.
    #[test]
    fn header_errors_name_the_line_plain_and_gzip() {
        const JOB: &str = "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n";
        let text = format!("; Version: 2.2\n\n; MaxProcs: 0\n{JOB}");
        for got in read_both(text.as_bytes()) {
            let e = got.unwrap_err().to_string();
            assert!(
                e.contains(":3: header `; MaxProcs: 0`: `0` is not a number of processors"),
                "{e}"
            );
        }
        let mut text = String::from("; Version: 2.2\n; MaxProcs: 8\n");
        for i in 1..=40_000 {
            text.push_str(&format!(
                "{i} {i} 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n"
            ));
        }
        text.push_str("; MaxProcs: 16\n");
        for got in read_both(text.as_bytes()) {
            let e = got.unwrap_err().to_string();
            assert!(
                e.contains(
                    ":40003: header `; MaxProcs: 8` (line 2) and `; MaxProcs: 16` disagree \
                     on the machine size"
                ),
                "{e}"
            );
        }
    }

    #[test]
    fn partial_execution_records_leave_the_summary_line_as_the_job() {
        // Job 1 swapped out once: its summary line (status 1, the whole
        // run time), then its two partial executions (status 2, then 3).
        // Job 2's status 4 has no summary line beside it: some logs keep
        // exit codes there, and it is a job like any other.
        let w = parse_str(&format!(
            "{HEADER}1 0 5 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1\n\
             1 0 5 40 2 -1 -1 2 200 -1 2 1 1 -1 1 -1 -1 -1\n\
             2 10 0 30 1 -1 -1 1 50 -1 4 1 1 -1 1 -1 -1 -1\n\
             1 0 70 60 2 -1 -1 2 200 -1 3 1 1 -1 1 -1 -1 -1\n\
             3 20 0 30 1 -1 -1 1 50 -1 0 1 1 -1 1 -1 -1 -1\n"
        ))
        .unwrap();
        let jobs: Vec<(i64, Time)> = w.jobs.iter().map(|j| (j.number, j.runtime)).collect();
        assert_eq!(jobs, [(1, 100), (2, 30), (3, 30)]);
        assert_eq!(w.dropped.get(DropReason::PartialRecord), 2);
        // Partial records without a summary line, or two summary lines:
        // repeated numbers as before.
        for (status_a, status_b) in [(2, 3), (1, 1), (0, 5)] {
            let e = parse_str(&format!(
                "{HEADER}1 0 5 100 2 -1 -1 2 200 -1 {status_a} 1 1 -1 1 -1 -1 -1\n\
                 1 0 5 40 2 -1 -1 2 200 -1 {status_b} 1 1 -1 1 -1 -1 -1\n"
            ))
            .unwrap_err();
            assert_eq!(
                e.to_string(),
                "t.swf:6: field 1 (job number): job number 1 already used on line 5"
            );
        }
    }

    #[test]
    fn duplicate_job_number_is_an_error() {
        let line = "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n";
        let e = parse_str(&format!("{HEADER}{line}{line}")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.swf:6: field 1 (job number): job number 1 already used on line 5"
        );
        // After a partial execution record (status 2), the job's summary
        // line is not a repeat; a second summary line is, of the first.
        let partial = "1 0 0 10 1 -1 -1 1 10 -1 2 1 1 -1 1 -1 -1 -1\n";
        let e = parse_str(&format!("{HEADER}{partial}{line}{line}")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.swf:7: field 1 (job number): job number 1 already used on line 6"
        );
    }

    #[test]
    fn write_then_read_round_trips() {
        let text = format!(
            "{HEADER}1 0 5 100 2 1.25 1024 4 200 -1 1 7 3 -1 1 -1 -1 -1\n\
             2 30 0 60 1 -1 0.5 -1 -1 -1 0 8 3 12 2 1 1 15\n"
        );
        let w = parse_str(&text).unwrap();
        let mut out = Vec::new();
        write_workload(&mut out, &w).unwrap();
        let again = parse(&out, Path::new("t.swf"), "t", &ReadOptions::default()).unwrap();
        assert_eq!(w, again);
    }
}
