//! `par_apply_keystream` and friends (feature `rayon`): one large request's keystream on
//! every thread of rayon's current pool.
//!
//! ChaCha's keystream is seekable, so whole blocks can be computed anywhere in any order.
//! A request is served in three steps, so the cipher ends exactly where the sequential call
//! leaves it (the same position, the same partial block buffered, the same errors):
//!
//! 1. the keystream already buffered (the rest of a partial block, or of a short-call
//!    batch) with the sequential code;
//! 2. the whole blocks after it, cut into pieces at block boundaries that the calling
//!    thread and helpers from the pool take in turn, each piece XORed by a clone of the
//!    [`State`] advanced to its first block: `State::advance` and
//!    `State::xor` are the only end-of-stream rules here, as in the sequential path, and
//!    the whole request was checked against them first;
//! 3. the partial last block with the sequential code's fused XOR, whose keystream stays
//!    buffered for the next call.
//!
//! A request the sequential code would serve from a short-call batch, one shorter than
//! the threshold, and every request on a one-thread pool, take the sequential code whole.

extern crate std;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Instant;

use chacha_core::{Kernel, R20, Rounds, State, Variant};
use cipher::{StreamCipher, StreamCipherError, inout::InOutBuf};

use super::ChaCha;

/// ChaCha20 requests shorter than this many bytes run on the calling thread alone (unless
/// the pool is warm: [`PAR_WARM_MIN_LEN`]); for fewer rounds the threshold grows in
/// proportion (ChaCha12: 10/6 of it, ChaCha8: 10/4), so that it stands for the same time.
/// See [`par_min_len`].
///
/// Why 2 MiB (about 0.45 ms of ChaCha20 on one core of the Intel Xeon these figures come
/// from): a split pays only if a pool thread starts well before the calling thread has
/// done the whole request alone, and on the 2-vCPU virtual machines measured here a pool
/// thread whose vCPU had gone idle started 0.06 to 1.6 ms after it was woken. Below the
/// threshold that wait would be most of the request; above it, what the caller can lose is
/// bounded by one piece. `chacha-backends/DECISIONS.md` (section "rayon") has the
/// measurements.
pub const PAR_MIN_LEN: usize = 2 << 20;

/// The threshold for requests that follow one another: a request of at least this much
/// work (split or not) ended less than 50 µs ago in this process (ChaCha20 bytes; scaled
/// like [`PAR_MIN_LEN`]).
///
/// Back to back, a pool thread that has just finished its pieces starts again within
/// microseconds, so a request of 0.1 ms (512 KiB of ChaCha20 on the Intel Xeon) already
/// gains: a loop that encrypts a buffer in chunks of 512 KiB or more splits every chunk
/// after the first (1 MiB chunks measured 1.3–1.9× the sequential loop). The window is
/// short because a caller that sleeps between requests, even 0.1 ms, was measured to find
/// the helper's vCPU slow to come back as often as not (1 MiB: 0.92× in half the runs).
/// The first split of a run can wait for a helper that had gone to sleep.
pub const PAR_WARM_MIN_LEN: usize = 512 << 10;

/// How recent the previous large request must be for the next to split from
/// [`PAR_WARM_MIN_LEN`].
const WARM_WINDOW_NS: u64 = 50_000;

/// The bytes of ChaCha20 keystream in one piece (scaled like [`PAR_MIN_LEN`] for fewer
/// rounds): about 55 µs of work, so a helper that starts late holds the caller up by at
/// most that, and a 16 MiB request is 64 pieces (one lock each).
const PIECE_LEN: usize = 256 << 10;

/// Pieces per thread at least, so that a thread slowed by other work on its core leaves
/// its later pieces to the others.
const PIECES_PER_THREAD: usize = 4;

/// `chacha20_len` bytes of ChaCha20 work in bytes of `R`'s keystream (the same time).
const fn same_work<R: Rounds>(chacha20_len: usize) -> usize {
    chacha20_len * R20::DOUBLE_ROUNDS / R::DOUBLE_ROUNDS
}

/// The length from which the `par_*` calls of a cipher with `R` rounds always split the
/// work: [`PAR_MIN_LEN`] for ChaCha20, 3.3 MiB for ChaCha12, 5 MiB for ChaCha8. Within 50 µs
/// of the end of a request of a quarter of it or more, they split from a quarter of it
/// ([`PAR_WARM_MIN_LEN`]).
///
/// ```
/// use chacha20::{par_min_len, R8, R20, PAR_MIN_LEN};
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
    blocks.div_ceil(threads * PIECES_PER_THREAD).min(same_work::<R>(PIECE_LEN) / 64).max(1)
}

/// In place (`None`) or buffer to buffer (`Some(input)`, as long as `out`), as one
/// [`InOutBuf`].
fn in_out<'a>(input: Option<&'a [u8]>, out: &'a mut [u8]) -> InOutBuf<'a, 'a, u8> {
    match input {
        Some(input) => InOutBuf::new(input, out).expect("the caller checked equal lengths"),
        None => out.into(),
    }
}

/// Runs `work` on every item of `items` on the calling thread and `threads - 1` helpers from
/// rayon's current pool, each taking the next item until none is left.
///
/// The caller works from the start: a parallel iterator hands the whole job to the pool and
/// waits until a pool thread wakes up to take it (and a second one to take half). With the
/// pool's 2 threads on a 2-vCPU machine under load, `par_chunks_mut` never beat the
/// sequential call at 16 MiB, while two plain threads (the caller and one more) reached
/// 1.45–1.67× in the same minutes (Intel Xeon family 6 model 207).
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

/// XORs the keystream of the whole blocks of `out` (and `input`) from `start`'s position,
/// pieces of `piece` blocks on `threads` threads.
fn xor_pieces<R: Rounds, V: Variant, K: Kernel>(
    start: &State<V>,
    kernel: K,
    input: Option<&[u8]>,
    out: &mut [u8],
    piece: usize,
    threads: usize,
) {
    let xor_piece = |index: usize, buf: InOutBuf<'_, '_, u8>| {
        let mut state = start.clone();
        // Cannot fail after the caller's check of the whole request; if one ever did, this
        // stops rather than reuse keystream.
        state.advance((index * piece) as u64).expect("end of keystream reached");
        // Whole blocks only: the kernel leaves the partial-block keystream alone.
        let mut tail = [0u8; 64];
        state.xor::<R, K>(kernel, buf, &mut tail).expect("end of keystream reached");
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(&mut state);
    };
    let bytes = piece * 64;
    match input {
        None => share(out.chunks_mut(bytes).enumerate(), threads, |(i, out)| xor_piece(i, out.into())),
        Some(input) => {
            share(out.chunks_mut(bytes).zip(input.chunks(bytes)).enumerate(), threads, |(i, (out, input))| {
                xor_piece(i, in_out(Some(input), out))
            })
        }
    }
}

impl<R: Rounds, V: Variant, K: Kernel> ChaCha<R, V, K> {
    /// XORs the keystream into `buf` like [`StreamCipher::apply_keystream`], with the
    /// whole blocks on every thread of rayon's current pool (the global pool unless called
    /// inside [`ThreadPool::install`](rayon::ThreadPool::install)). The same bytes, the
    /// same position afterwards; requests shorter than
    /// [`par_min_len::<R>()`](crate::par_min_len) (2 MiB for ChaCha20; a quarter of it within
    /// 50 µs of the end of a request that long) and one-thread pools take the sequential call.
    ///
    /// # Panics
    /// As `apply_keystream`: "end of keystream reached" if `buf` needs more keystream than
    /// is left, before any byte is written.
    ///
    /// ```
    /// use chacha20::ChaCha20;
    /// use chacha20::cipher::{KeyIvInit, StreamCipher};
    ///
    /// let mut data = vec![0x42u8; 1 << 20];
    /// let mut cipher = ChaCha20::new(&[7; 32].into(), &[9; 12].into());
    /// cipher.par_apply_keystream(&mut data);
    ///
    /// let mut sequential = vec![0x42u8; 1 << 20];
    /// ChaCha20::new(&[7; 32].into(), &[9; 12].into()).apply_keystream(&mut sequential);
    /// assert_eq!(data, sequential);
    /// ```
    pub fn par_apply_keystream(&mut self, buf: &mut [u8]) {
        self.try_par_apply_keystream(buf).expect("end of keystream reached");
    }

    /// [`par_apply_keystream`](Self::par_apply_keystream) as
    /// [`StreamCipher::try_apply_keystream`]: past the end of the stream, an error and
    /// nothing written or moved.
    ///
    /// # Errors
    /// [`StreamCipherError`] if `buf` needs more keystream than is left.
    ///
    /// ```
    /// use chacha20::ChaCha20;
    /// use chacha20::cipher::{KeyIvInit, StreamCipherSeek};
    ///
    /// let mut cipher = ChaCha20::new(&[7; 32].into(), &[9; 12].into());
    /// cipher.seek((1u64 << 38) - 100_000); // 100,000 bytes before the end
    /// let mut data = vec![0u8; 200_000];
    /// assert!(cipher.try_par_apply_keystream(&mut data).is_err());
    /// assert!(cipher.try_par_apply_keystream(&mut data[..100_000]).is_ok());
    /// ```
    pub fn try_par_apply_keystream(&mut self, buf: &mut [u8]) -> Result<(), StreamCipherError> {
        self.par_xor(None, buf, threshold_for::<R>(buf.len()))?;
        note_end::<R>(buf.len());
        Ok(())
    }

    /// XORs the keystream into `input`, written to `output`, like
    /// [`StreamCipher::apply_keystream_b2b`], with the whole blocks on every thread of
    /// rayon's current pool (see [`par_apply_keystream`](Self::par_apply_keystream)).
    ///
    /// # Panics
    /// As `apply_keystream_b2b`: if the lengths differ, or past the end of the stream,
    /// before any byte is written.
    ///
    /// ```
    /// use chacha20::ChaCha8;
    /// use chacha20::cipher::{KeyIvInit, StreamCipher};
    ///
    /// let plaintext = vec![0x42u8; 1 << 20];
    /// let mut ciphertext = vec![0u8; 1 << 20];
    /// let mut cipher = ChaCha8::new(&[7; 32].into(), &[9; 12].into());
    /// cipher.par_apply_keystream_b2b(&plaintext, &mut ciphertext);
    ///
    /// let mut sequential = plaintext.clone();
    /// ChaCha8::new(&[7; 32].into(), &[9; 12].into()).apply_keystream(&mut sequential);
    /// assert_eq!(ciphertext, sequential);
    /// ```
    pub fn par_apply_keystream_b2b(&mut self, input: &[u8], output: &mut [u8]) {
        // `apply_keystream_b2b`'s own words.
        assert!(
            input.len() == output.len(),
            "Lengths of input and output buffers are not equal to each other!"
        );
        self.try_par_apply_keystream_b2b(input, output).expect("end of keystream reached");
    }

    /// [`par_apply_keystream_b2b`](Self::par_apply_keystream_b2b) as
    /// [`StreamCipher::try_apply_keystream_b2b`].
    ///
    /// # Errors
    /// [`StreamCipherError`] if the lengths differ or `input` needs more keystream than is
    /// left; nothing is written and the position does not move.
    ///
    /// ```
    /// use chacha20::ChaCha20;
    /// use chacha20::cipher::KeyIvInit;
    ///
    /// let mut cipher = ChaCha20::new(&[7; 32].into(), &[9; 12].into());
    /// let input = vec![1u8; 100_000];
    /// assert!(cipher.try_par_apply_keystream_b2b(&input, &mut vec![0; 99_999]).is_err());
    /// assert!(cipher.try_par_apply_keystream_b2b(&input, &mut vec![0; 100_000]).is_ok());
    /// ```
    pub fn try_par_apply_keystream_b2b(
        &mut self,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), StreamCipherError> {
        if input.len() != output.len() {
            return Err(StreamCipherError);
        }
        self.par_xor(Some(input), output, threshold_for::<R>(output.len()))?;
        note_end::<R>(output.len());
        Ok(())
    }

    /// [`try_par_apply_keystream`](Self::try_par_apply_keystream) with the threshold
    /// `min_len` instead of [`par_min_len`](crate::par_min_len): for tests, which split
    /// requests of a few blocks.
    #[doc(hidden)]
    pub fn try_par_apply_keystream_with_min_len(
        &mut self,
        buf: &mut [u8],
        min_len: usize,
    ) -> Result<(), StreamCipherError> {
        self.par_xor(None, buf, min_len)
    }

    /// [`try_par_apply_keystream_b2b`](Self::try_par_apply_keystream_b2b) with the
    /// threshold `min_len` (see `try_par_apply_keystream_with_min_len`).
    #[doc(hidden)]
    pub fn try_par_apply_keystream_b2b_with_min_len(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        min_len: usize,
    ) -> Result<(), StreamCipherError> {
        if input.len() != output.len() {
            return Err(StreamCipherError);
        }
        self.par_xor(Some(input), output, min_len)
    }

    /// The three steps of the module docs; `input`, if any, is as long as `out`.
    fn par_xor(
        &mut self,
        input: Option<&[u8]>,
        out: &mut [u8],
        min_len: usize,
    ) -> Result<(), StreamCipherError> {
        self.check_remaining(out.len())?;
        let threads = rayon::current_num_threads();
        if out.len() < min_len || threads < 2 {
            self.apply(in_out(input, out));
            return Ok(());
        }
        // 1. The buffered keystream.
        let head = out.len().min(self.buffered());
        let (out_head, out) = out.split_at_mut(head);
        let (input_head, input) = match input.map(|input| input.split_at(head)) {
            Some((head, rest)) => (Some(head), Some(rest)),
            None => (None, None),
        };
        self.apply(in_out(input_head, out_head));
        if out.is_empty() || self.batches(out.len()) {
            self.apply(in_out(input, out));
            return Ok(());
        }
        // 2. The whole blocks, from clones of the state; then the state moves past them.
        let blocks = out.len() / 64;
        let (out_mid, out_tail) = out.split_at_mut(blocks * 64);
        let (input_mid, input_tail) = match input.map(|input| input.split_at(blocks * 64)) {
            Some((mid, tail)) => (Some(mid), Some(tail)),
            None => (None, None),
        };
        if blocks != 0 {
            let piece = piece_blocks::<R>(blocks, threads);
            xor_pieces::<R, V, K>(&self.state, self.kernel, input_mid, out_mid, piece, threads);
            self.state.advance(blocks as u64).expect("end of keystream reached");
        }
        // 3. The partial last block, its keystream buffered as the sequential call leaves it.
        if out_tail.is_empty() {
            (self.used, self.end) = (0, 0);
            self.warm = true;
        } else {
            self.xor_fused(in_out(input_tail, out_tail));
        }
        Ok(())
    }
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
}
