//! Poly1305 on AVX2: 4 blocks side by side, five 26-bit limbs, `vpmuludq`.
//!
//! - **Limbs**: a value mod p = 2^130 − 5 as five 26-bit limbs, one `ymm` per limb, each
//!   limb in the low half of a 64-bit lane: `vpmuludq` multiplies those low halves into
//!   64-bit products, so a limb product and a sum of five fit with room for lazy carries
//!   (the bounds are at [`mul`]).
//! - **Lanes**: four accumulators, one per 64-bit lane; lane positions 0, 1, 2, 3 hold
//!   blocks `4t`, `4t + 2`, `4t + 1`, `4t + 3` of each group of 4: the order the unpack of
//!   two 32-byte loads gives (diagram at [`load4`]), so no lane permute is needed.
//! - **Step**: two groups (8 blocks) at a time, `h = (h + m1) · r^8 + m2 · r^4` in every
//!   lane, one carry per pair instead of per group (an odd group first goes alone,
//!   `h = (h + m) · r^4`); the last pair's multipliers are instead the powers that carry
//!   each lane to the end of the message (`r^4, r^2, r^3, r^1` by position, the order
//!   above, and those times `r^4`), then the four lanes are summed into one value.
//!   The initial accumulator enters lane 0 with the first group.
//! - **Powers**: `r^4, r^2, r^3, r^1` come from two vector products (diagram at
//!   [`powers`]): two dependent products, not the scalar chain r, r^2, r^3, r^4; the last
//!   pair's `r^8, r^6, r^7, r^5` from one more, whose lane 0 is the other pairs' `r^8`.
//! - **Wrap-around**: 2^130 ≡ 5 (mod p), so the products that land at limbs 5–8 are taken
//!   with `5 · r` limbs, computed once per call beside the powers' limbs.
//! - **Carries**: once per step, as two interleaved chains (0→1 with 3→4, 1→2 with 4→0,
//!   2→3, then 0→1 with 3→4: poly1305-donna's order), leaving each limb a few bits over
//!   26 bits — not a full reduction, which the next step does not need.
//! - **Registers**: `h` (5) and two multipliers of 9 vectors each do not fit in the 16
//!   `ymm`, so the loop ([`absorb_pairs`], one `asm!` block on x86_64) takes every
//!   multiplier limb as a `vpmuludq` memory operand (the load ports) and keeps the
//!   accumulator, the product sums and the message in registers: no spill, no load
//!   instruction for the multipliers (LLVM's loops spilled or added loads).
//!
//! Whole groups of 4 only, from a threshold in blocks: shorter calls and a remainder of
//! fewer than 4 blocks take the portable step (`avx2.rs`, `poly1305_blocks`). Figures:
//! `DECISIONS.md`, § avx2: Poly1305.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use chacha_core::poly1305::{Accumulator, MacBlock, from_limbs, to_limbs};

use super::{Avx2, load_32, store_32};

/// Blocks per call from which [`Avx2::poly1305_groups`] pays for its setup (the powers of
/// `r` and the conversions to and from 26-bit limbs); below, the portable step is faster.
pub(super) const MIN_BLOCKS: usize = 32;

/// The low 26 bits of a 64-bit lane.
const MASK26: i64 = (1 << 26) - 1;

/// What a step multiplies by, one value per lane: `r[i]` is limb `i`, `s[i]` is
/// `5 · r[i + 1]` (for the products that wrap past 2^130).
#[derive(Clone, Copy)]
#[repr(C)]
struct Multiplier {
    r: [__m256i; 5],
    s: [__m256i; 4],
}

impl Multiplier {
    #[target_feature(enable = "avx2")]
    #[inline]
    fn new(mut r: [__m256i; 5]) -> Self {
        let five = |v: __m256i| _mm256_add_epi64(v, _mm256_slli_epi64::<2>(v));
        let mut s = [five(r[1]), five(r[2]), five(r[3]), five(r[4])];
        // Hidden from LLVM: seeing how the limbs were computed, it turned each `vpmuludq` by
        // them into a 64-bit product (two `vpmuludq` and a `vpsllq`).
        schedule_barrier!(ymm_reg; r[0], r[1], r[2], r[3], r[4], s[0], s[1], s[2], s[3]);
        Multiplier { r, s }
    }

    /// Lane 0's multiplier in every lane.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn lane0(&self) -> Self {
        let lane0 = |v: __m256i| _mm256_permute4x64_epi64::<0>(v);
        Multiplier { r: self.r.map(lane0), s: self.s.map(lane0) }
    }
}

impl Avx2 {
    /// Absorbs `groups` (4 blocks each, in order) into `acc`, leaving it partly reduced.
    pub(super) fn poly1305_groups(self, acc: &mut Accumulator, groups: &[[MacBlock; 4]]) {
        if groups.is_empty() {
            return;
        }
        let [r0, r1] = acc.r();
        let r = to_limbs::<5>([r0, r1, 0], 26);
        let h = to_limbs::<5>(acc.h(), 26);
        // SAFETY: an Avx2 exists only if detect() saw AVX2.
        let h = unsafe { groups_avx2(r, h, groups) };
        acc.set_h(from_limbs(&h, 26));
    }
}

/// The vector loop: `h` (five 26-bit limbs, the last below 2^27) absorbs `groups` with key
/// `r` (five limbs below 2^26); returns the sum of the lanes' limbs (each below 2^29).
#[target_feature(enable = "avx2")]
fn groups_avx2(r: [u64; 5], h: [u64; 5], groups: &[[MacBlock; 4]]) -> [u64; 5] {
    let (last, step) = powers(r);
    let lane0 = |limb: u64| _mm256_set_epi64x(0, 0, 0, limb as i64);
    let mut acc = [lane0(h[0]), lane0(h[1]), lane0(h[2]), lane0(h[3]), lane0(h[4])];
    // An odd group first, on its own; then pairs, or the one group with the last multiplier.
    let (first, pairs) = groups.split_at(groups.len() % 2);
    let (pairs, _) = pairs.as_chunks::<2>();
    if pairs.is_empty() {
        absorb(&mut acc, first, &last);
    } else {
        absorb(&mut acc, first, &step);
        // `r^8, r^6, r^7, r^5` by lane, and `r^8` (its lane 0) in every lane.
        let pair_last = Multiplier::new(mul(last.r, &step));
        let pair = pair_last.lane0();
        absorb_pairs(&mut acc, pairs, [&pair, &step], [&pair_last, &last]);
    }
    let mut sum = [0u64; 5];
    for i in 0..5 {
        let [a, b, c, d] = lanes(acc[i]);
        sum[i] = a + b + c + d;
    }
    sum
}

/// `h += m` for the group at `{p}`: its two 32-byte loads unpacked into the blocks' low and
/// high halves (lane order at `load4`), cut into 26-bit limbs, the pad bit (`ymm15`) on
/// limb 4, each added to its limb of `h` (`ymm0`–`ymm4`); `ymm10`–`ymm13` are overwritten.
#[cfg(all(target_arch = "x86_64", not(miri)))]
macro_rules! add_message_asm {
    () => {
        concat!(
            "vmovdqu ymm12, ymmword ptr [{p}]\n",
            "vmovdqu ymm13, ymmword ptr [{p} + 32]\n",
            "vpunpckhqdq ymm11, ymm12, ymm13\n",
            "vpunpcklqdq ymm12, ymm12, ymm13\n",
            // h2 and h0 first: the carries finished them first.
            "vpsrlq ymm10, ymm12, 52\n",
            "vpsllq ymm13, ymm11, 12\n",
            "vpor ymm10, ymm10, ymm13\n",
            "vpand ymm10, ymm10, ymm14\n",
            "vpaddq ymm2, ymm2, ymm10\n",
            "vpand ymm10, ymm12, ymm14\n",
            "vpaddq ymm0, ymm0, ymm10\n",
            "vpsrlq ymm12, ymm12, 26\n",
            "vpand ymm12, ymm12, ymm14\n",
            "vpaddq ymm1, ymm1, ymm12\n",
            "vpsrlq ymm13, ymm11, 14\n",
            "vpand ymm13, ymm13, ymm14\n",
            "vpaddq ymm3, ymm3, ymm13\n",
            "vpsrlq ymm11, ymm11, 40\n",
            "vpor ymm11, ymm11, ymm15\n",
            "vpaddq ymm4, ymm4, ymm11\n",
        )
    };
}

/// The carries of the products `d0`–`d4` (`ymm5`–`ymm9`) into `h` (`ymm0`–`ymm4`), as
/// [`carry`] does them, limb 4's carry times 5 by `vpmuludq` from `{five}`; `ymm10` and
/// `ymm11` are overwritten.
#[cfg(all(target_arch = "x86_64", not(miri)))]
macro_rules! carry_asm {
    () => {
        concat!(
            // 0→1 with 3→4, 1→2 with 4→0 (times 5), 2→3 with 0→1, 3→4.
            "vpsrlq ymm10, ymm5, 26\n",
            "vpsrlq ymm11, ymm8, 26\n",
            "vpand ymm5, ymm5, ymm14\n",
            "vpand ymm8, ymm8, ymm14\n",
            "vpaddq ymm6, ymm6, ymm10\n",
            "vpaddq ymm9, ymm9, ymm11\n",
            "vpsrlq ymm10, ymm6, 26\n",
            "vpsrlq ymm11, ymm9, 26\n",
            "vpand ymm1, ymm6, ymm14\n",
            "vpand ymm4, ymm9, ymm14\n",
            "vpaddq ymm7, ymm7, ymm10\n",
            "vpmuludq ymm11, ymm11, ymmword ptr [{five}]\n",
            "vpaddq ymm5, ymm5, ymm11\n",
            "vpsrlq ymm10, ymm7, 26\n",
            "vpsrlq ymm11, ymm5, 26\n",
            "vpand ymm2, ymm7, ymm14\n",
            "vpand ymm0, ymm5, ymm14\n",
            "vpaddq ymm8, ymm8, ymm10\n",
            "vpaddq ymm1, ymm1, ymm11\n",
            "vpsrlq ymm10, ymm8, 26\n",
            "vpand ymm3, ymm8, ymm14\n",
            "vpaddq ymm4, ymm4, ymm10\n",
        )
    };
}

/// `acc` absorbs `groups`, `h = (h + m) · k` per group in every lane: for a single group
/// (an odd one before the pairs, or a message of one group), so in intrinsics.
#[target_feature(enable = "avx2")]
fn absorb(acc: &mut [__m256i; 5], groups: &[[MacBlock; 4]], k: &Multiplier) {
    for group in groups {
        *acc = mul(add(*acc, load4(group)), k);
    }
}

/// The multipliers of the last group (`r^4, r^2, r^3, r^1` by lane position: each lane's
/// blocks are 4, 2, 3 and 1 blocks from the end, see [`load4`]) and of every other group
/// (`r^4` in every lane), computed with the vector product: two dependent products
/// instead of the scalar chain r, r^2, r^3, r^4.
///
/// ```text
/// [ r^2 | r^2 | r^2 | r   ]     a: r^2 with lane 3 from r
///   ×     ×     ×     ×
/// [ r^2 | 1   | r   | 1   ]     b: r^2 with lane 2 from r, lanes 1 and 3 from 1
///   =     =     =     =
/// [ r^4 | r^2 | r^3 | r   ]     last; step: its lane 0 in every lane
/// ```
#[target_feature(enable = "avx2")]
#[inline]
fn powers(r: [u64; 5]) -> (Multiplier, Multiplier) {
    let splat = |limb: u64| _mm256_set1_epi64x(limb as i64);
    let r1 = [splat(r[0]), splat(r[1]), splat(r[2]), splat(r[3]), splat(r[4])];
    let r2 = mul(r1, &Multiplier::new(r1));
    let one = [splat(1), splat(0), splat(0), splat(0), splat(0)];
    // Blend masks by 32-bit element: lane j is elements 2j and 2j + 1.
    let a = |i: usize| _mm256_blend_epi32::<0b1100_0000>(r2[i], r1[i]);
    let b =
        |i: usize| _mm256_blend_epi32::<0b1100_1100>(_mm256_blend_epi32::<0b0011_0000>(r2[i], r1[i]), one[i]);
    let last = mul([a(0), a(1), a(2), a(3), a(4)], &Multiplier::new([b(0), b(1), b(2), b(3), b(4)]));
    let last = Multiplier::new(last);
    (last, last.lane0())
}

/// `acc` absorbs `pairs` of groups, `h = (h + m1) · a + m2 · b` per pair in every lane
/// (`a = b · r^4`: two of [`absorb`]'s steps, `((h + m1) · r^4 + m2) · b`, with one carry
/// instead of two), `a` and `b` for every pair but the last, `a_last` and `b_last` for the
/// last. The loop is one `asm!` block on x86_64: every multiplier limb a `vpmuludq` memory
/// operand, no spill (instruction counts and timings: `DECISIONS.md`, § avx2: Poly1305).
///
/// Registers: `ymm0`–`ymm4` `h`; `ymm5`–`ymm9` the product sums `d0`–`d4`; `ymm10`–`ymm13`
/// the message and temporaries (`ymm13` the second group's limb, `ymm11` its high halves);
/// `ymm14` the 26-bit mask; `ymm15` the pad bit. A [`Multiplier`] in memory: `r0`–`r4` at
/// 32-byte steps, then `5·r1`–`5·r4`. The second group's products come first: they do not
/// wait for the last carries.
///
/// Bounds: each product sum is five products as at [`mul`] (below 2^58.1) plus five of a
/// message limb (below 2^26) by a multiplier limb (below 2^28.4), so below 2^58.7, as
/// [`carry`] takes. Limb 4's carry is multiplied by 5 with one `vpmuludq`, which reads 32
/// bits: limb 4's sum is ten products of limbs below 2^27.4 (or 2^26) and 2^26.01, below
/// 2^56.1, plus the first carry of limb 3 (below 2^33), so its carry is below 2^31.
#[target_feature(enable = "avx2")]
fn absorb_pairs(
    acc: &mut [__m256i; 5],
    pairs: &[[[MacBlock; 4]; 2]],
    [a, b]: [&Multiplier; 2],
    [a_last, b_last]: [&Multiplier; 2],
) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let Some(last) = pairs.last() else {
            return;
        };
        let [mut h0, mut h1, mut h2, mut h3, mut h4] = *acc;
        let mask = _mm256_set1_epi64x(MASK26);
        let pad = _mm256_set1_epi64x(1 << 24);
        let five = [5u64; 4];
        // SAFETY: the loop reads the 128 bytes at each of `pairs`' elements from `{p}` up to
        // and including `last` (the slice's last element: `{end}` moves past it once, when
        // `{a}` becomes `a_last`), the 288 bytes of each multiplier and the 32 of `five`; it
        // writes no memory and uses no stack. The target feature avx2 is enabled on this
        // function, whose caller holds an `Avx2`.
        unsafe {
            core::arch::asm!(
                "cmp {p}, {end}",
                "je 3f",
                ".p2align 5",
                "2:",
                // The second group times `b`, limb by limb: it does not wait for the carries.
                "vmovdqu ymm12, ymmword ptr [{p} + 64]",
                "vmovdqu ymm13, ymmword ptr [{p} + 96]",
                "vpunpckhqdq ymm11, ymm12, ymm13",
                "vpunpcklqdq ymm12, ymm12, ymm13",
                "vpand ymm13, ymm12, ymm14",
                "vpmuludq ymm5, ymm13, ymmword ptr [{b} + 0]",
                "vpmuludq ymm6, ymm13, ymmword ptr [{b} + 32]",
                "vpmuludq ymm7, ymm13, ymmword ptr [{b} + 64]",
                "vpmuludq ymm8, ymm13, ymmword ptr [{b} + 96]",
                "vpmuludq ymm9, ymm13, ymmword ptr [{b} + 128]",
                "vpsrlq ymm13, ymm12, 26",
                "vpand ymm13, ymm13, ymm14",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 256]",
                "vpaddq ymm5, ymm5, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 0]",
                "vpaddq ymm6, ymm6, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 32]",
                "vpaddq ymm7, ymm7, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 64]",
                "vpaddq ymm8, ymm8, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 96]",
                "vpaddq ymm9, ymm9, ymm10",
                "vpsrlq ymm13, ymm12, 52",
                "vpsllq ymm10, ymm11, 12",
                "vpor ymm13, ymm13, ymm10",
                "vpand ymm13, ymm13, ymm14",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 224]",
                "vpaddq ymm5, ymm5, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 256]",
                "vpaddq ymm6, ymm6, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 0]",
                "vpaddq ymm7, ymm7, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 32]",
                "vpaddq ymm8, ymm8, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 64]",
                "vpaddq ymm9, ymm9, ymm10",
                "vpsrlq ymm13, ymm11, 14",
                "vpand ymm13, ymm13, ymm14",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 192]",
                "vpaddq ymm5, ymm5, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 224]",
                "vpaddq ymm6, ymm6, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 256]",
                "vpaddq ymm7, ymm7, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 0]",
                "vpaddq ymm8, ymm8, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 32]",
                "vpaddq ymm9, ymm9, ymm10",
                "vpsrlq ymm13, ymm11, 40",
                "vpor ymm13, ymm13, ymm15",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 160]",
                "vpaddq ymm5, ymm5, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 192]",
                "vpaddq ymm6, ymm6, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 224]",
                "vpaddq ymm7, ymm7, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 256]",
                "vpaddq ymm8, ymm8, ymm10",
                "vpmuludq ymm10, ymm13, ymmword ptr [{b} + 0]",
                "vpaddq ymm9, ymm9, ymm10",
                add_message_asm!(),
                // (h + m1) · a, added to the products.
                // h2
                "vpmuludq ymm10, ymm2, ymmword ptr [{a} + 224]",
                "vpaddq ymm5, ymm5, ymm10",
                "vpmuludq ymm11, ymm2, ymmword ptr [{a} + 256]",
                "vpaddq ymm6, ymm6, ymm11",
                "vpmuludq ymm10, ymm2, ymmword ptr [{a} + 0]",
                "vpaddq ymm7, ymm7, ymm10",
                "vpmuludq ymm11, ymm2, ymmword ptr [{a} + 32]",
                "vpaddq ymm8, ymm8, ymm11",
                "vpmuludq ymm10, ymm2, ymmword ptr [{a} + 64]",
                "vpaddq ymm9, ymm9, ymm10",
                // h0
                "vpmuludq ymm11, ymm0, ymmword ptr [{a} + 0]",
                "vpaddq ymm5, ymm5, ymm11",
                "vpmuludq ymm10, ymm0, ymmword ptr [{a} + 32]",
                "vpaddq ymm6, ymm6, ymm10",
                "vpmuludq ymm11, ymm0, ymmword ptr [{a} + 64]",
                "vpaddq ymm7, ymm7, ymm11",
                "vpmuludq ymm10, ymm0, ymmword ptr [{a} + 96]",
                "vpaddq ymm8, ymm8, ymm10",
                "vpmuludq ymm11, ymm0, ymmword ptr [{a} + 128]",
                "vpaddq ymm9, ymm9, ymm11",
                // h1
                "vpmuludq ymm10, ymm1, ymmword ptr [{a} + 256]",
                "vpaddq ymm5, ymm5, ymm10",
                "vpmuludq ymm11, ymm1, ymmword ptr [{a} + 0]",
                "vpaddq ymm6, ymm6, ymm11",
                "vpmuludq ymm10, ymm1, ymmword ptr [{a} + 32]",
                "vpaddq ymm7, ymm7, ymm10",
                "vpmuludq ymm11, ymm1, ymmword ptr [{a} + 64]",
                "vpaddq ymm8, ymm8, ymm11",
                "vpmuludq ymm10, ymm1, ymmword ptr [{a} + 96]",
                "vpaddq ymm9, ymm9, ymm10",
                // h3
                "vpmuludq ymm11, ymm3, ymmword ptr [{a} + 192]",
                "vpaddq ymm5, ymm5, ymm11",
                "vpmuludq ymm10, ymm3, ymmword ptr [{a} + 224]",
                "vpaddq ymm6, ymm6, ymm10",
                "vpmuludq ymm11, ymm3, ymmword ptr [{a} + 256]",
                "vpaddq ymm7, ymm7, ymm11",
                "vpmuludq ymm10, ymm3, ymmword ptr [{a} + 0]",
                "vpaddq ymm8, ymm8, ymm10",
                "vpmuludq ymm11, ymm3, ymmword ptr [{a} + 32]",
                "vpaddq ymm9, ymm9, ymm11",
                // h4
                "vpmuludq ymm10, ymm4, ymmword ptr [{a} + 160]",
                "vpaddq ymm5, ymm5, ymm10",
                "vpmuludq ymm11, ymm4, ymmword ptr [{a} + 192]",
                "vpaddq ymm6, ymm6, ymm11",
                "vpmuludq ymm10, ymm4, ymmword ptr [{a} + 224]",
                "vpaddq ymm7, ymm7, ymm10",
                "vpmuludq ymm11, ymm4, ymmword ptr [{a} + 256]",
                "vpaddq ymm8, ymm8, ymm11",
                "vpmuludq ymm10, ymm4, ymmword ptr [{a} + 0]",
                "vpaddq ymm9, ymm9, ymm10",
                carry_asm!(),
                "add {p}, 128",
                "cmp {p}, {end}",
                "jne 2b",
                // The last pair, with the last multipliers: once.
                "3:",
                "cmp {a}, {a_last}",
                "je 4f",
                "mov {a}, {a_last}",
                "mov {b}, {b_last}",
                "add {end}, 128",
                "jmp 2b",
                "4:",
                p = inout(reg) pairs.as_ptr() => _,
                end = inout(reg) core::ptr::from_ref(last) => _,
                a = inout(reg) core::ptr::from_ref(a) => _,
                b = inout(reg) core::ptr::from_ref(b) => _,
                a_last = in(reg) core::ptr::from_ref(a_last),
                b_last = in(reg) core::ptr::from_ref(b_last),
                five = in(reg) five.as_ptr(),
                inout("ymm0") h0,
                inout("ymm1") h1,
                inout("ymm2") h2,
                inout("ymm3") h3,
                inout("ymm4") h4,
                out("ymm5") _,
                out("ymm6") _,
                out("ymm7") _,
                out("ymm8") _,
                out("ymm9") _,
                out("ymm10") _,
                out("ymm11") _,
                out("ymm12") _,
                out("ymm13") _,
                in("ymm14") mask,
                in("ymm15") pad,
                options(nostack, readonly),
            );
        }
        *acc = [h0, h1, h2, h3, h4];
    }
    // The same in intrinsics, for miri and 32-bit x86 (8 `ymm`).
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        let Some((last, body)) = pairs.split_last() else {
            return;
        };
        for (pair, [a, b]) in body.iter().map(|pair| (pair, [a, b])).chain([(last, [a_last, b_last])]) {
            *acc =
                carry(add(mul_unreduced(add(*acc, load4(&pair[0])), a), mul_unreduced(load4(&pair[1]), b)));
        }
    }
}

/// The four blocks of `group` as limb vectors, each block with its 2^128 pad bit.
///
/// The two loads hold two blocks each; their unpack puts the blocks' low and high halves
/// in lanes in the order 0, 2, 1, 3 (64-bit lanes, low lane first):
///
/// ```text
/// a  = [ b0.lo | b0.hi | b1.lo | b1.hi ]     b = [ b2.lo | b2.hi | b3.lo | b3.hi ]
/// lo = unpacklo(a, b) = [ b0.lo | b2.lo | b1.lo | b3.lo ]
/// hi = unpackhi(a, b) = [ b0.hi | b2.hi | b1.hi | b3.hi ]
/// ```
#[target_feature(enable = "avx2")]
#[inline]
fn load4(group: &[MacBlock; 4]) -> [__m256i; 5] {
    // Two 32-byte halves of the 64 bytes (constant indices: the checks fold away).
    let (halves, _) = group.as_flattened().as_chunks::<32>();
    let (a, b) = (load_32(&halves[0]), load_32(&halves[1]));
    let lo = _mm256_unpacklo_epi64(a, b);
    let hi = _mm256_unpackhi_epi64(a, b);
    let mask = _mm256_set1_epi64x(MASK26);
    [
        _mm256_and_si256(lo, mask),
        _mm256_and_si256(_mm256_srli_epi64::<26>(lo), mask),
        _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64::<52>(lo), _mm256_slli_epi64::<12>(hi)), mask),
        _mm256_and_si256(_mm256_srli_epi64::<14>(hi), mask),
        // Bits 104..128 and the pad bit, 2^128 = 2^24 in limb 4.
        _mm256_or_si256(_mm256_srli_epi64::<40>(hi), _mm256_set1_epi64x(1 << 24)),
    ]
}

/// `h + m`, limb by limb.
#[target_feature(enable = "avx2")]
#[inline]
fn add(h: [__m256i; 5], m: [__m256i; 5]) -> [__m256i; 5] {
    [
        _mm256_add_epi64(h[0], m[0]),
        _mm256_add_epi64(h[1], m[1]),
        _mm256_add_epi64(h[2], m[2]),
        _mm256_add_epi64(h[3], m[3]),
        _mm256_add_epi64(h[4], m[4]),
    ]
}

/// `h · k` mod p in every lane, carried lazily.
///
/// Bounds (per lane). In: `h` limbs below 2^27.4 — a carried limb (below 2^26 + 2^10, see
/// [`carry`]) plus a message limb (below 2^26), or on the first step the accumulator's
/// limb 4 (below 2^27, as `h < 2^131`) plus the message's (below 2^25); `k`'s limbs below
/// 2^26 + 2^10 (`r` or a carried product), so `5 · k` limbs below 2^28.4. Each product is below
/// 2^27.4 · 2^28.4 < 2^56 and each sum of five below 2^58.4: no 64-bit lane overflows, and
/// every `h` limb is below 2^32 as `vpmuludq` needs.
#[target_feature(enable = "avx2")]
#[inline]
fn mul(h: [__m256i; 5], k: &Multiplier) -> [__m256i; 5] {
    carry(mul_unreduced(h, k))
}

/// `h · k` mod p in every lane, before the carries: limb sums below 2^58.1 for [`mul`]'s
/// bounds.
#[target_feature(enable = "avx2")]
#[inline]
fn mul_unreduced(h: [__m256i; 5], k: &Multiplier) -> [__m256i; 5] {
    let m = |a, b| _mm256_mul_epu32(a, b);
    let [h0, h1, h2, h3, h4] = h;
    let [r0, r1, r2, r3, r4] = k.r;
    let [s1, s2, s3, s4] = k.s;
    let sum =
        |a, b, c, d, e| _mm256_add_epi64(_mm256_add_epi64(_mm256_add_epi64(a, b), _mm256_add_epi64(c, d)), e);
    [
        sum(m(h0, r0), m(h1, s4), m(h2, s3), m(h3, s2), m(h4, s1)),
        sum(m(h0, r1), m(h1, r0), m(h2, s4), m(h3, s3), m(h4, s2)),
        sum(m(h0, r2), m(h1, r1), m(h2, r0), m(h3, s4), m(h4, s3)),
        sum(m(h0, r3), m(h1, r2), m(h2, r1), m(h3, r0), m(h4, s4)),
        sum(m(h0, r4), m(h1, r3), m(h2, r2), m(h3, r1), m(h4, r0)),
    ]
}

/// The carries of a product, lazily: two chains side by side, limb 4's carry wrapping
/// to limb 0 times 5.
///
/// Bounds (per lane), for limbs `d` below 2^59 in: the first carries out of limbs 0 and 3
/// are below 2^33, then limbs 1 and 4 are below 2^59 + 2^33 and their carries below
/// 2^33 + 1; limb 0 becomes at most 2^26 + 5 · (2^33 + 1) < 2^36 and limb 2 below 2^60; the
/// carry of limb 2 (below 2^34) leaves limb 3 below 2^35; the last carries out of limbs 0
/// and 3 are below 2^10 and 2^9. Out: limbs 0, 2 and 3 below 2^26, limb 1 below
/// 2^26 + 2^10, limb 4 below 2^26 + 2^9.
#[target_feature(enable = "avx2")]
#[inline]
fn carry([mut d0, mut d1, mut d2, mut d3, mut d4]: [__m256i; 5]) -> [__m256i; 5] {
    let mask = _mm256_set1_epi64x(MASK26);
    let high = |v| _mm256_srli_epi64::<26>(v);
    let low = |v| _mm256_and_si256(v, mask);
    let (c0, c3) = (high(d0), high(d3));
    (d0, d3) = (low(d0), low(d3));
    (d1, d4) = (_mm256_add_epi64(d1, c0), _mm256_add_epi64(d4, c3));
    let (c1, c4) = (high(d1), high(d4));
    (d1, d4) = (low(d1), low(d4));
    d2 = _mm256_add_epi64(d2, c1);
    // 2^130 ≡ 5: limb 4's carry enters limb 0 as c4 + 4 · c4.
    d0 = _mm256_add_epi64(d0, _mm256_add_epi64(c4, _mm256_slli_epi64::<2>(c4)));
    let (c2, c0) = (high(d2), high(d0));
    (d2, d0) = (low(d2), low(d0));
    (d3, d1) = (_mm256_add_epi64(d3, c2), _mm256_add_epi64(d1, c0));
    let c3 = high(d3);
    d3 = low(d3);
    d4 = _mm256_add_epi64(d4, c3);
    [d0, d1, d2, d3, d4]
}

/// The four 64-bit lanes of `v`, lane position 0 first.
#[target_feature(enable = "avx2")]
#[inline]
fn lanes(v: __m256i) -> [u64; 4] {
    let mut out = [0u8; 32];
    store_32(&mut out, v);
    core::array::from_fn(|i| u64::from_le_bytes(out.as_chunks::<8>().0[i]))
}
