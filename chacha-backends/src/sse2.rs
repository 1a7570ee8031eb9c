//! `sse2`: ChaCha with SSE2 only, for x86 and x86_64 CPUs without AVX2, 1 to 5 blocks per step.
//!
//! | blocks left | kernel | layout |
//! |---|---|---|
//! | ≥ 5 (x86: ≥ 4) | `sliced4` and a fifth block in general-purpose registers (x86_64) | word-sliced: register `i` = word `i` of 4 blocks, lane `b` = block `counter + b` |
//! | 4 | `sliced4` | same |
//! | 1–3 | `row_blocks::<N>`: N row chains interleaved (also HChaCha, N = 1) | rows: one block in 4 registers, one row each |
//!
//! Here: the entry points, the row kernel, the rotates and the memory helpers; the
//! word-sliced kernel in `sse2/sliced.rs`. No request computes a block it does not use.
//!
//! - SSE2 and nothing later: the 16-bit rotate is `pshuflw` + `pshufhw`, the others two
//!   shifts and an `or`; `scripts/check-sse2-isa.sh` checks the entry points' code.
//! - The fifth block (x86_64) runs on the ALUs the vector code leaves idle; x86 has too few
//!   registers for it.
//! - Only word 12 differs between a step's blocks, so the head (`head.rs`) does the
//!   counter-free part of the first double round once per call.
//! - The round count is an argument, so one instance of each entry point serves ChaCha8,
//!   12 and 20, half the crate's build.
//!
//! Figures and rejected designs (the double round in `asm!` among them): `DECISIONS.md` in
//! this crate, § sse2.

#[cfg(target_arch = "x86")]
use core::arch::x86::{
    __m128i, _mm_add_epi32, _mm_loadu_si128, _mm_or_si128, _mm_set_epi32, _mm_setzero_si128,
    _mm_shuffle_epi32, _mm_shufflehi_epi16, _mm_shufflelo_epi16, _mm_slli_epi32, _mm_srli_epi32,
    _mm_storeu_si128, _mm_xor_si128,
};
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::{
    __m128i, _mm_add_epi32, _mm_loadu_si128, _mm_or_si128, _mm_set_epi32, _mm_setzero_si128,
    _mm_shuffle_epi32, _mm_shufflehi_epi16, _mm_shufflelo_epi16, _mm_slli_epi32, _mm_srli_epi32,
    _mm_storeu_si128, _mm_xor_si128,
};

use chacha_core::{
    BLOCK_LEN, Block, CONSTANTS, Ietf, Kernel, MAX_BATCH_BLOCKS, Rounds, State, Variant, XorBuf,
};

use crate::counter::in_ietf_pieces;
use crate::cursor::{Blocks, Cursor, Span};
use crate::head::head;

mod sliced;

use sliced::{SCALAR_BLOCK, STEP_BLOCKS, sliced4};

/// Proof that this CPU has SSE2; only [`Sse2::detect`] creates one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sse2(());

impl Sse2 {
    /// `Some` if this CPU has SSE2 (every x86_64 CPU, x86 ones since the Pentium 4).
    #[inline]
    pub fn detect() -> Option<Self> {
        cpufeatures::new!(cpuid_sse2, "sse2");
        cpuid_sse2::get().then_some(Sse2(()))
    }
}

/// ChaCha20-Poly1305's steps on `sse2`: the portable defaults.
impl chacha_core::Aead for Sse2 {}

impl Kernel for Sse2 {
    #[inline]
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, buf: XorBuf<'_, '_>, tail: &mut Block) {
        in_ietf_pieces(state, buf, |state, buf| {
            let (inp, out, len) = Cursor::xor(buf).into_parts();
            // SAFETY: an Sse2 exists only if detect() saw SSE2, the only feature xor_sse2
            // enables; the parts are a `Cursor`'s, whose borrow this call holds.
            unsafe { xor_sse2(state, R::DOUBLE_ROUNDS, inp, out, len, tail) }
        })
    }

    #[inline]
    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        in_ietf_pieces(state, out, |state, out| {
            if out.len() <= MAX_BATCH_BLOCKS {
                // A few blocks (an RNG's short draw) without the 5-block loop's set-up.
                // SAFETY: as below.
                return unsafe { fill_batch_sse2(state, R::DOUBLE_ROUNDS, state.counter(), out) };
            }
            // SAFETY: an Sse2 exists only if detect() saw SSE2, the only feature fill_sse2
            // enables.
            unsafe { fill_sse2(state, R::DOUBLE_ROUNDS, out) }
        })
    }

    #[inline]
    fn fill_batch<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        in_ietf_pieces(state, out, |state, out| {
            if out.len() > MAX_BATCH_BLOCKS {
                // SAFETY: as below.
                let batch = |counter, piece: &mut [Block]| unsafe {
                    fill_batch_sse2(state, R::DOUBLE_ROUNDS, counter, piece)
                };
                return crate::fill_batch_in_pieces(state.counter(), out, batch);
            }
            // SAFETY: an Sse2 exists only if detect() saw SSE2, the only feature
            // fill_batch_sse2 enables.
            unsafe { fill_batch_sse2(state, R::DOUBLE_ROUNDS, state.counter(), out) }
        })
    }

    #[inline]
    fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
        // SAFETY: an Sse2 exists only if detect() saw SSE2, the only feature hchacha_sse2 enables.
        unsafe { hchacha_sse2::<R>(key, input) }
    }

    /// The 4-block word-sliced kernel costs less per block than one row chain (DECISIONS.md).
    #[inline(always)]
    fn batch_blocks(self) -> usize {
        4
    }
}

/// Which call site an instance of [`sliced4`] is for: each call site names its own, so each
/// instance has one caller and LLVM inlines it. A `#[target_feature]` function cannot be
/// `#[inline(always)]`, and one instance shared by two callers stayed out of line, its
/// words returned through the stack (DECISIONS.md, § sse2: the word-sliced loop).
type CallSite = u8;
// The call sites: the loop and the last 4 blocks of `xor_sse2` and of `fill_sse2`, and
// `fill_batch_sse2`.
const IN_XOR_LOOP: CallSite = 0;
const IN_XOR_END: CallSite = 1;
const IN_FILL_LOOP: CallSite = 2;
const IN_FILL_END: CallSite = 3;
const IN_FILL_BATCH: CallSite = 4;

/// One block's keystream as four rows of 16 bytes (row `r` = bytes `16r .. 16r + 16`).
type Rows = [__m128i; 4];

// ---- Entry points: the width rules.

/// Fused XOR, by the module header's widths. The buffer comes as a `Cursor`'s parts, in
/// registers (the Rust ABI passes a struct of three words through memory).
/// # Safety
/// `inp`, `out` and `len` are [`Cursor::into_parts`] of a cursor borrowed for this call.
// Never inlined: see the module header.
#[inline(never)]
#[target_feature(enable = "sse2")]
unsafe fn xor_sse2(
    state: &State<Ietf>,
    double_rounds: usize,
    inp: *const u8,
    out: *mut u8,
    len: usize,
    tail: &mut Block,
) {
    // SAFETY: the caller's guarantee.
    let buf = unsafe { Cursor::<true>::from_parts(inp, out, len) };
    let whole = buf.len() / BLOCK_LEN;
    // `pending`: the whole blocks not done yet; `partial`: the partial last block (maybe empty).
    let (mut pending, partial) = buf.split_at(whole * BLOCK_LEN);
    let left = |pending: &Cursor<'_, true>| pending.len() / BLOCK_LEN + usize::from(!partial.is_empty());
    let mut counter = state.counter();
    let head = head(&state.words_at(counter));
    while left(&pending) >= STEP_BLOCKS {
        let ([b0, b1, b2, b3], w4) =
            sliced4::<SCALAR_BLOCK, IN_XOR_LOOP, true>(state, double_rounds, counter, &head);
        if pending.len() < STEP_BLOCKS * BLOCK_LEN {
            let ks = [b0, b1, b2, b3, rows_of(&w4)];
            return finish(&ks[..STEP_BLOCKS], pending, partial, tail);
        }
        let (now, later) = pending.split_at(STEP_BLOCKS * BLOCK_LEN);
        let (four, fifth) = now.split_at(4 * BLOCK_LEN);
        xor_blocks(&[b0, b1, b2, b3], four);
        if SCALAR_BLOCK {
            xor_words(&w4, fifth);
        }
        pending = later;
        counter = counter.wrapping_add(STEP_BLOCKS as u64);
    }
    match left(&pending) {
        0 => {}
        1 => finish(&row_blocks::<1>(state, double_rounds, counter), pending, partial, tail),
        2 => finish(&row_blocks::<2>(state, double_rounds, counter), pending, partial, tail),
        3 => finish(&row_blocks::<3>(state, double_rounds, counter), pending, partial, tail),
        _ => finish(
            &sliced4::<false, IN_XOR_END, true>(state, double_rounds, counter, &head).0,
            pending,
            partial,
            tail,
        ),
    }
}

/// Raw keystream: the same widths as [`xor_sse2`].
// Never inlined: see the module header.
#[inline(never)]
#[target_feature(enable = "sse2")]
fn fill_sse2(state: &State<Ietf>, double_rounds: usize, out: &mut [Block]) {
    let mut counter = state.counter();
    let head = head(&state.words_at(counter));
    let mut rest = out;
    while rest.len() >= STEP_BLOCKS {
        let ([b0, b1, b2, b3], w4) =
            sliced4::<SCALAR_BLOCK, IN_FILL_LOOP, true>(state, double_rounds, counter, &head);
        let (now, later) = rest.split_at_mut(STEP_BLOCKS);
        let (four, fifth) = now.split_at_mut(4);
        store_blocks(four, &[b0, b1, b2, b3]);
        if let Some(block) = fifth.first_mut() {
            for (bytes, w) in block.chunks_exact_mut(4).zip(w4) {
                bytes.copy_from_slice(&w.to_le_bytes());
            }
        }
        rest = later;
        counter = counter.wrapping_add(STEP_BLOCKS as u64);
    }
    match rest.len() {
        0 => {}
        1 => store_blocks(rest, &row_blocks::<1>(state, double_rounds, counter)),
        2 => store_blocks(rest, &row_blocks::<2>(state, double_rounds, counter)),
        3 => store_blocks(rest, &row_blocks::<3>(state, double_rounds, counter)),
        _ => store_blocks(rest, &sliced4::<false, IN_FILL_END, true>(state, double_rounds, counter, &head).0),
    }
}

/// A front's short fill ([`Kernel::fill_batch`]): its batch of 1–4 blocks (`out`) from
/// block `counter`, with [`fill_sse2`]'s widths for them but out of it, so that a program
/// whose only fills are these (a cipher's) links this and not `fill_sse2` (DECISIONS.md,
/// § Kernels compiled once: build cost). No loop here (see `avx512::fill_batch`).
// Never inlined: see the module header.
#[inline(never)]
#[target_feature(enable = "sse2")]
fn fill_batch_sse2(state: &State<Ietf>, double_rounds: usize, counter: u64, out: &mut [Block]) {
    debug_assert!(out.len() <= 4, "a batch of {} blocks", out.len());
    match out.len() {
        0 => {}
        1 => store_blocks(out, &row_blocks::<1>(state, double_rounds, counter)),
        2 => store_blocks(out, &row_blocks::<2>(state, double_rounds, counter)),
        3 => store_blocks(out, &row_blocks::<3>(state, double_rounds, counter)),
        _ => {
            let head = head(&state.words_at(counter));
            let blocks = sliced4::<false, IN_FILL_BATCH, true>(state, double_rounds, counter, &head).0;
            store_blocks(out, &blocks);
        }
    }
}

/// HChaCha: the 1-block row kernel without the final addition; the subkey is rows 0 and 3.
// Never inlined: see the module header.
#[inline(never)]
#[target_feature(enable = "sse2")]
fn hchacha_sse2<R: Rounds>(key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
    let (k0, k1) = key.split_at(16);
    let mut x = [[
        _mm_set_epi32(CONSTANTS[3] as i32, CONSTANTS[2] as i32, CONSTANTS[1] as i32, CONSTANTS[0] as i32),
        load16(k0.try_into().expect("16 bytes")),
        load16(k1.try_into().expect("16 bytes")),
        load16(input),
    ]];
    row_rounds::<1>(&mut x, R::DOUBLE_ROUNDS);
    subkey(&x[0])
}

// ---- Row kernel: one block per 4 registers (one row each), N blocks interleaved.

/// The keystream of blocks `counter .. counter + N` in row layout, N chains interleaved.
#[inline]
#[target_feature(enable = "sse2")]
fn row_blocks<const N: usize>(state: &State<Ietf>, double_rounds: usize, counter: u64) -> [Rows; N] {
    let mut input = [[_mm_setzero_si128(); 4]; N];
    for (k, rows) in input.iter_mut().enumerate() {
        let w = state.words_at(counter.wrapping_add(k as u64));
        for (r, row) in rows.iter_mut().enumerate() {
            *row =
                _mm_set_epi32(w[4 * r + 3] as i32, w[4 * r + 2] as i32, w[4 * r + 1] as i32, w[4 * r] as i32);
        }
    }
    let mut x = input;
    row_rounds::<N>(&mut x, double_rounds);
    for (rows, input) in x.iter_mut().zip(&input) {
        for (v, &i) in rows.iter_mut().zip(input) {
            *v = _mm_add_epi32(*v, i);
        }
    }
    x
}

/// `double_rounds` double rounds on N blocks in row layout.
#[inline]
#[target_feature(enable = "sse2")]
fn row_rounds<const N: usize>(x: &mut [Rows; N], double_rounds: usize) {
    repeat_rounds!(double_rounds, {
        row_quarter_rounds(x);
        // Columns to diagonals, row b in place (the last row a round writes and the first
        // the next reads). Lane j then holds the diagonal (a[j-1], b[j], c[j+1], d[j+2]):
        //
        //   a = [a0 a1 a2 a3] -> pshufd 0x93 -> [a3 a0 a1 a2]
        //   b = [b0 b1 b2 b3]                   [b0 b1 b2 b3]
        //   c = [c0 c1 c2 c3] -> pshufd 0x39 -> [c1 c2 c3 c0]
        //   d = [d0 d1 d2 d3] -> pshufd 0x4e -> [d2 d3 d0 d1]
        //
        // lane 1 = quarter round (0, 5, 10, 15), lane 2 = (1, 6, 11, 12), lane 3 = (2, 7, 8,
        // 13), lane 0 = (3, 4, 9, 14).
        for rows in x.iter_mut() {
            rows[0] = _mm_shuffle_epi32::<0x93>(rows[0]);
            rows[2] = _mm_shuffle_epi32::<0x39>(rows[2]);
            rows[3] = _mm_shuffle_epi32::<0x4e>(rows[3]);
        }
        row_quarter_rounds(x);
        // Back to columns: the inverse rotations (0x39 and 0x93 undo each other).
        for rows in x.iter_mut() {
            rows[0] = _mm_shuffle_epi32::<0x39>(rows[0]);
            rows[2] = _mm_shuffle_epi32::<0x93>(rows[2]);
            rows[3] = _mm_shuffle_epi32::<0x4e>(rows[3]);
        }
    });
}

/// Four quarter rounds per block, one per lane, for N blocks step by step.
#[inline]
#[target_feature(enable = "sse2")]
fn row_quarter_rounds<const N: usize>(x: &mut [Rows; N]) {
    for [a, b, _, d] in x.iter_mut() {
        *a = _mm_add_epi32(*a, *b);
        *d = rotl16(_mm_xor_si128(*d, *a));
    }
    for [_, b, c, d] in x.iter_mut() {
        *c = _mm_add_epi32(*c, *d);
        *b = rotl::<12, 20>(_mm_xor_si128(*b, *c));
    }
    for [a, b, _, d] in x.iter_mut() {
        *a = _mm_add_epi32(*a, *b);
        *d = rotl::<8, 24>(_mm_xor_si128(*d, *a));
    }
    for [_, b, c, d] in x.iter_mut() {
        *c = _mm_add_epi32(*c, *d);
        *b = rotl::<7, 25>(_mm_xor_si128(*b, *c));
    }
}

// ---- Rotations: SSE2 has no rotate and no byte shuffle (`pshufb` is SSSE3).

/// Each 32-bit lane rotated left by 16: its 16-bit halves swapped by two word shuffles.
///
/// ```text
///   16-bit words  [w0 w1 | w2 w3 | w4 w5 | w6 w7]      (lane = wN wN+1, low word first)
///   pshuflw 0xb1  [w1 w0 | w3 w2 | w4 w5 | w6 w7]      low 64 bits: word order 1 0 3 2
///   pshufhw 0xb1  [w1 w0 | w3 w2 | w5 w4 | w7 w6]      high 64 bits: word order 5 4 7 6
/// ```
#[inline]
#[target_feature(enable = "sse2")]
fn rotl16(x: __m128i) -> __m128i {
    _mm_shufflehi_epi16::<0xb1>(_mm_shufflelo_epi16::<0xb1>(x))
}

/// Each 32-bit lane rotated left by `L` (`R` = 32 − `L`): two shifts and an `or`.
#[inline]
#[target_feature(enable = "sse2")]
fn rotl<const L: i32, const R: i32>(x: __m128i) -> __m128i {
    const { assert!(L + R == 32) };
    _mm_or_si128(_mm_slli_epi32::<L>(x), _mm_srli_epi32::<R>(x))
}

// ---- Memory: every pointer load and store of the module.

// The output helpers (`finish`, `xor_blocks`, `store_blocks`, ...) on `xor16`, `store16`.
super::rows128::rows128!(#[inline] #[target_feature(enable = "sse2")]);

/// The span's output = its input ^ `ks`, unaligned; reads all 16 bytes before writing any.
#[inline]
#[target_feature(enable = "sse2")]
fn xor16(s: Span<'_, 16>, ks: __m128i) {
    // SAFETY: a `Span<16>`: 16 readable bytes; loadu has no alignment need.
    let data = unsafe { _mm_loadu_si128(s.inp().cast()) };
    let sum = _mm_xor_si128(data, ks);
    // SAFETY: and 16 writable bytes, read in full above.
    unsafe { _mm_storeu_si128(s.out().cast(), sum) };
}

/// A block's words as four rows.
#[inline]
#[target_feature(enable = "sse2")]
fn rows_of(w: &[u32; 16]) -> Rows {
    core::array::from_fn(|r| {
        _mm_set_epi32(w[4 * r + 3] as i32, w[4 * r + 2] as i32, w[4 * r + 1] as i32, w[4 * r] as i32)
    })
}

/// XORs one block of keystream words (the fifth of [`sliced4`]) into the 64 bytes of
/// `buf`, 8 bytes at a time in general-purpose registers (cheaper than `xmm` rows).
#[inline]
fn xor_words(w: &[u32; 16], buf: Cursor<'_, true>) {
    // Never fires (the callers split off one block); LLVM drops the check.
    let block = buf.blocks_at::<1>(0).expect("one block");
    for i in 0..8 {
        let k = u64::from(w[2 * i]) | u64::from(w[2 * i + 1]) << 32;
        let s = block.span::<8>(8 * i);
        // SAFETY: a `Span<8>`: 8 readable bytes; an unaligned read needs no alignment.
        let v = unsafe { s.inp().cast::<u64>().read_unaligned() };
        // SAFETY: and 8 writable bytes, read just above.
        unsafe { s.out().cast::<u64>().write_unaligned(v ^ k) };
    }
}

/// Stores 16 bytes, unaligned.
#[inline]
#[target_feature(enable = "sse2")]
fn store16(out: &mut [u8; 16], v: __m128i) {
    // SAFETY: `out` is a unique reference to 16 bytes; storeu has no alignment need.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), v) };
}

/// Loads 16 bytes, unaligned.
#[inline]
#[target_feature(enable = "sse2")]
fn load16(bytes: &[u8; 16]) -> __m128i {
    // SAFETY: `bytes` is a reference to 16 readable bytes; loadu has no alignment need.
    unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
}
