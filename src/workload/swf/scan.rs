//! Reading the 18 fields of one SWF line at memory speed.
//!
//! Fields are runs of non-whitespace between runs of whitespace whose
//! lengths vary from line to line, so a byte-at-a-time scanner mispredicts
//! a branch at the end of nearly every run. Here the common case (a line of
//! spaces and short integers) is read eight bytes at a time: one load finds
//! where the spaces end, one more where the field ends and whether it is a
//! plain integer, whose digits are then combined without a loop. Anything
//! else (long fields, fractions, tabs, bad input) takes the byte-at-a-time
//! path, which also finds exactly what to name in an error; both paths
//! accept exactly the same text and give exactly the same values. On a CPU
//! with AVX2 the word-at-a-time path tests 32 bytes and reads four fields
//! at a time ([`avx2`]): twice as fast again.

use super::SwfRecord;
use crate::workload::MAX_TIME;

#[cfg(target_arch = "x86_64")]
mod avx2;

/// What is wrong with a line; the caller adds the file and line.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum LineError {
    /// The line ends after `found` fields.
    Missing { found: usize },
    /// A 19th field, at `text[start..end]`.
    Extra { start: usize, end: usize },
    /// Field `field` (1-based), at `text[start..end]`, is unreadable.
    Bad {
        field: usize,
        start: usize,
        end: usize,
        why: Bad,
    },
}

/// Why a field is unreadable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Bad {
    NotInteger,
    NotNumber,
    /// A time above [`MAX_TIME`].
    TooLarge,
    /// A time below -[`MAX_TIME`].
    TooSmall,
    /// An integer beyond 64 bits, where any other fits.
    Beyond64,
    /// Used memory beyond 2^53, where a double no longer holds every whole
    /// number: written back, it would come out changed.
    Inexact,
}

/// The SWF fields holding times that goalc computes with, as bits by
/// 1-based field number: submit, run time, average CPU time, requested
/// time, think time. Each must lie within [`MAX_TIME`] of zero. The wait
/// (field 3) is only carried through: in a schedule goalc wrote, jobs
/// queued behind ones of nearly [`MAX_TIME`] wait longer than that, and
/// the schedule must read back.
const TIME_FIELDS: u32 = 1 << 2 | 1 << 4 | 1 << 6 | 1 << 9 | 1 << 18;

/// The fields in seconds, the wait too, which the SWF allows to be written
/// with fractions ("it is permissible to use floating point values for time
/// fields"): read to the nearest second.
const SECONDS_FIELDS: u32 = TIME_FIELDS | 1 << 3;

/// Reads the record on `text[start..end]`, a line without its leading and
/// trailing whitespace. Bytes after `end` may be read but never count.
pub(super) fn record(text: &[u8], start: usize, end: usize) -> Result<SwfRecord, LineError> {
    let mut fields = Fields::default();
    if !words(text, start, end, &mut fields) {
        // Whatever the word-at-a-time path left, and the exact error.
        bytes(text, start, end, &mut fields)?;
    }
    Ok(fields.record())
}

/// The values of one line's fields.
#[derive(Default)]
struct Fields {
    /// Two more than the fields, for reading four at a time.
    ints: [i64; 20],
    floats: [f64; 2],
}

impl Fields {
    fn record(&self) -> SwfRecord {
        let ints = &self.ints;
        SwfRecord {
            job_number: ints[0],
            submit: ints[1],
            wait: ints[2],
            run_time: ints[3],
            allocated_procs: ints[4],
            avg_cpu_time: self.floats[0],
            used_memory: self.floats[1],
            requested_procs: ints[7],
            requested_time: ints[8],
            requested_memory: ints[9],
            status: ints[10],
            user: ints[11],
            group: ints[12],
            executable: ints[13],
            queue: ints[14],
            partition: ints[15],
            preceding_job: ints[16],
            think_time: ints[17],
        }
    }
}

/// The byte-at-a-time path: every field of the line, with the exact error.
fn bytes(text: &[u8], start: usize, end: usize, fields: &mut Fields) -> Result<(), LineError> {
    let mut pos = start;
    for field in 1..=18 {
        pos = skip_whitespace(text, pos, end);
        if pos == end {
            return Err(LineError::Missing { found: field - 1 });
        }
        pos = slow_field(text, pos, end, field, fields)?;
    }
    pos = skip_whitespace(text, pos, end);
    if pos < end {
        return Err(LineError::Extra {
            start: pos,
            end: token_end(text, pos, end),
        });
    }
    Ok(())
}

/// The word-at-a-time path, for a line of at most 127 bytes, without
/// control bytes (so spaces are its only whitespace), of 18 fields: false,
/// having read nothing, for any other line. Fields it cannot read this way
/// go to [`slow_field`] one by one; false also when one of those is bad,
/// for the byte-at-a-time path to report.
fn words(text: &[u8], start: usize, end: usize, fields: &mut Fields) -> bool {
    let len = end - start;
    if len >= 128 {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if avx2::usable(text, start) {
        // SAFETY: `usable` found AVX2 on this CPU.
        return unsafe { avx2::words(text, start, end, fields) };
    }
    if text[start..end].iter().fold(false, |c, &b| c | (b < b' ')) {
        return false;
    }
    // One bit per byte of the line, set for spaces, in two words; the
    // eight-byte pieces are independent, so this pipelines, unlike a walk
    // from field to field.
    let mut spaces = [0u64; 2];
    for at in (0..len).step_by(8) {
        let m = eq_mask(load8(text, start + at), b' ') >> 7;
        // Gathers bit 8k of `m` (byte k) into bit 56 + k: the constant's
        // 1-bits at 7 (8 - k) make every product land on its own bit.
        let bits = m.wrapping_mul(0x0102_0408_1020_4080) >> 56;
        spaces[at / 64] |= bits << (at % 64);
    }
    let Some(bounds) = Bounds::of(spaces, len) else {
        return false;
    };
    // All 18 fields first, without a branch on their contents; the few
    // that are not short integers are read again below.
    let mut read = Read::default();
    for i in 0..18 {
        let w = load8(text, start + bounds.first[i] as usize);
        let (v, neg, ok) = short_int(w, bounds.len(i));
        fields.ints[i] = v;
        read.negative |= u32::from(neg) << i;
        read.long |= u32::from(!ok) << i;
    }
    read.finish(text, start, end, &bounds, fields)
}

/// Where a line's 18 fields lie: offsets from the line's start of each
/// field's first and last byte. Two more entries, both 0, let fields be
/// read four at a time.
struct Bounds {
    first: [u32; 20],
    last: [u32; 20],
}

impl Bounds {
    /// From the line's spaces, one bit per byte (its first byte lowest),
    /// for a line of `len` bytes (below 128): `None` unless it has exactly
    /// 18 fields.
    #[inline]
    fn of(mut spaces: [u64; 2], len: usize) -> Option<Bounds> {
        // Past the line's end counts as spaces.
        if len < 64 {
            spaces[0] |= u64::MAX << len;
            spaces[1] = u64::MAX;
        } else {
            spaces[1] |= u64::MAX << (len - 64);
        }
        let [lo, hi] = spaces;
        // Where fields start (a space, or the line's start, before) and end
        // (a space after: byte 127 always is one).
        let starts = [!lo & ((lo << 1) | 1), !hi & ((hi << 1) | (lo >> 63))];
        let ends = [!lo & ((lo >> 1) | (hi << 63)), !hi & (hi >> 1)];
        let mut b = Bounds {
            first: [0; 20],
            last: [0; 20],
        };
        (positions(starts, &mut b.first) && positions(ends, &mut b.last)).then_some(b)
    }

    /// Bytes of field `i` (0-based).
    #[inline]
    fn len(&self, i: usize) -> u32 {
        self.last[i] - self.first[i] + 1
    }
}

/// What reading every field as a short integer found, a bit per field
/// (field 1 lowest).
#[derive(Default)]
struct Read {
    negative: u32,
    /// Not a short integer: read again byte by byte.
    long: u32,
}

impl Read {
    /// Makes the two decimal fields of the short integers read, and reads
    /// the fields that were not short integers again byte by byte: false
    /// when one is bad.
    #[inline]
    fn finish(
        mut self,
        text: &[u8],
        start: usize,
        end: usize,
        bounds: &Bounds,
        fields: &mut Fields,
    ) -> bool {
        for i in 5..7 {
            // At most eight bytes of digits: exact as f64.
            fields.floats[i - 5] =
                signed_float(fields.ints[i].unsigned_abs(), self.negative & (1 << i) != 0);
        }
        // A short integer is far inside the time range; the others are
        // checked there.
        while self.long != 0 {
            let i = self.long.trailing_zeros() as usize;
            self.long &= self.long - 1;
            if slow_field(text, start + bounds.first[i] as usize, end, i + 1, fields).is_err() {
                return false;
            }
        }
        true
    }
}

/// The positions of the set bits of `bits` (a 128-bit set, low word first),
/// lowest first, into the first 18 of `out`: false unless there are
/// exactly 18.
fn positions(bits: [u64; 2], out: &mut [u32; 20]) -> bool {
    let mut n = 0;
    for (mut word, base) in bits.into_iter().zip([0, 64]) {
        while word != 0 {
            if n == 18 {
                return false;
            }
            out[n] = base + word.trailing_zeros();
            word &= word - 1;
            n += 1;
        }
    }
    n == 18
}

/// Reads field `field`, which starts at `pos`, byte by byte, into `ints`
/// or `floats`; returns where it ends.
fn slow_field(
    text: &[u8],
    pos: usize,
    end: usize,
    field: usize,
    fields: &mut Fields,
) -> Result<usize, LineError> {
    let stop = token_end(text, pos, end);
    let tok = &text[pos..stop];
    let bad = |why| LineError::Bad {
        field,
        start: pos,
        end: stop,
        why,
    };
    let (negative, digits) = match tok[0] {
        b'-' => (true, &tok[1..]),
        b'+' => (false, &tok[1..]),
        _ => (false, tok),
    };
    let in_range = if field == 6 || field == 7 {
        let v = match decimal(digits) {
            Some(v) => {
                if negative {
                    -v
                } else {
                    v
                }
            }
            None => std::str::from_utf8(tok)
                .ok()
                .and_then(|s| s.parse::<f64>().ok())
                .filter(|v| v.is_finite())
                .ok_or(bad(Bad::NotNumber))?,
        };
        fields.floats[field - 6] = v;
        if field == 7 && v.abs() > MAX_TIME as f64 {
            return Err(bad(Bad::Inexact));
        }
        v.abs() <= MAX_TIME as f64
    } else {
        let is_time = TIME_FIELDS & (1 << field) != 0;
        let beyond = || {
            bad(match (is_time, negative) {
                (true, true) => Bad::TooSmall,
                (true, false) => Bad::TooLarge,
                (false, _) => Bad::Beyond64,
            })
        };
        let magnitude = match integer(digits) {
            Integer::Value(m) => m,
            Integer::TooLong => return Err(beyond()),
            Integer::NotOne if SECONDS_FIELDS & (1 << field) != 0 => {
                return seconds(tok, is_time)
                    .map(|t| {
                        fields.ints[field - 1] = t;
                        stop
                    })
                    .map_err(bad);
            }
            Integer::NotOne => return Err(bad(Bad::NotInteger)),
        };
        // As low as `i64::MIN`, whose magnitude is one more than the most.
        let most = if negative { 1 << 63 } else { i64::MAX as u64 };
        if magnitude > most {
            return Err(beyond());
        }
        let value = magnitude as i64;
        fields.ints[field - 1] = if negative {
            value.wrapping_neg()
        } else {
            value
        };
        magnitude <= MAX_TIME as u64
    };
    if !in_range && TIME_FIELDS & (1 << field) != 0 {
        return Err(bad(if negative {
            Bad::TooSmall
        } else {
            Bad::TooLarge
        }));
    }
    Ok(stop)
}

/// A time field written with a fraction or an exponent (the SWF allows
/// them), to the nearest whole second, as logs in whole seconds round
/// them. `limited`: within [`MAX_TIME`] of zero, else within 64 bits.
fn seconds(tok: &[u8], limited: bool) -> Result<i64, Bad> {
    let v = std::str::from_utf8(tok)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|v| v.is_finite())
        .ok_or(Bad::NotNumber)?
        .round();
    // 2^63 itself is past `i64::MAX`.
    let most = if limited {
        MAX_TIME as f64
    } else {
        9.223_372_036_854_775e18
    };
    match v {
        v if v > most => Err(if limited {
            Bad::TooLarge
        } else {
            Bad::Beyond64
        }),
        v if v < -most => Err(if limited {
            Bad::TooSmall
        } else {
            Bad::Beyond64
        }),
        v => Ok(v as i64),
    }
}

/// What unsigned decimal digits read as.
enum Integer {
    Value(u64),
    /// Digits only, more than `u64::MAX`.
    TooLong,
    /// No digits, or something not a digit.
    NotOne,
}

fn integer(digits: &[u8]) -> Integer {
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Integer::NotOne;
    }
    digits
        .iter()
        .try_fold(0u64, |v, &b| {
            v.checked_mul(10)?.checked_add(u64::from(b - b'0'))
        })
        .map_or(Integer::TooLong, Integer::Value)
}

/// Exact powers of ten as `f64` (10^22 is the last one exact in 53 bits).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `digits` of the form `123` or `12.50`, when its value is certain to be
/// exactly what `str::parse::<f64>` gives: all digits together below 2^53
/// and at most 22 after the point, so that one division of two exact
/// doubles rounds the true quotient once, as the full parser does. `None`
/// for any other form; the caller then asks the full parser.
fn decimal(digits: &[u8]) -> Option<f64> {
    let (whole, frac) = match digits.iter().position(|&b| b == b'.') {
        Some(dot) => (&digits[..dot], &digits[dot + 1..]),
        None => (digits, &digits[..0]),
    };
    if whole.is_empty() || (frac.is_empty() && whole.len() < digits.len()) {
        return None;
    }
    if whole.len() + frac.len() > 15 {
        return None;
    }
    let mut m: u64 = 0;
    for &b in whole.iter().chain(frac) {
        let d = b.wrapping_sub(b'0');
        if d >= 10 {
            return None;
        }
        m = m * 10 + u64::from(d);
    }
    Some(m as f64 / POW10[frac.len()])
}

/// `magnitude` (below 2^53, so exact) with its sign, keeping `-0` as -0.0
/// as `str::parse::<f64>` does.
fn signed_float(magnitude: u64, negative: bool) -> f64 {
    let f = magnitude as f64;
    if negative {
        -f
    } else {
        f
    }
}

fn skip_whitespace(text: &[u8], mut pos: usize, end: usize) -> usize {
    while pos < end && text[pos].is_ascii_whitespace() {
        pos += 1;
    }
    pos
}

fn token_end(text: &[u8], mut pos: usize, end: usize) -> usize {
    while pos < end && !text[pos].is_ascii_whitespace() {
        pos += 1;
    }
    pos
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// Eight bytes of `text` from `pos` as a little-endian word (the byte at
/// `pos` lowest), zero past the end of `text`.
#[inline]
fn load8(text: &[u8], pos: usize) -> u64 {
    match text.get(pos..pos + 8) {
        Some(bytes) => {
            let mut word = [0u8; 8];
            word.copy_from_slice(bytes);
            u64::from_le_bytes(word)
        }
        None => {
            let rest = text.get(pos..).unwrap_or_default();
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            u64::from_le_bytes(word)
        }
    }
}

/// The high bit of each byte of `w` that equals `b`, exactly (no carries
/// cross bytes: the low seven bits are added apart from the high one).
#[inline]
fn eq_mask(w: u64, b: u8) -> u64 {
    let x = w ^ (ONES * u64::from(b));
    !(((x & LOW7) + LOW7) | x) & HIGH
}

/// The field in the low `len` bytes of `w` (the bytes of the line from the
/// field's first), read as an optional sign and digits, at most eight bytes
/// in all: (value, negative, whether it was such a field). Branch-free, so
/// that fields of varying lengths cost no mispredictions.
#[inline]
fn short_int(w: u64, len: u32) -> (i64, bool, bool) {
    let fits = len <= 8;
    let len = len.min(8);
    let first = w as u8;
    let negative = first == b'-';
    let sign = u32::from(negative | (first == b'+'));
    // The bytes of the digits.
    let digits = (u64::MAX << (sign * 8)) & (u64::MAX >> ((8 - len) * 8));
    // A digit XOR '0' is 0..=9: no bit above the low four, and no carry
    // out of them when 6 is added. A carry out of any other byte only
    // reaches later bytes, which are then digits already seen as bad, or
    // past the field.
    let x = w ^ (ONES * u64::from(b'0'));
    let bad = (x & 0xf0f0_f0f0_f0f0_f0f0) | (x.wrapping_add(ONES * 6) & 0x1010_1010_1010_1010);
    let ok = fits & (len > sign) & (bad & digits == 0);
    // The digits only, moved up so that the last is in the top byte and
    // leading zeros fill the bytes below the first.
    let mut v = (x & digits) << ((8 - len) * 8);
    // Pairs of digits, then fours, then all eight: each step adds the more
    // significant half (the lower bytes), scaled, onto the other and shifts
    // the sum down into the lower half.
    v = (v.wrapping_mul(1 + (10 << 8)) >> 8) & 0x00ff_00ff_00ff_00ff;
    v = (v.wrapping_mul(1 + (100 << 16)) >> 16) & 0x0000_ffff_0000_ffff;
    v = v.wrapping_mul(1 + (10_000 << 32)) >> 32;
    let magnitude = v as i64;
    (if negative { -magnitude } else { magnitude }, negative, ok)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    /// Both paths on one line: the word-at-a-time one as the reader uses
    /// it, and the byte-at-a-time one alone. The first is tried twice: on
    /// the line alone, and within more text (lines before and after it),
    /// where it reads whole vectors if the CPU can; both must give the
    /// same.
    fn both(line: &str) -> (Result<SwfRecord, LineError>, Result<SwfRecord, LineError>) {
        let text = line.as_bytes();
        let mut fields = Fields::default();
        let slow = bytes(text, 0, text.len(), &mut fields).map(|()| fields.record());
        let alone = record(text, 0, text.len());
        let within = format!("9 9\n{line}\n{}", "7".repeat(200));
        // Errors name places in the whole text: four bytes later there.
        let within = record(within.as_bytes(), 4, 4 + text.len()).map_err(|e| match e {
            LineError::Extra { start, end } => LineError::Extra {
                start: start - 4,
                end: end - 4,
            },
            LineError::Bad {
                field,
                start,
                end,
                why,
            } => LineError::Bad {
                field,
                start: start - 4,
                end: end - 4,
                why,
            },
            missing => missing,
        });
        let bits = |r: &Result<SwfRecord, LineError>| {
            r.as_ref()
                .ok()
                .map(|r| (r.avg_cpu_time.to_bits(), r.used_memory.to_bits()))
        };
        assert_eq!(alone, within, "the line alone and within more text");
        assert_eq!(
            bits(&alone),
            bits(&within),
            "the line alone and within more text"
        );
        (alone, slow)
    }

    #[test]
    fn short_integers_read_alike_on_both_paths() {
        let cases = [
            "0", "7", "-1", "+5", "-0", "1234567", "-123456", "12345678", "007", "99999999",
        ];
        for tok in cases {
            let line = format!("{tok} 2 3 4 5 {tok} {tok} 8 9 10 11 12 13 14 15 16 17 {tok}");
            let (fast, slow) = both(&line);
            let (fast, slow) = (fast.unwrap(), slow.unwrap());
            assert_eq!(fast, slow, "{tok}");
            assert_eq!(
                fast.avg_cpu_time.to_bits(),
                tok.parse::<f64>().unwrap().to_bits(),
                "{tok}"
            );
            assert_eq!(fast.job_number, tok.parse::<i64>().unwrap(), "{tok}");
        }
    }

    #[test]
    fn spacing_does_not_matter() {
        let plain = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18";
        let spread =
            "1        2 3  4   5    6     7      8       9 10 11 12 13 14 15 16 17         18";
        let (a, _) = both(plain);
        let (b, c) = both(spread);
        assert_eq!(a, b);
        assert_eq!(b, c);
    }

    #[test]
    fn other_fields_read_alike_on_both_paths() {
        for tok in [
            "1x",
            "-",
            "+",
            "--1",
            "1-",
            "x",
            "1.5",
            "12345678901234",
            "-0.00",
        ] {
            let line = format!("1 2 3 4 5 {tok} 7 8 9 10 11 12 13 14 15 16 17 18");
            let (fast, slow) = both(&line);
            assert_eq!(fast, slow, "{tok}");
            let line = format!("1 2 3 {tok} 5 6 7 8 9 10 11 12 13 14 15 16 17 18");
            let (fast, slow) = both(&line);
            assert_eq!(fast, slow, "{tok}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(2000))]
        /// Any line of plausible and implausible fields: the word-at-a-time
        /// path gives what the byte-at-a-time one gives, values or error.
        /// Mostly 18 good fields apart by spaces, so that the first path
        /// is taken.
        #[test]
        fn both_paths_agree_on_any_line(
            tokens in proptest::collection::vec(
                proptest::prop_oneof![
                    8 => (-99_999_999i64..=99_999_999).prop_map(|v| v.to_string()),
                    2 => proptest::num::i64::ANY.prop_map(|v| v.to_string()),
                    4 => (0u32..100_000, 0u32..1000).prop_map(|(a, b)| format!("{a}.{b:02}")),
                    1 => "[-+0-9.xe]{1,12}",
                ],
                17..20,
            ),
            gaps in proptest::collection::vec(
                proptest::prop_oneof![30 => " {1,9}", 1 => "[ \t]{1,3}"],
                20,
            ),
        ) {
            let mut line = String::new();
            for (i, t) in tokens.iter().enumerate() {
                if i > 0 {
                    line.push_str(&gaps[i]);
                }
                line.push_str(t);
            }
            let (fast, slow) = both(&line);
            let bits = |r: &Result<SwfRecord, LineError>| {
                r.as_ref().ok().map(|r| (r.avg_cpu_time.to_bits(), r.used_memory.to_bits()))
            };
            proptest::prop_assert_eq!(bits(&fast), bits(&slow));
            proptest::prop_assert_eq!(fast, slow);
        }
    }

    #[test]
    fn decimals_are_exactly_what_the_full_parser_gives() {
        // The fast path takes these, and must give the full parser's bits.
        for s in ["0.03", "142.00", "1.1", "0.1", "123456789.012345", "5", "0"] {
            let expected = s.parse::<f64>().unwrap();
            assert_eq!(
                decimal(s.as_bytes()).map(f64::to_bits),
                Some(expected.to_bits()),
                "{s}"
            );
        }
        // Too many digits to be certain: left to the full parser.
        assert_eq!(decimal(b"9007199254.740993"), None);
        assert_eq!(decimal(b"0.0000000000000000000001"), None);
        assert_eq!(decimal(b"1."), None);
        assert_eq!(decimal(b".5"), None);
        assert_eq!(decimal(b"1e5"), None);
        assert_eq!(decimal(b"1234567890123456"), None);
    }
}
