//! `par_fill_bytes` (feature `rayon`): one large fill on every thread of rayon's current
//! pool.
//!
//! The same three steps as `fill_bytes`, so the generator ends exactly where the
//! sequential call leaves it (the same word position, the same buffered output): the
//! buffered words first, then the whole blocks, then the partial last block through the
//! buffer. Only the whole blocks differ: cut into pieces at block boundaries, each piece
//! filled by a clone of the [`State`] advanced to its first block, with `State::advance`
//! and `State::fill`, which refuse to pass the end of the stream. The stream is a cycle
//! (`State::fill_cyclic`); a fill whose whole blocks would go round its end takes the
//! sequential code, which is the one place that wraps, rather than a second copy of that
//! rule here (2^64 blocks: only a generator moved there with `set_word_pos` gets near it).

extern crate std;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Instant;

use chacha_core::{BLOCK_LEN, Block, Kernel, Legacy, R20, Rounds, State};

use super::ChaChaRng;

/// ChaCha20Rng fills shorter than this many bytes run on the calling thread alone (unless
/// the pool is warm: [`PAR_WARM_MIN_LEN`]); for fewer rounds the threshold grows in
/// proportion, so that it stands for the same time. See [`par_min_len`].
///
/// The same values, for the same reasons, as the `chacha20` crate's: on the 2-vCPU virtual
/// machines measured, a pool thread whose vCPU had gone idle started 0.06 to 1.6 ms after
/// it was woken, so a split pays only for fills that take longer than that on one core
/// (2 MiB of ChaCha20 is about 0.45 ms on the Intel Xeon measured). The workspace's
/// `chacha-backends/DECISIONS.md` (section "rayon") has the measurements.
pub const PAR_MIN_LEN: usize = 2 << 20;

/// The threshold for fills that follow one another: a fill of at least this much work
/// (split or not) by this process's generators ended less than 50 µs ago (ChaCha20Rng
/// bytes; scaled like [`PAR_MIN_LEN`]). Back to back, a pool thread that has just finished
/// its pieces starts again within microseconds; the window is as short as the `chacha20`
/// crate's, for the same measured reason (a caller that sleeps between requests often
/// finds the helper's vCPU slow to come back).
pub const PAR_WARM_MIN_LEN: usize = 512 << 10;

/// How recent the previous large fill must be for the next to split from
/// [`PAR_WARM_MIN_LEN`].
const WARM_WINDOW_NS: u64 = 50_000;

/// The bytes of ChaCha20 output in one piece (scaled like [`PAR_MIN_LEN`] for fewer
/// rounds): a helper that starts late holds the caller up by one piece at most.
const PIECE_LEN: usize = 256 << 10;

/// Pieces per thread at least, so that a thread slowed by other work on its core leaves
/// its later pieces to the others.
const PIECES_PER_THREAD: usize = 4;

/// `chacha20_len` bytes of ChaCha20 work in bytes of `R`'s output (the same time).
const fn same_work<R: Rounds>(chacha20_len: usize) -> usize {
    chacha20_len * R20::DOUBLE_ROUNDS / R::DOUBLE_ROUNDS
}

/// The length from which [`ChaChaRng::par_fill_bytes`] with `R` rounds always splits the
/// work: [`PAR_MIN_LEN`] for ChaCha20Rng, 3.3 MiB for ChaCha12Rng, 5 MiB for ChaCha8Rng.
/// Within 50 µs of the end of a fill of a quarter of it or more, it splits from a quarter
/// of it ([`PAR_WARM_MIN_LEN`]).
///
/// ```
/// use chacha_rng::{par_min_len, R8, R20, PAR_MIN_LEN};
/// assert_eq!(par_min_len::<R20>(), PAR_MIN_LEN);
/// assert_eq!(par_min_len::<R8>(), 5 << 20);
/// ```
pub const fn par_min_len<R: Rounds>() -> usize {
    same_work::<R>(PAR_MIN_LEN)
}

/// When the last request of at least [`PAR_WARM_MIN_LEN`]'s work in this process ended,
/// split or not: nanoseconds since [`epoch`], 0 for never.
static LAST_LARGE_END: AtomicU64 = AtomicU64::new(0);

/// The clock's origin, the first time a parallel call asks.
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Nanoseconds since [`epoch`], at least 1 (0 means "never" in [`LAST_LARGE_END`]).
fn now_ns() -> u64 {
    u64::try_from(epoch().elapsed().as_nanos()).unwrap_or(u64::MAX).max(1)
}

/// [`PAR_WARM_MIN_LEN`]'s work if the last large request (`last_end`, 0 for none) ended
/// less than [`WARM_WINDOW_NS`] before `now`, else [`par_min_len`].
fn threshold<R: Rounds>(last_end: u64, now: u64) -> usize {
    if last_end != 0 && now.saturating_sub(last_end) < WARM_WINDOW_NS {
        same_work::<R>(PAR_WARM_MIN_LEN)
    } else {
        par_min_len::<R>()
    }
}

/// The threshold for a request of `len` bytes: the clock is read only for requests the
/// warm threshold could split.
fn threshold_for<R: Rounds>(len: usize) -> usize {
    if len < same_work::<R>(PAR_WARM_MIN_LEN) {
        usize::MAX
    } else {
        threshold::<R>(LAST_LARGE_END.load(Ordering::Relaxed), now_ns())
    }
}

/// Notes the end of a request of `len` bytes: one of [`PAR_WARM_MIN_LEN`]'s work or more
/// makes the next one within [`WARM_WINDOW_NS`] split from that length.
fn note_end<R: Rounds>(len: usize) {
    if len >= same_work::<R>(PAR_WARM_MIN_LEN) {
        LAST_LARGE_END.store(now_ns(), Ordering::Relaxed);
    }
}

/// Blocks per piece for `blocks` whole blocks on `threads` threads: at most
/// [`PIECE_LEN`]'s work, and [`PIECES_PER_THREAD`] per thread at least.
fn piece_blocks<R: Rounds>(blocks: usize, threads: usize) -> usize {
    blocks.div_ceil(threads * PIECES_PER_THREAD).min(same_work::<R>(PIECE_LEN) / BLOCK_LEN).max(1)
}

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
        let threads = rayon::current_num_threads();
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
            let piece = piece_blocks::<R>(blocks.len(), threads);
            fill_pieces::<R, K>(&self.state, self.kernel, blocks, piece, threads);
            self.state.advance(blocks.len() as u64).expect("checked against blocks_left");
        }
        self.fill_tail(tail);
    }
}

/// Runs `work` on every item of `items` on the calling thread and `threads - 1` helpers from
/// rayon's current pool, each taking the next item until none is left: the caller works
/// from the start instead of waiting for the pool's threads to wake up (as in the
/// `chacha20` crate's parallel calls, which say what that was measured to change).
fn share<I, F>(items: I, threads: usize, work: F)
where
    I: Iterator + Send,
    F: Fn(I::Item) + Sync,
{
    let items = Mutex::new(items);
    let run = || {
        loop {
            // The lock is held only to take an item: a panic in `work` cannot poison it, and
            // a poisoned one (never) would still hand out the rest.
            let next = items.lock().unwrap_or_else(PoisonError::into_inner).next();
            match next {
                Some(item) => work(item),
                None => break,
            }
        }
    };
    rayon::in_place_scope(|scope| {
        for _ in 1..threads {
            scope.spawn(|_| run());
        }
        run();
    });
}

/// Fills `out` with the keystream blocks from `start`'s position, pieces of `piece` blocks
/// on `threads` threads; the caller has checked that the stream has them all.
fn fill_pieces<R: Rounds, K: Kernel>(
    start: &State<Legacy>,
    kernel: K,
    out: &mut [Block],
    piece: usize,
    threads: usize,
) {
    share(out.chunks_mut(piece).enumerate(), threads, |(index, out)| {
        let mut state = start.clone();
        state.advance((index * piece) as u64).expect("checked against blocks_left");
        state.fill::<R, K>(kernel, out).expect("checked against blocks_left");
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(&mut state);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use chacha_core::{R8, R12};

    #[test]
    fn warm_only_just_after_a_large_request() {
        let cold = par_min_len::<R20>();
        assert_eq!(threshold::<R20>(0, 5), cold, "no large fill yet");
        assert_eq!(threshold::<R20>(10, 10 + WARM_WINDOW_NS - 1), PAR_WARM_MIN_LEN);
        assert_eq!(threshold::<R20>(10, 10 + WARM_WINDOW_NS), cold);
        assert_eq!(threshold::<R20>(20, 10), PAR_WARM_MIN_LEN, "a clock read before the store");
        assert_eq!(threshold::<R8>(10, 11), PAR_WARM_MIN_LEN * 10 / 4);
        assert_eq!(threshold::<R12>(0, 11), PAR_MIN_LEN * 10 / 6);
        const { assert!(PAR_WARM_MIN_LEN < PAR_MIN_LEN) };
        assert_eq!(threshold_for::<R20>(PAR_WARM_MIN_LEN - 1), usize::MAX, "too short to split");
        assert_eq!(threshold_for::<R8>(PAR_WARM_MIN_LEN * 10 / 4 - 1), usize::MAX);
        assert!(threshold_for::<R20>(PAR_WARM_MIN_LEN) <= PAR_MIN_LEN);
    }
}
