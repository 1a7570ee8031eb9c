//! Poly1305 (RFC 8439 §2.5): the accumulator every backend's MAC kernel reads and leaves,
//! the portable block step, and the MAC on top ([`Poly1305`]).
//!
//! Layout: the clamped key half `r` as two 64-bit limbs, the accumulator `h` as three
//! (`h = h[0] + 2^64·h[1] + 2^128·h[2]`). Between kernel calls `h` is only *partly*
//! reduced: `h[2] < 8`, so `h < 2^131`, congruent to the true value mod `p = 2^130 - 5`.
//! Every kernel converts to its own limbs on entry (26-bit for AVX2, 44-bit for IFMA)
//! and back on exit, so kernels can be mixed call by call. [`Accumulator::tag`] reduces
//! fully.
//!
//! The portable step is the 64-bit-limb product (two `u64 × u64 → u128` multiplies per
//! limb of `r`): `2^130 ≡ 5 (mod p)` and `r[1] % 4 == 0` (clamping) make the wrapped
//! terms a multiply by `s1 = r[1] + r[1] / 4` (`= 5·r[1] / 4`).

/// Bytes in a Poly1305 block.
pub const MAC_BLOCK_LEN: usize = 16;

/// Bytes in a Poly1305 tag.
pub const TAG_LEN: usize = 16;

/// A Poly1305 block: 16 message bytes.
pub type MacBlock = [u8; MAC_BLOCK_LEN];

/// The Poly1305 state a kernel works on: the clamped `r` and the accumulator `h`.
///
/// Made only by [`Accumulator::new`] (which clamps), so every kernel may rely on the
/// clamped bits of `r` and on `h[2] < 8`.
#[derive(Clone)]
pub struct Accumulator {
    r: [u64; 2],
    h: [u64; 3],
}

impl Accumulator {
    /// A new accumulator (`h = 0`) for key half `r` (the first 16 key bytes), clamped as
    /// RFC 8439 §2.5.1 says.
    #[inline]
    pub fn new(r: &[u8; 16]) -> Self {
        let (lo, hi) = r.split_at(8);
        let lo = u64::from_le_bytes(lo.try_into().expect("8 bytes"));
        let hi = u64::from_le_bytes(hi.try_into().expect("8 bytes"));
        Accumulator { r: [lo & 0x0fff_fffc_0fff_ffff, hi & 0x0fff_fffc_0fff_fffc], h: [0; 3] }
    }

    /// The clamped key half `r`, low limb first: `r[0] < 2^60`, `r[1] < 2^60`,
    /// `r[1] % 4 == 0`.
    #[inline(always)]
    pub fn r(&self) -> [u64; 2] {
        self.r
    }

    /// The accumulator, low limb first, partly reduced: `h[2] < 8`.
    #[inline(always)]
    pub fn h(&self) -> [u64; 3] {
        self.h
    }

    /// Stores a kernel's accumulator.
    ///
    /// # Panics
    /// With debug assertions, if `h[2] >= 8`: the kernel broke the invariant every other kernel
    /// relies on (a release build does not branch on the secret `h`).
    #[inline(always)]
    pub fn set_h(&mut self, h: [u64; 3]) {
        // A debug assertion: `h` is secret, and a branch on it is what the constant-time test
        // (ctgrind) reports; the tests run with debug assertions.
        debug_assert!(h[2] < 8, "a Poly1305 kernel left h[2] = {} (must be < 8)", h[2]);
        self.h = h;
    }

    /// Absorbs whole blocks, each with its 2^128 pad bit, with the portable step: the
    /// default [`Aead::poly1305_blocks`](crate::Aead::poly1305_blocks).
    #[inline]
    pub fn absorb(&mut self, blocks: &[MacBlock]) {
        for m in blocks {
            self.absorb_block(m, 1);
        }
    }

    /// Absorbs `data` as blocks, a partial last one padded with zeros: RFC 8439 §2.8's
    /// `pad16`, the AEAD's padding, where every block gets the pad bit.
    #[inline]
    pub fn absorb_padded(&mut self, mac: impl BlockMac, data: &[u8]) {
        let (blocks, rest) = data.as_chunks::<MAC_BLOCK_LEN>();
        mac.absorb(self, blocks);
        if !rest.is_empty() {
            let mut last = [0u8; MAC_BLOCK_LEN];
            last[..rest.len()].copy_from_slice(rest);
            mac.absorb(self, &[last]);
        }
    }

    /// Absorbs one block with pad bit `pad` (1 for a whole block; 0 for a final partial
    /// block, which the caller has already ended with `0x01` and zeros).
    #[inline(always)]
    fn absorb_block(&mut self, m: &MacBlock, pad: u64) {
        let [h0, h1, h2] = self.h;
        // h += m
        let (lo, hi) = m.split_at(8);
        let t0 = u128::from(h0) + u128::from(u64::from_le_bytes(lo.try_into().expect("8 bytes")));
        let t1 =
            u128::from(h1) + u128::from(u64::from_le_bytes(hi.try_into().expect("8 bytes"))) + (t0 >> 64);
        self.h = mul_r([t0 as u64, t1 as u64, h2 + (t1 >> 64) as u64 + pad], self.r);
    }

    /// `r^1, r^2, …, r^N` mod p, each fully reduced (below p), low limb first: what a
    /// kernel that absorbs N blocks side by side multiplies its lanes by. Once per message
    /// (N products), so a kernel's per-block loop has no power to compute.
    pub fn r_powers<const N: usize>(&self) -> [[u64; 3]; N] {
        // The chain of N − 1 products carries them partly reduced (`mul_r` keeps `h[2] < 8`);
        // each power is fully reduced on its own, beside the chain rather than in it.
        let mut power = [self.r[0], self.r[1], 0];
        core::array::from_fn(|k| {
            if k > 0 {
                power = mul_r(power, self.r);
            }
            reduce(power)
        })
    }

    /// ChaCha20-Poly1305's tag (RFC 8439 §2.8): absorbs the lengths block (`aad_len`, then
    /// `text_len`, each as 8 little-endian bytes), then [`tag`](Self::tag).
    #[inline]
    pub fn aead_tag(&mut self, s: &[u8; 16], aad_len: usize, text_len: usize) -> [u8; TAG_LEN] {
        let mut lengths = [0u8; MAC_BLOCK_LEN];
        lengths[..8].copy_from_slice(&(aad_len as u64).to_le_bytes());
        lengths[8..].copy_from_slice(&(text_len as u64).to_le_bytes());
        self.absorb(&[lengths]);
        self.tag(s)
    }

    /// The tag: `h` reduced mod `p`, plus `s` (the last 16 key bytes) mod 2^128, in
    /// constant time.
    #[inline]
    pub fn tag(&self, s: &[u8; 16]) -> [u8; TAG_LEN] {
        let [h0, h1, _] = reduce(self.h);
        let (lo, hi) = s.split_at(8);
        let t0 = u128::from(h0) + u128::from(u64::from_le_bytes(lo.try_into().expect("8 bytes")));
        let t1 =
            u128::from(h1) + u128::from(u64::from_le_bytes(hi.try_into().expect("8 bytes"))) + (t0 >> 64);
        let mut tag = [0u8; TAG_LEN];
        tag[..8].copy_from_slice(&(t0 as u64).to_le_bytes());
        tag[8..].copy_from_slice(&(t1 as u64).to_le_bytes());
        tag
    }
}

/// `h · r` mod p, partly reduced (`h[2] < 8` out, for `h[2] < 8` in and a clamped `r`).
#[inline(always)]
fn mul_r([h0, h1, h2]: [u64; 3], [r0, r1]: [u64; 2]) -> [u64; 3] {
    let s1 = r1 + (r1 >> 2);
    // The terms at 2^128 and 2^192 of r[1] wrap to s1 at 2^0 and 2^64.
    let d0 = u128::from(h0) * u128::from(r0) + u128::from(h1) * u128::from(s1);
    let d1 = u128::from(h0) * u128::from(r1) + u128::from(h1) * u128::from(r0) + u128::from(h2 * s1);
    let d1 = d1 + (d0 >> 64);
    let d2 = h2 * r0 + (d1 >> 64) as u64;
    // Fold the bits above 2^130 back in: (d2 >> 2)·2^130 ≡ (d2 >> 2)·5 = (d2 & !3) + (d2 >> 2).
    let c = (d2 & !3) + (d2 >> 2);
    let t0 = u128::from(d0 as u64) + u128::from(c);
    let t1 = u128::from(d1 as u64) + (t0 >> 64);
    [t0 as u64, t1 as u64, (d2 & 3) + (t1 >> 64) as u64]
}

/// `h` (below 2^131) fully reduced mod p, in constant time.
#[inline(always)]
fn reduce([h0, h1, h2]: [u64; 3]) -> [u64; 3] {
    // h < 2^131: fold the bits above 2^130 once, then h < p + 40 < 2p.
    let c = (h2 >> 2) * 5;
    let t0 = u128::from(h0) + u128::from(c);
    let t1 = u128::from(h1) + (t0 >> 64);
    let (h0, h1, h2) = (t0 as u64, t1 as u64, (h2 & 3) + (t1 >> 64) as u64);
    // g = h + 5 - 2^130; take it where it does not borrow (h >= p).
    let g0 = u128::from(h0) + 5;
    let g1 = u128::from(h1) + (g0 >> 64);
    let g2 = h2 + (g1 >> 64) as u64;
    let take_g = 0u64.wrapping_sub(g2 >> 2); // all ones when h + 5 >= 2^130
    // g = h - p < 5 when taken: its limb 2 is 0.
    [(h0 & !take_g) | (g0 as u64 & take_g), (h1 & !take_g) | (g1 as u64 & take_g), h2 & !take_g]
}

/// `value` (below 2^131, as [`Accumulator::h`] or [`Accumulator::r_powers`] give it) in
/// `N` limbs of `bits` bits, low first, the last limb taking every bit above: how a SIMD
/// kernel loads `h` and the powers of `r`: 5 limbs of 26 bits for 32-bit multipliers, 3
/// of 44 bits for the 52-bit IFMA multiplier.
///
/// # Panics
/// For any other limb layout than those two.
pub fn to_limbs<const N: usize>(value: [u64; 3], bits: u32) -> [u64; N] {
    assert!(matches!((N, bits), (5, 26) | (3, 44)), "{N} limbs of {bits} bits");
    let mask = (1u64 << bits) - 1;
    let lo = u128::from(value[0]) + (u128::from(value[1]) << 64);
    core::array::from_fn(|i| {
        let at = bits * i as u32;
        // The last limb starts at bit 104 or 88: it takes value[2] too.
        if i + 1 == N { (lo >> at) as u64 + (value[2] << (128 - at)) } else { (lo >> at) as u64 & mask }
    })
}

/// The value of `limbs` (limb `i` weighs `2^(bits·i)`; each below 2^58, `bits` below 64
/// and `bits · (len − 1) ≤ 128`, so the value is below 2^186) mod p, partly reduced as an
/// [`Accumulator`] holds it (`h[2] < 8`): how a SIMD kernel hands its lanes' sum back.
///
/// # Panics
/// If `bits` is 0 or 64 or more, or the limbs reach past 2^186; with debug assertions, if a
/// limb is 2^58 or more (a release build does not branch on the secret limbs).
pub fn from_limbs(limbs: &[u64], bits: u32) -> [u64; 3] {
    assert!((1..64).contains(&bits), "limbs of {bits} bits");
    assert!(bits * (limbs.len() as u32).saturating_sub(1) <= 128, "{} limbs of {bits} bits", limbs.len());
    // Horner's rule from the top limb: value = lo + 2^128·hi, below 2^186 throughout.
    let (mut lo, mut hi) = (0u128, 0u64);
    for (i, &limb) in limbs.iter().enumerate().rev() {
        // Debug only: the limbs are secret (no branch on them in release builds).
        debug_assert!(limb < 1 << 58, "limb {i} = {limb:#x}");
        hi = (hi << bits) + (lo >> (128 - bits)) as u64;
        let (sum, carry) = (lo << bits).overflowing_add(u128::from(limb));
        lo = sum;
        hi += u64::from(carry);
    }
    // value = low 130 bits + 2^130·c ≡ low 130 bits + 5c, with c = hi >> 2 < 2^56.
    let t0 = u128::from(lo as u64) + u128::from(hi >> 2) * 5;
    let t1 = (lo >> 64) + (t0 >> 64);
    [t0 as u64, t1 as u64, (hi & 3) + (t1 >> 64) as u64]
}

/// Only that it is one: `r` and `h` are secret.
impl core::fmt::Debug for Accumulator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Accumulator { .. }")
    }
}

#[cfg(feature = "zeroize")]
impl zeroize::Zeroize for Accumulator {
    fn zeroize(&mut self) {
        self.r.zeroize();
        self.h.zeroize();
    }
}

/// The Poly1305 one-time authenticator over any message (RFC 8439 §2.5), on a kernel's
/// portable step ([`update`](Self::update)) or a kernel's
/// [`poly1305_blocks`](crate::Aead::poly1305_blocks) ([`update_with`](Self::update_with)).
///
/// ```
/// use chacha_core::poly1305::Poly1305;
///
/// // RFC 8439 §2.5.2.
/// let key: [u8; 32] = *b"\x85\xd6\xbe\x78\x57\x55\x6d\x33\x7f\x44\x52\xfe\x42\xd5\x06\xa8\
///                        \x01\x03\x80\x8a\xfb\x0d\xb2\xfd\x4a\xbf\xf6\xaf\x41\x49\xf5\x1b";
/// let mut mac = Poly1305::new(&key);
/// mac.update(b"Cryptographic Forum Research Group");
/// assert_eq!(mac.tag()[..4], [0xa8, 0x06, 0x1d, 0xc1]);
/// ```
#[derive(Clone)]
pub struct Poly1305 {
    acc: Accumulator,
    s: [u8; 16],
    pending: MacBlock,
    pending_len: usize,
}

impl Poly1305 {
    /// A MAC for the one-time key `key` (`r` then `s`).
    pub fn new(key: &[u8; 32]) -> Self {
        let (r, s) = key.split_at(16);
        Poly1305 {
            acc: Accumulator::new(r.try_into().expect("16 bytes")),
            s: s.try_into().expect("16 bytes"),
            pending: [0; MAC_BLOCK_LEN],
            pending_len: 0,
        }
    }

    /// Absorbs `msg` with the portable step.
    pub fn update(&mut self, msg: &[u8]) {
        self.update_with(Portable, msg);
    }

    /// Absorbs `msg`; whole blocks go to `kernel`, a partial one waits for more.
    pub fn update_with<K: BlockMac>(&mut self, kernel: K, mut msg: &[u8]) {
        if self.pending_len != 0 {
            let n = (MAC_BLOCK_LEN - self.pending_len).min(msg.len());
            self.pending[self.pending_len..][..n].copy_from_slice(&msg[..n]);
            self.pending_len += n;
            msg = &msg[n..];
            if self.pending_len < MAC_BLOCK_LEN {
                return;
            }
            self.acc.absorb_block(&self.pending, 1);
            self.pending_len = 0;
        }
        let (blocks, rest) = msg.as_chunks::<MAC_BLOCK_LEN>();
        kernel.absorb(&mut self.acc, blocks);
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// The tag of everything absorbed: a final partial block gets RFC 8439's `0x01` byte
    /// and no pad bit.
    pub fn tag(mut self) -> [u8; TAG_LEN] {
        if self.pending_len > 0 {
            let mut last = [0u8; MAC_BLOCK_LEN];
            last[..self.pending_len].copy_from_slice(&self.pending[..self.pending_len]);
            last[self.pending_len] = 1;
            self.acc.absorb_block(&last, 0);
        }
        self.acc.tag(&self.s)
    }
}

/// What absorbs whole blocks into an [`Accumulator`]: every [`Aead`](crate::Aead) kernel
/// (its [`poly1305_blocks`](crate::Aead::poly1305_blocks)) and [`Portable`].
pub trait BlockMac: Copy {
    /// Absorbs `blocks`, each with its 2^128 pad bit.
    fn absorb(self, acc: &mut Accumulator, blocks: &[MacBlock]);
}

/// The portable step, [`Accumulator::absorb`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Portable;

impl BlockMac for Portable {
    #[inline]
    fn absorb(self, acc: &mut Accumulator, blocks: &[MacBlock]) {
        acc.absorb(blocks);
    }
}

impl<K: crate::Aead> BlockMac for K {
    #[inline]
    fn absorb(self, acc: &mut Accumulator, blocks: &[MacBlock]) {
        self.poly1305_blocks(acc, blocks);
    }
}

/// Only that it is one: the key and the accumulator are secret.
impl core::fmt::Debug for Poly1305 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Poly1305 { .. }")
    }
}

#[cfg(feature = "zeroize")]
impl Drop for Poly1305 {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.acc.zeroize();
        self.s.zeroize();
        self.pending.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference;

    /// The partly reduced accumulator at its bounds: h[2] up to 7, every limb all ones.
    #[test]
    fn absorb_matches_reference_from_extreme_accumulators() {
        for h in [
            [u64::MAX, u64::MAX, 7],
            [u64::MAX, u64::MAX, 3],
            [0, 0, 4],
            [5, 0, 4],
            [u64::MAX - 4, u64::MAX, 3],
        ] {
            for key in [[0xffu8; 32], [0u8; 32], core::array::from_fn(|i| (i as u8).wrapping_mul(37))] {
                let mut acc = Accumulator::new(key[..16].try_into().unwrap());
                acc.set_h(h);
                let m = [0xffu8; 16];
                acc.absorb(&[m, m]);
                let want = reference::poly1305_blocks(&key[..16].try_into().unwrap(), h, &[m, m]);
                assert_eq!(reduce(acc.h()), reduce(want), "h {h:x?}, key {key:x?}");
                assert!(acc.h()[2] < 8);
            }
        }
    }

    /// `h` fully reduced, through the tag with `s = 0`.
    fn reduce(h: [u64; 3]) -> [u8; 16] {
        let mut acc = Accumulator::new(&[0; 16]);
        acc.set_h(h);
        acc.tag(&[0; 16])
    }

    /// The full reduction, every limb: p and above become h − p, below p stays, bits
    /// from 2^130 fold in as 5 each.
    #[test]
    fn reduce_gives_the_least_residue() {
        let p = [u64::MAX - 4, u64::MAX, 3];
        assert_eq!(super::reduce(p), [0, 0, 0]);
        assert_eq!(super::reduce([u64::MAX - 1, u64::MAX, 3]), [3, 0, 0]); // p + 3
        assert_eq!(super::reduce([u64::MAX - 5, u64::MAX, 3]), [u64::MAX - 5, u64::MAX, 3]); // p − 1
        assert_eq!(super::reduce([7, 0, 3]), [7, 0, 3]);
        assert_eq!(super::reduce([0, 0, 4]), [5, 0, 0]); // 2^130
        assert_eq!(super::reduce([u64::MAX, u64::MAX, 7]), [9, 0, 0]); // 2^131 − 1
        assert_eq!(super::reduce([1, 2, 5]), [1 + 5, 2, 1]); // 2^130 + 2^128 + 2^65 + 1
    }

    #[test]
    fn tag_reduces_values_at_and_around_p() {
        // p = 2^130 - 5 reduces to 0, p + 4 to 4, p - 1 stays.
        let p = [u64::MAX - 4, u64::MAX, 3];
        assert_eq!(reduce(p), [0; 16]);
        let mut four = [0u8; 16];
        four[0] = 4;
        assert_eq!(reduce([u64::MAX, u64::MAX, 3]), four);
        let mut p_minus_1 = [0xffu8; 16];
        p_minus_1[0] = 0xfa;
        assert_eq!(reduce([u64::MAX - 5, u64::MAX, 3]), p_minus_1);
        // 2^131 - 1 = p + 2^130 + 4 ≡ 2^130 + 4 = p + 9 ≡ 9.
        let mut nine = [0u8; 16];
        nine[0] = 9;
        assert_eq!(reduce([u64::MAX, u64::MAX, 7]), nine);
    }

    // The check is a debug assertion (see `set_h`): a release test build has none.
    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "must be < 8")]
    fn set_h_rejects_an_unreduced_accumulator() {
        Accumulator::new(&[0; 16]).set_h([0, 0, 8]);
    }
}
