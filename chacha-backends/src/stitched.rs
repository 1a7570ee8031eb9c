//! What the stitched AEAD steps (`avx2/aead.rs` on x86_64, `neon/aead.rs`) share: the
//! split of a request into whole sets of 8 blocks for the module's stitched loop and the
//! rest for the default way (`aead`), and, in radix 2^64 (the `Accumulator`'s limbs),
//! the once-a-set join of their two Horner chains, `h · r^16 + second` (`mul_add`), and
//! `r^16`. Plain Rust on `u128` products, outside the loops that interleave the block steps
//! with the rounds.

use chacha_core::poly1305::Accumulator;
use chacha_core::{Aead, AeadDirection, BLOCK_LEN, Ietf, R20, Rounds, State, XorBuf, aead_in_pieces};

/// Bytes per set: 8 ChaCha20 blocks, 32 Poly1305 blocks.
pub(crate) const SET: usize = 8 * BLOCK_LEN;

/// An AEAD's bulk step ([`Aead::xor_then_mac`], [`Aead::mac_then_xor`]) for a kernel
/// with a stitched loop (`can`: this CPU runs it): from 1 set opening and 3 sealing (whose
/// first set runs alone and whose last set's MAC follows the loop; measured on `avx2`,
/// DECISIONS.md), ChaCha20 only, `sets` runs the whole sets (absorbing the ciphertext of each
/// set opening, of each set but the last sealing) and the rest goes the default way; the
/// default pieces elsewhere.
#[inline(always)]
pub(crate) fn aead<R: Rounds, K: Aead>(
    kernel: K,
    can: bool,
    state: &State<Ietf>,
    acc: &mut Accumulator,
    mut buf: XorBuf<'_, '_>,
    direction: AeadDirection,
    sets: impl FnOnce(&mut Accumulator, XorBuf<'_, '_>),
) {
    let seal = direction == AeadDirection::Seal;
    let min = if seal { 3 * SET } else { SET };
    if !(can && R::DOUBLE_ROUNDS == R20::DOUBLE_ROUNDS && buf.len() >= min) {
        return aead_in_pieces::<R, K>(kernel, state, buf, direction, |ct| acc.absorb_padded(kernel, ct));
    }
    let bulk = buf.len() / SET * SET;
    let (whole, mut rest) = buf.reborrow().split_at(bulk);
    sets(acc, whole);
    if !rest.is_empty() {
        let mut at = state.clone();
        at.advance((bulk / BLOCK_LEN) as u64).expect("the caller checked the whole request");
        if !seal {
            acc.absorb_padded(kernel, rest.get_in());
        }
        kernel.xor::<R20, Ietf>(&at, rest.reborrow(), &mut [0; BLOCK_LEN]);
    }
    if seal {
        // The last set's ciphertext and the rest's: 32 blocks or more, the kernel's MAC.
        acc.absorb_padded(kernel, &buf.get_out()[bulk - SET..]);
    }
}

/// `a · q + b` mod p, partly reduced (limb 2 at most 4), for `a`, `b` with limb 2 at most
/// 5 and `q` with limb 2 at most 4: the product in five limbs (below 2^261), the bits from
/// 2^130 up folded in as `4·H + H` (then below 2^134), and once more the bits of limb 2 from
/// bit 2 up, times 5.
#[inline(always)]
pub(crate) fn mul_add(a: [u64; 3], q: [u64; 3], b: [u64; 3]) -> [u64; 3] {
    // Schoolbook rows: each `t` below 2^128 (limb + limb · limb + carry); limb 5 stays 0.
    let mut p = [0u64; 6];
    for i in 0..3 {
        let mut carry = 0u128;
        for j in 0..3 {
            let t = u128::from(p[i + j]) + u128::from(a[i]) * u128::from(q[j]) + carry;
            p[i + j] = t as u64;
            carry = t >> 64;
        }
        p[i + 3] = carry as u64;
    }
    // + b.
    let mut carry = 0u128;
    for k in 0..5 {
        let t = u128::from(p[k]) + u128::from(if k < 3 { b[k] } else { 0 }) + carry;
        p[k] = t as u64;
        carry = t >> 64;
    }
    // 4·H = (p2 & !3, p3, p4), H = 4·H >> 2; h = the low 130 bits + 4·H + H.
    let four = [p[2] & !3, p[3], p[4]];
    let one = [(p[2] >> 2) | (p[3] << 62), (p[3] >> 2) | (p[4] << 62), p[4] >> 2];
    let t = u128::from(p[0]) + u128::from(four[0]) + u128::from(one[0]);
    let h0 = t as u64;
    let t = u128::from(p[1]) + u128::from(four[1]) + u128::from(one[1]) + (t >> 64);
    let h1 = t as u64;
    let h2 = (p[2] & 3) + four[2] + one[2] + (t >> 64) as u64;
    // h2 < 2^6: its bits from 2 up, times 5, into limb 0.
    let t = u128::from(h0) + u128::from((h2 >> 2) * 5);
    let t1 = u128::from(h1) + (t >> 64);
    [t as u64, t1 as u64, (h2 & 3) + (t1 >> 64) as u64]
}

/// `r^16` mod p, partly reduced (limb 2 at most 4): four squarings.
#[inline]
pub(crate) fn r16(r: [u64; 2]) -> [u64; 3] {
    let mut q = [r[0], r[1], 0];
    for _ in 0..4 {
        q = mul_add(q, q, [0; 3]);
    }
    q
}
