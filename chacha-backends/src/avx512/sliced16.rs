//! The word-sliced kernel: vector `i` holds state word `i` of 16 blocks (zmm), lane `j` =
//! block `counter + j`. No shuffles in the rounds; one transpose at the end.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use chacha_core::{BLOCK_LEN, Block, Ietf, State};

use crate::cursor::Cursor;
use crate::head::head;

// Macros, not functions: `#[inline]` is only a hint (and `#[inline(always)]` is not
// allowed on `#[target_feature]` functions), and an out-of-line double round passes the
// sixteen vectors through memory. Literal indices, so every word stays in a register.
macro_rules! sliced_double_round {
    ($x:ident, $add:ident, $xor:ident, $rol:ident) => {
        sliced_round!($x, $add, $xor, $rol; [0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]);
        sliced_round!($x, $add, $xor, $rol; [0, 5, 10, 15], [1, 6, 11, 12], [2, 7, 8, 13], [3, 4, 9, 14]);
    };
}

/// Four quarter rounds (a, b, c, d word indices) side by side, step by step: four
/// independent dependency chains.
macro_rules! sliced_round {
    ($x:ident, $add:ident, $xor:ident, $rol:ident; $([$a:literal, $b:literal, $c:literal, $d:literal]),+) => {
        sliced_step!($x, $add, $xor, $rol, 16; $([$a, $b, $d]),+);
        sliced_step!($x, $add, $xor, $rol, 12; $([$c, $d, $b]),+);
        sliced_step!($x, $add, $xor, $rol, 8; $([$a, $b, $d]),+);
        sliced_step!($x, $add, $xor, $rol, 7; $([$c, $d, $b]),+);
    };
}

/// One step of quarter rounds side by side: `p += q; r ^= p; r <<<= n` for each `[p, q, r]`.
macro_rules! sliced_step {
    ($x:ident, $add:ident, $xor:ident, $rol:ident, $n:literal; $([$p:literal, $q:literal, $r:literal]),+) => {
        $( $x[$p] = $add($x[$p], $x[$q]); $x[$r] = $rol::<$n>($xor($x[$r], $x[$p])); )+
    };
}

/// What is left of the first double round once `head::head` and the column chain
/// ([`column_chain`]) are done: the diagonal round less the head's steps. Chain and
/// diagonal together are `head::finish_first_double_round` for every lane: 55 of a
/// double round's 96 vector instructions.
macro_rules! sliced_first_diagonal {
    ($x:ident, $add:ident, $xor:ident, $rol:ident) => {
        // (1, 6, 11, 12) less its first add, (2, 7, 8, 13) less its first step,
        // (0, 5, 10, 15) and (3, 4, 9, 14) whole.
        $x[12] = $rol::<16>($xor($x[12], $x[1]));
        sliced_step!($x, $add, $xor, $rol, 16; [0, 5, 15], [3, 4, 14]);
        sliced_step!($x, $add, $xor, $rol, 12; [10, 15, 5], [11, 12, 6], [8, 13, 7], [9, 14, 4]);
        sliced_step!($x, $add, $xor, $rol, 8; [0, 5, 15], [1, 6, 12], [2, 7, 13], [3, 4, 14]);
        sliced_step!($x, $add, $xor, $rol, 7; [10, 15, 5], [11, 12, 6], [8, 13, 7], [9, 14, 4]);
    };
}

/// The feed-forward (`x + input`), the transpose and the writes of a word-sliced set
/// (`WHOLE`: see [`sliced16`]). A macro for the reason the double rounds are: as a
/// function, LLVM kept it out of line and the 16 words went through memory.
macro_rules! sliced_put {
    ($x:ident, $input:ident, $io:ident, $tail:ident, $whole:ident) => {
        for i in 0..16 {
            $x[i] = _mm512_add_epi32($x[i], $input[i]);
        }
        let ks = transpose_16($x);
        if $whole {
            for k in ks {
                $io.put_whole(k);
            }
        } else {
            $io.put_all(ks, $tail);
        }
    };
}

/// 16 blocks from `counter`, word-sliced in zmm, written to `io` in order. `WHOLE`: all
/// 16 are whole blocks of the request (`io.len() >= 1024`); otherwise the last ones may be
/// partial or missing. A request of one set (15 to 30 blocks) runs this; longer ones
/// [`sliced16_sets`].
///
/// The kernel writes its blocks itself rather than returning them: if LLVM keeps it out
/// of line, returning sixteen zmm would go through memory.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
pub(super) fn sliced16<const XOR: bool, const WHOLE: bool>(
    double_rounds: usize,
    state: &State<Ietf>,
    counter: u64,
    io: &mut Cursor<'_, XOR>,
    tail: &mut Block,
) {
    let input = sliced_input(state, counter);
    let mut x = input;
    // The first double round out of the loop: it reads `input` and writes `x`, so no
    // copy of the sixteen words is made before the loop (`double_rounds` is at least 1,
    // as in `sliced16_from_head`).
    sliced_double_round!(x, _mm512_add_epi32, _mm512_xor_si512, _mm512_rol_epi32);
    for _ in 1..double_rounds {
        sliced_double_round!(x, _mm512_add_epi32, _mm512_xor_si512, _mm512_rol_epi32);
    }
    sliced_put!(x, input, io, tail, WHOLE);
}

/// Two sets of 16 blocks or more (`io.blocks() >= 31`), from `counter`; returns the
/// counter after them. Leaves fewer than 15 blocks, for the row kernels.
///
/// Every set starts its first double round from `head::head`'s words, computed once per
/// call. The counter's quarter round (0, 4, 8, 12) left of the first column round, a chain
/// of 11 dependent instructions ([`column_chain`]), is computed during the set before:
/// at the start of its own set it left a port idle beside the last set's transpose, and
/// the head was slower than no head (DECISIONS.md, § avx512: the head). An empty `asm!`
/// keeps LLVM from sinking it past the stores. A single set takes [`sliced16`].
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
pub(super) fn sliced16_sets<const XOR: bool>(
    double_rounds: usize,
    state: &State<Ietf>,
    mut counter: u64,
    io: &mut Cursor<'_, XOR>,
    tail: &mut Block,
) -> u64 {
    let head = head(&state.words_at(counter));
    let mut chain = column_chain(&head, counter);
    while io.len() >= 16 * BLOCK_LEN {
        chain = sliced16_from_head::<XOR, true>(double_rounds, state, counter, &head, chain, io, tail);
        counter = counter.wrapping_add(16);
    }
    if io.blocks() >= 15 {
        sliced16_from_head::<XOR, false>(double_rounds, state, counter, &head, chain, io, tail);
        counter = counter.wrapping_add(16);
    }
    counter
}

/// As [`sliced16`], with the first double round started from `head` and `chain` (this
/// set's [`column_chain`]); returns the next set's chain (see [`sliced16_sets`]).
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
fn sliced16_from_head<const XOR: bool, const WHOLE: bool>(
    double_rounds: usize,
    state: &State<Ietf>,
    counter: u64,
    head: &[u32; 16],
    chain: [__m512i; 4],
    io: &mut Cursor<'_, XOR>,
    tail: &mut Block,
) -> [__m512i; 4] {
    let input = sliced_input(state, counter);
    let mut x = input;
    for i in [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15] {
        x[i] = _mm512_set1_epi32(head[i] as i32);
    }
    [x[0], x[4], x[8], x[12]] = chain;
    sliced_first_diagonal!(x, _mm512_add_epi32, _mm512_xor_si512, _mm512_rol_epi32);
    for _ in 1..double_rounds {
        sliced_double_round!(x, _mm512_add_epi32, _mm512_xor_si512, _mm512_rol_epi32);
    }
    let mut next = column_chain(head, counter.wrapping_add(16));
    // Pinned here: see `sliced16_sets`.
    schedule_barrier!(zmm_reg; next[0], next[1], next[2], next[3]);
    sliced_put!(x, input, io, tail, WHOLE);
    next
}

/// Words 0, 4, 8, 12 after the first column round's quarter round (0, 4, 8, 12) of the 16
/// blocks from `counter`, from `head` (which did its first add).
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
fn column_chain(head: &[u32; 16], counter: u64) -> [__m512i; 4] {
    let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let mut x = [_mm512_setzero_si512(); 16];
    for i in [0, 4, 8] {
        x[i] = _mm512_set1_epi32(head[i] as i32);
    }
    x[12] = _mm512_add_epi32(_mm512_set1_epi32(counter as u32 as i32), lane);
    x[12] = _mm512_rol_epi32::<16>(_mm512_xor_si512(x[12], x[0]));
    sliced_step!(x, _mm512_add_epi32, _mm512_xor_si512, _mm512_rol_epi32, 12; [8, 12, 4]);
    sliced_step!(x, _mm512_add_epi32, _mm512_xor_si512, _mm512_rol_epi32, 8; [0, 4, 12]);
    sliced_step!(x, _mm512_add_epi32, _mm512_xor_si512, _mm512_rol_epi32, 7; [8, 12, 4]);
    [x[0], x[4], x[8], x[12]]
}

/// The input words of the 16 blocks from `counter`, word-sliced (lane `j`: counter + j).
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
fn sliced_input(state: &State<Ietf>, counter: u64) -> [__m512i; 16] {
    let w = state.words_at(counter);
    let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let mut input = [_mm512_setzero_si512(); 16];
    // Words 0–11 broadcast from the 16-byte rows `State` stores them as: one `vpbroadcastd`
    // per word, each inside one store (from `set1` alone, LLVM made 8-byte loads spanning
    // two stores, not store-forwarded: DECISIONS.md, § avx512: the head). Words 12–15 `set1`.
    for i in 12..16 {
        input[i] = _mm512_set1_epi32(w[i] as i32);
    }
    for r in 0..3 {
        // SAFETY: `state.words()` has 16 words; row r < 3 is words 4r .. 4r + 4.
        let row = unsafe { _mm_loadu_si128(state.words().as_ptr().wrapping_add(4 * r).cast()) };
        let row = _mm512_broadcast_i32x4(row);
        input[4 * r] = _mm512_shuffle_epi32::<0x00>(row);
        input[4 * r + 1] = _mm512_shuffle_epi32::<0x55>(row);
        input[4 * r + 2] = _mm512_shuffle_epi32::<0xaa>(row);
        input[4 * r + 3] = _mm512_shuffle_epi32::<0xff>(row);
    }
    input[12] = _mm512_add_epi32(input[12], lane);
    input
}

/// Word-sliced zmm state (vector = word, lane = block) to 16 blocks, one zmm each.
///
/// Steps 1–2 work within each 128-bit lane `L` (blocks `4L..4L+3`), on words `4g..4g+3`:
/// ```text
///  v0 = [w0.b0 w0.b1 w0.b2 w0.b3] ...   (one 128-bit lane shown; w = word, b = block)
///  v1 = [w1.b0 w1.b1 w1.b2 w1.b3]
///  unpacklo_epi32(v0, v1) = [w0.b0 w1.b0 w0.b1 w1.b1]   t0 (t2 likewise from v2, v3)
///  unpackhi_epi32(v0, v1) = [w0.b2 w1.b2 w0.b3 w1.b3]   t1 (t3 likewise)
///  unpacklo_epi64(t0, t2) = [w0.b0 w1.b0 w2.b0 w3.b0]   words 0-3 of block 0 = r[g][0]
///  unpackhi_epi64(t0, t2) = words 0-3 of block 1 = r[g][1];  t1, t3 give blocks 2, 3
/// ```
/// so `r[g][k]` holds, in 128-bit lane `L`, words `4g..4g+3` of block `4L + k`; steps 3–4
/// ([`lanes_4x4`]) gather the four lanes `L` of `r[0..4][k]` into blocks `k, 4+k, 8+k, 12+k`.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
fn transpose_16(x: [__m512i; 16]) -> [__m512i; 16] {
    let r: [[__m512i; 4]; 4] = core::array::from_fn(|g| {
        let v = &x[4 * g..4 * g + 4];
        let t0 = _mm512_unpacklo_epi32(v[0], v[1]);
        let t1 = _mm512_unpackhi_epi32(v[0], v[1]);
        let t2 = _mm512_unpacklo_epi32(v[2], v[3]);
        let t3 = _mm512_unpackhi_epi32(v[2], v[3]);
        [
            _mm512_unpacklo_epi64(t0, t2),
            _mm512_unpackhi_epi64(t0, t2),
            _mm512_unpacklo_epi64(t1, t3),
            _mm512_unpackhi_epi64(t1, t3),
        ]
    });
    let mut out = [_mm512_setzero_si512(); 16];
    for k in 0..4 {
        let [o0, o1, o2, o3] = lanes_4x4(r[0][k], r[1][k], r[2][k], r[3][k]);
        out[k] = o0;
        out[4 + k] = o1;
        out[8 + k] = o2;
        out[12 + k] = o3;
    }
    out
}

/// A 4×4 transpose of 128-bit lanes: lane `j` of `a, b, c, d` becomes output `j`.
/// ```text
///  a = [a0 a1 a2 a3]  b = [b0 b1 b2 b3]  c, d likewise        (one letter = 128 bits)
///  s0 = shuffle_i32x4(a, b, 0x44) = [a0 a1 b0 b1]   s1 = (a, b, 0xEE) = [a2 a3 b2 b3]
///  s2 = shuffle_i32x4(c, d, 0x44) = [c0 c1 d0 d1]   s3 = (c, d, 0xEE) = [c2 c3 d2 d3]
///  o0 = shuffle_i32x4(s0, s2, 0x88) = [a0 b0 c0 d0] o1 = (s0, s2, 0xDD) = [a1 b1 c1 d1]
///  o2 = shuffle_i32x4(s1, s3, 0x88) = [a2 b2 c2 d2] o3 = (s1, s3, 0xDD) = [a3 b3 c3 d3]
/// ```
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
pub(super) fn lanes_4x4(a: __m512i, b: __m512i, c: __m512i, d: __m512i) -> [__m512i; 4] {
    let s0 = _mm512_shuffle_i32x4::<0x44>(a, b);
    let s1 = _mm512_shuffle_i32x4::<0xEE>(a, b);
    let s2 = _mm512_shuffle_i32x4::<0x44>(c, d);
    let s3 = _mm512_shuffle_i32x4::<0xEE>(c, d);
    [
        _mm512_shuffle_i32x4::<0x88>(s0, s2),
        _mm512_shuffle_i32x4::<0xDD>(s0, s2),
        _mm512_shuffle_i32x4::<0x88>(s1, s3),
        _mm512_shuffle_i32x4::<0xDD>(s1, s3),
    ]
}
