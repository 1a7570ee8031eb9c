//! The contract every backend implements, [`Kernel`], and the one place that enforces the
//! end of the stream for every kernel: [`State::xor`] and [`State::fill`]; the stream
//! rules the fronts share are here too: [`State::fill_cyclic`] (an RNG's stream, which
//! starts again after its last block) and [`State::seek_into`] (a position inside a block).
//!
//! Why it is shaped so:
//! - **Fused XOR, any length.** [`Kernel::xor`] takes the caller's buffer (an [`XorBuf`]:
//!   in place or buffer to buffer) and XORs the keystream of `⌈len / 64⌉` blocks into it
//!   in one pass: load, XOR, store, no temporary keystream buffer. A partial last block is computed together with the whole ones (a 100-byte
//!   message is one 2-block call, not a block call plus a tail call) and its full
//!   keystream is handed back in `tail`, so the caller can buffer the unused bytes.
//! - **The backend picks its widths.** The caller gives a block count, never a batch
//!   width: a 16-lane backend asked for 3 blocks computes what 3 blocks need, so nobody
//!   computes 16 blocks to use 1.
//! - **Raw keystream** ([`Kernel::fill`]) in whole blocks, for RNGs; the fronts' short-call
//!   batches through [`Kernel::fill_batch`], which a kernel may serve from a small path of
//!   its own, so that a program whose only fills are those does not link the rest.
//! - **Rounds and layout are type parameters**, so each (backend, rounds, layout) triple is
//!   monomorphised: the round loop has a constant bound and the counter width is known.
//! - **The kernel reads the state, never moves it.** It computes blocks
//!   `counter, counter + 1, …` of `state` and may assume the request fits in the stream.
//!   [`State::xor`] and [`State::fill`] check that, call the kernel and advance the state:
//!   written once, here, for every kernel (the `chacha-backends` ones, or one of your
//!   own), so no kernel can be made to reuse keystream through them.

use core::fmt::Debug;

use crate::{
    buf::XorBuf,
    rounds::Rounds,
    state::{BLOCK_LEN, Block, EndOfStream, State, Variant},
};

/// Blocks per request at which a kernel runs at its bulk speed: no kernel's widest step
/// computes more blocks side by side (16: one block per 32-bit lane of the widest vector a
/// backend uses). The fronts size their refill buffers to it, so every refill feeds a
/// kernel's widest step; a wider kernel of your own stays correct, only fed narrower.
pub const BULK_BLOCKS: usize = 16;

/// The most of a kernel's [`batch_blocks`](Kernel::batch_blocks) a front uses: it batches
/// `batch_blocks().min(MAX_BATCH_BLOCKS)` blocks ahead for short calls. Every kernel of
/// `chacha-backends` says at most this many (its differential test checks it).
pub const MAX_BATCH_BLOCKS: usize = 4;

/// A ChaCha implementation: the block function, many blocks at a time.
///
/// # What an implementation guarantees
/// - Every method gives exactly the bytes of [`reference`](mod@crate::reference) for every
///   key, nonce, counter, length and round count, on every input it accepts.
/// - The block `i` of a call (counting from 0) has counter `state.counter() + i`: the
///   counter wraps in 32 bits for [`Ietf`](crate::Ietf) (the caller never lets it) and carries
///   from word 12 into word 13 for [`Legacy`](crate::Legacy).
/// - It reads `state` and never keeps it; it writes only `buf`'s output, `out` and `tail`
///   as documented below, and holds no secret after it returns beyond what the compiler
///   leaves in registers and stack (the front crates wipe their own copies).
/// - It does not panic for any request that fits in the stream.
///
/// # What the caller guarantees
/// - The request fits in the stream: `⌈buf.len() / 64⌉ ≤ state.blocks_left()` for
///   [`xor`](Kernel::xor), `out.len() ≤ state.blocks_left()` for [`fill`](Kernel::fill).
///   [`State::xor`] and [`State::fill`] check this and advance the state afterwards; call
///   the kernel through them unless you do both yourself.
pub trait Kernel: Copy + Debug + Send + Sync + 'static {
    /// XORs the keystream of blocks `state.counter() ..` into `buf`, in one pass.
    ///
    /// If `buf.len()` is not a multiple of 64, the keystream of the last (partial) block is
    /// written whole into `tail`, after its first `buf.len() % 64` bytes were XORed into
    /// `buf`; otherwise `tail` is left as it was.
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, buf: XorBuf<'_, '_>, tail: &mut Block);

    /// Writes the keystream of blocks `state.counter() .. + out.len()` into `out`.
    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]);

    /// [`fill`](Kernel::fill) for a front's short requests: a batch of at most
    /// [`MAX_BATCH_BLOCKS`] blocks for short calls, or the one block a seek lands in. The
    /// same bytes as `fill` for every `out` (a longer one too, maybe slower). A kernel
    /// whose `fill` holds every width up to its bulk step can serve these from a small
    /// function of their own, so that a program that fills no more than this (a cipher:
    /// it XORs its messages) links only that. The default is `fill`.
    #[inline]
    fn fill_batch<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        self.fill::<R, V>(state, out);
    }

    /// HChaCha with `R` rounds (draft-irtf-cfrg-xchacha-03 §2.2): the XChaCha subkey.
    fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32];

    /// The batch for short calls, in blocks: how many blocks this kernel computes at no
    /// more cost per block than one block alone
    /// (blocks side by side in one dependent chain, or a narrow word-sliced kernel): how far
    /// ahead a front may produce keystream for short calls without slowing them. 1 (the
    /// default) means "never batch": a one-block-at-a-time kernel gains nothing and would
    /// only add a copy. A front uses at most [`MAX_BATCH_BLOCKS`] of them.
    #[inline(always)]
    fn batch_blocks(self) -> usize {
        1
    }
}

impl<V: Variant> State<V> {
    /// XORs the keystream at this position into `buf` with `kernel` and moves past the
    /// `⌈len / 64⌉` blocks used. A partial last block's whole keystream goes to `tail`
    /// (see [`Kernel::xor`]).
    ///
    /// # Errors
    /// [`EndOfStream`] if the stream has fewer blocks left; `buf`, `tail` and the state
    /// are untouched.
    #[inline]
    pub fn xor<R: Rounds, K: Kernel>(
        &mut self,
        kernel: K,
        buf: XorBuf<'_, '_>,
        tail: &mut Block,
    ) -> Result<(), EndOfStream> {
        let blocks = buf.len().div_ceil(BLOCK_LEN) as u64;
        self.check(blocks)?;
        kernel.xor::<R, V>(self, buf, tail);
        self.advance(blocks)
    }

    /// Writes the keystream blocks at this position into `out` with `kernel` and moves
    /// past them.
    ///
    /// # Errors
    /// [`EndOfStream`] if the stream has fewer blocks left; `out` and the state are
    /// untouched.
    #[inline]
    pub fn fill<R: Rounds, K: Kernel>(&mut self, kernel: K, out: &mut [Block]) -> Result<(), EndOfStream> {
        self.fill_with(out, |state, out| kernel.fill::<R, V>(state, out))
    }

    /// [`fill`](Self::fill) through [`Kernel::fill_batch`]: for a front's short-call batch
    /// (at most [`MAX_BATCH_BLOCKS`] blocks) or the block a seek lands in. The same bytes,
    /// errors and move.
    ///
    /// # Errors
    /// As [`fill`](Self::fill).
    #[inline]
    pub fn fill_batch<R: Rounds, K: Kernel>(
        &mut self,
        kernel: K,
        out: &mut [Block],
    ) -> Result<(), EndOfStream> {
        self.fill_with(out, |state, out| kernel.fill_batch::<R, V>(state, out))
    }

    /// The check, the kernel's `run` and the move of [`fill`](Self::fill) and
    /// [`fill_batch`](Self::fill_batch).
    #[inline(always)]
    fn fill_with(
        &mut self,
        out: &mut [Block],
        run: impl FnOnce(&Self, &mut [Block]),
    ) -> Result<(), EndOfStream> {
        let blocks = out.len() as u64;
        self.check(blocks)?;
        run(self, out);
        self.advance(blocks)
    }

    /// Writes the next keystream blocks into `out` with `kernel`, going on from block 0
    /// where the stream ends: the stream as a cycle of `V::BLOCKS` blocks, for RNGs that
    /// keep the published crates' streams (theirs start again after the last block). It
    /// never fails.
    ///
    /// Not for ciphers: going on past the end reuses keystream. A wiped state
    /// (`Zeroize`) starts again too, as the all-zero state; a generator wipes its state
    /// only when it goes.
    #[inline]
    pub fn fill_cyclic<R: Rounds, K: Kernel>(&mut self, kernel: K, mut out: &mut [Block]) {
        while !out.is_empty() {
            if self.blocks_left() == 0 {
                self.seek(0).expect("every stream has block 0");
            }
            let n = self.blocks_left().min(out.len() as u128) as usize;
            let (now, rest) = out.split_at_mut(n);
            self.fill::<R, K>(kernel, now).expect("fits: n <= blocks_left");
            out = rest;
        }
    }

    /// Moves to byte `offset` (`0..64`) of block `block`. A state stands between blocks,
    /// so inside one (`offset > 0`) the keystream of block `block` is written to the
    /// block `buf` returns ([`Kernel::fill_batch`]) and the state moves past it: the caller serves bytes
    /// `offset..64` of that block first. With `offset == 0` this is [`seek`](Self::seek)
    /// and `buf` is not called.
    ///
    /// # Errors
    /// [`EndOfStream`] if the position is past the end of the stream (`block > V::BLOCKS`,
    /// or `block == V::BLOCKS` and `offset > 0`); the state is unchanged and `buf` is not
    /// called.
    ///
    /// # Panics
    /// If `offset >= 64`.
    #[inline]
    pub fn seek_into<'b, R: Rounds, K: Kernel>(
        &mut self,
        kernel: K,
        block: u128,
        offset: usize,
        buf: impl FnOnce() -> &'b mut Block,
    ) -> Result<(), EndOfStream> {
        assert!(offset < BLOCK_LEN, "an offset inside a block: {offset}");
        if offset != 0 && block >= V::BLOCKS {
            return Err(EndOfStream);
        }
        self.seek(block)?;
        if offset != 0 {
            self.fill_batch::<R, K>(kernel, core::slice::from_mut(buf()))?;
        }
        Ok(())
    }

    #[inline(always)]
    pub(crate) fn check(&self, blocks: u64) -> Result<(), EndOfStream> {
        if u128::from(blocks) > self.blocks_left() { Err(EndOfStream) } else { Ok(()) }
    }
}
