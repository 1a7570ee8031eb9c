//! 1 to 6 blocks in row layout: a block's rows a, b, c, d (words 0–3, 4–7, 8–11, 12–15)
//! in four registers. 2, 4 and 6 blocks: one `__m256i` per row of two blocks, block 2k in
//! the low lane and 2k+1 in the high lane, one to three chains interleaved; 1 block (and
//! `hchacha`): one `__m128i` per row.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use chacha_core::{Block, CONSTANTS, Ietf, Rounds, State};

use super::{Dest, Masks, load_16, load_row, store_32, xor_partial};
use crate::cursor::{Cursor, Tail};

/// A quarter round on whole rows (four columns at once, in each 128-bit lane), in `ymm`
/// (two blocks a register, `rotl256!`) or in `xmm` (one block, `rotl128!`).
macro_rules! qr_rows {
    (ymm; $a:ident, $b:ident, $c:ident, $d:ident, $m:expr) => {
        qr_rows!(@ $a, $b, $c, $d, $m; _mm256_add_epi32, _mm256_xor_si256, rotl256)
    };
    (xmm; $a:ident, $b:ident, $c:ident, $d:ident, $m:expr) => {
        qr_rows!(@ $a, $b, $c, $d, $m; _mm_add_epi32, _mm_xor_si128, rotl128)
    };
    (@ $a:ident, $b:ident, $c:ident, $d:ident, $m:expr; $add:ident, $xor:ident, $rotl:ident) => {
        $a = $add($a, $b);
        $d = $rotl!($xor($d, $a), 16, $m);
        $c = $add($c, $d);
        $b = $rotl!($xor($b, $c), 12, $m);
        $a = $add($a, $b);
        $d = $rotl!($xor($d, $a), 8, $m);
        $c = $add($c, $d);
        $b = $rotl!($xor($b, $c), 7, $m);
    };
}

/// From columns to diagonals, row b in place (no shuffle on the chain):
///
/// ```text
///   lane:        0   1   2   3
///   a          a3  a0  a1  a2    (_MM_SHUFFLE(2,1,0,3) = 0x93: rotated right by one)
///   b          b0  b1  b2  b3    (in place)
///   c          c1  c2  c3  c0    (0x39: left by one)
///   d          d2  d3  d0  d1    (0x4E: by two)
/// ```
///
/// so lane `j` holds `a[j-1] b[j] c[j+1] d[j+2]`: the diagonal `(i, i+1, i+2, i+3)` for
/// `i = j - 1`, which is what the diagonal round needs. `to_columns` undoes it. In each
/// 128-bit lane of a `ymm`, or in an `xmm`.
macro_rules! to_diagonals {
    (ymm; $a:ident, $c:ident, $d:ident) => {
        to_diagonals!(@ $a, $c, $d; _mm256_shuffle_epi32)
    };
    (xmm; $a:ident, $c:ident, $d:ident) => {
        to_diagonals!(@ $a, $c, $d; _mm_shuffle_epi32)
    };
    (@ $a:ident, $c:ident, $d:ident; $shuffle:ident) => {
        $a = $shuffle($a, 0x93);
        $c = $shuffle($c, 0x39);
        $d = $shuffle($d, 0x4E);
    };
}

macro_rules! to_columns {
    (ymm; $a:ident, $c:ident, $d:ident) => {
        to_columns!(@ $a, $c, $d; _mm256_shuffle_epi32)
    };
    (xmm; $a:ident, $c:ident, $d:ident) => {
        to_columns!(@ $a, $c, $d; _mm_shuffle_epi32)
    };
    (@ $a:ident, $c:ident, $d:ident; $shuffle:ident) => {
        $a = $shuffle($a, 0x39);
        $c = $shuffle($c, 0x93);
        $d = $shuffle($d, 0x4E);
    };
}

/// Row d of the block with counter `counter`: the counter from the register, the nonce
/// words from `w` (see `rows1` for why word 12 is never loaded).
#[inline(always)]
fn row_d(w: &[u32; 16], counter: u64) -> [u32; 4] {
    [counter as u32, w[13], w[14], w[15]]
}

/// The four rows of two blocks (counter, counter + 1) of `w`.
#[target_feature(enable = "avx2")]
#[inline]
fn input_rows2(w: &[u32; 16], counter: u64) -> [__m256i; 4] {
    let row = |i: usize| {
        let r = _mm_setr_epi32(w[i] as i32, w[i + 1] as i32, w[i + 2] as i32, w[i + 3] as i32);
        _mm256_broadcastsi128_si256(r)
    };
    let d = row_d(w, counter);
    let d = _mm256_broadcastsi128_si256(_mm_setr_epi32(d[0] as i32, d[1] as i32, d[2] as i32, d[3] as i32));
    // The high lane's block is one further.
    let d = _mm256_add_epi32(d, _mm256_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0));
    [row(0), row(4), row(8), d]
}

/// Adds `n` to the block counter of both lanes of a row-layout `d` row.
#[target_feature(enable = "avx2")]
#[inline]
fn add_counter256(d: __m256i, n: i32) -> __m256i {
    _mm256_add_epi32(d, _mm256_setr_epi32(n, 0, 0, 0, n, 0, 0, 0))
}

/// Writes the two blocks of a row-layout state (after the feed-forward), the high lane's
/// block only if `both`.
#[target_feature(enable = "avx2")]
#[inline]
fn put_rows<const XOR: bool>(d: Dest<'_, XOR>, base: usize, r: [__m256i; 4], both: bool) {
    let lo = _mm256_permute2x128_si256(r[0], r[1], 0x20);
    let hi = _mm256_permute2x128_si256(r[2], r[3], 0x20);
    d.put_at(base, lo, hi);
    if both {
        let lo = _mm256_permute2x128_si256(r[0], r[1], 0x31);
        let hi = _mm256_permute2x128_si256(r[2], r[3], 0x31);
        d.put_at(base + 1, lo, hi);
    }
}

/// A kernel of `2·C` blocks from `base` on in `C` row chains, interleaved step by step:
/// each chain `(input, a, b, c, d)`, the first and then those `at k`, holds blocks
/// `base + 2k`, `base + 2k + 1`. All `2·C` are computed; the last chain's second block is
/// written only if `n` (`2·C − 1` or `2·C`) says so.
macro_rules! rows_kernel {
    (
        $(#[$doc:meta])* $name:ident: ($i0:ident, $a0:ident, $b0:ident, $c0:ident, $d0:ident)
        $(, ($i:ident, $a:ident, $b:ident, $c:ident, $d:ident) at $k:literal)*
    ) => {
        $(#[$doc])*
        #[target_feature(enable = "avx2")]
        #[inline]
        pub(super) fn $name<R: Rounds, const XOR: bool>(
            w: &[u32; 16],
            counter: u64,
            d: Dest<'_, XOR>,
            base: usize,
            n: usize,
            m: Masks,
        ) {
            const CHAINS: usize = 1 + <[usize]>::len(&[$($k),*]);
            let $i0 = input_rows2(w, counter);
            $( let $i = [$i0[0], $i0[1], $i0[2], add_counter256($i0[3], 2 * $k)]; )*
            let [mut $a0, mut $b0, mut $c0, mut $d0] = $i0;
            $( let [mut $a, mut $b, mut $c, mut $d] = $i; )*
            for _ in 0..R::DOUBLE_ROUNDS {
                qr_rows!(ymm; $a0, $b0, $c0, $d0, m);
                $( qr_rows!(ymm; $a, $b, $c, $d, m); )*
                to_diagonals!(ymm; $a0, $c0, $d0);
                $( to_diagonals!(ymm; $a, $c, $d); )*
                qr_rows!(ymm; $a0, $b0, $c0, $d0, m);
                $( qr_rows!(ymm; $a, $b, $c, $d, m); )*
                to_columns!(ymm; $a0, $c0, $d0);
                $( to_columns!(ymm; $a, $c, $d); )*
            }
            let add = |r: [__m256i; 4], i: [__m256i; 4]| -> [__m256i; 4] {
                core::array::from_fn(|k| _mm256_add_epi32(r[k], i[k]))
            };
            put_rows::<XOR>(d, base, add([$a0, $b0, $c0, $d0], $i0), CHAINS > 1 || n == 2);
            $( put_rows::<XOR>(d, base + 2 * $k, add([$a, $b, $c, $d], $i), $k + 1 < CHAINS || n == 2 * CHAINS); )*
        }
    };
}

rows_kernel!(
    /// Blocks `base`, `base + 1`: one chain of rows.
    rows2: (i0, a0, b0, c0, d0)
);
rows_kernel!(
    /// Blocks `base .. base + n` (`n` is 3 or 4): two chains of rows.
    rows4: (i0, a0, b0, c0, d0), (i1, a1, b1, c1, d1) at 1
);
rows_kernel!(
    /// Blocks `base .. base + n` (`n` is 5 or 6): three chains of rows.
    rows6: (i0, a0, b0, c0, d0), (i1, a1, b1, c1, d1) at 1, (i2, a2, b2, c2, d2) at 2
);

// ---- 1 block.

macro_rules! rotl128 {
    ($v:expr, 16, $m:expr) => {
        _mm_shuffle_epi8($v, $m.0)
    };
    ($v:expr, 8, $m:expr) => {
        _mm_shuffle_epi8($v, $m.1)
    };
    ($v:expr, $n:literal, $m:expr) => {{
        let v = $v;
        _mm_or_si128(_mm_slli_epi32(v, $n), _mm_srli_epi32(v, 32 - $n))
    }};
}

/// The rounds of one block in `__m128i` rows (`$rows`: the four input rows). A macro: as an
/// `#[inline]` function it stayed out of line in one instance, its rows through the stack.
macro_rules! rounds1_xmm {
    ($r:ty, $rows:expr) => {{
        let m = Masks::new();
        let m = (_mm256_castsi256_si128(m.r16), _mm256_castsi256_si128(m.r8));
        let [mut a, mut b, mut c, mut d] = $rows;
        for _ in 0..<$r>::DOUBLE_ROUNDS {
            qr_rows!(xmm; a, b, c, d, m);
            to_diagonals!(xmm; a, c, d);
            qr_rows!(xmm; a, b, c, d, m);
            to_columns!(xmm; a, c, d);
        }
        [a, b, c, d]
    }};
}

/// Block `base` with `$r` rounds: [`rows1`]'s body, a macro so that the one-block entry
/// point holds it inline for every round count. As a function, ChaCha8's and ChaCha12's
/// (their round loops unrolled whole) stayed out of line there: a call, and the `Dest`
/// through memory.
macro_rules! rows1_inline {
    ($r:ty, $w:expr, $counter:expr, $d:expr, $base:expr) => {{
        let (w, counter): (&[u32; 16], u64) = ($w, $counter);
        // Row d from the counter register and the nonce words: a wider load spanning the
        // counter's recent 4-byte store cannot be store-forwarded (DECISIONS.md, § Shared by
        // the x86 backends).
        let [a, b, c] = core::array::from_fn(|r| load_row(w, r));
        let [d0, d1, d2, d3] = row_d(w, counter);
        let dd = _mm_setr_epi32(d0 as i32, d1 as i32, d2 as i32, d3 as i32);
        let [ra, rb, rc, rd] = rounds1_xmm!($r, [a, b, c, dd]);
        let (lo, hi) = (
            _mm256_set_m128i(_mm_add_epi32(rb, b), _mm_add_epi32(ra, a)),
            _mm256_set_m128i(_mm_add_epi32(rd, dd), _mm_add_epi32(rc, c)),
        );
        $d.put_at($base, lo, hi);
    }};
}
/// Block `base`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn rows1<R: Rounds, const XOR: bool>(w: &[u32; 16], counter: u64, d: Dest<'_, XOR>, base: usize) {
    rows1_inline!(R, w, counter, d, base)
}

/// A request of 1–64 bytes: [`rows1`]'s body alone, without the frame of
/// [`xor_avx2`](super::xor_avx2) (register saves and spills for the 8-block loop).
/// `counter` comes from the caller: read here, LLVM joined it with the nonce words into a
/// 16-byte load that cannot be store-forwarded from the counter's 4-byte store
/// (DECISIONS.md, § Shared by the x86 backends).
/// # Safety
/// As [`xor_avx2`](super::xor_avx2).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn xor_avx2_one_block<R: Rounds>(
    state: &State<Ietf>,
    counter: u64,
    inp: *const u8,
    out: *mut u8,
    len: usize,
    tail: &mut Block,
) {
    // SAFETY: the caller's guarantee.
    let cur = unsafe { Cursor::<true>::from_parts(inp, out, len) };
    // Block 0 is the whole block or the partial one.
    rows1_inline!(R, state.words(), counter, Dest { cur, tail: Tail::new(tail) }, 0);
    if let Some(p) = cur.partial() {
        xor_partial(p, tail);
    }
}

#[target_feature(enable = "avx2")]
pub(super) fn hchacha_avx2<R: Rounds>(key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
    // Little-endian bytes are the words on x86: the rows load straight from the inputs.
    let a =
        _mm_setr_epi32(CONSTANTS[0] as i32, CONSTANTS[1] as i32, CONSTANTS[2] as i32, CONSTANTS[3] as i32);
    let [b, c] = key.as_chunks::<16>().0 else { unreachable!("32 bytes are two halves") };
    let (b, c, d) = (load_16(b), load_16(c), load_16(input));
    let r = rounds1_xmm!(R, [a, b, c, d]);
    let words = _mm256_set_m128i(r[3], r[0]);
    let mut out = [0u8; 32];
    store_32(&mut out, words);
    out
}
