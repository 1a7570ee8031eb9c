//! `par_fill_bytes` (feature `rayon`): one large fill on every thread of rayon's current
//! pool.
//!
//! The same three steps as `fill_bytes`, so the generator ends exactly where the
//! sequential call leaves it (the same word position, the same buffered output): the
//! buffered words first, then the whole blocks, then the partial last block through the
//! buffer. Only the whole blocks differ: cut into pieces at block boundaries, each piece
//! filled by a clone of the state advanced to its first block, with `State::advance` and
//! `State::fill`, which refuse to pass the end of the stream
//! (`chacha_backends::parallel::fill_blocks`, which also holds the thresholds). The
//! stream is a cycle (`State::fill_cyclic`); a fill whose whole blocks would go round its
//! end takes the sequential code, which is the one place that wraps, rather than a second
//! copy of that rule here (2^64 blocks: only a generator moved there with `set_word_pos`
//! gets near it).

use chacha_backends::parallel::{self, note_end, threshold_for};
use chacha_core::{BLOCK_LEN, Kernel, Legacy, Rounds};

use super::ChaChaRng;

pub use chacha_backends::parallel::{PAR_MIN_LEN, PAR_WARM_MIN_LEN, par_min_len};

impl<R: Rounds, K: Kernel> ChaChaRng<R, K> {
    /// Fills `dest` like [`fill_bytes`](rand_core::Rng::fill_bytes), with the whole
    /// blocks on every thread of rayon's current pool (the global pool unless called inside
    /// [`ThreadPool::install`](rayon::ThreadPool::install)): exactly the same bytes and the
    /// same word position afterwards. Fills shorter than
    /// [`par_min_len::<R>()`](crate::par_min_len) (2 MiB for ChaCha20Rng; a quarter of it
    /// within 50 µs of the end of a fill that long) and one-thread pools take the sequential call.
    ///
    /// ```
    /// use chacha_rng::ChaCha20Rng;
    /// use chacha_rng::rand_core::{Rng, SeedableRng};
    ///
    /// let mut rng = ChaCha20Rng::from_seed([7; 32]);
    /// let mut data = vec![0u8; 1 << 20];
    /// rng.par_fill_bytes(&mut data);
    ///
    /// let mut sequential = ChaCha20Rng::from_seed([7; 32]);
    /// let mut want = vec![0u8; 1 << 20];
    /// sequential.fill_bytes(&mut want);
    /// assert_eq!(data, want);
    /// assert_eq!(rng.get_word_pos(), sequential.get_word_pos());
    /// ```
    pub fn par_fill_bytes(&mut self, dest: &mut [u8]) {
        self.par_fill_bytes_with_min_len(dest, threshold_for::<R>(dest.len()));
        note_end::<R>(dest.len());
    }

    /// [`par_fill_bytes`](Self::par_fill_bytes) with the threshold `min_len` instead of
    /// [`par_min_len`](crate::par_min_len): for tests, which split fills of a few blocks.
    #[doc(hidden)]
    pub fn par_fill_bytes_with_min_len(&mut self, dest: &mut [u8], min_len: usize) {
        let threads = parallel::threads();
        if dest.len() < min_len || threads < 2 {
            self.fill(dest);
            return;
        }
        let dest = self.fill_buffered(dest);
        let (blocks, tail) = dest.as_chunks_mut::<BLOCK_LEN>();
        if blocks.len() as u128 > self.state.blocks_left() {
            // Round the end of the stream: `fill_cyclic` wraps it.
            self.state.fill_cyclic::<R, K>(self.kernel, blocks);
        } else if !blocks.is_empty() {
            parallel::fill_blocks::<R, Legacy, K>(&self.state, self.kernel, blocks, threads);
            self.state.advance(blocks.len() as u64).expect("checked against blocks_left");
        }
        self.fill_tail(tail);
    }
}
