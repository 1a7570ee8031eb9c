//! `neon`: ChaCha with AArch64 Advanced SIMD (NEON), 1 to 8 blocks per step.
//!
//! | blocks left | kernel | layout |
//! |---|---|---|
//! | ≥ 8 | `sliced::<2>`: two 4-block word-sliced sets, interleaved step by step | `x[g][i]` = word `i` of blocks `4g .. 4g + 4` |
//! | 4–7 | `sliced::<1>`: one 4-block word-sliced set | `x[0][i]` = word `i` of 4 blocks |
//! | 1–3 | `row_blocks::<N>`: N row chains interleaved (also HChaCha with N = 1) | one block in 4 registers, one row each |
//!
//! No request computes a block it does not use (7 blocks are 4 + 3 row chains). Whole
//! blocks are XORed straight out of registers, the partial last block through `tail`
//! (`rows128!`); `fill` uses the same kernels. Poly1305: 2 blocks side by side in
//! `neon/poly1305.rs`.
//!
//! - **No probe**: NEON is in the base AArch64 ISA and `build.rs` compiles this module only
//!   where it is, so `detect` is always `Some`. The rounds are macros (as `#[target_feature]`
//!   functions they stayed out of line); `scripts/check-intrinsics-inlined.sh` checks that
//!   no intrinsic is called out of line.
//! - **Byte order**: a row (`uint32x4_t`) is stored as its 16 bytes, the RFC's serialisation
//!   on little-endian only (`build.rs`: `aarch64_be` gets `soft`; `ROT8` assumes it too).
//! - **Rotates**: by 16 `rev32`, by 8 one `tbl`, by 12 and 7 `shl` + `sri`; the row kernel
//!   turns rows with `ext`, row `b` in place.
//!
//! Not measured on ARM (no ARM hardware here): the widths follow the x86 modules' measured
//! rules; the estimate is in the crate README ("NEON: expected cost"), why in `DECISIONS.md`.

use core::arch::aarch64::{
    uint8x16_t, uint32x4_t, vaddq_u32, vdupq_n_u32, veorq_u8, veorq_u32, vextq_u32, vld1q_u8, vld1q_u32,
    vqtbl1q_u8, vreinterpretq_u8_u32, vreinterpretq_u16_u32, vreinterpretq_u32_u8, vreinterpretq_u32_u16,
    vreinterpretq_u32_u64, vreinterpretq_u64_u32, vrev32q_u16, vshlq_n_u32, vsriq_n_u32, vst1q_u8,
    vzip1q_u32, vzip1q_u64, vzip2q_u32, vzip2q_u64,
};

use chacha_core::{
    AeadDirection, BLOCK_LEN, Block, CONSTANTS, Ietf, Kernel, Rounds, State, Variant, XorBuf,
    poly1305::{Accumulator, MacBlock},
};

use crate::counter::in_ietf_pieces;
use crate::cursor::{Blocks, Cursor, Span};

mod poly1305;

/// Proof that this CPU has NEON; only [`Neon::detect`] creates one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Neon(());

impl Neon {
    /// Always `Some`: this module is compiled only where NEON is in the baseline (`build.rs`).
    #[inline]
    pub fn detect() -> Option<Self> {
        Some(Neon(()))
    }
}

impl Kernel for Neon {
    #[inline]
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, buf: XorBuf<'_, '_>, tail: &mut Block) {
        in_ietf_pieces(state, buf, |state, buf| {
            // SAFETY: a Neon exists only if detect() saw NEON, the only feature xor_neon
            // enables.
            unsafe { xor_neon::<R>(state, buf, tail) }
        })
    }

    #[inline]
    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        in_ietf_pieces(state, out, |state, out| {
            // SAFETY: a Neon exists only if detect() saw NEON, the only feature fill_neon
            // enables.
            unsafe { fill_neon::<R>(state, out) }
        })
    }

    #[inline]
    fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
        // SAFETY: a Neon exists only if detect() saw NEON, the only feature hchacha_neon enables.
        unsafe { hchacha_neon::<R>(key, input) }
    }

    /// 4 word-sliced blocks take about one row chain's time (estimated: README).
    #[inline(always)]
    fn batch_blocks(self) -> usize {
        4
    }
}

/// ChaCha20-Poly1305's steps on `neon` (`chacha_core::Aead`).
impl chacha_core::Aead for Neon {
    /// 2 blocks side by side (`poly1305.rs`) from `MIN_BLOCKS` blocks on.
    #[inline]
    fn poly1305_blocks(self, acc: &mut Accumulator, blocks: &[MacBlock]) {
        if blocks.len() < poly1305::MIN_BLOCKS {
            return acc.absorb(blocks);
        }
        let (pairs, rest) = blocks.as_chunks::<2>();
        self.poly1305_pairs(acc, pairs);
        acc.absorb(rest);
    }

    /// Stitched from 512 bytes on (1.5 KiB sealing; `aead.rs`); the default pieces below.
    #[inline]
    fn xor_then_mac<R: Rounds>(self, state: &State<Ietf>, acc: &mut Accumulator, buf: XorBuf<'_, '_>) {
        self.aead::<R>(state, acc, buf, AeadDirection::Seal);
    }

    /// As [`xor_then_mac`](chacha_core::Aead::xor_then_mac).
    #[inline]
    fn mac_then_xor<R: Rounds>(self, state: &State<Ietf>, acc: &mut Accumulator, buf: XorBuf<'_, '_>) {
        self.aead::<R>(state, acc, buf, AeadDirection::Open);
    }
}

/// Which call site an instance of a kernel ([`sliced`], [`row_blocks`]) is for: each call
/// site names its own, so each instance has one caller and LLVM inlines it. A
/// `#[target_feature]` function cannot be `#[inline(always)]`, and an instance shared by two
/// callers stays out of line, its rows returned through the stack (DECISIONS.md, § neon).
type CallSite = u8;
// The call sites: `xor_neon`, `fill_neon` and the AEAD's first set when sealing (`aead.rs`).
const IN_XOR: CallSite = 0;
const IN_FILL: CallSite = 1;
const IN_AEAD: CallSite = 2;

/// One block's keystream as four rows of 16 bytes (row `r` = bytes `16r .. 16r + 16`).
type Rows = [uint32x4_t; 4];

// ---- The rounds, as macros (defined before their users).

/// Part `$part` (0–3) of one round (four quarter rounds on the word indices `$q`) on every
/// set of `$x`: `a += b; d ^= a; d <<<= 16`, then `c += d; b ^= c; b <<<= 12`, then the
/// same with 8 and 7. A part at a time, so that `aead.rs` can put Poly1305 steps between them.
macro_rules! sliced_part {
    ($x:ident, $q:expr, 0, $rot8:ident) => {
        for set in $x.iter_mut() {
            for [a, b, _, d] in $q {
                set[a] = vaddq_u32(set[a], set[b]);
                set[d] = rotl16(veorq_u32(set[d], set[a]));
            }
        }
    };
    ($x:ident, $q:expr, 1, $rot8:ident) => {
        for set in $x.iter_mut() {
            for [_, b, c, d] in $q {
                set[c] = vaddq_u32(set[c], set[d]);
                set[b] = rotl::<12, 20>(veorq_u32(set[b], set[c]));
            }
        }
    };
    ($x:ident, $q:expr, 2, $rot8:ident) => {
        for set in $x.iter_mut() {
            for [a, b, _, d] in $q {
                set[a] = vaddq_u32(set[a], set[b]);
                set[d] = rotl8(veorq_u32(set[d], set[a]), $rot8);
            }
        }
    };
    ($x:ident, $q:expr, 3, $rot8:ident) => {
        for set in $x.iter_mut() {
            for [_, b, c, d] in $q {
                set[c] = vaddq_u32(set[c], set[d]);
                set[b] = rotl::<7, 25>(veorq_u32(set[b], set[c]));
            }
        }
    };
}

/// The word indices of the column round's four quarter rounds.
const COLUMNS: [[usize; 4]; 4] = [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]];
/// The word indices of the diagonal round's four quarter rounds.
const DIAGONALS: [[usize; 4]; 4] = [[0, 5, 10, 15], [1, 6, 11, 12], [2, 7, 8, 13], [3, 4, 9, 14]];

/// One round (four quarter rounds on the word indices `$q`) on every set of `$x`, step by
/// step across all of them.
macro_rules! sliced_round {
    ($x:ident, $q:expr, $rot8:ident) => {
        sliced_part!($x, $q, 0, $rot8);
        sliced_part!($x, $q, 1, $rot8);
        sliced_part!($x, $q, 2, $rot8);
        sliced_part!($x, $q, 3, $rot8);
    };
}

/// Four quarter rounds per block, one per lane, for every block of `$x` step by step.
macro_rules! row_quarter_rounds {
    ($x:ident, $rot8:ident) => {
        for [a, b, _, d] in $x.iter_mut() {
            *a = vaddq_u32(*a, *b);
            *d = rotl16(veorq_u32(*d, *a));
        }
        for [_, b, c, d] in $x.iter_mut() {
            *c = vaddq_u32(*c, *d);
            *b = rotl::<12, 20>(veorq_u32(*b, *c));
        }
        for [a, b, _, d] in $x.iter_mut() {
            *a = vaddq_u32(*a, *b);
            *d = rotl8(veorq_u32(*d, *a), $rot8);
        }
        for [_, b, c, d] in $x.iter_mut() {
            *c = vaddq_u32(*c, *d);
            *b = rotl::<7, 25>(veorq_u32(*b, *c));
        }
    };
}

/// `$R::DOUBLE_ROUNDS` double rounds on the blocks of `$x` (an array of [`Rows`]).
macro_rules! row_rounds {
    ($R:ty, $x:ident) => {
        let rot8 = rot8_table();
        for _ in 0..<$R>::DOUBLE_ROUNDS {
            row_quarter_rounds!($x, rot8);
            // Columns to diagonals, row b in place (no `ext` on the chain); `ext(v, v, n)`
            // rotates the lanes down by n, so lane j holds (a[j-1], b[j], c[j+1], d[j+2]):
            //
            //   a = [a0 a1 a2 a3] -> ext 3 -> [a3 a0 a1 a2]
            //   b = [b0 b1 b2 b3]             [b0 b1 b2 b3]
            //   c = [c0 c1 c2 c3] -> ext 1 -> [c1 c2 c3 c0]
            //   d = [d0 d1 d2 d3] -> ext 2 -> [d2 d3 d0 d1]
            //
            // lane 1 = quarter round (0, 5, 10, 15), lane 2 = (1, 6, 11, 12), lane 3 = (2, 7, 8,
            // 13), lane 0 = (3, 4, 9, 14).
            for [a, _, c, d] in $x.iter_mut() {
                *a = vextq_u32::<3>(*a, *a);
                *c = vextq_u32::<1>(*c, *c);
                *d = vextq_u32::<2>(*d, *d);
            }
            row_quarter_rounds!($x, rot8);
            // Back to columns: the inverse rotations (ext 1 and ext 3 undo each other).
            for [a, _, c, d] in $x.iter_mut() {
                *a = vextq_u32::<1>(*a, *a);
                *c = vextq_u32::<3>(*c, *c);
                *d = vextq_u32::<2>(*d, *d);
            }
        }
    };
}

// After the rounds' macros, which it uses.
mod aead;

// ---- Entry points: the width rules.

/// Fused XOR with the widths of the module header.
// Never inlined: the module's code stays in three functions the checks find by name.
#[inline(never)]
#[target_feature(enable = "neon")]
fn xor_neon<R: Rounds>(state: &State<Ietf>, buf: XorBuf<'_, '_>, tail: &mut Block) {
    let buf = Cursor::xor(buf);
    let whole = buf.len() / BLOCK_LEN;
    // `pending`: the whole blocks not done yet; `partial`: the partial last block, if any.
    let (mut pending, partial) = buf.split_at(whole * BLOCK_LEN);
    let mut counter = state.counter();
    // One word-sliced step: its blocks XORed into `pending`, or the request finished. A
    // macro, so each width has its own kernel call, its rows never through the stack.
    macro_rules! sliced_step {
        ($ks:expr) => {{
            let ks = $ks;
            if pending.len() < ks.len() * BLOCK_LEN {
                return finish(&ks, pending, partial, tail);
            }
            let (now, later) = pending.split_at(ks.len() * BLOCK_LEN);
            // Not `xor_blocks`: one instance shared by every caller stays out of line.
            for (b, rows) in ks.iter().enumerate() {
                // `now` is `ks.len()` whole blocks: the check folds away.
                xor_block(now.blocks_at::<1>(b).expect("a whole block"), rows);
            }
            pending = later;
            counter = counter.wrapping_add(ks.len() as u64);
        }};
    }
    loop {
        match pending.len() / BLOCK_LEN + usize::from(!partial.is_empty()) {
            0 => return,
            1 => return finish(&row_blocks::<R, 1, IN_XOR>(state, counter), pending, partial, tail),
            2 => return finish(&row_blocks::<R, 2, IN_XOR>(state, counter), pending, partial, tail),
            3 => return finish(&row_blocks::<R, 3, IN_XOR>(state, counter), pending, partial, tail),
            4..8 => sliced_step!(sliced::<R, 1, 4, IN_XOR>(state, counter)),
            _ => sliced_step!(sliced::<R, 2, 8, IN_XOR>(state, counter)),
        }
    }
}

/// Raw keystream: the same widths as [`xor_neon`].
// Never inlined: see `xor_neon`.
#[inline(never)]
#[target_feature(enable = "neon")]
fn fill_neon<R: Rounds>(state: &State<Ietf>, out: &mut [Block]) {
    let mut counter = state.counter();
    let mut rest = out;
    loop {
        match rest.len() {
            0 => return,
            1 => return store_blocks(rest, &row_blocks::<R, 1, IN_FILL>(state, counter)),
            2 => return store_blocks(rest, &row_blocks::<R, 2, IN_FILL>(state, counter)),
            3 => return store_blocks(rest, &row_blocks::<R, 3, IN_FILL>(state, counter)),
            4..8 => {
                let (now, later) = rest.split_at_mut(4);
                store_blocks(now, &sliced::<R, 1, 4, IN_FILL>(state, counter));
                rest = later;
                counter = counter.wrapping_add(4);
            }
            _ => {
                let (now, later) = rest.split_at_mut(8);
                store_blocks(now, &sliced::<R, 2, 8, IN_FILL>(state, counter));
                rest = later;
                counter = counter.wrapping_add(8);
            }
        }
    }
}

/// HChaCha: the 1-block row kernel without the final addition; the subkey is rows 0 and 3.
// Never inlined: see `xor_neon`.
#[inline(never)]
#[target_feature(enable = "neon")]
fn hchacha_neon<R: Rounds>(key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
    let le = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let mut w = [0u32; 16];
    w[..4].copy_from_slice(&CONSTANTS);
    for (word, bytes) in w[4..].iter_mut().zip(key.chunks_exact(4).chain(input.chunks_exact(4))) {
        *word = le(bytes);
    }
    let mut x = [rows_of(&w)];
    row_rounds!(R, x);
    subkey(&x[0])
}

// ---- Word-sliced kernel: G sets of 4 blocks, one state word of 4 blocks per register.

/// The keystream of blocks `counter .. counter + B` (`B` = 4·`G`) in rows, from `G`
/// word-sliced sets: lane `l` of `x[g][i]` is word `i` of block `counter + 4g + l`.
///
/// The rounds step across all `4·G` chains (`G` = 2 spills a few words: still better than
/// one set waiting on 2-cycle chains). `INSTANCE_FOR`: the call site ([`CallSite`]).
#[inline]
#[target_feature(enable = "neon")]
fn sliced<R: Rounds, const G: usize, const B: usize, const INSTANCE_FOR: CallSite>(
    state: &State<Ietf>,
    counter: u64,
) -> [Rows; B] {
    let input = sliced_words::<G>(state, counter);
    let mut x = input;
    let rot8 = rot8_table();
    for _ in 0..R::DOUBLE_ROUNDS {
        sliced_round!(x, COLUMNS, rot8);
        sliced_round!(x, DIAGONALS, rot8);
    }
    sliced_rows::<G, B>(x, &input)
}

/// The input words of `G` word-sliced sets from block `counter` (as [`sliced`] lays them).
#[inline]
#[target_feature(enable = "neon")]
fn sliced_words<const G: usize>(state: &State<Ietf>, counter: u64) -> [[uint32x4_t; 16]; G] {
    let w = state.words();
    let lane = |b: u64| counter.wrapping_add(b);
    let mut x = [[vdupq_n_u32(0); 16]; G];
    for (g, set) in x.iter_mut().enumerate() {
        for (v, &word) in set.iter_mut().zip(w) {
            *v = vdupq_n_u32(word);
        }
        let base = 4 * g as u64;
        let c = [lane(base), lane(base + 1), lane(base + 2), lane(base + 3)];
        set[12] = from_words(c.map(|c| c as u32));
    }
    x
}

/// The rounds' words `x` plus the `input` words, in rows (`B` = 4·`G` blocks).
#[inline]
#[target_feature(enable = "neon")]
fn sliced_rows<const G: usize, const B: usize>(
    mut x: [[uint32x4_t; 16]; G],
    input: &[[uint32x4_t; 16]; G],
) -> [Rows; B] {
    const { assert!(B == 4 * G) };
    let mut out = [[vdupq_n_u32(0); 4]; B];
    for (g, (set, inp)) in x.iter_mut().zip(input).enumerate() {
        for (v, &i) in set.iter_mut().zip(inp) {
            *v = vaddq_u32(*v, i);
        }
        for (b, rows) in transpose(set).into_iter().enumerate() {
            out[4 * g + b] = rows;
        }
    }
    out
}

/// Word-sliced words to rows: `out[b][r]` = row `r` (words `4r .. 4r + 4`) of block `b`.
#[inline]
#[target_feature(enable = "neon")]
fn transpose(x: &[uint32x4_t; 16]) -> [Rows; 4] {
    let mut out = [[vdupq_n_u32(0); 4]; 4];
    for r in 0..4 {
        let [w0, w1, w2, w3] = [x[4 * r], x[4 * r + 1], x[4 * r + 2], x[4 * r + 3]];
        // A 4×4 transpose of 32-bit lanes, as `sse2`'s (lane diagram there): `zip1`/`zip2`
        // of 32-bit lanes (its `unpacklo`/`unpackhi_epi32`), then of 64-bit lanes.
        let t0 = vreinterpretq_u64_u32(vzip1q_u32(w0, w1));
        let t1 = vreinterpretq_u64_u32(vzip1q_u32(w2, w3));
        let t2 = vreinterpretq_u64_u32(vzip2q_u32(w0, w1));
        let t3 = vreinterpretq_u64_u32(vzip2q_u32(w2, w3));
        out[0][r] = vreinterpretq_u32_u64(vzip1q_u64(t0, t1));
        out[1][r] = vreinterpretq_u32_u64(vzip2q_u64(t0, t1));
        out[2][r] = vreinterpretq_u32_u64(vzip1q_u64(t2, t3));
        out[3][r] = vreinterpretq_u32_u64(vzip2q_u64(t2, t3));
    }
    out
}

// ---- Row kernel: one block per 4 registers (one row each), N blocks interleaved.

/// The keystream of blocks `counter .. counter + N` in row layout, N chains interleaved.
/// `INSTANCE_FOR`: the call site ([`CallSite`]).
#[inline]
#[target_feature(enable = "neon")]
fn row_blocks<R: Rounds, const N: usize, const INSTANCE_FOR: CallSite>(
    state: &State<Ietf>,
    counter: u64,
) -> [Rows; N] {
    let mut input = [[vdupq_n_u32(0); 4]; N];
    for (k, rows) in input.iter_mut().enumerate() {
        *rows = rows_of(&state.words_at(counter.wrapping_add(k as u64)));
    }
    let mut x = input;
    row_rounds!(R, x);
    for (rows, input) in x.iter_mut().zip(&input) {
        for (v, &i) in rows.iter_mut().zip(input) {
            *v = vaddq_u32(*v, i);
        }
    }
    x
}

/// The four rows of a block's 16 words.
#[inline]
#[target_feature(enable = "neon")]
fn rows_of(w: &[u32; 16]) -> Rows {
    let row = |r: usize| from_words([w[4 * r], w[4 * r + 1], w[4 * r + 2], w[4 * r + 3]]);
    [row(0), row(1), row(2), row(3)]
}

// ---- Rotations: NEON has no vector rotate.

/// Each 32-bit lane rotated left by 16: its two 16-bit halves swapped (`rev32.8h`).
///
/// ```text
///   16-bit halves  [h0 h1 | h2 h3 | h4 h5 | h6 h7]   (lane = hN hN+1, low half first)
///   rev32.8h       [h1 h0 | h3 h2 | h5 h4 | h7 h6]
/// ```
#[inline]
#[target_feature(enable = "neon")]
fn rotl16(x: uint32x4_t) -> uint32x4_t {
    vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(x)))
}

/// The byte permutation of [`rotl8`] (little-endian lanes):
///
/// ```text
///   lane bytes  [b0 b1 b2 b3]   (b0 least significant)
///   tbl ROT8    [b3 b0 b1 b2]   = lane << 8 | lane >> 24
/// ```
const ROT8: [u8; 16] = [3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14];

/// [`ROT8`] in a register, loaded once per kernel call and kept across the rounds.
#[inline]
#[target_feature(enable = "neon")]
fn rot8_table() -> uint8x16_t {
    // SAFETY: ROT8 is 16 readable bytes; `ld1` has no alignment requirement.
    unsafe { vld1q_u8(ROT8.as_ptr()) }
}

/// Each 32-bit lane rotated left by 8: one `tbl` with [`ROT8`].
#[inline]
#[target_feature(enable = "neon")]
fn rotl8(x: uint32x4_t, rot8: uint8x16_t) -> uint32x4_t {
    vreinterpretq_u32_u8(vqtbl1q_u8(vreinterpretq_u8_u32(x), rot8))
}

/// Each 32-bit lane rotated left by `L` (`R` = 32 − `L`): `shl`, then `sri` inserts the top bits.
#[inline]
#[target_feature(enable = "neon")]
fn rotl<const L: i32, const R: i32>(x: uint32x4_t) -> uint32x4_t {
    const { assert!(L + R == 32) };
    vsriq_n_u32::<R>(vshlq_n_u32::<L>(x), x)
}

// ---- Memory: every pointer load and store of the module.

// The output helpers (`finish`, `xor_blocks`, `store_blocks`, ...) on `xor16`, `store16`.
super::rows128::rows128!(#[inline] #[target_feature(enable = "neon")]);

/// Four words in lanes 0..4 (lane 0 = `w[0]`).
#[inline]
#[target_feature(enable = "neon")]
fn from_words(w: [u32; 4]) -> uint32x4_t {
    // SAFETY: `w` is 4 readable u32s; `ld1 {.4s}` loads them element by element.
    unsafe { vld1q_u32(w.as_ptr()) }
}

/// The span's output = its input ^ `ks`, unaligned; reads all 16 bytes before writing any.
#[inline]
#[target_feature(enable = "neon")]
fn xor16(s: Span<'_, 16>, ks: uint32x4_t) {
    // SAFETY: a `Span<16>`: 16 readable bytes; `ld1` has no alignment need.
    let data = unsafe { vld1q_u8(s.inp()) };
    let sum = veorq_u8(data, vreinterpretq_u8_u32(ks));
    // SAFETY: and 16 writable bytes, read in full above.
    unsafe { vst1q_u8(s.out(), sum) };
}

/// Stores a row's 16 bytes (its little-endian serialisation on this target), unaligned.
#[inline]
#[target_feature(enable = "neon")]
fn store16(out: &mut [u8; 16], v: uint32x4_t) {
    let bytes = vreinterpretq_u8_u32(v);
    // SAFETY: `out` is a unique reference to 16 bytes; `st1` has no alignment need.
    unsafe { vst1q_u8(out.as_mut_ptr(), bytes) };
}
