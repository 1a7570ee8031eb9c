//! One large request's whole blocks on every thread of rayon's current pool (feature
//! `rayon`): when a split pays, how the blocks are cut, and who takes the pieces. The
//! fronts' parallel calls (`chacha20`'s `par_apply_keystream`, `chacha-rng`'s
//! `par_fill_bytes`) serve their buffered bytes and the partial last block with their
//! sequential code and hand the whole blocks in between to [`xor_blocks`] or
//! [`fill_blocks`].
//!
//! ChaCha's keystream is seekable, so whole blocks can be computed anywhere in any order:
//! each piece is computed by a clone of the caller's [`State`] advanced to its first block,
//! with `State::advance` and `State::xor`/`State::fill`, the end-of-stream rules of the
//! sequential path; the caller checks the whole request against them first and moves its
//! own state past the blocks afterwards.
//!
//! The thresholds and the piece length are in ChaCha20's work and scale with the rounds
//! ([`par_min_len`]), so that each stands for the same time. The measurements behind them
//! are in DECISIONS.md, § rayon.

extern crate std;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Instant;

use chacha_core::{BLOCK_LEN, Block, Kernel, R20, Rounds, State, Variant, XorBuf};

/// Requests shorter than this many bytes of ChaCha20's work run on the calling thread
/// alone (unless the pool is warm: [`PAR_WARM_MIN_LEN`]); for fewer rounds the threshold
/// grows in proportion (ChaCha12: 10/6 of it, ChaCha8: 10/4). See [`par_min_len`].
///
/// Why 2 MiB: a split pays only if a pool thread starts well before the calling thread has
/// done the whole request alone, and on a virtual machine a pool thread whose vCPU has gone
/// idle can start long after it is woken (DECISIONS.md, § rayon: the threshold). Below the
/// threshold that wait would be most of the request; above it, what the caller can lose is
/// bounded by one piece.
pub const PAR_MIN_LEN: usize = 2 << 20;

/// The threshold for requests that follow one another: a request of at least this much
/// work (split or not, a cipher's or a generator's) ended less than 50 µs ago in this
/// process (ChaCha20 bytes; scaled like [`PAR_MIN_LEN`]).
///
/// Back to back, a pool thread that has just finished its pieces starts again at once, so
/// a request this long already gains: a loop that encrypts a buffer in chunks of 512 KiB or
/// more splits every chunk after the first. The window is short because a caller that
/// sleeps between requests, even briefly, lets the helper's vCPU go idle, and then finds it
/// slow to come back as often as not (DECISIONS.md, § rayon: requests back to back). The
/// first split of a run can wait for a helper that had gone to sleep.
pub const PAR_WARM_MIN_LEN: usize = 512 << 10;

/// How recent the previous large request must be for the next to split from
/// [`PAR_WARM_MIN_LEN`].
const WARM_WINDOW_NS: u64 = 50_000;

/// The bytes of ChaCha20 keystream in one piece (scaled like [`PAR_MIN_LEN`] for fewer
/// rounds): short, so a helper that starts late holds the caller up by one piece at most
/// (DECISIONS.md, § rayon: the threshold), and a 16 MiB request is 64 pieces (one lock
/// each).
const PIECE_LEN: usize = 256 << 10;

/// Pieces per thread at least, so that a thread slowed by other work on its core leaves
/// its later pieces to the others.
const PIECES_PER_THREAD: usize = 4;

/// `chacha20_len` bytes of ChaCha20 work in bytes of `R`'s keystream (the same time).
const fn same_work<R: Rounds>(chacha20_len: usize) -> usize {
    chacha20_len * R20::DOUBLE_ROUNDS / R::DOUBLE_ROUNDS
}

/// The length from which a parallel call with `R` rounds always splits the work:
/// [`PAR_MIN_LEN`] for ChaCha20, 3.3 MiB for ChaCha12, 5 MiB for ChaCha8. Within 50 µs of
/// the end of a request of a quarter of it or more, it splits from a quarter of it
/// ([`PAR_WARM_MIN_LEN`]).
///
/// ```
/// use chacha_backends::parallel::{PAR_MIN_LEN, par_min_len};
/// use chacha_core::{R8, R20};
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

/// The length from which a request of `len` bytes with `R` rounds splits, now:
/// [`par_min_len`], or its warm quarter just after a large request (`usize::MAX` for a
/// request too short for either: the clock is read only for requests the warm threshold
/// could split).
pub fn threshold_for<R: Rounds>(len: usize) -> usize {
    if len < same_work::<R>(PAR_WARM_MIN_LEN) {
        usize::MAX
    } else {
        threshold::<R>(LAST_LARGE_END.load(Ordering::Relaxed), now_ns())
    }
}

/// Notes the end of a request of `len` bytes with `R` rounds: one of
/// [`PAR_WARM_MIN_LEN`]'s work or more makes the next one within 50 µs split from that
/// length.
pub fn note_end<R: Rounds>(len: usize) {
    if len >= same_work::<R>(PAR_WARM_MIN_LEN) {
        LAST_LARGE_END.store(now_ns(), Ordering::Relaxed);
    }
}

/// The threads of rayon's current pool (the global pool unless called inside
/// `ThreadPool::install`): a request on a one-thread pool takes the sequential code.
pub fn threads() -> usize {
    rayon::current_num_threads()
}

/// Blocks per piece for `blocks` whole blocks on `threads` threads: at most
/// [`PIECE_LEN`]'s work, and [`PIECES_PER_THREAD`] per thread at least.
fn piece_blocks<R: Rounds>(blocks: usize, threads: usize) -> usize {
    blocks.div_ceil(threads * PIECES_PER_THREAD).min(same_work::<R>(PIECE_LEN) / BLOCK_LEN).max(1)
}

/// Runs `work` on every item of `items` on the calling thread and `threads - 1` helpers from
/// rayon's current pool, each taking the next item until none is left.
///
/// The caller works from the start: a parallel iterator hands the whole job to the pool and
/// waits until a pool thread wakes up to take it (and a second one to take half). Under
/// load, `par_chunks_mut` never beat the sequential call, while the caller taking pieces
/// itself did (DECISIONS.md, § rayon: earlier figures).
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

/// `start` advanced by `blocks`, for one piece: cannot fail after the caller's check of
/// the whole request; if it ever did, this stops rather than reuse keystream.
fn piece_state<V: Variant>(start: &State<V>, blocks: usize) -> State<V> {
    let mut state = start.clone();
    state.advance(blocks as u64).expect("end of keystream reached");
    state
}

/// Wipes a piece's state (it holds the key), with the `zeroize` feature.
fn wipe<V: Variant>(state: &mut State<V>) {
    #[cfg(feature = "zeroize")]
    zeroize::Zeroize::zeroize(state);
    #[cfg(not(feature = "zeroize"))]
    let _ = state;
}

/// XORs the keystream from `start`'s position into the whole blocks of `out` (in place,
/// or from `input`, as long as `out`), on `threads` threads; `start` does not move. The
/// caller has checked that the stream has the blocks; a length that is not a multiple of
/// 64 panics.
pub fn xor_blocks<R: Rounds, V: Variant, K: Kernel>(
    start: &State<V>,
    kernel: K,
    input: Option<&[u8]>,
    out: &mut [u8],
    threads: usize,
) {
    assert!(out.len().is_multiple_of(BLOCK_LEN), "whole blocks");
    let piece = piece_blocks::<R>(out.len() / BLOCK_LEN, threads);
    let xor_piece = |index: usize, buf: XorBuf<'_, '_>| {
        let mut state = piece_state(start, index * piece);
        // Whole blocks only: the kernel leaves the partial-block keystream alone.
        let mut tail = [0u8; BLOCK_LEN];
        state.xor::<R, K>(kernel, buf, &mut tail).expect("end of keystream reached");
        wipe(&mut state);
    };
    let bytes = piece * BLOCK_LEN;
    match input {
        None => share(out.chunks_mut(bytes).enumerate(), threads, |(i, out)| xor_piece(i, out.into())),
        Some(input) => {
            let pieces = out.chunks_mut(bytes).zip(input.chunks(bytes)).enumerate();
            share(pieces, threads, |(i, (out, input))| {
                xor_piece(i, XorBuf::new(input, out).expect("the caller checked equal lengths"))
            })
        }
    }
}

/// Fills `out` with the keystream blocks from `start`'s position, on `threads` threads;
/// `start` does not move. The caller has checked that the stream has the blocks.
pub fn fill_blocks<R: Rounds, V: Variant, K: Kernel>(
    start: &State<V>,
    kernel: K,
    out: &mut [Block],
    threads: usize,
) {
    let piece = piece_blocks::<R>(out.len(), threads);
    share(out.chunks_mut(piece).enumerate(), threads, |(index, out)| {
        let mut state = piece_state(start, index * piece);
        state.fill::<R, K>(kernel, out).expect("end of keystream reached");
        wipe(&mut state);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use chacha_core::{R8, R12};

    #[test]
    fn warm_only_just_after_a_large_request() {
        let cold = par_min_len::<R20>();
        assert_eq!(threshold::<R20>(0, 5), cold, "no large request yet");
        assert_eq!(threshold::<R20>(10, 10), PAR_WARM_MIN_LEN, "at the same moment");
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

    #[test]
    fn pieces_are_bounded_and_shared() {
        // 4 pieces per thread at least, at most 256 KiB of ChaCha20's work, never empty.
        assert_eq!(piece_blocks::<R20>(800, 2), 100);
        assert_eq!(piece_blocks::<R20>(1 << 20, 2), (256 << 10) / 64);
        assert_eq!(piece_blocks::<R8>(1 << 20, 2), (256 << 10) * 10 / 4 / 64);
        assert_eq!(piece_blocks::<R20>(3, 4), 1);
    }
}
