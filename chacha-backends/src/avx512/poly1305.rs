//! `avx512::poly1305`: Poly1305 on the AVX-512 IFMA 52-bit multiplier, 16 blocks a step in
//! two sets of 8 lanes, and the one-pass ChaCha20-Poly1305 steps on top of it.
//!
//! # Layout
//! - **Limbs**: a value mod p = 2^130 − 5 in three 44-bit limbs (44 + 44 + 42 bits),
//!   each in a 64-bit lane, so one `vpmadd52luq` / `vpmadd52huq` pair gives the low and
//!   high 52 bits of a limb product and adds them to a 64-bit sum without a carry chain.
//! - **Lanes**: a set is three zmm (one per limb); lane `j` of a set accumulates block `j`
//!   of each 8-block group the set takes. Set 0 takes groups 0, 2, 4, …, set 1 groups 1,
//!   3, 5, …: each step multiplies a set by `r^16` and adds its next group. Two sets because
//!   one is a dependent chain (multiplies, then carries, then the next multiplies); with
//!   two, one set's carries run beside the other's multiplies. The caller's accumulator
//!   starts in lane 0 of set 0. At the end every lane is multiplied by the power its last
//!   block still needs (`r^(8 − j)` in the set that took the last group, `r^(16 − j)` in
//!   the other) and the 16 lanes are summed: block `i` of `n` then carries `r^(n − i)`, as
//!   in the one-block-at-a-time definition.
//! - **Wrap-around**: a limb product at 2^132 or above comes back times 20
//!   (2^132 = 4·2^130 ≡ 4·5), so a multiplier's limbs 1 and 2 are kept times 20 too
//!   ([`Key`]).
//! - **Bounds** (why no lane overflows): multiplier limbs < 2^44 + 2^10 (times 20:
//!   < 2^49), accumulator limbs < 2^45 after each step, message limbs < 2^44: products
//!   < 2^94, and each 64-bit sum takes three low halves (< 2^54) or three high halves
//!   (< 2^42). After the carries the lanes are back below 2^44, 2^44 + 2^10 and 2^42; the
//!   multiplier reads only 52 bits of each input, so every input is kept below 2^52.
//! - **Powers**: `r^1 … r^8` from three vector products of the lanes so far by the highest
//!   power so far ([`Lanes::new`]), `r^9 … r^16` as one more, of those by `r^8`: once per
//!   message, not per piece.
//! - **One pass** (`xor_and_mac`): the message in 4 KiB pieces ([`aead_in_pieces`]), each XORed
//!   by the ChaCha kernels and absorbed while in L1.
//!
//! Every function that holds a vector enables `avx512f,avx512ifma` and is inlined into one
//! such entry point; an [`Ifma`] exists only if the CPU has both. Measured (the threshold,
//! instructions per block, the bound): `DECISIONS.md` in this crate, § avx512 Poly1305.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use chacha_core::poly1305::{Accumulator, MAC_BLOCK_LEN, MacBlock, Portable, from_limbs, to_limbs};
use chacha_core::{AeadDirection, Ietf, Rounds, State, XorBuf, aead_in_pieces};

use super::Avx512;

// AVX-512F: the 512-bit loads, shifts, masks and the lane sum; AVX-512 IFMA: `vpmadd52*`.
cpufeatures::new!(cpuid_ifma, "avx512f", "avx512ifma");

/// Blocks side by side: one per 64-bit lane of a zmm.
const LANES: usize = 8;

/// Fewest blocks for which the vector path is faster than the portable step: below it the
/// setup (the powers of `r`, the limb conversions, the final multiply and lane sum) costs
/// more than it saves.
pub(super) const MIN_BLOCKS: usize = 32;

/// Proof that this CPU (and OS) runs AVX-512F and AVX-512 IFMA; only
/// [`detect`](Ifma::detect) creates one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Ifma(());

impl Ifma {
    /// `Some` if the CPU has AVX-512F and AVX-512 IFMA; cached once per process (after the
    /// first call, a relaxed load).
    #[inline]
    pub(super) fn detect() -> Option<Self> {
        cpuid_ifma::get().then_some(Ifma(()))
    }

    /// [`Aead::poly1305_blocks`](chacha_core::Aead::poly1305_blocks): whole groups of 8 in the lanes, the rest (fewer than 8,
    /// or all of a short request) with the portable step.
    #[inline]
    pub(super) fn absorb(self, acc: &mut Accumulator, blocks: &[MacBlock]) {
        if blocks.len() < MIN_BLOCKS {
            return acc.absorb(blocks);
        }
        // SAFETY: an Ifma exists only if detect() saw AVX-512F and AVX-512 IFMA.
        unsafe { absorb_all(acc, blocks) }
    }

    /// One pass of an AEAD's bulk step ([`Aead::xor_then_mac`](chacha_core::Aead::xor_then_mac) / `mac_then_xor`),
    /// ChaCha on `kernel`.
    #[inline]
    pub(super) fn xor_and_mac<R: Rounds>(
        self,
        kernel: Avx512,
        state: &State<Ietf>,
        acc: &mut Accumulator,
        buf: XorBuf<'_, '_>,
        direction: AeadDirection,
    ) {
        // SAFETY: an Ifma exists only if detect() saw AVX-512F and AVX-512 IFMA.
        unsafe { xor_and_mac::<R>(kernel, state, acc, buf, direction) }
    }
}

#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn absorb_all(acc: &mut Accumulator, blocks: &[MacBlock]) {
    let mut lanes = Lanes::new(acc);
    let rest = lanes.absorb_bytes(blocks.as_flattened());
    lanes.finish(acc);
    let (rest, none) = rest.as_chunks::<MAC_BLOCK_LEN>();
    debug_assert!(none.is_empty(), "whole blocks in, whole blocks left");
    acc.absorb(rest);
}

#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn xor_and_mac<R: Rounds>(
    kernel: Avx512,
    state: &State<Ietf>,
    acc: &mut Accumulator,
    buf: XorBuf<'_, '_>,
    direction: AeadDirection,
) {
    let mut lanes = Lanes::new(acc);
    // What the last piece leaves (fewer than 8 blocks, maybe a partial one) is kept:
    // opening in place overwrites it.
    let mut left = [0u8; LANES * MAC_BLOCK_LEN];
    let mut left_len = 0;
    aead_in_pieces::<R, Avx512>(kernel, state, buf, direction, |ciphertext| {
        let rest = lanes.absorb_bytes(ciphertext);
        left[..rest.len()].copy_from_slice(rest);
        left_len = rest.len();
    });
    lanes.finish(acc);
    // RFC 8439's pad16: a partial block gets zeros, and the pad bit like every block.
    acc.absorb_padded(Portable, &left[..left_len]);
}

/// Two sets of eight accumulators in three 44-bit limbs (16 blocks a step), and the powers
/// of `r` they are multiplied by.
///
/// Two sets because one is a dependent chain: the 18 multiplies of a step, then its
/// carries, then the next step's multiplies. With two, one set's carries run beside the
/// other's multiplies.
struct Lanes {
    /// Set 0 takes groups 0, 2, 4, …, set 1 groups 1, 3, 5, … (8 blocks a group, block `j`
    /// of a group in lane `j`); limbs 0, 1, 2 of each.
    h: [[__m512i; 3]; 2],
    /// `r^16` in every lane: what each set is multiplied by before its next group.
    r16: Key,
    /// Lane `j`: `r^(8 − j)` and `r^(16 − j)`, for the end: the set that took the last
    /// group takes the first, the other set the second.
    last8: Key,
    last16: Key,
    /// Groups absorbed so far.
    groups: usize,
}

/// A multiplier: limbs 0–2, and limbs 1–2 times 20 (see [`mul_add`]).
#[derive(Clone, Copy)]
struct Key {
    r: [__m512i; 3],
    s: [__m512i; 2],
}

impl Key {
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn new(r: [__m512i; 3]) -> Self {
        Key { r, s: [times20(r[1]), times20(r[2])] }
    }
}

impl Lanes {
    /// The lanes for `acc`: its accumulator in lane 0 of set 0, every other lane 0.
    ///
    /// The powers of `r` come from three vector products, each of the lanes so far by the
    /// highest power so far (a chain of three products where one at a time needs seven):
    /// ```text
    ///  r     in every lane;  r2  = r · r
    ///  b   = [r  r2 r  r2 r  r2 r  r2]      r34 = b · r2 = [r3 r4 r3 r4 ...]
    ///  c   = [r  r2 r3 r4 r  r2 r3 r4]      r58 = c · r4 = [r5 r6 r7 r8 r5 r6 r7 r8]
    ///  all = [r  r2 r3 r4 r5 r6 r7 r8]      last8 = all reversed (lane j: r^(8 − j))
    /// ```
    /// then `last16 = last8 · r8` and `r16` its lane 0. The lanes are `mul_add`'s partly
    /// reduced results, which are valid multipliers again (its bounds).
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn new(acc: &Accumulator) -> Self {
        let zero = [_mm512_setzero_si512(); 3];
        let [r0, r1] = acc.r();
        let r = to_limbs::<3>([r0, r1, 0], 44).map(|l| _mm512_set1_epi64(l as i64));
        let r2 = mul_add(r, Key::new(r), zero);
        let b = blend(0b1010_1010, r, r2);
        let r34 = mul_add(b, Key::new(r2), zero);
        let c = blend(0b1100_1100, b, r34);
        let r58 = mul_add(c, Key::new(lane(r34, 1)), zero);
        let all = blend(0b1111_0000, c, r58);
        let reverse = _mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0);
        let last8 = Key::new(all.map(|v| _mm512_permutexvar_epi64(reverse, v)));
        // r^(8 − j) · r^8 in lane j; its lane 0, r^16, in every lane.
        let last16 = Key::new(mul_add(last8.r, Key::new(lane(r58, 3)), zero));
        let r16 = Key::new(lane(last16.r, 0));
        let h = to_limbs::<3>(acc.h(), 44).map(|l| _mm512_setr_epi64(l as i64, 0, 0, 0, 0, 0, 0, 0));
        Lanes { h: [h, zero], r16, last8, last16, groups: 0 }
    }

    /// Absorbs the whole groups of 8 blocks of `bytes`; returns what is left (fewer than
    /// 128 bytes).
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn absorb_bytes<'a>(&mut self, bytes: &'a [u8]) -> &'a [u8] {
        let (mut groups, rest) = bytes.as_chunks::<{ LANES * MAC_BLOCK_LEN }>();
        // One group at a time until both sets have started and set 0 is next.
        while let Some((group, more)) = groups.split_first()
            && (self.groups < 2 || self.groups % 2 == 1)
        {
            self.step(group);
            groups = more;
        }
        let (pairs, last) = groups.as_chunks::<2>();
        for [g0, g1] in pairs {
            let (m0, m1) = (load_group(g0), load_group(g1));
            self.h[0] = mul_add(self.h[0], self.r16, m0);
            self.h[1] = mul_add(self.h[1], self.r16, m1);
        }
        self.groups += 2 * pairs.len();
        for group in last {
            self.step(group);
        }
        rest
    }

    /// One group into the set whose turn it is: `h = h · r^16 + m` (`h + m` for each set's
    /// first group).
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn step(&mut self, group: &[u8; LANES * MAC_BLOCK_LEN]) {
        let m = load_group(group);
        let r16 = self.r16;
        let first = self.groups < 2;
        let h = &mut self.h[self.groups % 2];
        *h = if first { core::array::from_fn(|i| _mm512_add_epi64(h[i], m[i])) } else { mul_add(*h, r16, m) };
        self.groups += 1;
    }

    /// Multiplies each lane by the power of `r` its last block still needs (block `i` of
    /// `n` needs `r^(n − i)`), sums the lanes into `acc`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn finish(self, acc: &mut Accumulator) {
        if self.groups == 0 {
            return; // set 0's lane 0 still holds acc's own accumulator
        }
        // The set that took the last group: its lane j needs r^(8 − j), the other set's r^(16 − j).
        let (k0, k1) =
            if self.groups % 2 == 1 { (self.last8, self.last16) } else { (self.last16, self.last8) };
        let zero = [_mm512_setzero_si512(); 3];
        let (a, b) = (mul_add(self.h[0], k0, zero), mul_add(self.h[1], k1, zero));
        // Each lane's limbs are below 2^45: the sums of 16 are below 2^49.
        let sums: [u64; 3] =
            core::array::from_fn(|i| _mm512_reduce_add_epi64(_mm512_add_epi64(a[i], b[i])) as u64);
        acc.set_h(from_limbs(&sums, 44));
    }
}

/// `20·v` per lane (`v` below 2^52, so `20v` is in the multiplier's low 52 bits): a limb at
/// 2^132 or above, brought back mod p. One `vpmadd52luq`: written as `16v + 4v`, LLVM made
/// it a 64-bit multiply, which AVX-512F has not, and emulated that in five instructions.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn times20(v: __m512i) -> __m512i {
    _mm512_madd52lo_epu64(_mm512_setzero_si512(), v, _mm512_set1_epi64(20))
}

/// Lane `i` of each limb in every lane.
#[inline]
#[target_feature(enable = "avx512f")]
fn lane(v: [__m512i; 3], i: i64) -> [__m512i; 3] {
    v.map(|l| _mm512_permutexvar_epi64(_mm512_set1_epi64(i), l))
}

/// Each limb from `b` in the lanes whose bit of `mask` is set, else from `a`.
#[inline]
#[target_feature(enable = "avx512f")]
fn blend(mask: __mmask8, a: [__m512i; 3], b: [__m512i; 3]) -> [__m512i; 3] {
    core::array::from_fn(|i| _mm512_mask_blend_epi64(mask, a[i], b[i]))
}

/// 8 blocks as 44-bit limbs, each with its 2^128 pad bit (bit 40 of limb 2).
///
/// ```text
/// a  = [ b0.lo b0.hi | b1.lo b1.hi | b2.lo b2.hi | b3.lo b3.hi ]   bytes 0..64
/// b  = [ b4.lo b4.hi | b5.lo b5.hi | b6.lo b6.hi | b7.lo b7.hi ]   bytes 64..128
/// lo = [ b0.lo b1.lo b2.lo b3.lo b4.lo b5.lo b6.lo b7.lo ]   vpermt2q, even indices
/// hi = [ b0.hi b1.hi b2.hi b3.hi b4.hi b5.hi b6.hi b7.hi ]   vpermt2q, odd indices
/// limb 0 = lo & (2^44 − 1), limb 1 = (lo >> 44 | hi << 20) & (2^44 − 1), limb 2 = hi >> 24 | 2^40
/// ```
#[inline]
#[target_feature(enable = "avx512f")]
fn load_group(group: &[u8; LANES * MAC_BLOCK_LEN]) -> [__m512i; 3] {
    let (first, second) = group.split_at(64);
    let (a, b) = (load_64(first), load_64(second));
    let lo = _mm512_permutex2var_epi64(a, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), b);
    let hi = _mm512_permutex2var_epi64(a, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), b);
    let mask44 = _mm512_set1_epi64((1 << 44) - 1);
    [
        _mm512_and_si512(lo, mask44),
        _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64::<44>(lo), _mm512_slli_epi64::<20>(hi)), mask44),
        _mm512_or_si512(_mm512_srli_epi64::<24>(hi), _mm512_set1_epi64(1 << 40)),
    ]
}

/// The 64 bytes of `bytes` (exactly 64).
#[inline]
#[target_feature(enable = "avx512f")]
fn load_64(bytes: &[u8]) -> __m512i {
    let bytes: &[u8; 64] = bytes.try_into().expect("64 bytes");
    // SAFETY: `bytes` is a `&[u8; 64]`: 64 readable bytes (no alignment needed).
    unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }
}

/// `h · r + m` mod p per lane, the result's limbs below 2^44, 2^44 + 2^10 and 2^42 (so a
/// result can be a key again); `m`'s limbs are below 2^44.
///
/// The product's limb `k` is the sum of the `h[i]·r[j]` with `i + j = k`, and of the
/// wrapped ones (`i + j = k + 3`, times 20, which `s` holds). Each sum is kept as its low
/// 52 bits (`lo`, which starts from `m[k]`: the addition is free) and the bits above
/// (`hi`, weight 2^52 = 2^44 · 2^8): the carries move `lo >> 44` and `hi << 8` up a limb,
/// and the top limb's bits from 2^130 (`lo >> 42`, `hi << 10`) back to limb 0 times 5.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn mul_add(h: [__m512i; 3], key: Key, m: [__m512i; 3]) -> [__m512i; 3] {
    let [h0, h1, h2] = h;
    let [r0, r1, r2] = key.r;
    let [s1, s2] = key.s;
    let z = _mm512_setzero_si512();
    // d0 = h0·r0 + h1·20r2 + h2·20r1; d1 = h0·r1 + h1·r0 + h2·20r2; d2 = h0·r2 + h1·r1 + h2·r0.
    let lo = |from: __m512i, x: __m512i, y: __m512i, w: __m512i| {
        _mm512_madd52lo_epu64(_mm512_madd52lo_epu64(_mm512_madd52lo_epu64(from, h0, x), h1, y), h2, w)
    };
    let hi = |x: __m512i, y: __m512i, w: __m512i| {
        _mm512_madd52hi_epu64(_mm512_madd52hi_epu64(_mm512_madd52hi_epu64(z, h0, x), h1, y), h2, w)
    };
    let (d0_lo, d0_hi) = (lo(m[0], r0, s2, s1), hi(r0, s2, s1));
    let (d1_lo, d1_hi) = (lo(m[1], r1, r0, s2), hi(r1, r0, s2));
    let (d2_lo, d2_hi) = (lo(m[2], r2, r1, r0), hi(r2, r1, r0));
    let mask44 = _mm512_set1_epi64((1 << 44) - 1);
    let mask42 = _mm512_set1_epi64((1 << 42) - 1);
    let carry = |lo: __m512i, hi: __m512i, bits: u32| -> __m512i {
        // lo >> bits plus hi at its weight over the limb: 2^(52 − bits).
        if bits == 44 {
            _mm512_add_epi64(_mm512_srli_epi64::<44>(lo), _mm512_slli_epi64::<8>(hi))
        } else {
            _mm512_add_epi64(_mm512_srli_epi64::<42>(lo), _mm512_slli_epi64::<10>(hi))
        }
    };
    let h0 = _mm512_and_si512(d0_lo, mask44);
    let d1_lo = _mm512_add_epi64(d1_lo, carry(d0_lo, d0_hi, 44));
    let h1 = _mm512_and_si512(d1_lo, mask44);
    let d2_lo = _mm512_add_epi64(d2_lo, carry(d1_lo, d1_hi, 44));
    let h2 = _mm512_and_si512(d2_lo, mask42);
    // Bits from 2^130 come back times 5 (= c + 4c).
    let c = carry(d2_lo, d2_hi, 42);
    let h0 = _mm512_add_epi64(h0, _mm512_add_epi64(c, _mm512_slli_epi64::<2>(c)));
    let h1 = _mm512_add_epi64(h1, _mm512_srli_epi64::<44>(h0));
    [_mm512_and_si512(h0, mask44), h1, h2]
}
