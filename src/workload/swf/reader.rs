//! One trace's text read line by line into jobs, in as many pieces as it
//! comes in; readers of separate pieces are appended in file order.

use super::{
    job_without_record, scan, HeaderLine, ReadOptions, SwfError, SwfHeader, SwfRecord, FIELD_NAMES,
};
use crate::workload::{DropReason, Dropped, Job, Workload, MAX_TIME};
use std::path::Path;

/// A trace read line by line, in as many pieces of text as it comes in.
pub(super) struct Reader {
    /// Header lines with their line numbers (counted as `lines` is).
    header_lines: Vec<HeaderLine>,
    dropped: Dropped,
    jobs: Vec<Job>,
    /// Job number and line of every record, and whether it is a partial
    /// execution's ([`is_partial`]), for the duplicate check.
    numbers: Vec<(i64, usize, bool)>,
    /// Where in `jobs` the jobs of partial-execution records are, in
    /// order: a job keeps no status to tell (its record may be left out).
    partial_jobs: Vec<usize>,
    /// Lines read so far.
    lines: usize,
    /// Processors of the widest job.
    widest: u32,
    /// Whether the jobs came in submit order (ties by number); only
    /// within pieces for a reader given them out of order (see `marks`).
    in_order: bool,
    /// For a reader given pieces out of order, where each begins.
    marks: Vec<Mark>,
    /// The first job of the piece being read: the order is checked from it.
    piece_jobs: usize,
    /// Whether jobs keep their SWF records ([`ReadOptions::without_records`]).
    records: bool,
}

/// Where a piece's lines begin in a reader's vectors.
#[derive(Debug, Clone, Copy)]
struct Mark {
    /// The piece's number in the text.
    index: usize,
    jobs: usize,
    numbers: usize,
    partial_jobs: usize,
    headers: usize,
    lines: usize,
}

impl Reader {
    /// A reader for about `text_len` bytes of text, whose jobs keep their
    /// SWF records when `records` is set.
    pub fn new(text_len: usize, records: bool) -> Self {
        // Jobs go straight into their final vector (no intermediate record
        // list: a million-job trace must load in well under a second).
        Reader {
            header_lines: Vec::new(),
            dropped: Dropped::default(),
            jobs: Vec::with_capacity(text_len / 64),
            numbers: Vec::with_capacity(text_len / 64),
            partial_jobs: Vec::new(),
            lines: 0,
            widest: 0,
            in_order: true,
            marks: Vec::new(),
            piece_jobs: 0,
            records,
        }
    }

    /// Reads `text`, whole lines each ending in a newline.
    fn lines(&mut self, text: &[u8], path: &Path) -> Result<(), SwfError> {
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', text) {
            self.line(text, start, end, path)?;
            start = end + 1;
        }
        Ok(())
    }

    /// Reads the text after the last newline (if any) as the last line.
    fn last_line(&mut self, text: &[u8], path: &Path) -> Result<(), SwfError> {
        self.line(text, 0, text.len(), path)
    }

    /// Reads the line `text[line_start..line_end]` (newline excluded); the
    /// bytes after it may be read but never count.
    fn line(
        &mut self,
        text: &[u8],
        line_start: usize,
        line_end: usize,
        path: &Path,
    ) -> Result<(), SwfError> {
        self.lines += 1;
        let (mut start, mut end) = (line_start, line_end);
        while start < end && text[start].is_ascii_whitespace() {
            start += 1;
        }
        while end > start && text[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        if start == end {
            return Ok(());
        }
        if text[start] == b';' {
            if let Some(e) = lone_carriage_return(text, start, end, path, self.lines) {
                return Err(e);
            }
            let line = &text[start + 1..line_end];
            self.header_lines.push(match std::str::from_utf8(line) {
                Ok(line) => (self.lines, line.trim_end().to_string(), None),
                // Kept as read too, so that a schedule written back gives
                // the header its own bytes (a comment in Latin-1, say).
                Err(_) => (
                    self.lines,
                    String::from_utf8_lossy(line).trim_end().to_string(),
                    Some(line.trim_ascii_end().into()),
                ),
            });
            return Ok(());
        }
        let record = parse_record(text, start, end, path, self.lines)
            .map_err(|e| lone_carriage_return(text, start, end, path, self.lines).unwrap_or(e))?;
        let partial = is_partial(&record);
        self.numbers.push((record.job_number, self.lines, partial));
        // The width check waits until the header has given the machine size.
        match job_without_record(&record, u32::MAX) {
            Ok(mut job) => {
                if partial {
                    self.partial_jobs.push(self.jobs.len());
                }
                if self.records {
                    job.swf = Some(Box::new(record));
                }
                self.widest = self.widest.max(job.procs);
                if self.jobs.len() > self.piece_jobs {
                    let last = &self.jobs[self.jobs.len() - 1];
                    self.in_order &= (last.submit, last.number) <= (job.submit, job.number);
                }
                self.jobs.push(job);
            }
            Err(reason) => self.dropped.add(reason),
        }
        Ok(())
    }

    /// Reads a piece of whole lines, or, when it is the text's `last`, lines
    /// of which the last may lack its newline.
    pub fn piece(&mut self, text: &[u8], last: bool, path: &Path) -> Result<(), SwfError> {
        if !last {
            return self.lines(text, path);
        }
        let end = memchr::memrchr(b'\n', text).map_or(0, |at| at + 1);
        self.lines(&text[..end], path)?;
        self.last_line(&text[end..], path)
    }

    /// Lines read so far.
    pub fn line_count(&self) -> usize {
        self.lines
    }

    /// Begins piece `index` of the text, read after pieces that may come
    /// later in the text: [`Reader::append_piece`] puts it in its place.
    pub fn begin_piece(&mut self, index: usize) {
        self.marks.push(self.mark(index));
        self.piece_jobs = self.jobs.len();
    }

    /// Where piece `index` would begin now.
    fn mark(&self, index: usize) -> Mark {
        Mark {
            index,
            jobs: self.jobs.len(),
            numbers: self.numbers.len(),
            partial_jobs: self.partial_jobs.len(),
            headers: self.header_lines.len(),
            lines: self.lines,
        }
    }

    /// The number in the text of each piece begun, by its order here.
    pub fn pieces(&self) -> impl Iterator<Item = usize> + '_ {
        self.marks.iter().map(|m| m.index)
    }

    /// Takes in the `k`th piece begun in `other`, the piece of the text
    /// right after what this reader has read.
    pub fn append_piece(&mut self, other: &Reader, k: usize) {
        let from = other.marks[k];
        let to = other
            .marks
            .get(k + 1)
            .copied()
            .unwrap_or_else(|| other.mark(from.index));
        let jobs = &other.jobs[from.jobs..to.jobs];
        if let (Some(last), Some(first)) = (self.jobs.last(), jobs.first()) {
            self.in_order &= (last.submit, last.number) <= (first.submit, first.number);
        }
        let at = self.jobs.len();
        self.partial_jobs.extend(
            other.partial_jobs[from.partial_jobs..to.partial_jobs]
                .iter()
                .map(|&k| k - from.jobs + at),
        );
        self.jobs.extend_from_slice(jobs);
        let lines = self.lines;
        self.numbers.extend(
            other.numbers[from.numbers..to.numbers]
                .iter()
                .map(|&(number, line, partial)| (number, line - from.lines + lines, partial)),
        );
        self.header_lines.extend(
            other.header_lines[from.headers..to.headers]
                .iter()
                .map(|(line, text, bytes)| {
                    (line - from.lines + lines, text.clone(), bytes.clone())
                }),
        );
        self.lines += to.lines - from.lines;
    }

    /// Takes in what `other`'s pieces, all appended now, counted as a whole.
    pub fn append_counts(&mut self, other: &Reader) {
        self.in_order &= other.in_order;
        for (&reason, &n) in &other.dropped.0 {
            *self.dropped.0.entry(reason).or_insert(0) += n;
        }
        self.widest = self.widest.max(other.widest);
    }

    /// The workload, once every line is read.
    pub fn finish(
        mut self,
        path: &Path,
        name: &str,
        opts: &ReadOptions,
    ) -> Result<Workload, SwfError> {
        let partial_jobs = match repeated_numbers(&mut self.numbers) {
            Repeats::None => Vec::new(),
            Repeats::Partial(numbers) => numbers,
            Repeats::Duplicate {
                number,
                line,
                first,
            } => {
                return Err(SwfError::Field {
                    path: path.to_path_buf(),
                    line,
                    field: 1,
                    message: format!("job number {number} already used on line {first}"),
                })
            }
        };
        if !partial_jobs.is_empty() {
            // Only the partial records of jobs that have a summary line:
            // elsewhere status 2 to 4 may mean something else (exit codes
            // in some logs).
            let before = self.jobs.len();
            let mut partial = self.partial_jobs.iter().copied().peekable();
            let mut k = 0;
            self.jobs.retain(|j| {
                let is_partial = partial.next_if_eq(&k).is_some();
                k += 1;
                !(is_partial && partial_jobs.binary_search(&j.number).is_ok())
            });
            for _ in self.jobs.len()..before {
                self.dropped.add(DropReason::PartialRecord);
            }
        }
        let header = SwfHeader::read(path, self.header_lines);
        let from_header = match opts.procs {
            Some(_) => None,
            None => header.machine_size().map_err(SwfError::Header)?,
        };
        let Some(procs) = opts.procs.or(from_header) else {
            return Err(SwfError::Trace {
                path: path.to_path_buf(),
                message: "no `MaxProcs` or `MaxNodes` in the header, so the machine size is \
                          unknown (give it with --procs)"
                    .into(),
            });
        };
        let mut jobs = self.jobs;
        let mut dropped = self.dropped;
        // One more pass over the jobs only when one is too wide.
        if self.widest > procs {
            let before = jobs.len();
            jobs.retain(|j| j.procs <= procs);
            for _ in jobs.len()..before {
                dropped.add(DropReason::TooWide);
            }
        }
        // Dropping wide jobs keeps the rest in order.
        let mut w = if self.in_order {
            Workload::in_order(name, procs, header, jobs)
        } else {
            Workload::new(name, procs, header, jobs)
        };
        w.dropped = dropped;
        Ok(w)
    }
}

/// Whether a record is one partial execution of a checkpointed or swapped
/// job (SWF status 2, 3 or 4), which the SWF gives a summary line of its
/// own, of the same job number: the job.
fn is_partial(r: &SwfRecord) -> bool {
    (2..=4).contains(&r.status)
}

/// What the job numbers of a trace repeat.
#[derive(Debug, PartialEq)]
enum Repeats {
    None,
    /// Only jobs with one summary line and partial-execution records: the
    /// numbers of those jobs, ascending.
    Partial(Vec<i64>),
    /// The earliest repeat that is not that: the number, its line and the
    /// line of its first use.
    Duplicate {
        number: i64,
        line: usize,
        first: usize,
    },
}

/// Archive traces number jobs in increasing order, which is checked in one
/// pass; only otherwise are the numbers sorted.
fn repeated_numbers(numbers: &mut [(i64, usize, bool)]) -> Repeats {
    if numbers.windows(2).all(|w| w[0].0 < w[1].0) {
        return Repeats::None;
    }
    numbers.sort_unstable();
    let mut partial = Vec::new();
    let mut duplicate: Option<(i64, usize, usize)> = None;
    for group in numbers.chunk_by(|a, b| a.0 == b.0).filter(|g| g.len() > 1) {
        if group.iter().filter(|r| !r.2).count() == 1 {
            partial.push(group[0].0);
        } else {
            // Sorted by line within the number: the second is the repeat,
            // or the second summary line where partial records came first.
            let mut summaries = group.iter().filter(|r| !r.2);
            let (first, repeat) = match (summaries.next(), summaries.next()) {
                (Some(a), Some(b)) => (a.1, b.1),
                _ => (group[0].1, group[1].1),
            };
            if duplicate.is_none_or(|(_, l, _)| repeat < l) {
                duplicate = Some((group[0].0, repeat, first));
            }
        }
    }
    match (duplicate, partial.is_empty()) {
        (Some((number, line, first)), _) => Repeats::Duplicate {
            number,
            line,
            first,
        },
        (None, true) => Repeats::None,
        (None, false) => Repeats::Partial(partial),
    }
}

/// The error for a line `text[start..end]` with a carriage return inside
/// it: the text's lines end in CR alone (an old Mac file), so the whole
/// file would read as one line, a comment or a line of too many fields.
fn lone_carriage_return(
    text: &[u8],
    start: usize,
    end: usize,
    path: &Path,
    line: usize,
) -> Option<SwfError> {
    memchr::memchr(b'\r', &text[start..end]).map(|_| SwfError::Line {
        path: path.to_path_buf(),
        line,
        message: "a carriage return (CR) inside the line: lines that end in CR alone \
                  are not read; goalc reads lines ended by LF or CR LF"
            .to_string(),
    })
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
            message: format!("more than 18 fields (extra {})", quoted(&text[start..end])),
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
                Bad::Beyond64 => "beyond the range of a 64-bit integer".to_string(),
                Bad::Inexact => {
                    format!("beyond ±{MAX_TIME}, the largest goalc keeps exactly in this field")
                }
            };
            SwfError::Field {
                path: path.to_path_buf(),
                line,
                field,
                message: format!("{} is {what}", quoted(&text[start..end])),
            }
        }
    })
}

/// A field as a message quotes it: control characters (a vertical tab, say,
/// which is not taken for whitespace) escaped, or the field would read as
/// the number it seems to be; a long one cut, since a field of megabytes (a
/// file that is not a trace) would make a message of megabytes.
fn quoted(field: &[u8]) -> String {
    const SHOWN: usize = 40;
    let text = |b: &[u8]| String::from_utf8_lossy(b).escape_debug().to_string();
    match field.len() > SHOWN {
        true => format!("`{}...` ({} bytes)", text(&field[..SHOWN]), field.len()),
        false => format!("`{}`", text(field)),
    }
}
