//! `avx512::poly1305`: Poly1305 on the AVX-512 IFMA 52-bit multiplier, 8 blocks side by side,
//! and the one-pass ChaCha20-Poly1305 steps on top of it.
//!
//! # Layout
//! - **Limbs**: a value mod p = 2^130 − 5 in three 44-bit limbs (44 + 44 + 42 bits),
//!   each in a 64-bit lane, so one `vpmadd52luq` / `vpmadd52huq` pair gives the low and
//!   high 52 bits of a limb product and adds them to a 64-bit sum without a carry chain.
//! - **Lanes**: three zmm (`h[0..3]`, one per limb), lane `j` the accumulator of blocks
//!   `j, j + 8, j + 16, …`. Each step multiplies every lane by `r^8` and adds the next 8
//!   blocks; the caller's accumulator starts in lane 0. At the end lane `j` is multiplied by
//!   `r^(8 − j)` and the lanes summed: block `i` of `n` then carries `r^(n − i)`, as in
//!   the one-block-at-a-time definition.
//! - **Wrap-around**: a limb product at 2^132 or above comes back times 20
//!   (2^132 = 4·2^130 ≡ 4·5), so the key's limbs 1 and 2 are kept times 20 too (`s1`, `s2`).
//! - **Bounds** (why no lane overflows): key limbs < 2^44 (`s` < 2^49), accumulator limbs
//!   < 2^45 after each step, message limbs < 2^44: products < 2^94, each 64-bit sum takes
//!   three low halves (< 2^54) or three high halves (< 2^42). After the carries the lanes are
//!   back below 2^44, 2^44 + 2^10 and 2^42; the multiplier reads only 52 bits of each input,
//!   so every input is kept below 2^52.
//! - **One pass** (`xor_and_mac`): the message in [`AEAD_CHUNK`]-byte pieces, each XORed
//!   by the ChaCha kernels and absorbed while in L1; `r^1 … r^8` are computed once per
//!   message, not per piece.
//!
//! Every function that holds a vector enables `avx512f,avx512ifma` and is inlined into one
//! such entry point; an [`Ifma`] exists only if the CPU has both. Measured (the threshold,
//! instructions per block): `DECISIONS.md` in this crate, § avx512 Poly1305.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use chacha_core::poly1305::{Accumulator, MAC_BLOCK_LEN, MacBlock, Portable, from_limbs, to_limbs};
use chacha_core::{AEAD_CHUNK, AeadDirection, BLOCK_LEN, Kernel, Rounds, State, Variant, inout::InOutBuf};

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

    /// [`Kernel::poly1305_blocks`]: whole groups of 8 in the lanes, the rest (fewer than 8,
    /// or all of a short request) with the portable step.
    #[inline]
    pub(super) fn absorb(self, acc: &mut Accumulator, blocks: &[MacBlock]) {
        if blocks.len() < MIN_BLOCKS {
            return acc.absorb(blocks);
        }
        // SAFETY: an Ifma exists only if detect() saw AVX-512F and AVX-512 IFMA.
        unsafe { absorb_all(acc, blocks) }
    }

    /// One pass of an AEAD's bulk step ([`Kernel::xor_then_mac`] / `mac_then_xor`),
    /// ChaCha on `kernel`.
    #[inline]
    pub(super) fn xor_and_mac<R: Rounds, V: Variant>(
        self,
        kernel: Avx512,
        state: &State<V>,
        acc: &mut Accumulator,
        buf: InOutBuf<'_, '_, u8>,
        direction: AeadDirection,
    ) {
        // SAFETY: an Ifma exists only if detect() saw AVX-512F and AVX-512 IFMA.
        unsafe { xor_and_mac::<R, V>(kernel, state, acc, buf, direction) }
    }
}

#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn absorb_all(acc: &mut Accumulator, blocks: &[MacBlock]) {
    let (groups, rest) = blocks.as_chunks::<LANES>();
    let mut lanes = Lanes::new(acc);
    lanes.absorb(groups);
    lanes.finish(acc);
    acc.absorb(rest);
}

#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn xor_and_mac<R: Rounds, V: Variant>(
    kernel: Avx512,
    state: &State<V>,
    acc: &mut Accumulator,
    mut buf: InOutBuf<'_, '_, u8>,
    direction: AeadDirection,
) {
    let mut lanes = Lanes::new(acc);
    let mut piece_state = state.clone();
    let mut tail = [0u8; BLOCK_LEN];
    // Every piece but the last is whole groups (AEAD_CHUNK is a multiple of 128 bytes),
    // so the lanes never see a partial group before the end. What the last leaves (fewer
    // than 8 blocks, maybe a partial one) is kept: opening in place overwrites it.
    let mut left = [0u8; LANES * MAC_BLOCK_LEN];
    let mut left_len = 0;
    while !buf.is_empty() {
        let n = buf.len().min(AEAD_CHUNK);
        let (mut piece, rest) = buf.split_at(n);
        let mut keep = |rest: &[u8]| {
            left[..rest.len()].copy_from_slice(rest);
            left_len = rest.len();
        };
        if direction == AeadDirection::Open {
            keep(lanes.absorb_bytes(piece.get_in()));
        }
        kernel.xor::<R, V>(&piece_state, piece.reborrow(), &mut tail);
        if direction == AeadDirection::Seal {
            keep(lanes.absorb_bytes(piece.get_out()));
        }
        if !rest.is_empty() {
            piece_state.advance((n / BLOCK_LEN) as u64).expect("the caller checked the whole request");
        }
        buf = rest;
    }
    lanes.finish(acc);
    // RFC 8439's pad16: a partial block gets zeros, and the pad bit like every block.
    acc.absorb_padded(Portable, &left[..left_len]);
}

/// Eight accumulators in three 44-bit limbs, and the powers of `r` they are multiplied by.
struct Lanes {
    /// Limbs 0, 1, 2 of the 8 accumulators.
    h: [__m512i; 3],
    /// `r^8` in every lane, limbs 0–2, and limbs 1–2 times 20.
    r8: [__m512i; 3],
    s8: [__m512i; 2],
    /// Lane `j`: `r^(8 − j)`, limbs 0–2, and limbs 1–2 times 20.
    r_last: [__m512i; 3],
    s_last: [__m512i; 2],
    /// Whether a group was absorbed (the next one multiplies by `r^8` first).
    started: bool,
}

impl Lanes {
    /// The lanes for `acc`: its accumulator in lane 0, the others 0.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn new(acc: &Accumulator) -> Self {
        let powers = acc.r_powers::<LANES>(); // powers[k] = r^(k + 1)
        let limbs: [[u64; 3]; LANES] = core::array::from_fn(|k| to_limbs::<3>(powers[k], 44));
        let h = to_limbs::<3>(acc.h(), 44);
        let r8 = limbs[LANES - 1].map(|l| _mm512_set1_epi64(l as i64));
        let r_last: [__m512i; 3] = core::array::from_fn(|i| {
            let lane = |j: usize| limbs[LANES - 1 - j][i] as i64;
            _mm512_setr_epi64(lane(0), lane(1), lane(2), lane(3), lane(4), lane(5), lane(6), lane(7))
        });
        Lanes {
            h: h.map(|l| _mm512_setr_epi64(l as i64, 0, 0, 0, 0, 0, 0, 0)),
            s8: [times20(r8[1]), times20(r8[2])],
            r8,
            s_last: [times20(r_last[1]), times20(r_last[2])],
            r_last,
            started: false,
        }
    }

    /// Absorbs the whole groups of 8 blocks of `bytes`; returns what is left (fewer than
    /// 128 bytes).
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn absorb_bytes<'a>(&mut self, bytes: &'a [u8]) -> &'a [u8] {
        let (groups, rest) = bytes.as_chunks::<{ LANES * MAC_BLOCK_LEN }>();
        for group in groups {
            self.absorb_group(group);
        }
        rest
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn absorb(&mut self, groups: &[[MacBlock; LANES]]) {
        for group in groups {
            self.absorb_group(group.as_flattened().try_into().expect("128 bytes"));
        }
    }

    /// `h = h · r^8 + m` (without the multiply for the first group).
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn absorb_group(&mut self, group: &[u8; LANES * MAC_BLOCK_LEN]) {
        if self.started {
            self.h = mul(self.h, self.r8, self.s8);
        }
        self.started = true;
        let m = load_group(group);
        self.h = core::array::from_fn(|i| _mm512_add_epi64(self.h[i], m[i]));
    }

    /// Multiplies lane `j` by `r^(8 − j)`, sums the lanes into `acc`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn finish(self, acc: &mut Accumulator) {
        if !self.started {
            return; // lane 0 still holds acc's own accumulator
        }
        let h = mul(self.h, self.r_last, self.s_last);
        // Each lane's limbs are below 2^45: the sums are below 2^48.
        let sums = h.map(|v| _mm512_reduce_add_epi64(v) as u64);
        acc.set_h(from_limbs(&sums, 44));
    }
}

/// `20·v` per lane (`16v + 4v`): a limb at 2^132 or above, brought back mod p.
#[inline]
#[target_feature(enable = "avx512f")]
fn times20(v: __m512i) -> __m512i {
    _mm512_add_epi64(_mm512_slli_epi64::<4>(v), _mm512_slli_epi64::<2>(v))
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

/// `h · r` mod p per lane, the result's limbs below 2^44, 2^44 + 2^10 and 2^42; `s` is
/// `r`'s limbs 1 and 2 times 20.
///
/// The product's limb `k` is the sum of the `h[i]·r[j]` with `i + j = k`, and of the
/// wrapped ones (`i + j = k + 3`, times 20, which `s` holds). Each sum is kept as its low
/// 52 bits (`lo`) and the bits above (`hi`, weight 2^52 = 2^44 · 2^8): the carries move
/// `lo >> 44` and `hi << 8` up a limb, and the top limb's bits from 2^130 (`lo >> 42`,
/// `hi << 10`) back to limb 0 times 5.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn mul(h: [__m512i; 3], r: [__m512i; 3], s: [__m512i; 2]) -> [__m512i; 3] {
    let [h0, h1, h2] = h;
    let [r0, r1, r2] = r;
    let [s1, s2] = s;
    let z = _mm512_setzero_si512();
    // d0 = h0·r0 + h1·20r2 + h2·20r1; d1 = h0·r1 + h1·r0 + h2·20r2; d2 = h0·r2 + h1·r1 + h2·r0.
    let lo = |a: __m512i, b: __m512i, c: __m512i, x: __m512i, y: __m512i, w: __m512i| {
        _mm512_madd52lo_epu64(_mm512_madd52lo_epu64(_mm512_madd52lo_epu64(z, a, x), b, y), c, w)
    };
    let hi = |a: __m512i, b: __m512i, c: __m512i, x: __m512i, y: __m512i, w: __m512i| {
        _mm512_madd52hi_epu64(_mm512_madd52hi_epu64(_mm512_madd52hi_epu64(z, a, x), b, y), c, w)
    };
    let (d0_lo, d0_hi) = (lo(h0, h1, h2, r0, s2, s1), hi(h0, h1, h2, r0, s2, s1));
    let (d1_lo, d1_hi) = (lo(h0, h1, h2, r1, r0, s2), hi(h0, h1, h2, r1, r0, s2));
    let (d2_lo, d2_hi) = (lo(h0, h1, h2, r2, r1, r0), hi(h0, h1, h2, r2, r1, r0));
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
