//! The contract every backend implements: [`Kernel`].
//!
//! Why it is shaped so:
//! - **Fused XOR, any length.** [`Kernel::xor`] takes the caller's buffer (in-place or
//!   buffer-to-buffer, as `cipher` hands it over) and XORs the keystream of
//!   `⌈len / 64⌉` blocks into it in one pass: load, XOR, store, no temporary keystream
//!   buffer. A partial last block is computed together with the whole ones (a 100-byte
//!   message is one 2-block call, not a block call plus a tail call) and its full
//!   keystream is handed back in `tail`, so the caller can buffer the unused bytes.
//! - **The backend picks its widths.** The caller gives a block count, never a batch
//!   width: a 16-lane backend asked for 3 blocks computes what 3 blocks need, so nobody
//!   computes 16 blocks to use 1.
//! - **Raw keystream** ([`Kernel::fill`]) in whole blocks, for RNGs.
//! - **Rounds and layout are type parameters**, so each (backend, rounds, layout) triple is
//!   monomorphised: the round loop has a constant bound and the counter width is known.
//! - **The kernel reads the state, never moves it.** It computes blocks
//!   `counter, counter + 1, …` of `state`; the caller advances the state afterwards with
//!   [`State::advance`], the one place that enforces the end of the stream. A kernel may
//!   therefore assume the request fits in [`State::blocks_left`]; the dispatcher in
//!   `chacha-backends` checks that before calling.

use core::fmt::Debug;

use inout::InOutBuf;

use crate::{
    rounds::Rounds,
    state::{Block, State},
    variant::Variant,
};

/// A ChaCha implementation for one instruction set.
///
/// Every method must give exactly the bytes of [`reference`](mod@crate::reference) for every input. The
/// request must fit in the stream: `⌈len / 64⌉ ≤ state.blocks_left()`. Within that, the
/// counter of the block `i` of a call is `state.counter() + i`, carrying from word 12 into
/// word 13 for the [`Legacy`](crate::Legacy) layout.
pub trait Kernel: Copy + Debug + Send + Sync + 'static {
    /// XORs the keystream of blocks `state.counter() ..` into `buf`, in one pass.
    ///
    /// If `buf.len()` is not a multiple of 64, the keystream of the last (partial) block is
    /// written whole into `tail`, after its first `buf.len() % 64` bytes were XORed into
    /// `buf`; otherwise `tail` is left as it was.
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, buf: InOutBuf<'_, '_, u8>, tail: &mut Block);

    /// Writes the keystream of blocks `state.counter() .. + out.len()` into `out`.
    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]);

    /// HChaCha with `R` rounds (draft-irtf-cfrg-xchacha-03 §2.2): the XChaCha subkey.
    fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32];
}
