//! `soft`: the portable backend, plain Rust on `u32`s, no `unsafe`.
//!
//! Runs everywhere and is what every target without a SIMD backend uses. One block at a
//! time: the sixteen state words live in locals, the round loop has a constant bound, and
//! each whole block's keystream is XORed into the data through a 64-byte local (whole
//! registers at a time, and fixed-size copies the compiler inlines).
//!
//! Why not several blocks side by side: on x86_64, LLVM keeps a 4-block word-sliced form
//! in scalar registers (64 live words, constant spilling) instead of vectorising it, and it
//! was slower than one block (DECISIONS.md, § soft); the SIMD backends are where blocks go
//! side by side.
#![forbid(unsafe_code)]

use chacha_core::{Block, CONSTANTS, Ietf, Kernel, Rounds, State, Variant, XorBuf};

use crate::counter::in_ietf_pieces;
use crate::quarter_round;

/// The portable backend; usable on every CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Soft;

impl Soft {
    /// Always `Some`: every CPU runs portable code.
    #[inline]
    pub fn detect() -> Option<Self> {
        Some(Soft)
    }
}

/// ChaCha20-Poly1305's steps on `soft`: the portable defaults.
impl chacha_core::Aead for Soft {}

impl Kernel for Soft {
    /// Inlined into the caller (the `Backend` dispatch), so that the `XorBuf` copy an
    /// out-of-line call takes (the Rust ABI passes a struct of over two words through memory) is
    /// made in this backend's arm only, not stored before the `match` on every backend's
    /// call. (`reborrow` makes the copy a new value of this arm; passed on as it is, LLVM
    /// stores it up front.)
    #[inline(always)]
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, mut buf: XorBuf<'_, '_>, tail: &mut Block) {
        xor_blocks::<R, V>(state, buf.reborrow(), tail)
    }

    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        in_ietf_pieces(state, out, |state, out| {
            for (b, counter) in out.iter_mut().zip(state.counter()..) {
                *b = block::<R>(state, counter);
            }
        })
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

/// [`Kernel::xor`] for [`Soft`], the pieces of [`in_ietf_pieces`] in one function: the
/// `Ietf` instance, the one `Backend` calls, is [`xor_piece`] alone (passed on through the
/// closure, the `XorBuf` was copied to the stack before the call, which could then not be
/// a jump).
#[inline(never)]
fn xor_blocks<R: Rounds, V: Variant>(state: &State<V>, buf: XorBuf<'_, '_>, tail: &mut Block) {
    in_ietf_pieces(state, buf, |state, buf| xor_piece::<R>(state, buf, tail))
}

/// Whole blocks, then a partial last block.
#[inline(always)]
fn xor_piece<R: Rounds>(state: &State<Ietf>, mut buf: XorBuf<'_, '_>, tail: &mut Block) {
    let mut counter = state.counter();
    // Whole blocks: fixed-size copies through a local, which the compiler inlines as a
    // few vector moves (a variable-length copy would be a `memcpy` call per block).
    while buf.len() >= 64 {
        let (mut head, rest) = buf.split_at(64);
        let input: &Block = head.get_in().try_into().expect("64 bytes");
        let mut data = *input;
        for (d, k) in data.iter_mut().zip(&block::<R>(state, counter)) {
            *d ^= k;
        }
        let output: &mut Block = head.get_out().try_into().expect("64 bytes");
        *output = data;
        counter = counter.wrapping_add(1);
        buf = rest;
    }
    // A partial last block: its whole keystream goes to `tail` for the caller.
    if !buf.is_empty() {
        *tail = block::<R>(state, counter);
        buf.xor_in2out(&tail[..buf.len()]);
    }
}

/// The keystream block with counter `counter` (same key and nonce as `state`).
#[inline(always)]
fn block<R: Rounds>(state: &State<Ietf>, counter: u64) -> Block {
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
