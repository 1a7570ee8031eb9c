//! Poly1305 on NEON: 2 blocks side by side, five 26-bit limbs, `umull` / `umlal`.
//!
//! - **Limbs**: a value mod p = 2^130 − 5 as five 26-bit limbs, one `uint32x2_t` per limb (a
//!   lane per block); `vmull_u32` / `vmlal_u32` widen the products to `uint64x2_t`, narrowed
//!   back (`vmovn_u64`) after the carries. The bounds are at [`mul`].
//! - **Lanes**: two accumulators; lane 0 holds the even blocks, lane 1 the odd ones. Each
//!   step is `h = (h + m) · r^2` in both lanes; the last pair's multiplier is `r^2` in lane 0
//!   and `r` in lane 1 (each lane's distance from the end), then the lanes are summed.
//!   The initial accumulator enters lane 0 with the first pair.
//! - **Wrap-around**: 2^130 ≡ 5 (mod p), so the products that land at limbs 5–8 are taken
//!   with `5 · r` limbs, computed once per call.
//! - **Carries**: once per step, two chains side by side, as in `avx2/poly1305.rs`; no full
//!   reduction between steps. About 24 of the 32 vector registers: no spills.
//!
//! Whole pairs only, from [`MIN_BLOCKS`] blocks per call; shorter calls and a last odd block
//! take the portable step. Not measured on ARM (`DECISIONS.md`, § neon).

use core::arch::aarch64::{
    uint32x2_t, uint64x2_t, vadd_u32, vaddq_u64, vaddv_u32, vandq_u64, vcreate_u32, vdupq_n_u64, vld1q_u8,
    vmlal_u32, vmovn_u64, vmull_u32, vorrq_u64, vreinterpretq_u64_u8, vshl_n_u32, vshlq_n_u64, vshrq_n_u64,
    vzip1q_u64, vzip2q_u64,
};

use chacha_core::poly1305::{Accumulator, MacBlock, from_limbs, to_limbs};

use super::Neon;

/// Blocks per call from which [`Neon::poly1305_pairs`] runs: the `avx2` kernel's threshold
/// (measured on Intel; on ARM the portable step's `mul` + `umulh` are cheap too).
pub(super) const MIN_BLOCKS: usize = 32;

/// The low 26 bits of a 64-bit lane.
const MASK26: u64 = (1 << 26) - 1;

/// What a step multiplies by, one value per lane: `r[i]` is limb `i`, `s[i]` is
/// `5 · r[i + 1]` (for the products that wrap past 2^130).
#[derive(Clone, Copy)]
struct Multiplier {
    r: [uint32x2_t; 5],
    s: [uint32x2_t; 4],
}

impl Multiplier {
    /// The multiplier with `lanes[j]` (five limbs below 2^26) in lane `j`.
    #[target_feature(enable = "neon")]
    #[inline]
    fn new(lanes: [[u64; 5]; 2]) -> Self {
        let [a, b] = lanes;
        let limb = |i: usize| vcreate_u32(a[i] | (b[i] << 32));
        let r = [limb(0), limb(1), limb(2), limb(3), limb(4)];
        let five = |v: uint32x2_t| vadd_u32(v, vshl_n_u32::<2>(v));
        Multiplier { r, s: [five(r[1]), five(r[2]), five(r[3]), five(r[4])] }
    }
}

impl Neon {
    /// Absorbs `pairs` (2 blocks each, in order) into `acc`, leaving it partly reduced.
    pub(super) fn poly1305_pairs(self, acc: &mut Accumulator, pairs: &[[MacBlock; 2]]) {
        if pairs.is_empty() {
            return;
        }
        let [r1, r2] = acc.r_powers::<2>();
        let (r1, r2) = (to_limbs::<5>(r1, 26), to_limbs::<5>(r2, 26));
        let h = to_limbs::<5>(acc.h(), 26);
        // SAFETY: a Neon exists only if detect() saw NEON, the only feature pairs_neon enables.
        let h = unsafe { pairs_neon(h, [r2, r2], [r2, r1], pairs) };
        acc.set_h(from_limbs(&h, 26));
    }
}

/// `h` (26-bit limbs, the last below 2^27) absorbs `pairs`, the last pair multiplied by
/// `last` instead of `step`; returns the sum of the lanes' limbs (each below 2^28).
#[target_feature(enable = "neon")]
fn pairs_neon(h: [u64; 5], step: [[u64; 5]; 2], last: [[u64; 5]; 2], pairs: &[[MacBlock; 2]]) -> [u64; 5] {
    let step = Multiplier::new(step);
    // Lane 0 only: each limb is below 2^32 (the last below 2^27).
    let mut acc =
        [vcreate_u32(h[0]), vcreate_u32(h[1]), vcreate_u32(h[2]), vcreate_u32(h[3]), vcreate_u32(h[4])];
    let (last_pair, body) = pairs.split_last().expect("the caller passes one pair or more");
    for pair in body {
        acc = mul(add(acc, load2(pair)), &step);
    }
    acc = mul(add(acc, load2(last_pair)), &Multiplier::new(last));
    let sum = |v: uint32x2_t| u64::from(vaddv_u32(v));
    [sum(acc[0]), sum(acc[1]), sum(acc[2]), sum(acc[3]), sum(acc[4])]
}

/// One block as its low and high 64 bits (this module is little-endian only).
#[target_feature(enable = "neon")]
#[inline]
fn load(block: &MacBlock) -> uint64x2_t {
    // SAFETY: `block` is 16 readable bytes; `ld1` has no alignment requirement.
    vreinterpretq_u64_u8(unsafe { vld1q_u8(block.as_ptr()) })
}

/// The two blocks of `pair` as limb vectors (block `j` in lane `j`), each with its 2^128
/// pad bit.
///
/// ```text
/// a  = [ b0.lo | b0.hi ]     b = [ b1.lo | b1.hi ]     (64-bit lanes, low first)
/// lo = zip1(a, b) = [ b0.lo | b1.lo ]
/// hi = zip2(a, b) = [ b0.hi | b1.hi ]
/// ```
#[target_feature(enable = "neon")]
#[inline]
fn load2(pair: &[MacBlock; 2]) -> [uint32x2_t; 5] {
    let (a, b) = (load(&pair[0]), load(&pair[1]));
    let lo = vzip1q_u64(a, b);
    let hi = vzip2q_u64(a, b);
    let mask = vdupq_n_u64(MASK26);
    [
        vmovn_u64(vandq_u64(lo, mask)),
        vmovn_u64(vandq_u64(vshrq_n_u64::<26>(lo), mask)),
        vmovn_u64(vandq_u64(vorrq_u64(vshrq_n_u64::<52>(lo), vshlq_n_u64::<12>(hi)), mask)),
        vmovn_u64(vandq_u64(vshrq_n_u64::<14>(hi), mask)),
        // Bits 104..128 and the pad bit, 2^128 = 2^24 in limb 4.
        vmovn_u64(vorrq_u64(vshrq_n_u64::<40>(hi), vdupq_n_u64(1 << 24))),
    ]
}

/// `h + m`, limb by limb.
#[target_feature(enable = "neon")]
#[inline]
fn add(h: [uint32x2_t; 5], m: [uint32x2_t; 5]) -> [uint32x2_t; 5] {
    [
        vadd_u32(h[0], m[0]),
        vadd_u32(h[1], m[1]),
        vadd_u32(h[2], m[2]),
        vadd_u32(h[3], m[3]),
        vadd_u32(h[4], m[4]),
    ]
}

/// `h · k` mod p in both lanes, carried lazily and narrowed back to 32-bit lanes.
///
/// Bounds (per lane), as the `avx2` kernel's: `h + m` limbs below 2^27.4 (a carried limb,
/// below 2^26 + 2^10, plus a message limb below 2^26; on the first step limb 4 is below
/// 2^27 + 2^25); `k` below 2^26, `5 · k` below 2^28.4. Each sum of five products is below
/// 2^58.4 in 64 bits; the carried limbs ([`carry`]) fit the narrowing to 32 bits.
#[target_feature(enable = "neon")]
#[inline]
fn mul(h: [uint32x2_t; 5], k: &Multiplier) -> [uint32x2_t; 5] {
    let [r0, r1, r2, r3, r4] = k.r;
    let [s1, s2, s3, s4] = k.s;
    let dot = |a: [uint32x2_t; 5], b: [uint32x2_t; 5]| {
        let d = vmull_u32(a[0], b[0]);
        let d = vmlal_u32(d, a[1], b[1]);
        let d = vmlal_u32(d, a[2], b[2]);
        let d = vmlal_u32(d, a[3], b[3]);
        vmlal_u32(d, a[4], b[4])
    };
    let d = carry([
        dot(h, [r0, s4, s3, s2, s1]),
        dot(h, [r1, r0, s4, s3, s2]),
        dot(h, [r2, r1, r0, s4, s3]),
        dot(h, [r3, r2, r1, r0, s4]),
        dot(h, [r4, r3, r2, r1, r0]),
    ]);
    [vmovn_u64(d[0]), vmovn_u64(d[1]), vmovn_u64(d[2]), vmovn_u64(d[3]), vmovn_u64(d[4])]
}

/// The carries of a product, lazily (step by step as the `avx2` kernel's `carry`, where the
/// bounds are derived): for limbs below 2^59 in, limbs 0, 2, 3 come out below 2^26, limb 1
/// below 2^26 + 2^10, limb 4 below 2^26 + 2^9.
#[target_feature(enable = "neon")]
#[inline]
fn carry([mut d0, mut d1, mut d2, mut d3, mut d4]: [uint64x2_t; 5]) -> [uint64x2_t; 5] {
    let mask = vdupq_n_u64(MASK26);
    let high = |v| vshrq_n_u64::<26>(v);
    let low = |v| vandq_u64(v, mask);
    let (c0, c3) = (high(d0), high(d3));
    (d0, d3) = (low(d0), low(d3));
    (d1, d4) = (vaddq_u64(d1, c0), vaddq_u64(d4, c3));
    let (c1, c4) = (high(d1), high(d4));
    (d1, d4) = (low(d1), low(d4));
    d2 = vaddq_u64(d2, c1);
    // 2^130 ≡ 5: limb 4's carry enters limb 0 as c4 + 4 · c4.
    d0 = vaddq_u64(d0, vaddq_u64(c4, vshlq_n_u64::<2>(c4)));
    let (c2, c0) = (high(d2), high(d0));
    (d2, d0) = (low(d2), low(d0));
    (d3, d1) = (vaddq_u64(d3, c2), vaddq_u64(d1, c0));
    let c3 = high(d3);
    d3 = low(d3);
    d4 = vaddq_u64(d4, c3);
    [d0, d1, d2, d3, d4]
}
