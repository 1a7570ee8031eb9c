//! [`ChaCha`]: one stream cipher type for every round count, counter layout and kernel.
//!
//! It holds the [`State`] (key, nonce, block position, end of stream), the kernel chosen
//! when it was made (the run-time [`Backend`] by default), and up to
//! [`MAX_BATCH_BLOCKS`] blocks of keystream not yet used.
//!
//! Whole blocks go straight to the kernel's fused XOR; the bytes of a partial last block
//! come from the same kernel call and the rest of that block waits in the buffer for the
//! next call. One thing more for many short calls on one instance (a protocol sending
//! records of 16 or 64 bytes): from the second call on, a request shorter than
//! `Kernel::batch_blocks` blocks (at most [`MAX_BATCH_BLOCKS`]) that finds the buffer empty
//! makes the kernel produce that many blocks at once and serves this call and the next ones
//! from them. A kernel that computes 4 blocks in about the time of one (one dependent
//! chain, the blocks side by side) says 4, so a stream of 16-byte calls pays one chain per
//! 256 bytes instead of one per call; a one-block-at-a-time kernel says 1 and never batches
//! (the same blocks plus a copy). The first call of an instance never batches: a fresh
//! instance encrypting one short message computes only the blocks it uses.

use core::fmt;

use chacha_backends::Backend;
use chacha_core::{Block, Ietf, Kernel, Legacy, Rounds, State, Variant, XorBuf};
#[cfg(feature = "rayon")]
mod parallel;

#[cfg(feature = "rayon")]
pub use parallel::{PAR_MIN_LEN, PAR_WARM_MIN_LEN, par_min_len};

use cipher::{
    IvSizeUser, KeyIvInit, KeySizeUser, OverflowError, SeekNum, StreamCipher, StreamCipherError,
    StreamCipherSeek,
    array::ArraySize,
    consts::{U8, U12, U32},
    inout::{InOutBuf, NotEqualError},
};

/// Blocks of keystream a short call on a warm instance produces ahead, at most: the
/// kernel's [`Kernel::batch_blocks`], up to the contract's
/// [`MAX_BATCH_BLOCKS`](chacha_core::MAX_BATCH_BLOCKS).
pub const MAX_BATCH_BLOCKS: usize = chacha_core::MAX_BATCH_BLOCKS;

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

/// A ChaCha stream cipher with `R` rounds, the `V` counter layout, on the kernel `K`.
///
/// Use the aliases: [`ChaCha20`](crate::ChaCha20) and friends (RFC 8439: 12-byte nonce,
/// 2^32 blocks), `ChaCha20Legacy` and friends (8-byte nonce,
/// 2^64 blocks). They run on [`Backend`], the kernel chosen at run time; any
/// [`Kernel`] can take its place — one backend module's own type (static dispatch, no
/// `match` per call), or a kernel of your own (see [`ChaCha::with_kernel`]). The end of
/// the stream is enforced by `chacha-core` for every kernel.
///
/// ```
/// use chacha20::backends::{Backend, WithKernel};
/// use chacha20::cipher::{KeyIvInit, StreamCipher};
/// use chacha20::{ChaCha, ChaCha20, Ietf, Kernel, R20};
///
/// /// Encrypts on the kernel type inside a `Backend`: static dispatch, no `match` per call.
/// struct Encrypt<'a>(&'a mut [u8]);
///
/// impl WithKernel for Encrypt<'_> {
///     type Output = ();
///     fn call<K: Kernel>(self, kernel: K) {
///         ChaCha::<R20, Ietf, K>::with_kernel(&[7; 32], &[9; 12], kernel).apply_keystream(self.0);
///     }
/// }
///
/// let mut a = [0u8; 100];
/// Backend::detect().with_kernel(Encrypt(&mut a));
/// let mut b = [0u8; 100];
/// ChaCha20::new(&[7; 32].into(), &[9; 12].into()).apply_keystream(&mut b);
/// assert_eq!(a, b);
/// ```
///
/// `Debug` shows the kernel and position, never the key or keystream. With the `zeroize`
/// feature, dropping it wipes the key state and buffered keystream.
#[derive(Clone)]
pub struct ChaCha<R: Rounds, V: Variant, K: Kernel = Backend> {
    state: State<V>,
    kernel: K,
    /// Keystream of the blocks just before `state`'s position; bytes `used..end` of
    /// [`Ahead::bytes`] are not used yet (none when `used == end`).
    ahead: Ahead,
    used: u16,
    end: u16,
    /// A call has been made: from now on short calls batch.
    warm: bool,
    _rounds: R,
}

/// The keystream buffer, made only as large as it has been needed.
///
/// A fresh cipher has none, so making one writes no buffer: on a core whose other hardware
/// thread is busy, the stores of one message decide how early the next can start
/// (`chacha-backends/DECISIONS.md`, § The fronts: the cipher). A partial block or a seek
/// into a block makes `One` (64 bytes), the first short-call batch `Batch`.
#[derive(Clone)]
enum Ahead {
    Empty,
    One(Block),
    Batch([Block; MAX_BATCH_BLOCKS]),
}

impl Ahead {
    /// The buffered keystream blocks' bytes.
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        match self {
            Ahead::Empty => &[],
            Ahead::One(block) => block,
            Ahead::Batch(blocks) => blocks.as_flattened(),
        }
    }

    /// The first block, for the kernel to write (the previous contents are not kept).
    #[inline(always)]
    fn first(&mut self) -> &mut Block {
        if let Ahead::Empty = self {
            *self = Ahead::One([0; 64]);
        }
        match self {
            Ahead::One(block) | Ahead::Batch([block, ..]) => block,
            Ahead::Empty => unreachable!("made `One` above"),
        }
    }

    /// All [`MAX_BATCH_BLOCKS`] blocks, for the kernel to write (the previous contents are
    /// not kept).
    #[inline(always)]
    fn batch(&mut self) -> &mut [Block; MAX_BATCH_BLOCKS] {
        if !matches!(self, Ahead::Batch(_)) {
            // The block of `One` is not used any more; the new value may not lie over all
            // of it, so it is wiped first.
            self.wipe();
            *self = Ahead::Batch([[0; 64]; MAX_BATCH_BLOCKS]);
        }
        match self {
            Ahead::Batch(blocks) => blocks,
            Ahead::Empty | Ahead::One(_) => unreachable!("made `Batch` above"),
        }
    }

    /// Wipes the buffered keystream (with the `zeroize` feature; without it, nothing is
    /// secret beyond the key, which the cipher does not wipe either).
    #[inline(always)]
    fn wipe(&mut self) {
        #[cfg(feature = "zeroize")]
        {
            use zeroize::Zeroize;
            // As byte slices: `zeroize` wipes a slice with one fill behind an optimization
            // barrier, but an array (even a plain `[u8; 64]`) element by element with
            // volatile writes, which cost about as much as a fresh short message
            // (`chacha-backends/DECISIONS.md`, § The fronts: the cipher).
            match self {
                Ahead::Empty => {}
                Ahead::One(block) => block.as_mut_slice().zeroize(),
                Ahead::Batch(blocks) => blocks.as_flattened_mut().zeroize(),
            }
        }
    }
}

impl<R: Rounds, V: Variant> ChaCha<R, V, Backend> {
    /// A cipher for `key` and `nonce` at position 0, running on `backend` (one of
    /// [`Backend::available`]); [`KeyIvInit::new`] uses [`Backend::detect`].
    pub fn with_backend(key: &[u8; 32], nonce: &V::Nonce, backend: Backend) -> Self {
        Self::with_kernel(key, nonce, backend)
    }

    /// The backend this cipher runs on.
    pub fn backend(&self) -> Backend {
        self.kernel
    }
}

impl<R: Rounds, V: Variant, K: Kernel> ChaCha<R, V, K> {
    /// A cipher for `key` and `nonce` at position 0, running on `kernel`.
    ///
    /// For a SIMD module's kernel type (in [`backends`](crate::backends)), the value comes
    /// from that module's `detect()`, the only way to make one.
    pub fn with_kernel(key: &[u8; 32], nonce: &V::Nonce, kernel: K) -> Self {
        Self::from_state(State::new(key, nonce), kernel)
    }

    /// [`from_state`](Self::from_state), never inlined: for a caller that wraps the
    /// cipher (`XChaCha`). Inlined there, it built the cipher in a temporary that a
    /// 304-byte `memcpy` then moved into the wrapper; a call returns it into the
    /// wrapper's place directly.
    #[cfg(feature = "xchacha")]
    #[inline(never)]
    pub(crate) fn from_state_in_place(state: State<V>, kernel: K) -> Self {
        Self::from_state(state, kernel)
    }

    pub(crate) fn from_state(state: State<V>, kernel: K) -> Self {
        Self { state, kernel, ahead: Ahead::Empty, used: 0, end: 0, warm: false, _rounds: R::default() }
    }

    /// The kernel this cipher runs on.
    pub fn kernel(&self) -> K {
        self.kernel
    }

    /// Bytes of keystream produced and not used yet.
    #[inline(always)]
    fn buffered(&self) -> usize {
        usize::from(self.end - self.used)
    }

    /// Keystream bytes left: `u128` because the 64-bit-counter layouts have 2^70 of them.
    pub fn remaining(&self) -> u128 {
        self.state.blocks_left() * 64 + self.buffered() as u128
    }

    /// Position in bytes from the start of the keystream.
    fn position(&self) -> u128 {
        self.state.position() * 64 - self.buffered() as u128
    }

    /// XORs buffered keystream into the front of `buf`; returns the rest of `buf`.
    #[inline(always)]
    fn use_ahead<'i, 'o>(&mut self, buf: XorBuf<'i, 'o>) -> XorBuf<'i, 'o> {
        let n = buf.len().min(self.buffered());
        let (mut head, rest) = buf.split_at(n);
        let used = usize::from(self.used);
        head.xor_in2out(&self.ahead.bytes()[used..used + n]);
        self.used += n as u16;
        rest
    }

    /// XORs keystream into `buf`; the caller has checked that enough is left. Always inline:
    /// with `#[inline]` LLVM kept it out of line once its in-place XOR vectorised, a call on
    /// every short message (`chacha-backends/DECISIONS.md`, § The fronts: the cipher).
    #[inline(always)]
    fn apply(&mut self, mut buf: XorBuf<'_, '_>) {
        if self.used != self.end {
            buf = self.use_ahead(buf);
        }
        if buf.is_empty() {
            return;
        }
        // The buffer is empty here. The `expect`s cannot fire after `check_remaining`; if
        // one ever did, this stops rather than reuse keystream.
        if self.batches(buf.len()) {
            let batch = self.kernel.batch_blocks().min(MAX_BATCH_BLOCKS);
            let blocks = self.state.blocks_left().min(batch as u128) as usize;
            assert!(blocks * 64 >= buf.len(), "end of keystream reached");
            self.state
                .fill_batch::<R, K>(self.kernel, &mut self.ahead.batch()[..blocks])
                .expect("end of keystream reached");
            (self.used, self.end) = (0, (blocks * 64) as u16);
            self.use_ahead(buf);
            return;
        }
        self.xor_fused(buf);
    }

    /// Whether `apply` serves a request of `len` bytes that finds the buffer empty from a
    /// short-call batch (rather than the kernel's fused XOR).
    #[inline(always)]
    fn batches(&self, len: usize) -> bool {
        let batch = self.kernel.batch_blocks().min(MAX_BATCH_BLOCKS);
        self.warm && batch > 1 && len < batch * 64
    }

    /// The kernel's fused XOR of `buf`, found with the buffer empty; a partial last
    /// block's keystream stays buffered. The caller has checked that enough is left.
    #[inline(always)]
    fn xor_fused(&mut self, buf: XorBuf<'_, '_>) {
        let partial = buf.len() % 64;
        // `first()` takes a partial last block's keystream; for whole blocks only, the
        // kernel leaves it as it is (but the contract wants one).
        self.state.xor::<R, K>(self.kernel, buf, self.ahead.first()).expect("end of keystream reached");
        (self.used, self.end) = if partial == 0 { (0, 0) } else { (partial as u16, 64) };
        self.warm = true;
    }

    /// Moves to byte `byte` of block `block`, or errs past the end of the stream.
    fn seek_to(&mut self, block: u128, byte: u8) -> Result<(), StreamCipherError> {
        // Inside block `block`, its keystream is buffered from byte `byte` on.
        let ahead = &mut self.ahead;
        self.state
            .seek_into::<R, K>(self.kernel, block, usize::from(byte), || ahead.first())
            .map_err(|_| StreamCipherError)?;
        (self.used, self.end) = if byte == 0 { (0, 0) } else { (u16::from(byte), 64) };
        Ok(())
    }
}

impl<R: Rounds, V: NonceSize, K: Kernel> KeySizeUser for ChaCha<R, V, K> {
    type KeySize = U32;
}

impl<R: Rounds, V: NonceSize, K: Kernel> IvSizeUser for ChaCha<R, V, K> {
    type IvSize = V::IvSize;
}

/// For [`Backend`] ([`Backend::detect`]) and every kernel whose value needs no CPU check
/// (the portable `Soft`, kernels of your own).
impl<R: Rounds, V: NonceSize, K: Kernel + Default> KeyIvInit for ChaCha<R, V, K> {
    /// Inlined, as [`with_backend`](ChaCha::with_backend) is: out of line, the cipher came
    /// back through memory and its first call read the state stalled on those stores.
    #[inline]
    fn new(key: &cipher::Key<Self>, iv: &cipher::Iv<Self>) -> Self {
        let mut nonce = V::Nonce::default();
        nonce.as_mut().copy_from_slice(iv);
        Self::with_kernel(key.as_ref(), &nonce, K::default())
    }
}

/// `cipher`'s buffer as the kernels' [`XorBuf`]: free in place (`apply_keystream` and
/// every in-place call); buffer to buffer, the input is copied to the output first and
/// XORed there, since safe code cannot take an `InOutBuf`'s two sides apart (the contract
/// has a type of its own so that `chacha-backends` does not wait for `inout` to build:
/// chacha-core's `XorBuf` docs). The `*_b2b` methods below do not come here: they take
/// the two slices straight to an `XorBuf`.
#[inline(always)]
pub(crate) fn xor_buf<'o>(buf: InOutBuf<'_, 'o, u8>) -> XorBuf<'o, 'o> {
    XorBuf::from(buf.into_out_with_copied_in())
}

impl<R: Rounds, V: Variant, K: Kernel> StreamCipher for ChaCha<R, V, K> {
    #[inline]
    fn check_remaining(&self, data_len: usize) -> Result<(), StreamCipherError> {
        let buffered = self.buffered();
        if data_len <= buffered {
            return Ok(());
        }
        let blocks = (data_len - buffered).div_ceil(64) as u128;
        if blocks <= self.state.blocks_left() { Ok(()) } else { Err(StreamCipherError) }
    }

    /// Like `apply_keystream_inout`: this crate never produces keystream past the end,
    /// checked or not. A request that does not fit panics before anything is written (the
    /// `try_` methods return the error instead).
    #[inline]
    fn unchecked_apply_keystream_inout(&mut self, buf: InOutBuf<'_, '_, u8>) {
        assert!(self.check_remaining(buf.len()).is_ok(), "end of keystream reached");
        self.apply(xor_buf(buf));
    }

    /// Like `apply_keystream_b2b`, without a copy (see `xor_buf`).
    #[inline]
    fn unchecked_apply_keystream_b2b(
        &mut self,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), NotEqualError> {
        let buf = XorBuf::new(input, output).map_err(|_| NotEqualError)?;
        assert!(self.check_remaining(buf.len()).is_ok(), "end of keystream reached");
        self.apply(buf);
        Ok(())
    }

    /// In place, straight to the kernel's buffer type (the provided method goes through
    /// an `InOutBuf`, see `xor_buf`).
    #[inline]
    fn unchecked_apply_keystream(&mut self, buf: &mut [u8]) {
        assert!(self.check_remaining(buf.len()).is_ok(), "end of keystream reached");
        self.apply(XorBuf::from(buf));
    }

    /// Like `write_keystream`: panics before writing if the request does not fit.
    fn unchecked_write_keystream(&mut self, buf: &mut [u8]) {
        assert!(self.check_remaining(buf.len()).is_ok(), "end of keystream reached");
        buf.fill(0);
        self.apply(buf.into());
    }

    /// One check, then the XOR (the provided method would check again in
    /// `unchecked_apply_keystream_inout`).
    #[inline]
    fn try_apply_keystream_inout(&mut self, buf: InOutBuf<'_, '_, u8>) -> Result<(), StreamCipherError> {
        self.check_remaining(buf.len())?;
        self.apply(xor_buf(buf));
        Ok(())
    }

    /// In place, straight to the kernel's buffer type: `apply_keystream`, the call most
    /// users make, comes here. (Through an `InOutBuf` the code around the kernel call is
    /// larger, with the copy of `xor_buf`, and LLVM kept it out of line:
    /// `chacha-backends/DECISIONS.md`, § The fronts: the cipher.)
    #[inline]
    fn try_apply_keystream(&mut self, buf: &mut [u8]) -> Result<(), StreamCipherError> {
        self.check_remaining(buf.len())?;
        self.apply(XorBuf::from(buf));
        Ok(())
    }

    /// Buffer to buffer without a copy (the provided method goes through an `InOutBuf`,
    /// see `xor_buf`); the same errors.
    #[inline]
    fn try_apply_keystream_b2b(&mut self, input: &[u8], output: &mut [u8]) -> Result<(), StreamCipherError> {
        let buf = XorBuf::new(input, output).map_err(|_| StreamCipherError)?;
        self.check_remaining(buf.len())?;
        self.apply(buf);
        Ok(())
    }

    /// Buffer to buffer without a copy; the same panics as the provided method.
    #[inline]
    fn apply_keystream_b2b(&mut self, input: &[u8], output: &mut [u8]) {
        let Ok(buf) = XorBuf::new(input, output) else {
            panic!("Lengths of input and output buffers are not equal to each other!");
        };
        self.check_remaining(buf.len()).expect("end of keystream reached");
        self.apply(buf);
    }

    fn try_write_keystream(&mut self, buf: &mut [u8]) -> Result<(), StreamCipherError> {
        self.check_remaining(buf.len())?;
        buf.fill(0);
        self.apply(buf.into());
        Ok(())
    }
}

impl<R: Rounds, V: Variant, K: Kernel> StreamCipherSeek for ChaCha<R, V, K> {
    fn try_current_pos<T: SeekNum>(&self) -> Result<T, OverflowError> {
        // `SeekNum` builds a position as `block * bs - (bs - byte)` with `byte` in 1..=bs.
        // With 64-byte blocks, a position in the last 63 bytes below `T::MAX + 1` (say
        // `u64::MAX`) would need `block * 64 > T::MAX` on the way and err although it fits
        // (the fuzzer found `try_current_pos::<u64>` refusing byte 2^64 - 1). One-byte
        // "blocks" give the position itself: `pos * 1 - 0`.
        T::from_block_byte(self.position(), 1, 1)
    }

    fn try_seek<T: SeekNum>(&mut self, pos: T) -> Result<(), StreamCipherError> {
        let (block, byte): (u128, u8) = pos.into_block_byte(64).map_err(|_| StreamCipherError)?;
        self.seek_to(block, byte)
    }
}

impl<R: Rounds, V: Variant, K: Kernel> fmt::Debug for ChaCha<R, V, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match V::COUNTER_WORDS {
            1 => "ChaCha",
            _ => "ChaChaLegacy",
        };
        f.debug_struct(name)
            .field("rounds", &R::ROUNDS)
            .field("kernel", &self.kernel)
            .field("position", &self.position())
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "zeroize")]
impl<R: Rounds, V: Variant, K: Kernel> ChaCha<R, V, K> {
    /// What `drop` does: wipes the state (key, nonce, counter; the wiped state is at the end
    /// of its stream) and every byte of the keystream buffer (the partial block and the
    /// short-call batch), and forgets how much of it was used. Not a public `Zeroize`: a
    /// wiped cipher can only err, so the one time to wipe it is when it goes.
    fn wipe(&mut self) {
        use zeroize::Zeroize;
        self.state.zeroize();
        self.ahead.wipe();
        self.used.zeroize();
        self.end.zeroize();
    }
}

#[cfg(feature = "zeroize")]
impl<R: Rounds, V: Variant, K: Kernel> Drop for ChaCha<R, V, K> {
    fn drop(&mut self) {
        self.wipe();
    }
}

#[cfg(feature = "zeroize")]
impl<R: Rounds, V: Variant, K: Kernel> zeroize::ZeroizeOnDrop for ChaCha<R, V, K> {}

#[cfg(all(test, feature = "zeroize"))]
pub(crate) mod tests {
    use cipher::StreamCipher;

    use super::*;
    use crate::{ChaCha12, ChaCha20Legacy};

    /// Every field that holds key or keystream is zero after `wipe` (what `drop` runs), and
    /// the cipher refuses to go on.
    pub(crate) fn check_wiped<R: Rounds, V: Variant, K: Kernel>(c: &mut ChaCha<R, V, K>) {
        c.wipe();
        assert_eq!(c.state.words(), &[0; 16], "state words");
        assert!(c.ahead.bytes().iter().all(|&b| b == 0), "keystream buffer");
        assert_eq!((c.used, c.end, c.remaining()), (0, 0, 0));
        assert!(c.try_apply_keystream(&mut [0u8; 1]).is_err());
    }

    #[test]
    fn wipe_clears_key_state_and_every_buffered_byte_on_every_backend() {
        for backend in Backend::available() {
            // A partial block buffered.
            let mut c = ChaCha12::with_backend(&[0xAB; 32], &[0xCD; 12], backend);
            c.apply_keystream(&mut [0u8; 100]);
            assert!(
                matches!(c.ahead, Ahead::One(b) if b != [0; 64]),
                "{backend:?}: the test needs keystream in the buffer"
            );
            check_wiped(&mut c);

            // The short-call batch (every `ahead` block in use on the SIMD kernels).
            let mut c = ChaCha20Legacy::with_backend(&[0xAB; 32], &[0xCD; 8], backend);
            c.apply_keystream(&mut [0u8; 64]);
            c.apply_keystream(&mut [0u8; 16]);
            let batched = usize::from(c.end) / 64;
            assert_eq!(batched, backend.batch_blocks().min(MAX_BATCH_BLOCKS), "{backend:?}");
            assert!(c.ahead.bytes()[..64 * batched].chunks(64).all(|b| b != [0; 64]), "{backend:?}");
            check_wiped(&mut c);

            // Seeked into the middle of a block (that block buffered).
            let mut c = ChaCha12::with_backend(&[0xAB; 32], &[0xCD; 12], backend);
            c.seek_to(7, 9).unwrap();
            check_wiped(&mut c);
        }
    }
}

/// The short-call batching rule of `apply`, observed through the buffer's fill level
/// (`used`, `end`) and the kernel calls it makes: the keystream is the same either way,
/// so only these can tell a rule that batches too often, too rarely or too far.
#[cfg(test)]
mod batching {
    extern crate std;

    use std::{cell::Cell, thread_local, vec, vec::Vec};

    use chacha_core::{BLOCK_LEN, R20, reference};
    use cipher::StreamCipher;

    use super::*;

    thread_local! {
        /// (`xor` calls, `fill` calls) made by [`Counted`] on this thread.
        static CALLS: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    }

    /// The reference as a kernel that claims a batch of `FREE` blocks and counts its calls.
    #[derive(Clone, Copy, Debug)]
    struct Counted<const FREE: usize>;

    impl<const FREE: usize> Kernel for Counted<FREE> {
        fn xor<R: Rounds, V: Variant>(self, state: &State<V>, mut buf: XorBuf<'_, '_>, tail: &mut Block) {
            CALLS.with(|c| c.set((c.get().0 + 1, c.get().1)));
            let mut blocks = vec![[0u8; BLOCK_LEN]; buf.len().div_ceil(BLOCK_LEN)];
            reference::keystream::<R, V>(state, &mut blocks);
            buf.xor_in2out(&blocks.concat()[..buf.len()]);
            if !buf.len().is_multiple_of(BLOCK_LEN) {
                *tail = *blocks.last().unwrap();
            }
        }

        fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
            CALLS.with(|c| c.set((c.get().0, c.get().1 + 1)));
            reference::keystream::<R, V>(state, out);
        }

        fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
            reference::hchacha::<R>(key, input)
        }

        fn batch_blocks(self) -> usize {
            FREE
        }
    }

    const KEY: [u8; 32] = [0x5A; 32];
    const NONCE: [u8; 12] = [0xA5; 12];

    /// Runs calls of `lens` bytes on one instance over `kernel`; returns (`used`, `end`)
    /// after each call and checks that the bytes are the reference's keystream.
    fn levels<K: Kernel>(kernel: K, lens: &[usize]) -> Vec<(u16, u16)> {
        let mut c = ChaCha::<R20, Ietf, K>::with_kernel(&KEY, &NONCE, kernel);
        let mut out = Vec::new();
        let mut levels = Vec::new();
        for &len in lens {
            let mut buf = vec![0u8; len];
            c.apply_keystream(&mut buf);
            out.extend_from_slice(&buf);
            levels.push((c.used, c.end));
        }
        let mut blocks = vec![[0u8; BLOCK_LEN]; out.len().div_ceil(BLOCK_LEN)];
        reference::keystream::<R20, Ietf>(&State::new(&KEY, &NONCE), &mut blocks);
        assert_eq!(out, blocks.concat()[..out.len()], "{kernel:?} {lens:?}: keystream");
        levels
    }

    /// (`xor`, `fill`) calls [`Counted`] made during `f`.
    fn calls(f: impl FnOnce()) -> (usize, usize) {
        CALLS.with(|c| c.set((0, 0)));
        f();
        CALLS.with(Cell::get)
    }

    #[test]
    fn a_fresh_instance_never_batches() {
        assert_eq!(levels(Counted::<4>, &[16]), [(16, 64)]);
        assert_eq!(levels(Counted::<4>, &[100]), [(36, 64)]);
        assert_eq!(calls(|| _ = levels(Counted::<4>, &[16])), (1, 0));
    }

    #[test]
    fn a_warm_instance_batches_exactly_the_calls_shorter_than_the_batch() {
        // The first call (64 B) warms the instance and leaves the buffer empty.
        for (len, level) in [(1, (1, 256)), (16, (16, 256)), (100, (100, 256)), (255, (255, 256))] {
            assert_eq!(levels(Counted::<4>, &[64, len])[1], level, "{len} B");
        }
        // From the batch's length on, the kernel's fused XOR, as on a fresh instance.
        assert_eq!(levels(Counted::<4>, &[64, 256])[1], (0, 0));
        assert_eq!(levels(Counted::<4>, &[64, 300])[1], (44, 64));
        // Later calls are served from the batch until it is used up.
        assert_eq!(
            levels(Counted::<4>, &[64, 16, 200, 40, 16]),
            [(0, 0), (16, 256), (216, 256), (256, 256), (16, 256)]
        );
        assert_eq!(calls(|| _ = levels(Counted::<4>, &[64, 16, 200, 40, 16])), (1, 2));
    }

    #[test]
    fn the_batch_is_the_kernels_batch_blocks_at_most_batch() {
        assert_eq!(levels(Counted::<2>, &[64, 100]), [(0, 0), (100, 128)]);
        assert_eq!(levels(Counted::<2>, &[64, 128]), [(0, 0), (0, 0)]);
        assert_eq!(levels(Counted::<8>, &[64, 16]), [(0, 0), (16, 64 * MAX_BATCH_BLOCKS as u16)]);
        assert_eq!(levels(Counted::<8>, &[64, 300]), [(0, 0), (44, 64)]);
    }

    #[test]
    fn a_one_block_kernel_never_batches() {
        assert_eq!(levels(Counted::<1>, &[64, 16, 48, 10]), [(0, 0), (16, 64), (64, 64), (10, 64)]);
        // Not even one block through `fill` and the buffer: that is the same block plus a copy.
        assert_eq!(calls(|| _ = levels(Counted::<1>, &[64, 16, 48, 10])), (3, 0));
    }

    #[test]
    fn every_backend_batches_its_batch_blocks() {
        for backend in Backend::available() {
            let batch = backend.batch_blocks().min(MAX_BATCH_BLOCKS);
            let end = if batch > 1 { 64 * batch as u16 } else { 64 };
            assert_eq!(levels(backend, &[64, 16]), [(0, 0), (16, end)], "{backend:?}");
        }
    }
}
