//! A trace's text read on several threads at once.
//!
//! The text comes in pieces of whole lines, numbered in file order: slices
//! of a plain file, or what the inflating thread of a gzip file hands over.
//! The calling thread reads pieces from the front of the queue into the
//! trace's reader; helpers take pieces from the back, each into a reader of
//! its own, and those are appended in file order at the end. A gzip file's
//! inflating thread helps once it has inflated everything, so a trace costs
//! the longer of inflating and reading, not their sum, and less than either
//! once both threads read. Every piece the front takes comes before every
//! piece a helper takes (pieces are added at the back, and taken from there
//! only once all are in), so the reader's lines so far are exactly the
//! lines before the first helper's piece, and line numbers in errors come
//! out as a single reader would give them.

use super::reader::Reader;
use super::SwfError;
use std::collections::VecDeque;
use std::io;
use std::path::Path;
use std::sync::{Condvar, Mutex};

/// Some whole lines of the text, or, for the last piece only, lines of
/// which the last may lack its newline.
pub(super) struct Piece<T> {
    pub text: T,
    pub last: bool,
}

/// Pieces waiting to be read, in file order.
pub(super) struct Queue<T> {
    state: Mutex<State<T>>,
    more: Condvar,
}

struct State<T> {
    pieces: VecDeque<(usize, Piece<T>)>,
    /// Pieces handed out so far, or added: the next piece's number.
    added: usize,
    /// No piece will be added.
    closed: bool,
    /// Why the text ended before its end (an unreadable gzip stream).
    failed: Option<io::Error>,
    /// The front failed: its error comes first, so helpers stop.
    abandoned: bool,
    /// Buffers read, for the inflating thread to fill again.
    spare: Vec<T>,
}

impl<T> Queue<T> {
    pub fn new() -> Self {
        Queue {
            state: Mutex::new(State {
                pieces: VecDeque::new(),
                added: 0,
                closed: false,
                failed: None,
                abandoned: false,
                spare: Vec::new(),
            }),
            more: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<T>> {
        // A reader panicking mid-piece leaves the queue consistent: the
        // panic itself reaches the caller through the thread's scope.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds the next piece of the text.
    pub fn push(&self, piece: Piece<T>) {
        let mut s = self.lock();
        let index = s.added;
        s.added += 1;
        s.pieces.push_back((index, piece));
        drop(s);
        self.more.notify_one();
    }

    /// No more pieces: the text is whole, or broke off with `failed`. Only
    /// the first close counts.
    pub fn close(&self, failed: Option<io::Error>) {
        let mut s = self.lock();
        if s.closed {
            return;
        }
        s.closed = true;
        s.failed = failed;
        drop(s);
        self.more.notify_all();
    }

    /// A guard that closes the queue when dropped, if nothing did before:
    /// the text then broke off (its producer panicked).
    pub fn closing(&self) -> Closing<'_, T> {
        Closing(self)
    }

    /// The first piece left, waiting for one; `None` once all are taken.
    fn front(&self) -> Option<(usize, Piece<T>)> {
        let mut s = self.lock();
        loop {
            if let Some(p) = s.pieces.pop_front() {
                return Some(p);
            }
            if s.closed {
                return None;
            }
            s = self.more.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The last piece left, once all are in; `None` when none is left (or
    /// the front gave up).
    fn back(&self) -> Option<(usize, Piece<T>)> {
        let mut s = self.lock();
        if s.abandoned || !s.closed {
            return None;
        }
        s.pieces.pop_back()
    }

    fn abandon(&self) {
        self.lock().abandoned = true;
    }

    /// A buffer already read, to fill again.
    pub fn spare(&self) -> Option<T> {
        self.lock().spare.pop()
    }

    fn give_back(&self, text: T) {
        self.lock().spare.push(text);
    }

    fn failed(&self) -> Option<io::Error> {
        self.lock().failed.take()
    }
}

/// Closes its queue when dropped (see [`Queue::closing`]).
pub(super) struct Closing<'a, T>(&'a Queue<T>);

impl<T> Drop for Closing<'_, T> {
    fn drop(&mut self) {
        let broke = io::Error::other("the text broke off: its reader stopped");
        self.0.close(Some(broke));
    }
}

/// What a helper read: its pieces, each begun in one reader, and the
/// piece where it stopped with its error, if one was bad.
pub(super) struct Helped {
    reader: Reader,
    failed: Option<(usize, SwfError)>,
}

/// Takes pieces from the back until none is left, into `reader` (made by
/// the calling thread, so that its memory comes from the heap the trace's
/// reader uses and is used again once appended there).
pub(super) fn help<T: AsRef<[u8]>>(queue: &Queue<T>, mut reader: Reader, path: &Path) -> Helped {
    let mut failed = None;
    while let Some((index, piece)) = queue.back() {
        reader.begin_piece(index);
        let lines = reader.line_count();
        if let Err(e) = reader.piece(piece.text.as_ref(), piece.last, path) {
            // Counted from the piece's start, for `read_front` to place.
            failed = Some((index, e.renumbered(lines, 0)));
            break;
        }
        queue.give_back(piece.text);
    }
    Helped { reader, failed }
}

/// Reads pieces from the front into `reader` until all are taken, then
/// appends what `helped` read (the helpers' results, once they are done):
/// the trace's reader with every line, or the first error in file order.
pub(super) fn read_front<T: AsRef<[u8]>>(
    queue: &Queue<T>,
    reader: &mut Reader,
    path: &Path,
    helped: impl FnOnce() -> Vec<Helped>,
) -> Result<(), SwfError> {
    while let Some((_, piece)) = queue.front() {
        if let Err(e) = reader.piece(piece.text.as_ref(), piece.last, path) {
            queue.abandon();
            // The helpers still finish their pieces; their results go.
            drop(helped());
            return Err(e);
        }
        queue.give_back(piece.text);
    }
    let mut helped = helped();
    // Every helper's pieces by their number in the text: (number, helper,
    // the piece's place in the helper's reader).
    let mut pieces: Vec<(usize, usize, usize)> = helped
        .iter()
        .enumerate()
        .flat_map(|(h, help)| {
            help.reader
                .pieces()
                .enumerate()
                .map(move |(k, i)| (i, h, k))
        })
        .collect();
    pieces.sort_unstable();
    // Only pieces before the first bad one are read whole.
    let failed = helped
        .iter_mut()
        .filter_map(|h| h.failed.take())
        .min_by_key(|&(index, _)| index);
    for &(index, h, k) in &pieces {
        match &failed {
            Some((bad, _)) if index >= *bad => break,
            _ => reader.append_piece(&helped[h].reader, k),
        }
    }
    if let Some((_, e)) = failed {
        // Every piece before the bad one is in `reader` now.
        return Err(e.renumbered(0, reader.line_count()));
    }
    for help in &helped {
        reader.append_counts(&help.reader);
    }
    match queue.failed() {
        Some(source) => Err(SwfError::Io {
            path: path.to_path_buf(),
            source,
        }),
        None => Ok(()),
    }
}

/// A helper's result; its panic goes on in the caller.
pub(super) fn join(helper: std::thread::ScopedJoinHandle<'_, Helped>) -> Helped {
    helper
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Reads plain `text` in pieces of about `size` bytes (whole when `None`)
/// on up to `threads` threads.
pub(super) fn read_plain(
    text: &[u8],
    size: Option<usize>,
    threads: usize,
    path: &Path,
    records: bool,
) -> Result<Reader, SwfError> {
    let mut reader = Reader::new(text.len(), records);
    let pieces = cut(text, size.unwrap_or(text.len()));
    if threads <= 1 || pieces.len() == 1 {
        for piece in pieces {
            reader.piece(piece.text, piece.last, path)?;
        }
        return Ok(reader);
    }
    let queue = Queue::new();
    for piece in pieces {
        queue.push(piece);
    }
    queue.close(None);
    std::thread::scope(|scope| {
        // A helper the system refuses leaves its share to the others.
        let helpers: Vec<_> = (1..threads)
            .filter_map(|_| {
                let helper = Reader::new(text.len() / threads, records);
                std::thread::Builder::new()
                    .spawn_scoped(scope, || help(&queue, helper, path))
                    .ok()
            })
            .collect();
        read_front(&queue, &mut reader, path, || {
            helpers.into_iter().map(join).collect()
        })
    })?;
    Ok(reader)
}

/// The size of the pieces `threads` threads read a plain text of `len`
/// bytes in: `None` (one piece) for one thread or a short text, else small
/// enough that the threads finish close together, but none so small that
/// handing it over costs more than reading it.
pub(super) fn piece_size(len: usize, threads: usize) -> Option<usize> {
    (threads > 1 && len >= MIN_SHARED).then(|| (len / (threads * 16)).max(MIN_PIECE))
}

/// `text` in pieces of at least `size` bytes, each ending after a newline
/// but the last.
fn cut(text: &[u8], size: usize) -> Vec<Piece<&[u8]>> {
    let size = size.max(1);
    let mut pieces = Vec::new();
    let mut from = 0;
    while text.len() - from > size {
        match memchr::memchr(b'\n', &text[from + size..]) {
            Some(at) => {
                let end = from + size + at + 1;
                pieces.push(Piece {
                    text: &text[from..end],
                    last: false,
                });
                from = end;
            }
            None => break,
        }
    }
    pieces.push(Piece {
        text: &text[from..],
        last: true,
    });
    pieces
}

/// The smallest piece worth a hand-over: about a thousand lines.
const MIN_PIECE: usize = 64 * 1024;

/// The shortest plain text worth reading on several threads. A helper
/// reads its share into a vector of its own, copied into the trace's at
/// the end, and in a fresh process those pages cost about as much as the
/// reading they save until the text is this long (about 170,000 lines:
/// CTC-SP2, 7 MB, read in the same time either way; SDSC-BLUE, 22 MB,
/// 43 to 30 ms on two threads).
const MIN_SHARED: usize = 16 << 20;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::swf::ReadOptions;
    use crate::workload::Workload;
    use proptest::prelude::*;

    const PATH: &str = "t.swf";

    fn finish(read: Result<Reader, SwfError>) -> Result<Workload, String> {
        let opts = ReadOptions::default();
        read.and_then(|r| r.finish(Path::new(PATH), "t", &opts))
            .map_err(|e| e.to_string())
    }

    /// `text` read by one reader at once.
    fn whole(text: &[u8]) -> Result<Workload, String> {
        let mut reader = Reader::new(text.len(), true);
        finish(reader.piece(text, true, Path::new(PATH)).map(|()| reader))
    }

    /// `text` cut in pieces of `size` bytes; the front reads `front` of
    /// them, a helper all the others from the back, and the front puts
    /// them together: the same steps as two threads, in a fixed order.
    fn front_then_helper(text: &[u8], size: usize, front: usize) -> Result<Workload, String> {
        front_then_helper_keeping(text, size, front, true)
    }

    /// [`front_then_helper`], the jobs keeping their records or not.
    fn front_then_helper_keeping(
        text: &[u8],
        size: usize,
        front: usize,
        records: bool,
    ) -> Result<Workload, String> {
        let path = Path::new(PATH);
        let queue = Queue::new();
        for piece in cut(text, size) {
            queue.push(piece);
        }
        queue.close(None);
        let mut reader = Reader::new(text.len(), records);
        for _ in 0..front {
            let Some((_, piece)) = queue.front() else {
                break;
            };
            if let Err(e) = reader.piece(piece.text, piece.last, path) {
                return Err(e.to_string());
            }
        }
        let helped = help(&queue, Reader::new(0, records), path);
        finish(read_front(&queue, &mut reader, path, || vec![helped]).map(|()| reader))
    }

    const HEADER: &str = "; Version: 2.2\n; MaxProcs: 64\n";

    fn record(number: i64, submit: i64, runtime: i64, procs: i64) -> String {
        format!("{number} {submit} 0 {runtime} {procs} -1 -1 {procs} 100 -1 1 1 1 -1 1 -1 -1 -1")
    }

    /// A line of a trace: mostly good records, some that are dropped,
    /// comments, blank lines, and now and then a bad line.
    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            20 => (1i64..1000, 0i64..100, 1i64..200).prop_map(|(n, s, r)| record(n, s, r, 1 + n % 8)),
            2 => (1i64..1000, 0i64..100).prop_map(|(n, s)| record(n, s, 0, 1)),
            2 => (1i64..1000, 0i64..100).prop_map(|(n, s)| record(n, s, 10, 99)),
            1 => Just("; Note: a comment amid the jobs".to_string()),
            1 => Just("   ".to_string()),
            1 => Just("1 2 3".to_string()),
            1 => Just(record(1, 0, 10, 1).replace(" 100 ", " 1x ")),
            // A job with a partial execution's record (status 2) after its
            // summary line, which drops the partial one.
            2 => (1i64..1000, 0i64..100, 1i64..200).prop_map(|(n, s, r)| {
                let job = record(n, s, r, 2);
                format!("{job}\n{}", job.replace(" 100 -1 1 ", " 100 -1 2 "))
            }),
            // No requested time; a requested width of 0, so the allocated one.
            1 => (1i64..1000, 0i64..100).prop_map(|(n, s)| record(n, s, 10, 3).replace(" 100 ", " -1 ")),
            1 => (1i64..1000, 0i64..100).prop_map(|(n, s)| record(n, s, 10, 3).replace(" -1 -1 3 ", " -1 -1 0 ")),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        /// However the text is cut and shared, the workload (jobs, order,
        /// drops, header) or the first error (its line and field) is what
        /// one reader gives.
        #[test]
        fn shared_pieces_read_as_one(
            lines in proptest::collection::vec(line(), 0..60),
            size in 1usize..400,
            front in 0usize..20,
            newline_at_end in any::<bool>(),
        ) {
            let mut text = format!("{HEADER}{}", lines.join("\n"));
            if newline_at_end {
                text.push('\n');
            }
            let text = text.as_bytes();
            let one = whole(text);
            prop_assert_eq!(front_then_helper(text, size, front), one.clone());
            // Without records, the same jobs, but for the records left out;
            // what the report counts of them is known all the same.
            let mut stripped = one.clone();
            if let Ok(w) = &mut stripped {
                for j in &mut w.jobs {
                    let r = j.swf.take().expect("kept");
                    prop_assert_eq!(j.no_requested_time, r.requested_time <= 0);
                    prop_assert_eq!(
                        j.bad_requested_procs,
                        r.requested_procs <= 0 && r.requested_procs != -1
                    );
                }
            }
            prop_assert_eq!(front_then_helper_keeping(text, size, front, false), stripped);
        }
    }

    /// A text of `n` good records, in submit order but for one pair.
    fn trace(n: i64) -> String {
        let mut text = String::from(HEADER);
        for i in 1..=n {
            let submit = if i == n / 2 { i * 10 + 25 } else { i * 10 };
            text.push_str(&record(i, submit, 1 + i % 50, 1 + i % 7));
            text.push('\n');
        }
        text
    }

    #[test]
    fn threads_read_as_one() {
        let text = trace(3_000);
        for threads in [2, 3, 4] {
            for size in [100, 1_000, 20_000] {
                let read = read_plain(text.as_bytes(), Some(size), threads, Path::new(PATH), true);
                assert_eq!(finish(read), whole(text.as_bytes()), "{threads} threads");
            }
        }
    }

    #[test]
    fn the_first_error_in_the_text_is_reported_whoever_reads_it() {
        let good = trace(2_000);
        let lines: Vec<&str> = good.lines().collect();
        for bad in [5, 700, 1_500, 2_001] {
            for also in [None, Some(bad + 300)] {
                let mut lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                lines[bad] = lines[bad].replace(" 100 ", " 1x ");
                if let Some(later) = also.filter(|&l| l < lines.len()) {
                    lines[later] = "1 2 3".into();
                }
                let text = lines.join("\n");
                let one = whole(text.as_bytes()).unwrap_err();
                assert!(
                    one.starts_with(&format!("t.swf:{}: field 9", bad + 1)),
                    "{one}"
                );
                for front in [0, 3, 50] {
                    assert_eq!(
                        front_then_helper(text.as_bytes(), 500, front),
                        Err(one.clone())
                    );
                }
                let read = read_plain(text.as_bytes(), Some(500), 3, Path::new(PATH), true);
                assert_eq!(finish(read), Err(one.clone()));
            }
        }
        // A job number used twice, once in each half.
        let text = format!("{good}{}\n", record(17, 30_000, 5, 1));
        let one = whole(text.as_bytes()).unwrap_err();
        assert_eq!(
            one,
            "t.swf:2003: field 1 (job number): job number 17 already used on line 19"
        );
        assert_eq!(front_then_helper(text.as_bytes(), 300, 2), Err(one.clone()));
    }

    #[test]
    fn a_producer_that_panics_closes_the_queue() {
        let queue = Queue::<Vec<u8>>::new();
        std::thread::scope(|scope| {
            let producer = scope.spawn(|| {
                let _closing = queue.closing();
                queue.push(Piece {
                    text: b"1\n".to_vec(),
                    last: false,
                });
                panic!("inflating failed");
            });
            // The piece handed over, then the end, not a wait forever.
            assert!(queue.front().is_some());
            assert!(queue.front().is_none());
            assert!(producer.join().is_err());
        });
        assert!(queue.failed().is_some());
    }

    #[test]
    fn plain_text_is_cut_after_newlines() {
        let text = b"a\nbb\nccc\ndddd";
        let pieces: Vec<(&[u8], bool)> = cut(text, 2).iter().map(|p| (p.text, p.last)).collect();
        assert_eq!(
            pieces,
            [
                (&b"a\nbb\n"[..], false),
                (&b"ccc\n"[..], false),
                (&b"dddd"[..], true)
            ]
        );
        assert_eq!(cut(text, 100).len(), 1);
        assert_eq!(piece_size(MIN_SHARED - 1, 2), None);
        assert_eq!(piece_size(MIN_SHARED, 1), None);
        assert!(piece_size(MIN_SHARED, 2).is_some_and(|s| s >= MIN_PIECE));
    }
}
