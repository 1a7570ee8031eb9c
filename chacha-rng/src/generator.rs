//! [`ChaChaCore`]: a block generator for `rand_core`'s `BlockRng`, with the published
//! `chacha20` crate's name: `rand`'s `ThreadRng` is
//! `BlockRng<ChaChaCore<R12, Legacy>>` (plus reseeding), so `rand::rng()` runs on this.
//!
//! Output size: [`GENERATE_BLOCKS`] = 16 blocks (256 words, 1 KiB) per `generate`, where
//! the published crate gives 4. `rand` reads the size from the type, so this is invisible
//! to it; 16 blocks is the kernel contract's bulk width
//! ([`BULK_BLOCKS`](chacha_core::BULK_BLOCKS)), so `ThreadRng` refills at bulk speed,
//! cheaper per byte than a 4-block request's one dependent chain. The price is 1 KiB of buffer per
//! generator instead of 256 B, and a first draw after seeding that computes 16 blocks
//! instead of 4 (`BlockRng` takes whole outputs): seeding a `BlockRng<ChaChaCore>` for each
//! draw or two costs more than on the published core. For that pattern use
//! [`ChaChaRng`](crate::ChaChaRng), whose first refill after a seed or a seek computes only
//! the kernel's batch blocks, and is faster there than the published crate's generator (the
//! figures: `chacha-backends/DECISIONS.md` § The fronts: the generators).

use core::fmt;

use chacha_backends::Backend;
use chacha_core::{BLOCK_LEN, Kernel, Rounds, State, Variant};
use rand_core::{SeedableRng, block::Generator};

/// Blocks of keystream per [`Generator::generate`] of a [`ChaChaCore`]: the kernel
/// contract's bulk width.
pub const GENERATE_BLOCKS: usize = chacha_core::BULK_BLOCKS;

/// The ChaCha block function as a `rand_core` block [`Generator`]: `R` rounds, counter
/// layout `V`, kernel `K`. Seeded with a 32-byte key, a zero nonce and block 0.
///
/// After the last block of the stream (2^64 blocks for `Legacy`, 2^32 for `Ietf`) it
/// starts again from block 0, as the published crate's does ([`State::fill_cyclic`]).
#[derive(Clone)]
pub struct ChaChaCore<R: Rounds, V: Variant, K: Kernel = Backend> {
    state: State<V>,
    kernel: K,
    _rounds: R,
}

impl<R: Rounds, V: Variant, K: Kernel> ChaChaCore<R, V, K> {
    /// A core for `seed` (the key) with a zero nonce at block 0, running on `kernel`.
    pub fn with_kernel(seed: [u8; 32], kernel: K) -> Self {
        Self { state: State::new(&seed, &V::Nonce::default()), kernel, _rounds: R::default() }
    }

    /// The block counter of the next block `generate` computes.
    pub fn get_block_pos(&self) -> V::Counter {
        // A one-word counter comes from word 12 alone, so it always fits.
        V::Counter::try_from(self.state.counter()).unwrap_or_default()
    }

    /// The state and the kernel, for `From<ChaChaCore> for ChaChaRng`.
    pub(crate) fn parts(&self) -> (&State<V>, K) {
        (&self.state, self.kernel)
    }

    /// Moves to block `pos`.
    pub fn set_block_pos(&mut self, pos: V::Counter) {
        let block: u64 = pos.into();
        self.state.seek(u128::from(block)).expect("a counter value is a block of the stream");
    }
}

impl<R: Rounds, V: Variant, K: Kernel> Generator for ChaChaCore<R, V, K> {
    type Output = [u32; GENERATE_BLOCKS * BLOCK_LEN / 4];

    #[inline]
    fn generate(&mut self, output: &mut Self::Output) {
        let mut blocks = [[0u8; BLOCK_LEN]; GENERATE_BLOCKS];
        self.state.fill_cyclic::<R, K>(self.kernel, &mut blocks);
        for (word, bytes) in output.iter_mut().zip(blocks.as_flattened().as_chunks::<4>().0) {
            *word = u32::from_le_bytes(*bytes);
        }
        // As one byte slice: `zeroize` wipes an array of arrays byte by byte with volatile
        // writes (1,024 of them here, on every refill), a slice with one fill behind an
        // optimization barrier.
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(blocks.as_flattened_mut());
    }

    /// `BlockRng`'s `Drop` calls this with its buffer: wiped with the `zeroize` feature.
    #[cfg(feature = "zeroize")]
    fn drop(&mut self, output: &mut Self::Output) {
        zeroize::Zeroize::zeroize(&mut output[..]);
    }
}

impl<R: Rounds, V: Variant, K: Kernel + Default> SeedableRng for ChaChaCore<R, V, K> {
    type Seed = [u8; 32];

    fn from_seed(seed: [u8; 32]) -> Self {
        Self::with_kernel(seed, K::default())
    }
}

/// Rounds, layout and kernel; never the key.
impl<R: Rounds, V: Variant, K: Kernel> fmt::Debug for ChaChaCore<R, V, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChaChaCore")
            .field("rounds", &R::ROUNDS)
            .field("variant", &V::default())
            .field("kernel", &self.kernel)
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "zeroize")]
impl<R: Rounds, V: Variant, K: Kernel> Drop for ChaChaCore<R, V, K> {
    /// Wipes the state (seed, counter); the output buffer is `BlockRng`'s, which it wipes
    /// through [`Generator::drop`].
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.state);
    }
}

#[cfg(feature = "zeroize")]
impl<R: Rounds, V: Variant, K: Kernel> zeroize::ZeroizeOnDrop for ChaChaCore<R, V, K> {}

#[cfg(all(test, feature = "zeroize"))]
mod tests {
    use rand_core::block::{BlockRng, Generator};

    use super::*;
    use crate::{Legacy, R12};

    #[test]
    fn generator_drop_wipes_the_output_and_the_state_wipe_ends_its_stream() {
        for backend in Backend::available() {
            let mut core = ChaChaCore::<R12, Legacy>::with_kernel([0xAB; 32], backend);
            let mut output = [0u32; GENERATE_BLOCKS * BLOCK_LEN / 4];
            core.generate(&mut output);
            assert!(output.iter().any(|w| *w != 0));
            // What `BlockRng`'s `Drop` calls with its buffer.
            Generator::drop(&mut core, &mut output);
            assert_eq!(output, [0; GENERATE_BLOCKS * BLOCK_LEN / 4], "{backend:?}: output buffer");
            // What `ChaChaCore`'s `Drop` runs.
            zeroize::Zeroize::zeroize(&mut core.state);
            assert_eq!((core.state.words(), core.state.blocks_left()), (&[0; 16], 0));
        }
        // `BlockRng` over it drops cleanly (its `Drop`, then the core's).
        let mut rng = BlockRng::new(ChaChaCore::<R12, Legacy>::from_seed([1; 32]));
        assert_ne!(rng.next_word(), rng.next_word());
    }
}
