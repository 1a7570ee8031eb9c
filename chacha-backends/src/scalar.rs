//! One block's quarter round on `u32`s in general-purpose registers: the whole of `soft`'s
//! rounds, and `sse2`'s fifth block, which runs beside its four word-sliced ones.
//!
//! Not the reference's quarter round (`chacha_core::reference`), on purpose: the oracle the
//! backends are tested against shares no code with them.

/// RFC 8439 §2.1 on the words `a`, `b`, `c`, `d` of `x` (always inlined: a call per
/// quarter round would cost more than the round).
#[inline(always)]
pub(crate) fn quarter_round(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(16);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(12);
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(8);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(7);
}
