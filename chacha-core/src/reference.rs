//! The ChaCha block function written straight from RFC 8439 §2.1–§2.3, HChaCha from
//! draft-irtf-cfrg-xchacha-03 §2.2, and Poly1305 from RFC 8439 §2.5 (in five 26-bit
//! limbs, the textbook way to do its 130-bit arithmetic; no kernel uses that radix, so
//! the reference shares no code and no limb layout with them).
//!
//! This is the oracle every backend is tested against, so it stays plain: one block at a
//! time, the state as sixteen words, the quarter round on indices exactly as the RFC
//! writes it. Never optimise it.

use crate::{
    rounds::Rounds,
    state::{Block, CONSTANTS, State, Variant},
};

/// RFC 8439 §2.2: the quarter round on four words of the state.
pub fn quarter_round(state: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    // §2.1: a += b; d ^= a; d <<<= 16; c += d; b ^= c; b <<<= 12; ... <<<= 8; ... <<<= 7
    state[a] = state[a].wrapping_add(state[b]);
    state[d] ^= state[a];
    state[d] = state[d].rotate_left(16);
    state[c] = state[c].wrapping_add(state[d]);
    state[b] ^= state[c];
    state[b] = state[b].rotate_left(12);
    state[a] = state[a].wrapping_add(state[b]);
    state[d] ^= state[a];
    state[d] = state[d].rotate_left(8);
    state[c] = state[c].wrapping_add(state[d]);
    state[b] ^= state[c];
    state[b] = state[b].rotate_left(7);
}

/// RFC 8439 §2.3.1 `inner_block`: a column round followed by a diagonal round.
pub fn inner_block(state: &mut [u32; 16]) {
    quarter_round(state, 0, 4, 8, 12);
    quarter_round(state, 1, 5, 9, 13);
    quarter_round(state, 2, 6, 10, 14);
    quarter_round(state, 3, 7, 11, 15);
    quarter_round(state, 0, 5, 10, 15);
    quarter_round(state, 1, 6, 11, 12);
    quarter_round(state, 2, 7, 8, 13);
    quarter_round(state, 3, 4, 9, 14);
}

/// RFC 8439 §2.3: the block function on a whole input state, returning the output words
/// (before serialisation). `R` sets the round count (§2.3 has 20).
pub fn block_words<R: Rounds>(input: &[u32; 16]) -> [u32; 16] {
    let mut working = *input;
    for _ in 0..R::DOUBLE_ROUNDS {
        inner_block(&mut working);
    }
    for (w, i) in working.iter_mut().zip(input) {
        *w = w.wrapping_add(*i);
    }
    working
}

/// RFC 8439 §2.3 `serialize`: words to bytes, little-endian.
pub fn serialize(words: &[u32; 16]) -> Block {
    let mut out = [0u8; 64];
    for (bytes, w) in out.chunks_exact_mut(4).zip(words) {
        bytes.copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// The keystream block with counter `counter` for the key and nonce of `state`.
pub fn block<R: Rounds, V: Variant>(state: &State<V>, counter: u64) -> Block {
    serialize(&block_words::<R>(&state.words_at(counter)))
}

/// Fills `out` with consecutive keystream blocks starting at `state`'s counter, one
/// block at a time; the counter wraps like the state's counter words do.
pub fn keystream<R: Rounds, V: Variant>(state: &State<V>, out: &mut [Block]) {
    let start = state.counter();
    for (i, b) in out.iter_mut().enumerate() {
        *b = block::<R, V>(state, start.wrapping_add(i as u64));
    }
}

/// HChaCha (draft-irtf-cfrg-xchacha-03 §2.2): the state is built from the key and a
/// 16-byte input in place of counter and nonce; after the rounds, with no final
/// addition, words 0–3 and 12–15 are the 32-byte subkey.
pub fn hchacha<R: Rounds>(key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
    let mut state = [0u32; 16];
    state[..4].copy_from_slice(&CONSTANTS);
    for (w, b) in state[4..12].iter_mut().zip(key.chunks_exact(4)) {
        *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    for (w, b) in state[12..].iter_mut().zip(input.chunks_exact(4)) {
        *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    for _ in 0..R::DOUBLE_ROUNDS {
        inner_block(&mut state);
    }
    let mut out = [0u8; 32];
    for (bytes, w) in out.chunks_exact_mut(4).zip(state[..4].iter().chain(&state[12..])) {
        bytes.copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// RFC 8439 §2.5.1: Poly1305 of `msg` under the one-time key `key` (`r` then `s`).
pub fn poly1305(key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
    let r = clamp(key[..16].try_into().expect("16 bytes"));
    let mut a = [0u64; 5];
    for chunk in msg.chunks(16) {
        // "Add one bit beyond the number of octets": 0x01 after the chunk.
        let mut n = [0u8; 17];
        n[..chunk.len()].copy_from_slice(chunk);
        n[chunk.len()] = 1;
        a = mul_mod_p(add(a, limbs(&n)), r);
    }
    let mut s = [0u8; 17];
    s[..16].copy_from_slice(&key[16..]);
    // (a mod p) + s, mod 2^128, little-endian.
    low_128(add(reduce(a), limbs(&s))).to_le_bytes()
}

/// Poly1305's accumulator step over whole blocks (each with its 2^128 bit) from
/// accumulator `h` (three 64-bit limbs, `h < 2^131`) under key half `r` (clamped here):
/// the oracle of [`Aead::poly1305_blocks`](crate::Aead::poly1305_blocks). The result is
/// fully reduced (`< p`).
pub fn poly1305_blocks(r: &[u8; 16], h: [u64; 3], blocks: &[[u8; 16]]) -> [u64; 3] {
    let r = clamp(r);
    let mut bytes = [0u8; 17];
    bytes[..8].copy_from_slice(&h[0].to_le_bytes());
    bytes[8..16].copy_from_slice(&h[1].to_le_bytes());
    bytes[16] = u8::try_from(h[2]).expect("h < 2^131");
    let mut a = limbs(&bytes);
    for m in blocks {
        let mut n = [1u8; 17];
        n[..16].copy_from_slice(m);
        a = mul_mod_p(add(a, limbs(&n)), r);
    }
    let value = reduce(a);
    let lo = low_128(value);
    [lo as u64, (lo >> 64) as u64, value[4] >> 24]
}

/// §2.5.1 `clamp(r)`: clears the top four bits of bytes 3, 7, 11, 15 and the bottom two of
/// bytes 4, 8, 12; as five 26-bit limbs.
fn clamp(r: &[u8; 16]) -> [u64; 5] {
    let mut c = [0u8; 17];
    c[..16].copy_from_slice(r);
    for i in [3, 7, 11, 15] {
        c[i] &= 15;
    }
    for i in [4, 8, 12] {
        c[i] &= 252;
    }
    limbs(&c)
}

/// A little-endian number of up to 136 bits as five 26-bit limbs (the last one wider).
fn limbs(bytes: &[u8; 17]) -> [u64; 5] {
    let lo = u128::from_le_bytes(bytes[..16].try_into().expect("16 bytes"));
    let top = u64::from(bytes[16]);
    let mask = (1u128 << 26) - 1;
    [
        (lo & mask) as u64,
        ((lo >> 26) & mask) as u64,
        ((lo >> 52) & mask) as u64,
        ((lo >> 78) & mask) as u64,
        (lo >> 104) as u64 + (top << 24),
    ]
}

/// The value of five limbs (each may be wider than 26 bits), mod 2^128.
fn low_128(a: [u64; 5]) -> u128 {
    a.iter().rev().fold(0u128, |acc, &l| (acc << 26).wrapping_add(u128::from(l)))
}

fn add(a: [u64; 5], b: [u64; 5]) -> [u64; 5] {
    core::array::from_fn(|i| a[i] + b[i])
}

/// `a · r mod p`, schoolbook: a product limb at `2^(26·(i + 5))` is `2^130 · …` ≡ `5 · …`.
fn mul_mod_p(a: [u64; 5], r: [u64; 5]) -> [u64; 5] {
    let mut d = [0u128; 5];
    for i in 0..5 {
        for j in 0..5 {
            let product = u128::from(a[i]) * u128::from(r[j]);
            if i + j < 5 { d[i + j] += product } else { d[i + j - 5] += 5 * product }
        }
    }
    carry(d)
}

/// Carries every limb down to 26 bits; what leaves the top comes back in ×5.
fn carry(mut d: [u128; 5]) -> [u64; 5] {
    for _ in 0..2 {
        for i in 0..5 {
            let c = d[i] >> 26;
            d[i] &= (1 << 26) - 1;
            if i < 4 { d[i + 1] += c } else { d[0] += 5 * c }
        }
    }
    d.map(|l| l as u64)
}

/// The unique value below `p = 2^130 - 5`. Carried twice over, every limb is below 2^26,
/// so `a < 2^130`, and `a >= p` only where every limb above the lowest is all ones: `a - p`
/// limb by limb then borrows nothing.
fn reduce(a: [u64; 5]) -> [u64; 5] {
    let a = carry(carry(a.map(u128::from)).map(u128::from));
    let p = [(1 << 26) - 5, (1 << 26) - 1, (1 << 26) - 1, (1 << 26) - 1, (1 << 26) - 1];
    if a.iter().rev().lt(p.iter().rev()) { a } else { core::array::from_fn(|i| a[i] - p[i]) }
}
