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
//!    state advanced to its first block (`chacha_backends::parallel::xor_blocks`, which
//!    also holds the thresholds): `State::advance` and `State::xor` are the only
//!    end-of-stream rules there, as in the sequential path, and the whole request was
//!    checked against them first;
//! 3. the partial last block with the sequential code's fused XOR, whose keystream stays
//!    buffered for the next call.
//!
//! A request the sequential code would serve from a short-call batch, one shorter than
//! the threshold, and every request on a one-thread pool, take the sequential code whole.

use chacha_backends::parallel::{self, note_end, threshold_for};
use chacha_core::{Kernel, Rounds, Variant, XorBuf};
use cipher::{StreamCipher, StreamCipherError};

use super::ChaCha;

pub use chacha_backends::parallel::{PAR_MIN_LEN, PAR_WARM_MIN_LEN, par_min_len};

/// In place (`None`) or buffer to buffer (`Some(input)`, as long as `out`), as one
/// [`XorBuf`].
fn in_out<'a>(input: Option<&'a [u8]>, out: &'a mut [u8]) -> XorBuf<'a, 'a> {
    match input {
        Some(input) => XorBuf::new(input, out).expect("the caller checked equal lengths"),
        None => out.into(),
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
        let threads = parallel::threads();
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
            parallel::xor_blocks::<R, V, K>(&self.state, self.kernel, input_mid, out_mid, threads);
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
