//! The word-at-a-time path on CPUs with AVX2: the line's spaces and control
//! bytes found 32 bytes at a time, and its fields read four at a time, one
//! 64-bit lane each, by the same steps as [`super::short_int`] (the digits'
//! pairs, fours and eights combined by multiply-adds instead of scalar
//! multiplications). It accepts exactly what the scalar path accepts and
//! gives exactly its values.

use super::{Bounds, Fields, Read, ONES};
use std::arch::x86_64::*;

/// Bytes readable from a line's start that this path needs: the 128 it
/// tests for spaces, and eight from the start of a field there.
const READ: usize = 136;

/// Whether the line at `start` can take this path: the CPU has AVX2, and
/// the text (the line and what follows it) is long enough to be read in
/// whole vectors and words.
#[inline]
pub(super) fn usable(text: &[u8], start: usize) -> bool {
    text.len() >= start + READ && std::is_x86_feature_detected!("avx2")
}

/// [`super::words`] for a line `text[start..end]` shorter than 128 bytes
/// with at least [`READ`] bytes of text from its start.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn words(text: &[u8], start: usize, end: usize, fields: &mut Fields) -> bool {
    let len = end - start;
    let line = &text[start..start + READ];
    let (mut spaces, mut control) = ([0u64; 2], [0u64; 2]);
    for (k, chunk) in line[..128].chunks_exact(32).enumerate() {
        // SAFETY: the chunk holds 32 bytes; the load is unaligned.
        let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
        let space = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b' ' as i8));
        // Below b' ' as unsigned bytes: unchanged by a minimum with 0x1f.
        let low = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v);
        let shift = (k % 2) * 32;
        spaces[k / 2] |= u64::from(_mm256_movemask_epi8(space) as u32) << shift;
        control[k / 2] |= u64::from(_mm256_movemask_epi8(low) as u32) << shift;
    }
    // Only the line's own bytes count: control bytes after it are not its,
    // and past its end `Bounds::of` counts every byte as a space.
    let inside = |word: usize| match len.saturating_sub(64 * word) {
        0 => 0,
        n if n >= 64 => u64::MAX,
        n => (1u64 << n) - 1,
    };
    if control[0] & inside(0) != 0 || control[1] & inside(1) != 0 {
        return false;
    }
    let Some(bounds) = Bounds::of(spaces, len) else {
        return false;
    };
    let mut read = Read::default();
    for group in 0..5 {
        let at = 4 * group;
        let (v, negative, long) = short_ints(line, &bounds, at);
        let four = &mut fields.ints[at..at + 4];
        // SAFETY: `four` holds four i64, 32 bytes; the store is unaligned.
        unsafe { _mm256_storeu_si256(four.as_mut_ptr().cast(), v) };
        read.negative |= negative << at;
        read.long |= long << at;
    }
    // The two entries past the 18 fields are not fields.
    read.negative &= (1 << 18) - 1;
    read.long &= (1 << 18) - 1;
    read.finish(text, start, end, &bounds, fields)
}

/// Fields `at..at + 4` of `line` read as [`super::short_int`] reads each:
/// their values, and bit masks (field `at` lowest) of the negative ones
/// and of those that are not short integers.
#[inline]
#[target_feature(enable = "avx2")]
fn short_ints(line: &[u8], bounds: &Bounds, at: usize) -> (__m256i, u32, u32) {
    let word = |i: usize| {
        let from = bounds.first[at + i] as usize;
        let bytes: [u8; 8] = line[from..from + 8].try_into().expect("eight bytes");
        i64::from_le_bytes(bytes)
    };
    let len = |i: usize| i64::from(bounds.len(at + i));
    let w = _mm256_set_epi64x(word(3), word(2), word(1), word(0));
    let len = _mm256_set_epi64x(len(3), len(2), len(1), len(0));
    let eight = _mm256_set1_epi64x(8);
    let too_long = _mm256_cmpgt_epi64(len, eight);
    let len = _mm256_blendv_epi8(len, eight, too_long);
    let first = _mm256_and_si256(w, _mm256_set1_epi64x(0xff));
    let negative = _mm256_cmpeq_epi64(first, _mm256_set1_epi64x(i64::from(b'-')));
    let plus = _mm256_cmpeq_epi64(first, _mm256_set1_epi64x(i64::from(b'+')));
    let sign = _mm256_srli_epi64::<63>(_mm256_or_si256(negative, plus));
    let all = _mm256_set1_epi64x(-1);
    // Bits of the bytes before the last `len`, which the digits fill up to.
    let pad = _mm256_slli_epi64::<3>(_mm256_sub_epi64(eight, len));
    let digits = _mm256_and_si256(
        _mm256_sllv_epi64(all, _mm256_slli_epi64::<3>(sign)),
        _mm256_srlv_epi64(all, pad),
    );
    let x = _mm256_xor_si256(w, _mm256_set1_epi64x((ONES * u64::from(b'0')) as i64));
    let bad = _mm256_or_si256(
        _mm256_and_si256(x, _mm256_set1_epi64x(0xf0f0_f0f0_f0f0_f0f0_u64 as i64)),
        _mm256_and_si256(
            _mm256_add_epi64(x, _mm256_set1_epi64x((ONES * 6) as i64)),
            _mm256_set1_epi64x(0x1010_1010_1010_1010),
        ),
    );
    let clean = _mm256_cmpeq_epi64(_mm256_and_si256(bad, digits), _mm256_setzero_si256());
    let some = _mm256_cmpgt_epi64(len, sign);
    let ok = _mm256_andnot_si256(too_long, _mm256_and_si256(clean, some));
    // The digits moved up so that the last is in the top byte: byte k is
    // then the digit worth 10^(7 - k), leading zeros below the first.
    let v = _mm256_sllv_epi64(_mm256_and_si256(x, digits), pad);
    let pairs = _mm256_maddubs_epi16(v, _mm256_set1_epi16(10 | (1 << 8)));
    let fours = _mm256_madd_epi16(pairs, _mm256_set1_epi32(100 | (1 << 16)));
    let eights = _mm256_add_epi64(
        _mm256_mul_epu32(fours, _mm256_set1_epi64x(10_000)),
        _mm256_srli_epi64::<32>(fours),
    );
    // Two's complement negation where negative: flip and add one.
    let value = _mm256_sub_epi64(_mm256_xor_si256(eights, negative), negative);
    let mask = |m: __m256i| _mm256_movemask_pd(_mm256_castsi256_pd(m)) as u32;
    let not_ok = _mm256_xor_si256(ok, all);
    (value, mask(negative), mask(not_ok))
}
