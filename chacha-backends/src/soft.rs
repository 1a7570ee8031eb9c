//! `soft`: the portable backend, plain Rust on `u32`s, no `unsafe`.
//!
//! Runs everywhere and is what every target without a SIMD backend uses. One block at a
//! time: the sixteen state words live in locals, the round loop has a constant bound, and
//! each block's keystream is XORed into the data through a 64-byte local (a whole-register
//! XOR instead of a byte at a time).
//!
//! Why not several blocks side by side: on x86_64, LLVM keeps a 4-block word-sliced form
//! in scalar registers (64 live words, constant spilling) instead of vectorising it, and it
//! measured slower than one block (4.1 vs 3.7 TSC cycles/byte at 16 KiB); the SIMD
//! backends are where blocks go side by side.
#![forbid(unsafe_code)]

use chacha_core::{Block, CONSTANTS, Kernel, Rounds, State, Variant, inout::InOutBuf};

/// The portable backend; usable on every CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Soft;

impl Soft {
    /// Always `Some`: every CPU runs portable code.
    pub fn detect() -> Option<Self> {
        Some(Soft)
    }
}

impl Kernel for Soft {
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, mut buf: InOutBuf<'_, '_, u8>, tail: &mut Block) {
        let mut counter = state.counter();
        while !buf.is_empty() {
            let n = buf.len().min(64);
            let (mut head, rest) = buf.split_at(n);
            let ks = block::<R, V>(state, counter);
            let mut data = [0u8; 64];
            data[..n].copy_from_slice(head.get_in());
            for (d, k) in data.iter_mut().zip(&ks) {
                *d ^= k;
            }
            head.get_out().copy_from_slice(&data[..n]);
            if n < 64 {
                *tail = ks;
            }
            counter = counter.wrapping_add(1);
            buf = rest;
        }
    }

    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        let mut counter = state.counter();
        for b in out {
            *b = block::<R, V>(state, counter);
            counter = counter.wrapping_add(1);
        }
    }

    fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
        let mut x = [0u32; 16];
        x[..4].copy_from_slice(&CONSTANTS);
        for (w, b) in x[4..].iter_mut().zip(key.chunks_exact(4).chain(input.chunks_exact(4))) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        double_rounds::<R>(&mut x);
        let mut out = [0u8; 32];
        for (bytes, w) in out.chunks_exact_mut(4).zip(x[..4].iter().chain(&x[12..])) {
            bytes.copy_from_slice(&w.to_le_bytes());
        }
        out
    }
}

/// The keystream block with counter `counter` (same key and nonce as `state`).
#[inline(always)]
fn block<R: Rounds, V: Variant>(state: &State<V>, counter: u64) -> Block {
    let input = state.words_at(counter);
    let mut x = input;
    double_rounds::<R>(&mut x);
    let mut out = [0u8; 64];
    for ((bytes, w), i) in out.chunks_exact_mut(4).zip(x).zip(input) {
        bytes.copy_from_slice(&w.wrapping_add(i).to_le_bytes());
    }
    out
}

/// `R::DOUBLE_ROUNDS` column + diagonal rounds.
#[inline(always)]
fn double_rounds<R: Rounds>(x: &mut [u32; 16]) {
    for _ in 0..R::DOUBLE_ROUNDS {
        quarter_round(x, 0, 4, 8, 12);
        quarter_round(x, 1, 5, 9, 13);
        quarter_round(x, 2, 6, 10, 14);
        quarter_round(x, 3, 7, 11, 15);
        quarter_round(x, 0, 5, 10, 15);
        quarter_round(x, 1, 6, 11, 12);
        quarter_round(x, 2, 7, 8, 13);
        quarter_round(x, 3, 4, 9, 14);
    }
}

/// RFC 8439 §2.1.
#[inline(always)]
fn quarter_round(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(16);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(12);
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(8);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(7);
}
