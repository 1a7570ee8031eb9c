//! The word-sliced kernel: 4 blocks, register `i` holding state word `i` of all four (lane
//! `b` = block `counter + b`), and on x86_64 a fifth block in general-purpose registers.

#[cfg(target_arch = "x86")]
use core::arch::x86::{
    __m128i, _mm_add_epi32, _mm_set_epi32, _mm_set1_epi32, _mm_setzero_si128, _mm_unpackhi_epi32,
    _mm_unpackhi_epi64, _mm_unpacklo_epi32, _mm_unpacklo_epi64, _mm_xor_si128,
};
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::{
    __m128i, _mm_add_epi32, _mm_set_epi32, _mm_set1_epi32, _mm_setzero_si128, _mm_unpackhi_epi32,
    _mm_unpackhi_epi64, _mm_unpacklo_epi32, _mm_unpacklo_epi64, _mm_xor_si128,
};

use chacha_core::{Ietf, State};

use super::{CallSite, Rows, rotl, rotl16};
use crate::{head::finish_first_double_round, quarter_round};

/// Two independent quarter rounds (RFC 8439 §2.1) on word-sliced words, step by step. A
/// macro: as a function it stayed out of line, the 16 words in memory.
macro_rules! quarter_round_pair {
    ($x:ident, [$a:literal, $b:literal, $c:literal, $d:literal], [$e:literal, $f:literal, $g:literal, $h:literal]) => {
        $x[$a] = _mm_add_epi32($x[$a], $x[$b]);
        $x[$e] = _mm_add_epi32($x[$e], $x[$f]);
        $x[$d] = rotl16(_mm_xor_si128($x[$d], $x[$a]));
        $x[$h] = rotl16(_mm_xor_si128($x[$h], $x[$e]));
        $x[$c] = _mm_add_epi32($x[$c], $x[$d]);
        $x[$g] = _mm_add_epi32($x[$g], $x[$h]);
        $x[$b] = rotl::<12, 20>(_mm_xor_si128($x[$b], $x[$c]));
        $x[$f] = rotl::<12, 20>(_mm_xor_si128($x[$f], $x[$g]));
        $x[$a] = _mm_add_epi32($x[$a], $x[$b]);
        $x[$e] = _mm_add_epi32($x[$e], $x[$f]);
        $x[$d] = rotl::<8, 24>(_mm_xor_si128($x[$d], $x[$a]));
        $x[$h] = rotl::<8, 24>(_mm_xor_si128($x[$h], $x[$e]));
        $x[$c] = _mm_add_epi32($x[$c], $x[$d]);
        $x[$g] = _mm_add_epi32($x[$g], $x[$h]);
        $x[$b] = rotl::<7, 25>(_mm_xor_si128($x[$b], $x[$c]));
        $x[$f] = rotl::<7, 25>(_mm_xor_si128($x[$f], $x[$g]));
    };
}

/// One step of quarter rounds side by side: `p += q; r ^= p; r = rot(r)` for each `[p, q, r]`.
macro_rules! sliced_step {
    ($x:ident, $rot:expr; $([$p:literal, $q:literal, $r:literal]),+) => {
        $( $x[$p] = _mm_add_epi32($x[$p], $x[$q]); $x[$r] = $rot(_mm_xor_si128($x[$r], $x[$p])); )+
    };
}

/// Whether [`sliced4`] computes a fifth block in general-purpose registers: on x86_64 (15
/// of them hold its 16 words with a few spills), not on x86 (7 cannot; DECISIONS.md, § sse2:
/// the fifth block).
pub(super) const SCALAR_BLOCK: bool = cfg!(target_arch = "x86_64");

/// Blocks per step of the widest kernel: [`sliced4`]'s 4, and the fifth with [`SCALAR_BLOCK`].
pub(super) const STEP_BLOCKS: usize = if SCALAR_BLOCK { 5 } else { 4 };

/// The keystream of blocks `counter .. counter + 4` in rows (`[block][row]`) and, if
/// `SCALAR`, of block `counter + 4` from general-purpose registers, as its 16 words (else
/// zeros): faster at the median on the CPUs measured (DECISIONS.md, § sse2: the fifth
/// block). `HEAD`: the first double round from `head`.
///
/// `INSTANCE_FOR`: the call site this instance is for ([`CallSite`]).
#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn sliced4<const SCALAR: bool, const INSTANCE_FOR: CallSite, const HEAD: bool>(
    state: &State<Ietf>,
    mut double_rounds: usize,
    counter: u64,
    head: &[u32; 16],
) -> ([Rows; 4], [u32; 16]) {
    let w = state.words();
    let mut input = [_mm_setzero_si128(); 16];
    for (v, &word) in input.iter_mut().zip(w) {
        *v = _mm_set1_epi32(word as i32);
    }
    let lane = |b: u64| counter.wrapping_add(b);
    input[12] = _mm_set_epi32(lane(3) as i32, lane(2) as i32, lane(1) as i32, lane(0) as i32);
    let scalar_input = if SCALAR { state.words_at(lane(4)) } else { [0; 16] };
    let mut x = input;
    let mut y = scalar_input;
    if HEAD {
        // The first double round from the head: the counter quarter round of the column
        // round and what is left of the diagonal round.
        for i in [0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15] {
            x[i] = _mm_set1_epi32(head[i] as i32);
        }
        x[12] = rotl16(_mm_xor_si128(x[12], x[0]));
        sliced_step!(x, rotl::<12, 20>; [8, 12, 4]);
        sliced_step!(x, rotl::<8, 24>; [0, 4, 12]);
        sliced_step!(x, rotl::<7, 25>; [8, 12, 4]);
        x[12] = rotl16(_mm_xor_si128(x[12], x[1]));
        sliced_step!(x, rotl16; [0, 5, 15], [3, 4, 14]);
        sliced_step!(x, rotl::<12, 20>; [10, 15, 5], [11, 12, 6], [8, 13, 7], [9, 14, 4]);
        sliced_step!(x, rotl::<8, 24>; [0, 5, 15], [1, 6, 12], [2, 7, 13], [3, 4, 14]);
        sliced_step!(x, rotl::<7, 25>; [10, 15, 5], [11, 12, 6], [8, 13, 7], [9, 14, 4]);
        if SCALAR {
            y = finish_first_double_round(head, y[12]);
        }
        double_rounds -= 1;
    }
    repeat_rounds!(double_rounds, {
        // Two quarter rounds at a time (10 of the 16 xmm registers), the other pair's words
        // waiting; the scalar block's quarter rounds spread between them.
        quarter_round_pair!(x, [0, 4, 8, 12], [1, 5, 9, 13]);
        if SCALAR {
            quarter_round(&mut y, 0, 4, 8, 12);
            quarter_round(&mut y, 1, 5, 9, 13);
        }
        quarter_round_pair!(x, [2, 6, 10, 14], [3, 7, 11, 15]);
        if SCALAR {
            quarter_round(&mut y, 2, 6, 10, 14);
            quarter_round(&mut y, 3, 7, 11, 15);
        }
        quarter_round_pair!(x, [0, 5, 10, 15], [1, 6, 11, 12]);
        if SCALAR {
            quarter_round(&mut y, 0, 5, 10, 15);
            quarter_round(&mut y, 1, 6, 11, 12);
        }
        quarter_round_pair!(x, [2, 7, 8, 13], [3, 4, 9, 14]);
        if SCALAR {
            quarter_round(&mut y, 2, 7, 8, 13);
            quarter_round(&mut y, 3, 4, 9, 14);
        }
    });
    for (v, i) in x.iter_mut().zip(input) {
        *v = _mm_add_epi32(*v, i);
    }
    let mut fifth = [0u32; 16];
    if SCALAR {
        for ((f, y), i) in fifth.iter_mut().zip(y).zip(scalar_input) {
            *f = y.wrapping_add(i);
        }
    }
    (transpose(&x), fifth)
}

/// Word-sliced words to rows: `out[b][r]` = row `r` (words `4r .. 4r + 4`) of block `b`.
#[inline]
#[target_feature(enable = "sse2")]
fn transpose(x: &[__m128i; 16]) -> [Rows; 4] {
    let mut out = [[_mm_setzero_si128(); 4]; 4];
    for r in 0..4 {
        let [w0, w1, w2, w3] = [x[4 * r], x[4 * r + 1], x[4 * r + 2], x[4 * r + 3]];
        // A 4×4 transpose of 32-bit lanes (wN.bK = word 4r+N of block K):
        //
        //   w0 = [w0.b0 w0.b1 w0.b2 w0.b3]      unpacklo32(w0, w1) = [w0.b0 w1.b0 w0.b1 w1.b1] = t0
        //   w1 = [w1.b0 w1.b1 w1.b2 w1.b3]      unpacklo32(w2, w3) = [w2.b0 w3.b0 w2.b1 w3.b1] = t1
        //   w2 = [w2.b0 w2.b1 w2.b2 w2.b3]      unpackhi32(w0, w1) = [w0.b2 w1.b2 w0.b3 w1.b3] = t2
        //   w3 = [w3.b0 w3.b1 w3.b2 w3.b3]      unpackhi32(w2, w3) = [w2.b2 w3.b2 w2.b3 w3.b3] = t3
        //
        //   unpacklo64(t0, t1) = [w0.b0 w1.b0 w2.b0 w3.b0]   row r of block 0
        //   unpackhi64(t0, t1) = [w0.b1 w1.b1 w2.b1 w3.b1]   row r of block 1
        //   unpacklo64(t2, t3) = [w0.b2 w1.b2 w2.b2 w3.b2]   row r of block 2
        //   unpackhi64(t2, t3) = [w0.b3 w1.b3 w2.b3 w3.b3]   row r of block 3
        let t0 = _mm_unpacklo_epi32(w0, w1);
        let t1 = _mm_unpacklo_epi32(w2, w3);
        let t2 = _mm_unpackhi_epi32(w0, w1);
        let t3 = _mm_unpackhi_epi32(w2, w3);
        out[0][r] = _mm_unpacklo_epi64(t0, t1);
        out[1][r] = _mm_unpackhi_epi64(t0, t1);
        out[2][r] = _mm_unpacklo_epi64(t2, t3);
        out[3][r] = _mm_unpackhi_epi64(t2, t3);
    }
    out
}
