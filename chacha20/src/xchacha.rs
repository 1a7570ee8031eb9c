//! XChaCha: a 24-byte nonce, through HChaCha (draft-irtf-cfrg-xchacha-03).
//!
//! HChaCha turns the key and the first 16 nonce bytes into a subkey; the stream is then
//! ChaCha with that subkey, the last 8 nonce bytes and a 64-bit block counter (the
//! original layout). That is libsodium's XChaCha20 for the whole 2^64-block stream, and
//! the same bytes as the draft's layout (and the published `chacha20` crate) for its first
//! 2^32 blocks, where the draft's zero word 13 and our counter's high word agree.

use core::fmt;

use chacha_backends::Backend;
use chacha_core::{Kernel, Legacy, Rounds, State};
use cipher::{
    IvSizeUser, KeyIvInit, KeySizeUser, OverflowError, SeekNum, StreamCipher, StreamCipherError,
    StreamCipherSeek,
    array::Array,
    consts::{U16, U24, U32},
    inout::{InOutBuf, NotEqualError},
};

use crate::{Key, chacha::ChaCha};

/// The 24-byte XChaCha nonce.
pub type XNonce = Array<u8, U24>;

/// XChaCha with `R` rounds on the kernel `K`: 24-byte nonce, 2^64 blocks. Use
/// [`XChaCha20`](crate::XChaCha20) and friends; `K` is as for [`ChaCha`].
#[derive(Clone)]
pub struct XChaCha<R: Rounds, K: Kernel = Backend>(ChaCha<R, Legacy, K>);

impl<R: Rounds> XChaCha<R, Backend> {
    /// A cipher for `key` and `nonce` at position 0, running on `backend`.
    pub fn with_backend(key: &[u8; 32], nonce: &[u8; 24], backend: Backend) -> Self {
        Self::with_kernel(key, nonce, backend)
    }

    /// The backend this cipher runs on.
    pub fn backend(&self) -> Backend {
        self.0.kernel()
    }
}

impl<R: Rounds, K: Kernel> XChaCha<R, K> {
    /// A cipher for `key` and `nonce` at position 0, running on `kernel`.
    pub fn with_kernel(key: &[u8; 32], nonce: &[u8; 24], kernel: K) -> Self {
        let (head, rest) = nonce.split_at(16);
        let nonce: [u8; 8] = rest.try_into().expect("8 bytes");
        #[allow(unused_mut)] // mutated only to be wiped, with `zeroize`
        let mut subkey = kernel.hchacha::<R>(key, head.try_into().expect("16 bytes"));
        let state = State::new(&subkey, &nonce);
        #[cfg(feature = "zeroize")]
        // As a slice: one fill behind an optimization barrier, not 32 volatile byte writes.
        zeroize::Zeroize::zeroize(&mut subkey[..]);
        // Not `from_state`: inlined here, it built the cipher in a temporary that a `memcpy`
        // call then moved into `Self`, reading the just-written state back on the latency
        // path of a fresh message (`chacha-backends/DECISIONS.md`, § The fronts: the cipher).
        Self(ChaCha::from_state_in_place(state, kernel))
    }

    /// The kernel this cipher runs on.
    pub fn kernel(&self) -> K {
        self.0.kernel()
    }

    /// Keystream bytes left (2^70 for a fresh cipher).
    pub fn remaining(&self) -> u128 {
        self.0.remaining()
    }
}

/// The parallel calls of [`ChaCha`] (feature `rayon`); see
/// [`ChaCha::par_apply_keystream`] for how they split a request.
#[cfg(feature = "rayon")]
impl<R: Rounds, K: Kernel> XChaCha<R, K> {
    /// [`ChaCha::par_apply_keystream`] for XChaCha: the keystream XORed into `buf` on
    /// every thread of rayon's current pool, the same bytes and position as
    /// [`StreamCipher::apply_keystream`].
    ///
    /// # Panics
    /// As `apply_keystream`, past the end of the stream, before any byte is written.
    ///
    /// ```
    /// use chacha20::XChaCha20;
    /// use chacha20::cipher::{KeyIvInit, StreamCipher};
    ///
    /// let mut data = vec![0x42u8; 1 << 20];
    /// XChaCha20::new(&[7; 32].into(), &[9; 24].into()).par_apply_keystream(&mut data);
    /// let mut sequential = vec![0x42u8; 1 << 20];
    /// XChaCha20::new(&[7; 32].into(), &[9; 24].into()).apply_keystream(&mut sequential);
    /// assert_eq!(data, sequential);
    /// ```
    pub fn par_apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.par_apply_keystream(buf);
    }

    /// [`ChaCha::try_par_apply_keystream`] for XChaCha.
    ///
    /// # Errors
    /// [`StreamCipherError`] past the end of the stream; nothing written or moved.
    ///
    /// ```
    /// use chacha20::XChaCha8;
    /// use chacha20::cipher::KeyIvInit;
    ///
    /// let mut data = vec![0u8; 100_000];
    /// assert!(XChaCha8::new(&[7; 32].into(), &[9; 24].into()).try_par_apply_keystream(&mut data).is_ok());
    /// ```
    pub fn try_par_apply_keystream(&mut self, buf: &mut [u8]) -> Result<(), StreamCipherError> {
        self.0.try_par_apply_keystream(buf)
    }

    /// [`ChaCha::par_apply_keystream_b2b`] for XChaCha.
    ///
    /// # Panics
    /// As `apply_keystream_b2b`: if the lengths differ, or past the end of the stream.
    ///
    /// ```
    /// use chacha20::XChaCha20;
    /// use chacha20::cipher::{KeyIvInit, StreamCipher};
    ///
    /// let plaintext = vec![0x42u8; 1 << 20];
    /// let mut ciphertext = vec![0u8; 1 << 20];
    /// XChaCha20::new(&[7; 32].into(), &[9; 24].into()).par_apply_keystream_b2b(&plaintext, &mut ciphertext);
    /// let mut sequential = plaintext.clone();
    /// XChaCha20::new(&[7; 32].into(), &[9; 24].into()).apply_keystream(&mut sequential);
    /// assert_eq!(ciphertext, sequential);
    /// ```
    pub fn par_apply_keystream_b2b(&mut self, input: &[u8], output: &mut [u8]) {
        self.0.par_apply_keystream_b2b(input, output);
    }

    /// [`ChaCha::try_par_apply_keystream_b2b`] for XChaCha.
    ///
    /// # Errors
    /// [`StreamCipherError`] if the lengths differ or past the end of the stream; nothing
    /// written or moved.
    ///
    /// ```
    /// use chacha20::XChaCha20;
    /// use chacha20::cipher::KeyIvInit;
    ///
    /// let mut cipher = XChaCha20::new(&[7; 32].into(), &[9; 24].into());
    /// assert!(cipher.try_par_apply_keystream_b2b(&[1; 100], &mut [0; 99]).is_err());
    /// ```
    pub fn try_par_apply_keystream_b2b(
        &mut self,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), StreamCipherError> {
        self.0.try_par_apply_keystream_b2b(input, output)
    }

    /// `ChaCha::try_par_apply_keystream_with_min_len` for XChaCha, for tests.
    #[doc(hidden)]
    pub fn try_par_apply_keystream_with_min_len(
        &mut self,
        buf: &mut [u8],
        min_len: usize,
    ) -> Result<(), StreamCipherError> {
        self.0.try_par_apply_keystream_with_min_len(buf, min_len)
    }

    /// `ChaCha::try_par_apply_keystream_b2b_with_min_len` for XChaCha, for tests.
    #[doc(hidden)]
    pub fn try_par_apply_keystream_b2b_with_min_len(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        min_len: usize,
    ) -> Result<(), StreamCipherError> {
        self.0.try_par_apply_keystream_b2b_with_min_len(input, output, min_len)
    }
}

/// HChaCha with `R` rounds (draft-irtf-cfrg-xchacha-03 §2.2): a 32-byte subkey from a key
/// and a 16-byte input, on the fastest backend.
pub fn hchacha<R: Rounds>(key: &Key, input: &Array<u8, U16>) -> Array<u8, U32> {
    Array(Backend::detect().hchacha::<R>(key.as_ref(), input.as_ref()))
}

impl<R: Rounds, K: Kernel> KeySizeUser for XChaCha<R, K> {
    type KeySize = U32;
}

impl<R: Rounds, K: Kernel> IvSizeUser for XChaCha<R, K> {
    type IvSize = U24;
}

impl<R: Rounds, K: Kernel + Default> KeyIvInit for XChaCha<R, K> {
    /// Inlined, as `ChaCha`'s `new` is (see there).
    #[inline]
    fn new(key: &Key, iv: &XNonce) -> Self {
        Self::with_kernel(key.as_ref(), iv.as_ref(), K::default())
    }
}

impl<R: Rounds, K: Kernel> StreamCipher for XChaCha<R, K> {
    #[inline]
    fn check_remaining(&self, data_len: usize) -> Result<(), StreamCipherError> {
        self.0.check_remaining(data_len)
    }

    #[inline]
    fn unchecked_apply_keystream_inout(&mut self, buf: InOutBuf<'_, '_, u8>) {
        self.0.unchecked_apply_keystream_inout(buf);
    }

    #[inline]
    fn unchecked_apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.unchecked_apply_keystream(buf);
    }

    fn unchecked_write_keystream(&mut self, buf: &mut [u8]) {
        self.0.unchecked_write_keystream(buf);
    }

    #[inline]
    fn unchecked_apply_keystream_b2b(
        &mut self,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), NotEqualError> {
        self.0.unchecked_apply_keystream_b2b(input, output)
    }

    #[inline]
    fn try_apply_keystream_inout(&mut self, buf: InOutBuf<'_, '_, u8>) -> Result<(), StreamCipherError> {
        self.0.try_apply_keystream_inout(buf)
    }

    #[inline]
    fn try_apply_keystream(&mut self, buf: &mut [u8]) -> Result<(), StreamCipherError> {
        self.0.try_apply_keystream(buf)
    }

    #[inline]
    fn try_apply_keystream_b2b(&mut self, input: &[u8], output: &mut [u8]) -> Result<(), StreamCipherError> {
        self.0.try_apply_keystream_b2b(input, output)
    }

    #[inline]
    fn apply_keystream_b2b(&mut self, input: &[u8], output: &mut [u8]) {
        self.0.apply_keystream_b2b(input, output);
    }

    fn try_write_keystream(&mut self, buf: &mut [u8]) -> Result<(), StreamCipherError> {
        self.0.try_write_keystream(buf)
    }
}

impl<R: Rounds, K: Kernel> StreamCipherSeek for XChaCha<R, K> {
    fn try_current_pos<T: SeekNum>(&self) -> Result<T, OverflowError> {
        self.0.try_current_pos()
    }

    fn try_seek<T: SeekNum>(&mut self, pos: T) -> Result<(), StreamCipherError> {
        self.0.try_seek(pos)
    }
}

impl<R: Rounds, K: Kernel> fmt::Debug for XChaCha<R, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("XChaCha")
            .field("rounds", &R::ROUNDS)
            .field("kernel", &self.0.kernel())
            .field("position", &self.0.current_pos::<u128>())
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "zeroize")]
impl<R: Rounds, K: Kernel> zeroize::ZeroizeOnDrop for XChaCha<R, K> {}

#[cfg(all(test, feature = "zeroize"))]
mod tests {
    use cipher::StreamCipher;

    use crate::{Backend, XChaCha20};

    /// `XChaCha` holds its subkey only in the `ChaCha` inside, whose `drop` wipes it.
    #[test]
    fn xchacha_wipes_through_its_chacha() {
        let mut x = XChaCha20::with_backend(&[0xAB; 32], &[0xCD; 24], Backend::detect());
        x.apply_keystream(&mut [0u8; 30]);
        crate::chacha::tests::check_wiped(&mut x.0);
    }
}
