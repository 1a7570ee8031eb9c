//! The ChaCha block function written straight from RFC 8439 §2.1–§2.3, and HChaCha from
//! draft-irtf-cfrg-xchacha-03 §2.2.
//!
//! This is the oracle every backend is tested against, so it stays plain: one block at a
//! time, the state as sixteen words, the quarter round on indices exactly as the RFC
//! writes it. Never optimise it.

use crate::{
    rounds::Rounds,
    state::{Block, CONSTANTS, State},
    variant::Variant,
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
