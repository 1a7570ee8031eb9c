//! The original layout's 64-bit block counter, for every kernel of this crate: the one
//! place where word 12 carries into word 13.
//!
//! The kernels compute the RFC 8439 layout ([`Ietf`]) only: a 32-bit counter in word 12,
//! which never carries. A [`Legacy`] request is cut where its counter's low half wraps (the
//! next multiple of 2^32 blocks), and each piece runs as the `Ietf` state with the same
//! words, word 13 (the counter's high half) standing where the first nonce word would be
//! ([`State::ietf_piece`]): between carries the two streams are the same. Almost every
//! request is one piece; one that crosses a carry (once in 2^32 blocks) is two, and more
//! only if it is over 2^32 blocks (256 GiB) long.
//!
//! Why here and not in each kernel: one rule to read and to fix, which every path reaches
//! ([`Backend`](crate::Backend) and every module's kernel type call [`in_ietf_pieces`], so
//! `ChaCha20Legacy`, XChaCha, the RNGs and a kernel type named by hand alike); no kernel
//! code that runs once in 2^32 blocks; and each kernel compiled once, for `Ietf`.

use chacha_core::{BLOCK_LEN, Block, Ietf, Legacy, State, StateRef, Variant, XorBuf};

/// A kernel request that can be cut between blocks: a buffer to XOR (whose last block may
/// be partial) or whole blocks to fill.
pub(crate) trait Request: Sized {
    /// The blocks the request uses, a partial last one included.
    fn blocks(&self) -> u64;
    /// The first `blocks` blocks (fewer than [`Request::blocks`]) and the rest.
    fn split_at_block(self, blocks: usize) -> (Self, Self);
}

impl Request for XorBuf<'_, '_> {
    #[inline(always)]
    fn blocks(&self) -> u64 {
        self.len().div_ceil(BLOCK_LEN) as u64
    }

    #[inline(always)]
    fn split_at_block(self, blocks: usize) -> (Self, Self) {
        self.split_at(blocks * BLOCK_LEN)
    }
}

impl Request for &mut [Block] {
    #[inline(always)]
    fn blocks(&self) -> u64 {
        self.len() as u64
    }

    #[inline(always)]
    fn split_at_block(self, blocks: usize) -> (Self, Self) {
        self.split_at_mut(blocks)
    }
}

/// Runs `run` on `request` as [`Ietf`] pieces of `state`'s stream: an `Ietf` state as it
/// is, a [`Legacy`] one cut at each carry from word 12 into word 13 (see the
/// [module docs](self)). The pieces come in order; `request` fits in `state`'s stream (the
/// [`Kernel`](chacha_core::Kernel) contract), so the last carry it crosses is not the end
/// of the stream.
///
/// For `Ietf` this is `run(state, request)`: the `match` is on the type, resolved when the
/// caller is compiled.
#[inline(always)]
pub(crate) fn in_ietf_pieces<V: Variant, Q: Request>(
    state: &State<V>,
    request: Q,
    mut run: impl FnMut(&State<Ietf>, Q),
) {
    match state.layout() {
        StateRef::Ietf(state) => run(state, request),
        StateRef::Legacy(state) if request.blocks() <= state.blocks_before_carry() => {
            run(&state.ietf_piece_here(), request)
        }
        StateRef::Legacy(state) => across_carries(state, request, run),
    }
}

/// [`in_ietf_pieces`] of a `Legacy` request that crosses a carry: a piece up to each carry,
/// then the rest. Cold: once in 2^32 blocks.
#[cold]
#[inline(never)]
fn across_carries<Q: Request>(state: &State<Legacy>, mut request: Q, mut run: impl FnMut(&State<Ietf>, Q)) {
    let mut counter = state.counter();
    loop {
        let piece = state.ietf_piece(counter);
        let before_carry = (1 << 32) - (counter & 0xffff_ffff);
        if request.blocks() <= before_carry {
            return run(&piece, request);
        }
        // Fewer blocks than the request's, so they fit a `usize`.
        let (now, rest) = request.split_at_block(before_carry as usize);
        run(&piece, now);
        request = rest;
        counter = counter.wrapping_add(before_carry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chacha_core::{R8, reference};

    extern crate std;
    use std::{vec, vec::Vec};

    /// The pieces a request is cut into, as (counter, blocks) pairs of `Ietf` states, and
    /// each piece's keystream against the `Legacy` stream's.
    fn pieces(counter: u64, blocks: usize) -> Vec<(u64, usize)> {
        let mut state = State::<Legacy>::new(&[9; 32], &[1, 2, 3, 4, 5, 6, 7, 8]);
        state.seek(u128::from(counter)).unwrap();
        let mut out = vec![[0u8; 64]; blocks];
        let mut seen = Vec::new();
        let mut at = counter;
        in_ietf_pieces(&state, &mut out[..], |piece, part: &mut [Block]| {
            assert_eq!(piece.words()[13], (at >> 32) as u32, "word 13 is the counter's high half");
            assert!(part.len() as u128 <= piece.blocks_left(), "a piece never wraps word 12");
            reference::keystream::<R8, Ietf>(piece, part);
            seen.push((piece.counter(), part.len()));
            at = at.wrapping_add(part.len() as u64);
        });
        let mut want = vec![[0u8; 64]; blocks];
        reference::keystream::<R8, Legacy>(&state, &mut want);
        assert_eq!(out, want, "counter {counter:#x}, {blocks} blocks");
        seen
    }

    #[test]
    fn a_legacy_request_is_cut_at_each_carry_only() {
        assert_eq!(pieces(5, 3), [(5, 3)]);
        assert_eq!(pieces((7 << 32) - 3, 3), [(0xffff_fffd, 3)]);
        assert_eq!(pieces((7 << 32) - 2, 3), [(0xffff_fffe, 2), (0, 1)]);
        assert_eq!(pieces(u64::MAX, 1), [(0xffff_ffff, 1)]);
        assert_eq!(pieces(0, 0), [(0, 0)]);
    }

    #[test]
    fn an_ietf_request_is_one_piece_as_it_is() {
        let state = State::<Ietf>::new(&[9; 32], &[3; 12]);
        let mut calls = 0;
        in_ietf_pieces(&state, &mut [[0u8; 64]; 2][..], |piece, part: &mut [Block]| {
            assert!(core::ptr::eq(piece, &state));
            assert_eq!(part.len(), 2);
            calls += 1;
        });
        assert_eq!(calls, 1);
    }
}
