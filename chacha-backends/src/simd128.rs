//! `simd128`: ChaCha with WebAssembly's 128-bit SIMD, 1 to 4 blocks per step.
//!
//! | blocks left | kernel | layout |
//! |---|---|---|
//! | ≥ 4 | `sliced`: 4 word-sliced blocks | `x[i]` = word `i` of 4 blocks, lane `l` = block `l` |
//! | 1–3 | `row_blocks::<N>`: N row chains interleaved (also HChaCha with N = 1) | one block in 4 vectors, one row each |
//!
//! No request computes a block it does not use. Whole blocks are XORed straight from the
//! vectors, the partial last block through `tail` (`rows128!`); `fill` uses the same
//! kernels. WebAssembly is little-endian, so keystream vectors are stored as they are.
//!
//! - **No probe**: an engine without SIMD refuses the whole module, so `build.rs` compiles
//!   this one only into builds with `-C target-feature=+simd128`; the intrinsics are safe
//!   calls there, and the only `unsafe` is the pointer loads and stores at the bottom.
//! - **`#[inline(always)]` kernels**: without `#[target_feature]` they may be, so each call
//!   site gets its own copy (`sse2` and `neon` need one instance per call site for that).
//! - **4, not 8, word-sliced blocks**: the engine maps `v128` onto the host's 16 `xmm`
//!   (x86_64), which 16 state words already fill.
//! - **Rotates**: by 16 and 8 one `i8x16.shuffle`, by 12 and 7 two shifts and an `or`; the
//!   row kernel turns rows with `i32x4.shuffle` (V8: one `pshufd`), row `b` in place.
//!
//! A double round is 128 wasm SIMD instructions. What V8 makes of them, the measurements
//! under Node and what was rejected: `DECISIONS.md`, § simd128.

use core::arch::wasm32::{
    i8x16_shuffle, i32x4_add, i32x4_shl, i32x4_shuffle, i64x2_shuffle, u32x4, u32x4_shr, u32x4_splat, v128,
    v128_load, v128_or, v128_store, v128_xor,
};

use chacha_core::{BLOCK_LEN, Block, CONSTANTS, Ietf, Kernel, Rounds, State, Variant, XorBuf};

use crate::counter::in_ietf_pieces;
use crate::cursor::{Blocks, Cursor, Span};

/// Proof that the engine runs WebAssembly SIMD; only [`Simd128::detect`] creates one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Simd128(());

impl Simd128 {
    /// Always `Some`: this module is compiled only into builds with `simd128` (`build.rs`).
    #[inline]
    pub fn detect() -> Option<Self> {
        Some(Simd128(()))
    }
}

/// ChaCha20-Poly1305's steps on `simd128`: the portable defaults.
impl chacha_core::Aead for Simd128 {}

impl Kernel for Simd128 {
    #[inline]
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, buf: XorBuf<'_, '_>, tail: &mut Block) {
        in_ietf_pieces(state, buf, |state, buf| xor_simd128::<R>(state, buf, tail))
    }

    #[inline]
    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        in_ietf_pieces(state, out, |state, out| fill_simd128::<R>(state, out))
    }

    #[inline]
    fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
        hchacha_simd128::<R>(key, input)
    }

    /// 4 word-sliced blocks cost about one row chain (`DECISIONS.md`, § simd128).
    #[inline(always)]
    fn batch_blocks(self) -> usize {
        4
    }
}

/// One block's keystream as four rows of 16 bytes (row `r` = bytes `16r .. 16r + 16`).
type Rows = [v128; 4];

// ---- Entry points: the width rules.

/// Fused XOR with the widths of the module header.
// Never inlined: the module's code stays in its three entry points.
#[inline(never)]
fn xor_simd128<R: Rounds>(state: &State<Ietf>, buf: XorBuf<'_, '_>, tail: &mut Block) {
    let buf = Cursor::xor(buf);
    let whole = buf.len() / BLOCK_LEN;
    // `pending`: the whole blocks not done yet; `partial`: the partial last block (maybe empty).
    let (mut pending, partial) = buf.split_at(whole * BLOCK_LEN);
    let mut counter = state.counter();
    loop {
        match pending.len() / BLOCK_LEN + usize::from(!partial.is_empty()) {
            0 => return,
            1 => return finish(&row_blocks::<R, 1>(state, counter), pending, partial, tail),
            2 => return finish(&row_blocks::<R, 2>(state, counter), pending, partial, tail),
            3 => return finish(&row_blocks::<R, 3>(state, counter), pending, partial, tail),
            _ => {
                let ks = sliced::<R>(state, counter);
                if pending.len() < 4 * BLOCK_LEN {
                    return finish(&ks, pending, partial, tail);
                }
                let (now, later) = pending.split_at(4 * BLOCK_LEN);
                xor_blocks(&ks, now);
                pending = later;
                counter = counter.wrapping_add(4);
            }
        }
    }
}

/// Raw keystream: the same widths as [`xor_simd128`], and never inlined either.
#[inline(never)]
fn fill_simd128<R: Rounds>(state: &State<Ietf>, out: &mut [Block]) {
    let mut counter = state.counter();
    let mut rest = out;
    loop {
        match rest.len() {
            0 => return,
            1 => return store_blocks(rest, &row_blocks::<R, 1>(state, counter)),
            2 => return store_blocks(rest, &row_blocks::<R, 2>(state, counter)),
            3 => return store_blocks(rest, &row_blocks::<R, 3>(state, counter)),
            _ => {
                let (now, later) = rest.split_at_mut(4);
                store_blocks(now, &sliced::<R>(state, counter));
                rest = later;
                counter = counter.wrapping_add(4);
            }
        }
    }
}

/// HChaCha: the 1-block row kernel without the final addition (rows 0 and 3); never inlined.
#[inline(never)]
fn hchacha_simd128<R: Rounds>(key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
    let le = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let mut w = [0u32; 16];
    w[..4].copy_from_slice(&CONSTANTS);
    for (word, bytes) in w[4..].iter_mut().zip(key.chunks_exact(4).chain(input.chunks_exact(4))) {
        *word = le(bytes);
    }
    let mut x = [rows_of(&w)];
    row_rounds::<R, 1>(&mut x);
    subkey(&x[0])
}

// ---- Word-sliced kernel: 4 blocks, one state word of 4 blocks per vector.

/// The keystream of blocks `counter .. counter + 4` in rows, from one word-sliced set:
/// lane `l` of `x[i]` is word `i` of block `counter + l`.
#[inline(always)]
fn sliced<R: Rounds>(state: &State<Ietf>, counter: u64) -> [Rows; 4] {
    let w = state.words();
    let mut x = [u32x4_splat(0); 16];
    for (v, &word) in x.iter_mut().zip(w) {
        *v = u32x4_splat(word);
    }
    let c = [counter, counter.wrapping_add(1), counter.wrapping_add(2), counter.wrapping_add(3)];
    x[12] = u32x4(c[0] as u32, c[1] as u32, c[2] as u32, c[3] as u32);
    let input = x;
    for _ in 0..R::DOUBLE_ROUNDS {
        sliced_round(&mut x, [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]]);
        sliced_round(&mut x, [[0, 5, 10, 15], [1, 6, 11, 12], [2, 7, 8, 13], [3, 4, 9, 14]]);
    }
    for (v, &i) in x.iter_mut().zip(&input) {
        *v = i32x4_add(*v, i);
    }
    transpose(&x)
}

/// One round (four quarter rounds on the word indices `q`), step by step across them.
#[inline(always)]
fn sliced_round(x: &mut [v128; 16], q: [[usize; 4]; 4]) {
    for [a, b, _, d] in q {
        x[a] = i32x4_add(x[a], x[b]);
        x[d] = rotl16(v128_xor(x[d], x[a]));
    }
    for [_, b, c, d] in q {
        x[c] = i32x4_add(x[c], x[d]);
        x[b] = rotl::<12>(v128_xor(x[b], x[c]));
    }
    for [a, b, _, d] in q {
        x[a] = i32x4_add(x[a], x[b]);
        x[d] = rotl8(v128_xor(x[d], x[a]));
    }
    for [_, b, c, d] in q {
        x[c] = i32x4_add(x[c], x[d]);
        x[b] = rotl::<7>(v128_xor(x[b], x[c]));
    }
}

/// Word-sliced words to rows: `out[b][r]` = row `r` (words `4r .. 4r + 4`) of block `b`.
#[inline(always)]
fn transpose(x: &[v128; 16]) -> [Rows; 4] {
    let mut out = [[u32x4_splat(0); 4]; 4];
    for r in 0..4 {
        let [w0, w1, w2, w3] = [x[4 * r], x[4 * r + 1], x[4 * r + 2], x[4 * r + 3]];
        // A 4×4 transpose of 32-bit lanes, as `sse2`'s (lane diagram there): shuffles
        // 0 4 1 5 / 2 6 3 7 of 32-bit lanes (`unpacklo`/`unpackhi_epi32`), then 0 2 / 1 3 of
        // 64-bit lanes.
        let t0 = i32x4_shuffle::<0, 4, 1, 5>(w0, w1);
        let t1 = i32x4_shuffle::<0, 4, 1, 5>(w2, w3);
        let t2 = i32x4_shuffle::<2, 6, 3, 7>(w0, w1);
        let t3 = i32x4_shuffle::<2, 6, 3, 7>(w2, w3);
        out[0][r] = i64x2_shuffle::<0, 2>(t0, t1);
        out[1][r] = i64x2_shuffle::<1, 3>(t0, t1);
        out[2][r] = i64x2_shuffle::<0, 2>(t2, t3);
        out[3][r] = i64x2_shuffle::<1, 3>(t2, t3);
    }
    out
}

// ---- Row kernel: one block per 4 vectors (one row each), N blocks interleaved.

/// The keystream of blocks `counter .. counter + N` in row layout, N chains interleaved.
#[inline(always)]
fn row_blocks<R: Rounds, const N: usize>(state: &State<Ietf>, counter: u64) -> [Rows; N] {
    let mut input = [[u32x4_splat(0); 4]; N];
    for (k, rows) in input.iter_mut().enumerate() {
        *rows = rows_of(&state.words_at(counter.wrapping_add(k as u64)));
    }
    let mut x = input;
    row_rounds::<R, N>(&mut x);
    for (rows, input) in x.iter_mut().zip(&input) {
        for (v, &i) in rows.iter_mut().zip(input) {
            *v = i32x4_add(*v, i);
        }
    }
    x
}

/// `R::DOUBLE_ROUNDS` double rounds on the N blocks of `x`, in row layout.
#[inline(always)]
fn row_rounds<R: Rounds, const N: usize>(x: &mut [Rows; N]) {
    for _ in 0..R::DOUBLE_ROUNDS {
        row_quarter_rounds(x);
        // Columns to diagonals, row b in place (no shuffle on the chain); lane j then holds
        // the diagonal (a[j-1], b[j], c[j+1], d[j+2]):
        //
        //   a = [a0 a1 a2 a3] -> shuffle 3 0 1 2 -> [a3 a0 a1 a2]
        //   b = [b0 b1 b2 b3]                        [b0 b1 b2 b3]
        //   c = [c0 c1 c2 c3] -> shuffle 1 2 3 0 -> [c1 c2 c3 c0]
        //   d = [d0 d1 d2 d3] -> shuffle 2 3 0 1 -> [d2 d3 d0 d1]
        //
        // lane 1 = quarter round (0, 5, 10, 15), lane 2 = (1, 6, 11, 12), lane 3 = (2, 7, 8,
        // 13), lane 0 = (3, 4, 9, 14).
        for [a, _, c, d] in x.iter_mut() {
            *a = i32x4_shuffle::<3, 0, 1, 2>(*a, *a);
            *c = i32x4_shuffle::<1, 2, 3, 0>(*c, *c);
            *d = i32x4_shuffle::<2, 3, 0, 1>(*d, *d);
        }
        row_quarter_rounds(x);
        // Diagonals back to columns: the inverse lane rotations.
        for [a, _, c, d] in x.iter_mut() {
            *a = i32x4_shuffle::<1, 2, 3, 0>(*a, *a);
            *c = i32x4_shuffle::<3, 0, 1, 2>(*c, *c);
            *d = i32x4_shuffle::<2, 3, 0, 1>(*d, *d);
        }
    }
}

/// Four quarter rounds per block, one per lane, for every block of `x` step by step.
#[inline(always)]
fn row_quarter_rounds<const N: usize>(x: &mut [Rows; N]) {
    for [a, b, _, d] in x.iter_mut() {
        *a = i32x4_add(*a, *b);
        *d = rotl16(v128_xor(*d, *a));
    }
    for [_, b, c, d] in x.iter_mut() {
        *c = i32x4_add(*c, *d);
        *b = rotl::<12>(v128_xor(*b, *c));
    }
    for [a, b, _, d] in x.iter_mut() {
        *a = i32x4_add(*a, *b);
        *d = rotl8(v128_xor(*d, *a));
    }
    for [_, b, c, d] in x.iter_mut() {
        *c = i32x4_add(*c, *d);
        *b = rotl::<7>(v128_xor(*b, *c));
    }
}

/// The four rows of a block's 16 words.
#[inline(always)]
fn rows_of(w: &[u32; 16]) -> Rows {
    let row = |r: usize| u32x4(w[4 * r], w[4 * r + 1], w[4 * r + 2], w[4 * r + 3]);
    [row(0), row(1), row(2), row(3)]
}

// ---- Rotations: WebAssembly SIMD has no vector rotate.

/// Each 32-bit lane rotated left by 16: its two 16-bit halves swapped, one byte shuffle.
///
/// ```text
///   lane bytes  [b0 b1 b2 b3]   (b0 least significant)
///   shuffle     [b2 b3 b0 b1]   = lane << 16 | lane >> 16
/// ```
#[inline(always)]
fn rotl16(x: v128) -> v128 {
    i8x16_shuffle::<2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13>(x, x)
}

/// Each 32-bit lane rotated left by 8: one byte shuffle, `[b3 b0 b1 b2]` (as at [`rotl16`]).
#[inline(always)]
fn rotl8(x: v128) -> v128 {
    i8x16_shuffle::<3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14>(x, x)
}

/// Each 32-bit lane rotated left by `L`: two shifts and an `or`.
#[inline(always)]
fn rotl<const L: u32>(x: v128) -> v128 {
    v128_or(i32x4_shl(x, L), u32x4_shr(x, 32 - L))
}

// ---- Memory: every pointer load and store of the module.

// The output helpers (`finish`, `xor_blocks`, `store_blocks`, ...) on `xor16`, `store16`.
super::rows128::rows128!(#[inline(always)]);

/// The span's output = its input ^ `ks`, unaligned; reads all 16 bytes before writing any.
#[inline(always)]
fn xor16(s: Span<'_, 16>, ks: v128) {
    // SAFETY: a `Span<16>`: 16 readable bytes; `v128.load` has no alignment requirement
    // (the alignment it encodes is a hint).
    let data = unsafe { v128_load(s.inp().cast::<v128>()) };
    // SAFETY: and 16 writable bytes, read in full above; no alignment requirement.
    unsafe { v128_store(s.out().cast::<v128>(), v128_xor(data, ks)) };
}

/// Stores a row's 16 bytes (its little-endian serialisation), unaligned.
#[inline(always)]
fn store16(out: &mut [u8; 16], v: v128) {
    // SAFETY: `out` is a unique reference to 16 bytes; `v128.store` needs no alignment.
    unsafe { v128_store(out.as_mut_ptr().cast::<v128>(), v) };
}
