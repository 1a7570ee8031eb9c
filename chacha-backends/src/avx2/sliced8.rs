//! 8 blocks, word-sliced: `x[i]` holds word `i` of the 8 blocks, block `j` in lane `j`
//! (the module header of `avx2`: the register plan and why).

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use chacha_core::{Ietf, Rounds, Variant};

use super::{Blocks, Dest, Masks};

/// Two quarter rounds of the word-sliced state, step by step side by side.
#[cfg(not(target_arch = "x86_64"))]
macro_rules! qr8x2 {
    ($x:ident, $m:expr, [$a0:literal, $b0:literal, $c0:literal, $d0:literal], [$a1:literal, $b1:literal, $c1:literal, $d1:literal]) => {
        $x[$a0] = _mm256_add_epi32($x[$a0], $x[$b0]);
        $x[$a1] = _mm256_add_epi32($x[$a1], $x[$b1]);
        $x[$d0] = rotl256!(_mm256_xor_si256($x[$d0], $x[$a0]), 16, $m);
        $x[$d1] = rotl256!(_mm256_xor_si256($x[$d1], $x[$a1]), 16, $m);
        $x[$c0] = _mm256_add_epi32($x[$c0], $x[$d0]);
        $x[$c1] = _mm256_add_epi32($x[$c1], $x[$d1]);
        $x[$b0] = rotl256!(_mm256_xor_si256($x[$b0], $x[$c0]), 12, $m);
        $x[$b1] = rotl256!(_mm256_xor_si256($x[$b1], $x[$c1]), 12, $m);
        $x[$a0] = _mm256_add_epi32($x[$a0], $x[$b0]);
        $x[$a1] = _mm256_add_epi32($x[$a1], $x[$b1]);
        $x[$d0] = rotl256!(_mm256_xor_si256($x[$d0], $x[$a0]), 8, $m);
        $x[$d1] = rotl256!(_mm256_xor_si256($x[$d1], $x[$a1]), 8, $m);
        $x[$c0] = _mm256_add_epi32($x[$c0], $x[$d0]);
        $x[$c1] = _mm256_add_epi32($x[$c1], $x[$d1]);
        $x[$b0] = rotl256!(_mm256_xor_si256($x[$b0], $x[$c0]), 7, $m);
        $x[$b1] = rotl256!(_mm256_xor_si256($x[$b1], $x[$c1]), 7, $m);
    };
}

/// The rounds of the word-sliced state, in intrinsics: the fallback for 32-bit x86 (8
/// `ymm` registers, so it spills whatever the order).
#[cfg(not(target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
#[inline]
fn rounds8(x: &mut [__m256i; 16], m: Masks, double_rounds: usize) {
    for _ in 0..double_rounds {
        qr8x2!(x, m, [0, 4, 8, 12], [1, 5, 9, 13]);
        qr8x2!(x, m, [2, 6, 10, 14], [3, 7, 11, 15]);
        qr8x2!(x, m, [0, 5, 10, 15], [1, 6, 11, 12]);
        qr8x2!(x, m, [2, 7, 8, 13], [3, 4, 9, 14]);
    }
}

/// Two quarter rounds side by side in `asm!`; the `vpshufb` masks are memory operands at
/// `{s} + 128` (rotate by 16) and `{s} + 160` (by 8). After `;`, eight bracketed pieces of
/// text to put after the eight steps, one each (`aead.rs` puts a Poly1305 block step there).
#[cfg(target_arch = "x86_64")]
#[rustfmt::skip]
macro_rules! qr8x2_asm {
    ($a0:literal, $b0:literal, $c0:literal, $d0:literal, $a1:literal, $b1:literal, $c1:literal, $d1:literal $(; [])?) => {
        qr8x2_asm!($a0, $b0, $c0, $d0, $a1, $b1, $c1, $d1; [""], [""], [""], [""], [""], [""], [""], [""])
    };
    ($a0:literal, $b0:literal, $c0:literal, $d0:literal, $a1:literal, $b1:literal, $c1:literal, $d1:literal;
     [$($p0:tt)*], [$($p1:tt)*], [$($p2:tt)*], [$($p3:tt)*], [$($p4:tt)*], [$($p5:tt)*], [$($p6:tt)*], [$($p7:tt)*]) => {
        concat!(
            qr8x2_asm!(@add_xor $a0, $b0, $d0, $a1, $b1, $d1), $($p0)*,
            qr8x2_asm!(@rotate_by_mask $d0, $d1, 128), $($p1)*,
            qr8x2_asm!(@add_xor $c0, $d0, $b0, $c1, $d1, $b1), $($p2)*,
            qr8x2_asm!(@rotate_by_shifts $b0, $b1, 12, 20), $($p3)*,
            qr8x2_asm!(@add_xor $a0, $b0, $d0, $a1, $b1, $d1), $($p4)*,
            qr8x2_asm!(@rotate_by_mask $d0, $d1, 160), $($p5)*,
            qr8x2_asm!(@add_xor $c0, $d0, $b0, $c1, $d1, $b1), $($p6)*,
            qr8x2_asm!(@rotate_by_shifts $b0, $b1, 7, 25), $($p7)*,
        )
    };
    // `x += y; z ^= x` in both quarter rounds.
    (@add_xor $x0:literal, $y0:literal, $z0:literal, $x1:literal, $y1:literal, $z1:literal) => {
        concat!(
            "vpaddd ", $x0, ", ", $x0, ", ", $y0, "\n",
            "vpaddd ", $x1, ", ", $x1, ", ", $y1, "\n",
            "vpxor ", $z0, ", ", $z0, ", ", $x0, "\n",
            "vpxor ", $z1, ", ", $z1, ", ", $x1, "\n",
        )
    };
    // Rotate both by 16 or 8: the byte shuffle at `{s} + $at`.
    (@rotate_by_mask $v0:literal, $v1:literal, $at:literal) => {
        concat!(
            "vpshufb ", $v0, ", ", $v0, ", ymmword ptr [{s} + ", $at, "]\n",
            "vpshufb ", $v1, ", ", $v1, ", ymmword ptr [{s} + ", $at, "]\n",
        )
    };
    // Rotate both left by `$l` (12 or 7; `$r` = 32 - `$l`): two shifts and an or, through
    // the temporaries `ymm10`/`ymm11`.
    (@rotate_by_shifts $v0:literal, $v1:literal, $l:literal, $r:literal) => {
        concat!(
            "vpslld ymm10, ", $v0, ", ", $l, "\n",
            "vpslld ymm11, ", $v1, ", ", $l, "\n",
            "vpsrld ", $v0, ", ", $v0, ", ", $r, "\n",
            "vpsrld ", $v1, ", ", $v1, ", ", $r, "\n",
            "vpor ", $v0, ", ", $v0, ", ymm10\n",
            "vpor ", $v1, ", ", $v1, ", ymm11\n",
        )
    };
}

/// One double round of [`rounds8`], on its register plan and with its `c` word swaps; each
/// quarter-round pair is `$pair!(its registers; its slot)`: [`qr8x2_asm!`] and `[]` for the
/// rounds alone, `aead.rs` its macro and a Poly1305 block.
#[cfg(target_arch = "x86_64")]
#[rustfmt::skip]
macro_rules! double_round8_asm {
    ($pair:ident; $s0:tt, $s1:tt, $s2:tt, $s3:tt) => {
        concat!(
            $pair!("ymm0", "ymm4", "ymm8", "ymm12", "ymm1", "ymm5", "ymm9", "ymm13"; $s0),
            "vmovdqa ymmword ptr [{s}], ymm8\n",
            "vmovdqa ymmword ptr [{s} + 32], ymm9\n",
            "vmovdqa ymm8, ymmword ptr [{s} + 64]\n",
            "vmovdqa ymm9, ymmword ptr [{s} + 96]\n",
            $pair!("ymm2", "ymm6", "ymm8", "ymm14", "ymm3", "ymm7", "ymm9", "ymm15"; $s1),
            $pair!("ymm0", "ymm5", "ymm8", "ymm15", "ymm1", "ymm6", "ymm9", "ymm12"; $s2),
            "vmovdqa ymmword ptr [{s} + 64], ymm8\n",
            "vmovdqa ymmword ptr [{s} + 96], ymm9\n",
            "vmovdqa ymm8, ymmword ptr [{s}]\n",
            "vmovdqa ymm9, ymmword ptr [{s} + 32]\n",
            $pair!("ymm2", "ymm7", "ymm8", "ymm13", "ymm3", "ymm4", "ymm9", "ymm14"; $s3),
        )
    };
}

/// The rounds, on OpenSSL's register plan: words 0–7 and 12–15 in `ymm0`–`ymm7` and
/// `ymm12`–`ymm15`, two `c` words in `ymm8`/`ymm9` and two in memory, temporaries in
/// `ymm10`/`ymm11`.
///
/// ```text
///   column round: (0,4,8,12) (1,5,9,13)   | c8,c9 out, c10,c11 in |  (2,6,10,14) (3,7,11,15)
///   diagonal:     (0,5,10,15) (1,6,11,12) | c10,c11 out, c8,c9 in |  (2,7,8,13) (3,4,9,14)
/// ```
///
/// One swap of two `c` words per round, in its middle; a reloaded word was stored half a
/// round earlier, so the reload is off the chain. No other spill.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn rounds8(x: &mut [__m256i; 16], m: Masks, double_rounds: usize) {
    /// `c` words 8–11 (those not in registers), then the rotate-by-16 and -by-8 masks.
    #[repr(C, align(32))]
    struct Scratch([__m256i; 6]);
    let mut s = Scratch([x[8], x[9], x[10], x[11], m.r16, m.r8]);
    let [x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, _, _, x12, x13, x14, x15] = x;
    // SAFETY: the asm reads and writes only the named registers, the flags and `s`
    // (through `{s}`: 192 bytes, 32-aligned for `vmovdqa`).
    unsafe {
        core::arch::asm!(
            "2:",
            double_round8_asm!(qr8x2_asm; [], [], [], []),
            "dec {n}",
            "jnz 2b",
            s = in(reg) &mut s,
            n = inout(reg) double_rounds => _,
            inout("ymm0") *x0, inout("ymm1") *x1, inout("ymm2") *x2, inout("ymm3") *x3,
            inout("ymm4") *x4, inout("ymm5") *x5, inout("ymm6") *x6, inout("ymm7") *x7,
            inout("ymm8") *x8, inout("ymm9") *x9, out("ymm10") _, out("ymm11") _,
            inout("ymm12") *x12, inout("ymm13") *x13, inout("ymm14") *x14, inout("ymm15") *x15,
            options(nostack),
        );
    }
    x[10] = s.0[2];
    x[11] = s.0[3];
}

/// The input words of 8 consecutive blocks, word-sliced. The RFC 8439 layout only (a
/// compile-time check): `V` names it for `aead.rs`'s calls.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn words8<V: Variant>(w: &[u32; 16], counter: u64) -> [__m256i; 16] {
    const { assert!(V::COUNTER_WORDS == 1, "the kernels take the Ietf layout: see crate::counter") };
    let mut x = [_mm256_setzero_si256(); 16];
    for i in 0..16 {
        x[i] = _mm256_set1_epi32(w[i] as i32);
    }
    x[12] = counters8(counter);
    x
}

/// Word 12 (the counter's low half) of the 8 blocks from `counter`.
#[target_feature(enable = "avx2")]
#[inline]
fn counters8(counter: u64) -> __m256i {
    _mm256_add_epi32(_mm256_set1_epi32(counter as u32 as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
}

/// Blocks `base .. base + n` (`n <= 8`) from counter `counter`: 8 computed, `n` written.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn sliced8<R: Rounds, const XOR: bool>(
    w: &[u32; 16],
    counter: u64,
    d: Dest<'_, XOR>,
    base: usize,
    n: usize,
    m: Masks,
) {
    let mut x = words8::<Ietf>(w, counter);
    let input = x;
    rounds8(&mut x, m, R::DOUBLE_ROUNDS);
    for i in 0..16 {
        x[i] = _mm256_add_epi32(x[i], input[i]);
    }
    put8::<XOR>(d, base, &x, n);
}

/// One step of word-sliced quarter rounds side by side: `p += q; r ^= p; r <<<= n` for
/// each `[p, q, r]`.
macro_rules! step8 {
    ($x:ident, $m:expr, $n:tt; $([$p:literal, $q:literal, $r:literal]),+) => {
        $( $x[$p] = _mm256_add_epi32($x[$p], $x[$q]); $x[$r] = rotl256!(_mm256_xor_si256($x[$r], $x[$p]), $n, $m); )+
    };
}

/// Feed-forward, transpose, XOR and store of the 8 whole blocks of a [`Blocks`] window, half a
/// block at a time (words 0–7 are bytes 0..32, so only half the state is in flight). A
/// macro: out of line, it stored and reloaded all 16 words (DECISIONS.md, § avx2: writing 8
/// blocks).
macro_rules! put8_whole {
    ($x:ident, $input:ident, $set:ident) => {{
        for half in 0..2 {
            // The feed-forward and the 4×4 transposes of words 8·half .. 8·half + 8.
            let i = 8 * half;
            let add = |k: usize| _mm256_add_epi32($x[i + k], $input[i + k]);
            let [t0, t1, t2, t3] = transpose4(add(0), add(1), add(2), add(3));
            let [t4, t5, t6, t7] = transpose4(add(4), add(5), add(6), add(7));
            let t = [t0, t1, t2, t3, t4, t5, t6, t7];
            for j in 0..4 {
                // Bytes 32·half .. 32·half + 32 of block j (lane 0s) and of block j + 4 (lane 1s).
                let lo = _mm256_permute2x128_si256(t[j], t[4 + j], 0x20);
                let hi = _mm256_permute2x128_si256(t[j], t[4 + j], 0x31);
                $set.put32_at(64 * j + 32 * half, lo);
                $set.put32_at(64 * (j + 4) + 32 * half, hi);
            }
        }
    }};
}

/// 8 whole blocks, the window `set` (a request with one such set; with more,
/// [`sliced8_from_head`]).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn sliced8_whole<R: Rounds, V: Variant, const XOR: bool>(
    w: &[u32; 16],
    counter: u64,
    set: Blocks<'_, XOR, 8>,
    m: Masks,
) {
    let input = words8::<V>(w, counter);
    let mut x = input;
    rounds8(&mut x, m, R::DOUBLE_ROUNDS);
    put8_whole!(x, input, set);
}

/// As [`sliced8_whole`], the first double round started from `head` (53 of its 128 vector
/// instructions, done once per call in scalar code) and `chain`, this set's
/// [`column_chain8`]; [`first_diagonal8`] does the rest. Returns the next set's chain,
/// computed here so that its 11 dependent steps overlap this set's transpose (at the start
/// of its own set they left the ports idle: DECISIONS.md, § avx512: the head); an empty
/// `asm!` keeps LLVM from sinking it past the stores.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn sliced8_from_head<R: Rounds, const XOR: bool>(
    w: &[u32; 16],
    counter: u64,
    head: &[u32; 16],
    chain: [__m256i; 4],
    set: Blocks<'_, XOR, 8>,
    m: Masks,
) -> [__m256i; 4] {
    let input = words8::<Ietf>(w, counter);
    let mut x = input;
    for i in [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15] {
        x[i] = _mm256_set1_epi32(head[i] as i32);
    }
    [x[0], x[4], x[8], x[12]] = chain;
    first_diagonal8(&mut x, m);
    let mut next = column_chain8(head, counter.wrapping_add(8), m);
    // Pinned here: see the docs above.
    schedule_barrier!(ymm_reg; next[0], next[1], next[2], next[3]);
    rounds8(&mut x, m, R::DOUBLE_ROUNDS - 1);
    put8_whole!(x, input, set);
    next
}

/// Words 0, 4, 8, 12 after the first column round's quarter round (0, 4, 8, 12) of the 8
/// blocks from `counter`, from `head` (which did its first add).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn column_chain8(head: &[u32; 16], counter: u64, m: Masks) -> [__m256i; 4] {
    let mut x = [_mm256_setzero_si256(); 16];
    for i in [0, 4, 8] {
        x[i] = _mm256_set1_epi32(head[i] as i32);
    }
    x[12] = rotl256!(_mm256_xor_si256(counters8(counter), x[0]), 16, m);
    step8!(x, m, 12; [8, 12, 4]);
    step8!(x, m, 8; [0, 4, 12]);
    step8!(x, m, 7; [8, 12, 4]);
    [x[0], x[4], x[8], x[12]]
}

/// The rest of the first double round after the head and [`column_chain8`] (what
/// `head::finish_first_double_round` does for one lane), in intrinsics: off the `asm!`.
#[target_feature(enable = "avx2")]
#[inline]
fn first_diagonal8(x: &mut [__m256i; 16], m: Masks) {
    // (1, 6, 11, 12) less its first add, (2, 7, 8, 13) less its first step,
    // (0, 5, 10, 15) and (3, 4, 9, 14) whole.
    x[12] = rotl256!(_mm256_xor_si256(x[12], x[1]), 16, m);
    step8!(x, m, 16; [0, 5, 15], [3, 4, 14]);
    step8!(x, m, 12; [10, 15, 5], [11, 12, 6], [8, 13, 7], [9, 14, 4]);
    step8!(x, m, 8; [0, 5, 15], [1, 6, 12], [2, 7, 13], [3, 4, 14]);
    step8!(x, m, 7; [10, 15, 5], [11, 12, 6], [8, 13, 7], [9, 14, 4]);
}

/// Four word-sliced words (`a`, `b`, `c`, `d`: words `4g .. 4g + 4` of 8 blocks) to the
/// blocks' 16-byte pieces, a 4×4 transpose of 32-bit words inside each 128-bit lane:
///
/// ```text
///   a = [a0 a1 a2 a3 | a4 a5 a6 a7]   (one word of blocks 0..7; b, c, d likewise)
///   unpacklo_epi32(a, b) = [a0 b0 a1 b1 | a4 b4 a5 b5]
///   unpackhi_epi32(a, b) = [a2 b2 a3 b3 | a6 b6 a7 b7]
///   unpacklo_epi64 of (a,b) and (c,d) lo = [a0 b0 c0 d0 | a4 b4 c4 d4]   blocks 0 | 4
///   ... hi / lo / hi: blocks 1 | 5, 2 | 6, 3 | 7
/// ```
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn transpose4(a: __m256i, b: __m256i, c: __m256i, d: __m256i) -> [__m256i; 4] {
    let ab_lo = _mm256_unpacklo_epi32(a, b);
    let ab_hi = _mm256_unpackhi_epi32(a, b);
    let cd_lo = _mm256_unpacklo_epi32(c, d);
    let cd_hi = _mm256_unpackhi_epi32(c, d);
    [
        _mm256_unpacklo_epi64(ab_lo, cd_lo),
        _mm256_unpackhi_epi64(ab_lo, cd_lo),
        _mm256_unpacklo_epi64(ab_hi, cd_hi),
        _mm256_unpackhi_epi64(ab_hi, cd_hi),
    ]
}

/// Writes blocks `base .. base + n` (`n <= 8`) of a word-sliced state after the
/// feed-forward.
#[target_feature(enable = "avx2")]
#[inline]
fn put8<const XOR: bool>(d: Dest<'_, XOR>, base: usize, x: &[__m256i; 16], n: usize) {
    // Transpose: four 4×4 transposes of 32-bit words inside each 128-bit lane
    // (`transpose4`), then the lanes are paired up across the word groups:
    //   permute2x128(words 0-3, words 4-7, 0x20) = block j bytes 0..32, 0x31: block j+4
    let mut t = [_mm256_setzero_si256(); 16];
    for g in 0..4 {
        let [t0, t1, t2, t3] = transpose4(x[4 * g], x[4 * g + 1], x[4 * g + 2], x[4 * g + 3]);
        t[4 * g..4 * g + 4].copy_from_slice(&[t0, t1, t2, t3]);
    }
    for j in 0..4 {
        if j < n {
            let lo = _mm256_permute2x128_si256(t[j], t[4 + j], 0x20);
            let hi = _mm256_permute2x128_si256(t[8 + j], t[12 + j], 0x20);
            d.put_at(base + j, lo, hi);
        }
    }
    for j in 0..4 {
        if j + 4 < n {
            let lo = _mm256_permute2x128_si256(t[j], t[4 + j], 0x31);
            let hi = _mm256_permute2x128_si256(t[8 + j], t[12 + j], 0x31);
            d.put_at(base + j + 4, lo, hi);
        }
    }
}
