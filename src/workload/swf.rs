//! The Standard Workload Format (SWF v2.2) of the Parallel Workloads Archive:
//! `;` header comments, then one job a line with 18 whitespace-separated
//! numeric fields, `-1` meaning unknown.
//!
//! Reading is a hand-rolled byte scanner rather than `str::split_whitespace`
//! plus `parse`, because traces of a million jobs must load in well under a
//! second; the scanner still checks every field and names the first bad one.

use super::{DropReason, Dropped, Job, Time, Workload, MAX_TIME};
use flate2::read::MultiGzDecoder;
use std::fmt;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

mod scan;

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
    pub max_procs: Option<u32>,
    pub max_nodes: Option<u32>,
    pub unix_start_time: Option<i64>,
}

impl SwfHeader {
    /// Value of a `; Key: value` header line, first occurrence.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.lines.iter().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim().eq_ignore_ascii_case(key)).then(|| v.trim())
        })
    }

    fn from_lines(lines: Vec<String>) -> Self {
        let mut h = SwfHeader {
            lines,
            ..Default::default()
        };
        let int = |h: &SwfHeader, k: &str| {
            h.get(k)
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<i64>().ok())
        };
        h.max_procs = int(&h, "MaxProcs")
            .and_then(|v| u32::try_from(v).ok())
            .filter(|&v| v > 0);
        h.max_nodes = int(&h, "MaxNodes")
            .and_then(|v| u32::try_from(v).ok())
            .filter(|&v| v > 0);
        h.unix_start_time = int(&h, "UnixStartTime");
        h
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
    #[error("{path}: {message}")]
    Trace { path: PathBuf, message: String },
}

/// How to read a trace.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Machine size to use instead of the header's MaxProcs/MaxNodes.
    pub procs: Option<u32>,
}

/// Reads a `.swf` or `.swf.gz` file (gzip is recognised by its magic bytes,
/// not the name). The workload is named for the file, without extensions.
pub fn read_path(path: &Path, opts: &ReadOptions) -> Result<Workload, SwfError> {
    let io_err = |source| SwfError::Io {
        path: path.to_path_buf(),
        source,
    };
    let raw = std::fs::read(path).map_err(io_err)?;
    let text = if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::with_capacity(raw.len() * 6);
        MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .map_err(io_err)?;
        out
    } else {
        raw
    };
    parse(&text, path, &trace_name(path), opts)
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
    let mut header_lines = Vec::new();
    let mut dropped = Dropped::default();
    // Jobs go straight into their final vector (no intermediate record list:
    // a million-job trace must load in well under a second); the width check
    // waits until the header has given the machine size.
    let mut jobs = Vec::with_capacity(text.len() / 64);
    let mut numbers: Vec<(i64, usize)> = Vec::with_capacity(text.len() / 64);
    let mut line_start = 0;
    for (idx, line_end) in memchr::memchr_iter(b'\n', text)
        .chain(std::iter::once(text.len()))
        .enumerate()
    {
        let line_end = line_end.max(line_start);
        let (mut start, mut end) = (line_start, line_end);
        line_start = line_end + 1;
        let lineno = idx + 1;
        while start < end && text[start].is_ascii_whitespace() {
            start += 1;
        }
        while end > start && text[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        if start == end {
            continue;
        }
        if text[start] == b';' {
            header_lines.push(
                String::from_utf8_lossy(&text[start + 1..line_end])
                    .trim_end()
                    .to_string(),
            );
            continue;
        }
        let record = parse_record(text, start, end, path, lineno)?;
        numbers.push((record.job_number, lineno));
        match job_from_record(&record, u32::MAX) {
            Ok(job) => jobs.push(job),
            Err(reason) => dropped.add(reason),
        }
    }
    if let Some((number, line, first)) = first_duplicate(&mut numbers) {
        return Err(SwfError::Field {
            path: path.to_path_buf(),
            line,
            field: 1,
            message: format!("job number {number} already used on line {first}"),
        });
    }
    let header = SwfHeader::from_lines(header_lines);
    let Some(procs) = opts.procs.or(header.max_procs).or(header.max_nodes) else {
        return Err(SwfError::Trace {
            path: path.to_path_buf(),
            message: "no `MaxProcs` or `MaxNodes` in the header, so the machine size is \
                      unknown (give it with --procs)"
                .into(),
        });
    };
    let before = jobs.len();
    jobs.retain(|j| j.procs <= procs);
    for _ in jobs.len()..before {
        dropped.add(DropReason::TooWide);
    }
    let mut w = Workload::new(name, procs, header, jobs);
    w.dropped = dropped;
    Ok(w)
}

/// The simulator's view of one record, or why it cannot run.
/// Processors: requested when given, else allocated. Estimate: requested
/// time when given, else the run time itself.
pub fn job_from_record(r: &SwfRecord, machine_procs: u32) -> Result<Job, DropReason> {
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
        deadline: None,
        deadline_job: false,
        measured: true,
        follows: None,
        swf: *r,
    })
}

/// The earliest repeated job number as (number, line, line of first use).
/// Archive traces number jobs in increasing order, which is checked in one
/// pass; only otherwise are the numbers sorted.
fn first_duplicate(numbers: &mut [(i64, usize)]) -> Option<(i64, usize, usize)> {
    if numbers.windows(2).all(|w| w[0].0 < w[1].0) {
        return None;
    }
    numbers.sort_unstable();
    numbers
        .windows(2)
        .filter(|w| w[0].0 == w[1].0)
        .map(|w| (w[0].0, w[1].1, w[0].1))
        .min_by_key(|&(_, line, _)| line)
}

/// The record on `text[start..end]` (a line without leading and trailing
/// whitespace), or the error naming the line and field.
fn parse_record(
    text: &[u8],
    start: usize,
    end: usize,
    path: &Path,
    line: usize,
) -> Result<SwfRecord, SwfError> {
    use scan::{Bad, LineError};
    scan::record(text, start, end).map_err(|e| match e {
        LineError::Missing { found } => SwfError::Line {
            path: path.to_path_buf(),
            line,
            message: format!(
                "{found} fields, expected 18 (missing field {}, {})",
                found + 1,
                FIELD_NAMES[found]
            ),
        },
        LineError::Extra { start, end } => SwfError::Line {
            path: path.to_path_buf(),
            line,
            message: format!(
                "more than 18 fields (extra `{}`)",
                String::from_utf8_lossy(&text[start..end])
            ),
        },
        LineError::Bad {
            field,
            start,
            end,
            why,
        } => {
            let what = match why {
                Bad::NotInteger => "not an integer".to_string(),
                Bad::NotNumber => "not a number".to_string(),
                Bad::TooLarge => format!("above {MAX_TIME}, the largest time goalc accepts"),
                Bad::TooSmall => format!("below -{MAX_TIME}, the smallest time goalc accepts"),
            };
            SwfError::Field {
                path: path.to_path_buf(),
                line,
                field,
                message: format!("`{}` is {what}", String::from_utf8_lossy(&text[start..end])),
            }
        }
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
    for line in &header.lines {
        writeln!(out, ";{line}")?;
    }
    for r in records {
        writeln!(out, "{}", RecordLine(r))?;
    }
    Ok(())
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
        let reasons: Vec<String> = w
            .dropped
            .0
            .iter()
            .map(|(r, n)| format!("{n} {r}"))
            .collect();
        header.lines.push(format!(
            " Note: {} jobs of the trace not simulated: {}",
            w.dropped.total(),
            reasons.join(", ")
        ));
    }
    let records: Vec<SwfRecord> = w
        .jobs
        .iter()
        .zip(runs)
        .map(|(j, run)| {
            let mut r = j.swf;
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
            r
        })
        .collect();
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
    fn reads_header_and_fields() {
        let w = parse_str(&format!(
            "{HEADER}1 0 5 100 2 1.5 -1 4 200 -1 1 7 3 -1 1 -1 -1 -1\n"
        ))
        .unwrap();
        assert_eq!(w.procs, 8);
        assert_eq!(w.header.max_nodes, Some(4));
        assert_eq!(w.header.unix_start_time, Some(1000));
        let j = &w.jobs[0];
        assert_eq!(
            (j.procs, j.runtime, j.estimate, j.user, j.group),
            (4, 100, 200, 7, 3)
        );
        assert_eq!(j.swf.avg_cpu_time, 1.5);
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
            "t.swf:6: field 4 (run time): `1x` is not an integer"
        );
        let e = parse_str(&format!("{HEADER}1 0 0 10\n")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.swf:5: 4 fields, expected 18 (missing field 5, allocated processors)"
        );
    }

    #[test]
    fn missing_machine_size_is_an_error() {
        let e = parse_str("1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n").unwrap_err();
        assert!(e.to_string().starts_with("t.swf: no `MaxProcs`"), "{e}");
    }

    #[test]
    fn duplicate_job_number_is_an_error() {
        let line = "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n";
        let e = parse_str(&format!("{HEADER}{line}{line}")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.swf:6: field 1 (job number): job number 1 already used on line 5"
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
        write(&mut out, &w.header, w.jobs.iter().map(|j| &j.swf)).unwrap();
        let again = parse(&out, Path::new("t.swf"), "t", &ReadOptions::default()).unwrap();
        assert_eq!(w, again);
    }
}
