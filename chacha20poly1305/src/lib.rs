//! # chacha20poly1305
//!
//! ChaCha20-Poly1305 (RFC 8439 §2.8), XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03) and
//! the reduced-round ChaCha8/ChaCha12 variants, with the RustCrypto [`aead`] 0.6 API and
//! the published `chacha20poly1305` 0.11 crate's names, features and version series: a
//! program written for it builds unchanged, and one `[patch.crates-io]` line moves a whole
//! dependency graph onto this crate.
//!
//! What is underneath is the `chacha` workspace's: Poly1305 and ChaCha kernels per
//! instruction set (`chacha-backends`, chosen at run time, pinned with
//! `--cfg chacha_backend="…"`), and a one-pass seal and open that encrypt and authenticate
//! each piece of the message while it is in L1.
//!
//! ```
//! # #[cfg(feature = "alloc")] {
//! use chacha20poly1305::{
//!     aead::{Aead, KeyInit},
//!     ChaCha20Poly1305, Key, Nonce,
//! };
//!
//! let key = Key::from([0x42; 32]); // a secret key, e.g. `Key::generate()` with `getrandom`
//! let cipher = ChaCha20Poly1305::new(&key);
//! let nonce = Nonce::from([7; 12]); // MUST be unique per message under one key
//! let ciphertext = cipher.encrypt(&nonce, b"plaintext message".as_ref()).unwrap();
//! let plaintext = cipher.decrypt(&nonce, ciphertext.as_ref()).unwrap();
//! assert_eq!(&plaintext, b"plaintext message");
//!
//! // Any change to the ciphertext (or the tag, or the nonce) is an error, not plaintext.
//! let mut forged = ciphertext.clone();
//! forged[0] ^= 1;
//! assert!(cipher.decrypt(&nonce, forged.as_ref()).is_err());
//! # }
//! ```
//!
//! In place, without allocation (`AeadInOut`; `arrayvec`, `bytes` or `heapless` buffers,
//! or a slice with the tag kept apart):
//!
//! ```
//! use chacha20poly1305::{aead::{AeadInOut, KeyInit}, XChaCha20Poly1305, XNonce};
//!
//! let cipher = XChaCha20Poly1305::new(&[0x42; 32].into());
//! let nonce = XNonce::from([7; 24]); // 24 random bytes are safe to draw per message
//! let mut buffer = *b"plaintext message";
//! let tag = cipher.encrypt_inout_detached(&nonce, b"header", buffer.as_mut_slice().into()).unwrap();
//! cipher.decrypt_inout_detached(&nonce, b"header", buffer.as_mut_slice().into(), &tag).unwrap();
//! assert_eq!(&buffer, b"plaintext message");
//! ```
//!
//! ## Which to use
//! | what you encrypt | use | what it guarantees about order and the end |
//! |---|---|---|
//! | one message at a time, nonces from a counter | [`ChaCha20Poly1305`] | each message alone: a dropped, replayed or reordered message is your protocol's to notice (e.g. the counter it expects next) |
//! | one message at a time, random nonces (no counter to keep) | [`XChaCha20Poly1305`]: 24 random bytes per message are safe | the same |
//! | a file or a socket: one long message in chunks | `secretstream` (feature `secretstream`; libsodium's format, read by libsodium and its bindings), or STREAM (RustCrypto's `aead-stream` over [`ChaCha20Poly1305`] or [`XChaCha20Poly1305`], as age does) | a chunk changed, dropped, reordered, replayed or from another stream is refused. The end: secretstream's last chunk carries the `Final` tag and its decryptor's `finish` refuses a stream that stops before it; STREAM's last chunk is sealed as the last, so a stream cut after any other chunk fails at `decrypt_last` |
//!
//! secretstream draws its own nonces from a random header and rekeys as it goes, and its
//! tags mark the ends of records inside the stream (`Push`) and can rekey at any chunk;
//! STREAM is smaller (16 bytes per chunk and no header beyond the nonce prefix) and runs
//! on any AEAD. Both are tested against libsodium and the published `chacha20poly1305`
//! (in this workspace), and `examples/encrypt_file.rs` encrypts a file with secretstream.
//!
//! ## Choosing the backend
//! `ChaChaPoly1305::new` runs on [`Backend::detect`]'s choice (cached: no CPU probe per
//! call). [`ChaChaPoly1305::with_backend`] takes one of [`Backend::available`];
//! a kernel type of its own (`ChaChaPoly1305<ChaCha<R20, Ietf, Avx2>>`) skips even the
//! dispatch, made with [`ChaChaPoly1305::with_kernel`].
//!
//! ## Limits and errors
//! A message may be up to (2^32 − 1) · 64 = 274,877,906,880 bytes (RFC 8439 §2.8), for
//! both nonce sizes; longer is [`Error`] with the buffer untouched. A wrong tag is
//! [`Error`]: opening in place leaves the ciphertext in the buffer, opening
//! buffer-to-buffer leaves the output untouched, so unauthenticated plaintext is never
//! returned. Tags are compared in constant time.
//!
//! ## What differs from the published crate
//! | | published 0.11.0 | here |
//! |---|---|---|
//! | the cipher parameter `C` | any `KeyIvInit + StreamCipher + StreamCipherSeek` | the `chacha20` crate's ChaCha types with the RFC 8439 layout ([`AeadStream`]): the construction defines its nonce handling for those only |
//! | longest message | one block short of the RFC's limit (`len / 64 >= 2^32 − 1` is an error) | the RFC's limit exactly |
//! | `with_backend`, `with_kernel`, [`AeadStream`] | — | added |
#![no_std]
// docs.rs (`--cfg docsrs`, nightly): each item gated by a feature says which.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

mod construction;
#[cfg(feature = "secretstream")]
pub mod secretstream;
mod stream;

/// The crate README's example, compiled and run as a doc test.
#[cfg(all(doctest, feature = "alloc"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use aead::{self, AeadCore, AeadInOut, Error, KeyInit, KeySizeUser, consts};
pub use chacha_core::Aead;
pub use chacha20::{Backend, ChaCha, Ietf, Kernel, R8, R12, R20, Rounds, XChaCha};
pub use stream::AeadStream;

use aead::{
    TagPosition,
    array::{Array, ArraySize},
    consts::{U12, U16, U24, U32},
    inout::InOutBuf,
};
use core::{fmt, marker::PhantomData};

/// Key type (256 bits, 32 bytes); every variant, `XChaCha20Poly1305` too, uses it.
pub type Key = Array<u8, U32>;

/// Nonce type (96 bits, 12 bytes).
pub type Nonce = Array<u8, U12>;

/// XNonce type (192 bits, 24 bytes).
pub type XNonce = Array<u8, U24>;

/// Poly1305 tag (16 bytes).
pub type Tag = Array<u8, U16>;

/// ChaCha20-Poly1305 (RFC 8439 §2.8).
pub type ChaCha20Poly1305 = ChaChaPoly1305<chacha20::ChaCha20, U12>;

/// XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03 §2.3): 24-byte nonces, safe to draw at
/// random.
pub type XChaCha20Poly1305 = ChaChaPoly1305<chacha20::XChaCha20, U24>;

/// ChaCha8-Poly1305 (reduced rounds).
#[cfg(feature = "reduced-round")]
pub type ChaCha8Poly1305 = ChaChaPoly1305<chacha20::ChaCha8, U12>;

/// ChaCha12-Poly1305 (reduced rounds).
#[cfg(feature = "reduced-round")]
pub type ChaCha12Poly1305 = ChaChaPoly1305<chacha20::ChaCha12, U12>;

/// XChaCha8-Poly1305 (reduced rounds).
#[cfg(feature = "reduced-round")]
pub type XChaCha8Poly1305 = ChaChaPoly1305<chacha20::XChaCha8, U24>;

/// XChaCha12-Poly1305 (reduced rounds).
#[cfg(feature = "reduced-round")]
pub type XChaCha12Poly1305 = ChaChaPoly1305<chacha20::XChaCha12, U24>;

/// The ChaCha + Poly1305 AEAD over the cipher type `C` (which gives the rounds, the
/// nonce size `N` and the kernel): see the [crate docs](crate) for an example.
pub struct ChaChaPoly1305<C: AeadStream, N: ArraySize = U12> {
    key: [u8; 32],
    kernel: C::Kernel,
    _types: PhantomData<fn() -> (C, N)>,
}

impl<C: AeadStream<Kernel = Backend>, N: ArraySize> ChaChaPoly1305<C, N> {
    /// An AEAD for `key` on `backend` (one of [`Backend::available`]);
    /// [`KeyInit::new`] uses [`Backend::detect`].
    pub fn with_backend(key: &Key, backend: Backend) -> Self {
        Self::with_kernel(key, backend)
    }

    /// The backend this AEAD runs on.
    pub fn backend(&self) -> Backend {
        self.kernel
    }
}

impl<C: AeadStream, N: ArraySize> ChaChaPoly1305<C, N> {
    /// An AEAD for `key` on `kernel` (for a SIMD module's kernel type, the value its
    /// `detect()` returned: the only way to make one).
    pub fn with_kernel(key: &Key, kernel: C::Kernel) -> Self {
        Self { key: key.0, kernel, _types: PhantomData }
    }

    /// The kernel this AEAD runs on.
    pub fn kernel(&self) -> C::Kernel {
        self.kernel
    }
}

impl<C: AeadStream, N: ArraySize> KeySizeUser for ChaChaPoly1305<C, N> {
    type KeySize = U32;
}

impl<C: AeadStream, N: ArraySize> KeyInit for ChaChaPoly1305<C, N>
where
    C::Kernel: Default,
{
    #[inline]
    fn new(key: &Key) -> Self {
        Self::with_kernel(key, C::Kernel::default())
    }
}

impl<C: AeadStream, N: ArraySize> AeadCore for ChaChaPoly1305<C, N> {
    type NonceSize = N;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl<C: AeadStream<NonceSize = N>, N: ArraySize> AeadInOut for ChaChaPoly1305<C, N> {
    #[inline]
    fn encrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> Result<Tag, Error> {
        let state = C::state(self.kernel, &self.key, nonce);
        construction::seal::<C::Rounds, C::Kernel>(self.kernel, state, associated_data, buffer).map(Array)
    }

    #[inline]
    fn decrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag,
    ) -> Result<(), Error> {
        let state = C::state(self.kernel, &self.key, nonce);
        construction::open::<C::Rounds, C::Kernel>(self.kernel, state, associated_data, buffer, &tag.0)
    }
}

impl<C: AeadStream, N: ArraySize> Clone for ChaChaPoly1305<C, N> {
    fn clone(&self) -> Self {
        Self { key: self.key, kernel: self.kernel, _types: PhantomData }
    }
}

/// Wipes the key with `zeroize` (as the published crate; without it, nothing).
impl<C: AeadStream, N: ArraySize> Drop for ChaChaPoly1305<C, N> {
    fn drop(&mut self) {
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(&mut self.key);
    }
}

#[cfg(feature = "zeroize")]
impl<C: AeadStream, N: ArraySize> zeroize::ZeroizeOnDrop for ChaChaPoly1305<C, N> {}

/// The kernel only, never the key.
impl<C: AeadStream, N: ArraySize> fmt::Debug for ChaChaPoly1305<C, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChaChaPoly1305").field("kernel", &self.kernel).finish_non_exhaustive()
    }
}
