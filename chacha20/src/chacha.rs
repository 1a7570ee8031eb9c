//! [`ChaCha`]: one stream cipher type for every round count and counter layout.
//!
//! It holds the [`State`] (key, nonce, block position, end of stream), the [`Backend`]
//! chosen when it was made, and the keystream of the current partial block. Whole blocks
//! go straight to the backend's fused XOR; the bytes of a partial last block come from the
//! same backend call and the rest of that block waits in `tail` for the next call.

use core::fmt;

use chacha_backends::Backend;
use chacha_core::{Block, Ietf, Legacy, Rounds, State, Variant};
use cipher::{
    IvSizeUser, KeyIvInit, KeySizeUser, OverflowError, SeekNum, StreamCipher, StreamCipherError,
    StreamCipherSeek,
    array::ArraySize,
    consts::{U8, U12, U32},
    inout::InOutBuf,
};

/// The nonce size of a counter layout, as `cipher` wants it (a type-level number).
pub trait NonceSize: Variant {
    /// `Self::NONCE_LEN` as a type.
    type IvSize: ArraySize;
}

impl NonceSize for Ietf {
    type IvSize = U12;
}

impl NonceSize for Legacy {
    type IvSize = U8;
}

/// A ChaCha stream cipher with `R` rounds and the `V` counter layout.
///
/// Use the aliases: [`ChaCha20`](crate::ChaCha20) and friends (RFC 8439: 12-byte nonce,
/// 2^32 blocks), [`ChaCha20Legacy`](crate::ChaCha20Legacy) and friends (8-byte nonce,
/// 2^64 blocks).
///
/// `Debug` shows the backend and position, never the key or keystream. With the `zeroize`
/// feature, dropping it wipes the key state and buffered keystream.
#[derive(Clone)]
pub struct ChaCha<R: Rounds, V: Variant> {
    state: State<V>,
    backend: Backend,
    /// Keystream of the block before `state`'s position; bytes `tail_used..` not yet used.
    tail: Block,
    /// 0 when no partial block is pending (then `tail` is stale), else 1..=63.
    tail_used: u8,
    _rounds: R,
}

impl<R: Rounds, V: Variant> ChaCha<R, V> {
    /// A cipher for `key` and `nonce` at position 0, running on `backend` (one of
    /// [`Backend::available`]); [`KeyIvInit::new`] uses [`Backend::detect`].
    pub fn with_backend(key: &[u8; 32], nonce: &V::Nonce, backend: Backend) -> Self {
        Self::from_state(State::new(key, nonce), backend)
    }

    pub(crate) fn from_state(state: State<V>, backend: Backend) -> Self {
        Self { state, backend, tail: [0; 64], tail_used: 0, _rounds: R::default() }
    }

    /// The backend this cipher runs on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Bytes of buffered keystream (the rest of a partial block).
    #[inline(always)]
    fn buffered(&self) -> usize {
        if self.tail_used == 0 { 0 } else { 64 - self.tail_used as usize }
    }

    /// Keystream bytes left: `u128` because the 64-bit-counter layouts have 2^70 of them.
    pub fn remaining(&self) -> u128 {
        self.state.blocks_left() * 64 + self.buffered() as u128
    }

    /// Position in bytes from the start of the keystream.
    fn position(&self) -> u128 {
        self.state.position() * 64 - self.buffered() as u128
    }

    /// XORs keystream into `buf`; the caller has checked that enough is left.
    #[inline]
    fn apply(&mut self, mut buf: InOutBuf<'_, '_, u8>) {
        if self.tail_used != 0 {
            let used = self.tail_used as usize;
            let n = buf.len().min(64 - used);
            let (mut head, rest) = buf.split_at(n);
            head.xor_in2out(&self.tail[used..used + n]);
            self.tail_used = ((used + n) % 64) as u8;
            buf = rest;
        }
        if buf.is_empty() {
            return;
        }
        let partial = (buf.len() % 64) as u8;
        // Cannot fail after `check_remaining`; if it ever did, this stops rather than
        // reuse keystream.
        self.state.xor::<R, _>(self.backend, buf, &mut self.tail).expect("end of keystream reached");
        self.tail_used = partial;
    }

    /// Bytes to position, or an error past the end of the stream.
    fn seek_to(&mut self, block: u128, byte: u8) -> Result<(), StreamCipherError> {
        if byte == 0 {
            self.state.seek(block).map_err(|_| StreamCipherError)?;
            self.tail_used = 0;
            return Ok(());
        }
        // Inside block `block`: it must exist, and its keystream is buffered.
        if block >= V::BLOCKS {
            return Err(StreamCipherError);
        }
        self.state.seek(block).map_err(|_| StreamCipherError)?;
        let mut one = [[0u8; 64]];
        self.state.fill::<R, _>(self.backend, &mut one).map_err(|_| StreamCipherError)?;
        self.tail = one[0];
        self.tail_used = byte;
        Ok(())
    }
}

impl<R: Rounds, V: NonceSize> KeySizeUser for ChaCha<R, V> {
    type KeySize = U32;
}

impl<R: Rounds, V: NonceSize> IvSizeUser for ChaCha<R, V> {
    type IvSize = V::IvSize;
}

impl<R: Rounds, V: NonceSize> KeyIvInit for ChaCha<R, V> {
    fn new(key: &cipher::Key<Self>, iv: &cipher::Iv<Self>) -> Self {
        let mut nonce = V::Nonce::default();
        nonce.as_mut().copy_from_slice(iv);
        Self::with_backend(key.as_ref(), &nonce, Backend::detect())
    }
}

impl<R: Rounds, V: Variant> StreamCipher for ChaCha<R, V> {
    #[inline]
    fn check_remaining(&self, data_len: usize) -> Result<(), StreamCipherError> {
        let buffered = self.buffered();
        if data_len <= buffered {
            return Ok(());
        }
        let blocks = (data_len - buffered).div_ceil(64) as u128;
        if blocks <= self.state.blocks_left() { Ok(()) } else { Err(StreamCipherError) }
    }

    /// Like `apply_keystream_inout`, but panics instead of returning an error at the end of
    /// the stream: this crate never produces keystream past the end, checked or not.
    #[inline]
    fn unchecked_apply_keystream_inout(&mut self, buf: InOutBuf<'_, '_, u8>) {
        // `try_apply_keystream_inout` has checked already; here the backend's own check
        // (which panics in `apply`) is what stops keystream reuse.
        self.apply(buf);
    }

    /// Like `write_keystream`, but panics instead of returning an error at the end of the
    /// stream.
    fn unchecked_write_keystream(&mut self, buf: &mut [u8]) {
        buf.fill(0);
        self.unchecked_apply_keystream(buf);
    }
}

impl<R: Rounds, V: Variant> StreamCipherSeek for ChaCha<R, V> {
    fn try_current_pos<T: SeekNum>(&self) -> Result<T, OverflowError> {
        let pos = self.position();
        // `SeekNum` builds a position as `block * 64 - (64 - byte)` with `byte` in 1..=64.
        let (block, byte) = match (pos / 64, (pos % 64) as u8) {
            (block, 0) => (block, 64),
            (block, byte) => (block + 1, byte),
        };
        T::from_block_byte(block, byte, 64)
    }

    fn try_seek<T: SeekNum>(&mut self, pos: T) -> Result<(), StreamCipherError> {
        let (block, byte): (u128, u8) = pos.into_block_byte(64).map_err(|_| StreamCipherError)?;
        self.seek_to(block, byte)
    }
}

impl<R: Rounds, V: Variant> fmt::Debug for ChaCha<R, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match V::COUNTER_WORDS {
            1 => "ChaCha",
            _ => "ChaChaLegacy",
        };
        f.debug_struct(name)
            .field("rounds", &R::ROUNDS)
            .field("backend", &self.backend.name())
            .field("position", &self.position())
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "zeroize")]
impl<R: Rounds, V: Variant> Drop for ChaCha<R, V> {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.state.zeroize();
        self.tail.zeroize();
        self.tail_used.zeroize();
    }
}

#[cfg(feature = "zeroize")]
impl<R: Rounds, V: Variant> zeroize::ZeroizeOnDrop for ChaCha<R, V> {}
