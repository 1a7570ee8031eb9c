//! # poly1305
//!
//! The Poly1305 one-time authenticator (RFC 8439 §2.5) with the RustCrypto
//! [`universal_hash`] 0.6 API and the published `poly1305` 0.9 crate's names, features and
//! version series: a program written for it builds unchanged, and one `[patch.crates-io]`
//! line moves a whole dependency graph onto this crate (`ssh-cipher`'s ChaCha20-Poly1305,
//! `xsalsa20poly1305`, `crypto_box`, …).
//!
//! Underneath are the `chacha` workspace's Poly1305 kernels, the ones its
//! `chacha20poly1305` runs on: AVX-512 IFMA, AVX2, NEON and a portable 64-bit-limb step,
//! picked at run time once per process ([`Backend::detect`]; pinned with
//! `--cfg chacha_backend="…"`).
//!
//! ```
//! use poly1305::{
//!     universal_hash::{KeyInit, UniversalHash},
//!     Key, Poly1305,
//! };
//!
//! // RFC 8439 §2.5.2. A Poly1305 key authenticates ONE message: derive a new one per
//! // message (ChaCha20's block 0, as RFC 8439 §2.6 does), never reuse it.
//! let key = Key::from([
//!     0x85, 0xd6, 0xbe, 0x78, 0x57, 0x55, 0x6d, 0x33, 0x7f, 0x44, 0x52, 0xfe, 0x42, 0xd5, 0x06, 0xa8,
//!     0x01, 0x03, 0x80, 0x8a, 0xfb, 0x0d, 0xb2, 0xfd, 0x4a, 0xbf, 0xf6, 0xaf, 0x41, 0x49, 0xf5, 0x1b,
//! ]);
//! let tag = Poly1305::new(&key).compute_unpadded(b"Cryptographic Forum Research Group");
//! assert_eq!(tag[..4], [0xa8, 0x06, 0x1d, 0xc1]);
//!
//! // Incrementally, each call's input padded with zeros to 16 bytes (the AEAD's `pad16`),
//! // and the tag checked in constant time.
//! let mut mac = Poly1305::new(&key);
//! mac.update_padded(b"header");
//! mac.update_padded(b"ciphertext");
//! let tag = mac.clone().finalize();
//! assert!(mac.verify(&tag).is_ok());
//! ```
//!
//! ## Two ways to end a message
//! The published crate's, exactly:
//! - [`Poly1305::compute_unpadded`] is RFC 8439's Poly1305 of any byte string: a partial
//!   last block gets the `0x01` byte and no 2^128 bit. This is the MAC of NaCl's
//!   `crypto_onetimeauth`, OpenSSL's `EVP_MAC` "POLY1305" and `XSalsa20Poly1305`.
//! - [`UniversalHash::update`] (whole blocks) and [`UniversalHash::update_padded`] (a
//!   partial last block padded with zeros, and given the 2^128 bit like any other) feed
//!   blocks; [`UniversalHash::finalize`] or [`UniversalHash::verify`] end the message. This
//!   is how ChaCha20-Poly1305 (RFC 8439 §2.8) authenticates its AAD, ciphertext and
//!   lengths. Each call stands alone: `update_padded(b"ab")` then `update_padded(b"cd")`
//!   is two padded blocks, not `update_padded(b"abcd")`.
//!
//! [`compute_unpadded`](Poly1305::compute_unpadded) after `update` calls continues the same
//! message.
//!
//! ## Choosing the backend
//! [`KeyInit::new`] runs on [`Backend::detect`]'s choice (cached: no CPU probe after the
//! first call in a process). [`Poly1305::with_backend`] takes one of
//! [`Backend::available`]; the tag is the same on every backend. The SIMD kernels take
//! 32 blocks (512 bytes) and more per call; shorter input runs the portable step.
//!
//! ## Security
//! Poly1305 is a one-time authenticator: two messages under one key give away the key.
//! The kernels run in constant time (no branch or memory access depends on the key or
//! the message; `scripts/ct-test.sh` in the workspace checks the AEAD built on them under
//! valgrind); [`UniversalHash::verify`] compares tags in constant time. `Debug` prints
//! no key material; with the `zeroize` feature the key, the accumulator and any buffered
//! bytes are wiped on drop.
//!
//! ## What differs from the published crate
//! | | published 0.9.1 | here |
//! |---|---|---|
//! | backends | AVX2 (x86), portable elsewhere | AVX-512 IFMA, AVX2, NEON, portable |
//! | `update_with_backend`'s parallel blocks | 4 | 32 (where the SIMD kernels start) |
//! | [`Poly1305::with_backend`], [`Poly1305::backend`], [`Backend`] | — | added |
//! | `fuzz_avx2` | only in its own test and fuzzing builds | — |
#![no_std]
// docs.rs (`--cfg docsrs`, nightly): each item gated by a feature says which.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

/// The crate README's example, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use chacha_backends::Backend;
pub use universal_hash;

use chacha_core::poly1305::{MAC_BLOCK_LEN, Poly1305 as Mac, Portable};
use core::fmt;
use universal_hash::{
    KeyInit, ParBlocks, UhfBackend, UhfClosure, UniversalHash,
    array::Array,
    common::{BlockSizeUser, KeySizeUser, ParBlocksSizeUser},
    consts::{U16, U32},
};

/// Size of a Poly1305 key in bytes: `r` (16 bytes, clamped) then `s` (16 bytes).
pub const KEY_SIZE: usize = 32;

/// Size of the blocks Poly1305 acts upon, in bytes.
pub const BLOCK_SIZE: usize = 16;

/// Poly1305 keys (32 bytes).
pub type Key = universal_hash::Key<Poly1305>;

/// Poly1305 blocks (16 bytes).
pub type Block = universal_hash::Block<Poly1305>;

/// Poly1305 tags (16 bytes).
pub type Tag = universal_hash::Block<Poly1305>;

/// The Poly1305 universal hash function, keyed with a one-time key: see the
/// [crate docs](crate) for an example.
///
/// Poly1305 is a one-time authenticator, not a general MAC: a key must authenticate one
/// message only.
#[derive(Clone)]
pub struct Poly1305 {
    mac: Mac,
    backend: Backend,
}

impl Poly1305 {
    /// Poly1305 for `key` on `backend` (one of [`Backend::available`]); [`KeyInit::new`]
    /// uses [`Backend::detect`].
    pub fn with_backend(key: &Key, backend: Backend) -> Self {
        Poly1305 { mac: Mac::new(&key.0), backend }
    }

    /// The backend whose kernel absorbs the blocks.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The tag of everything absorbed so far followed by `data`, a partial last block of
    /// `data` ending with RFC 8439's `0x01` byte and no 2^128 bit: RFC 8439 §2.5's
    /// Poly1305 of a byte string (NaCl's `crypto_onetimeauth`), as the published crate's.
    #[must_use]
    pub fn compute_unpadded(self, data: &[u8]) -> Tag {
        let mut mac = self.mac;
        mac.update_with(self.backend, data);
        Tag::from(mac.tag())
    }
}

impl KeySizeUser for Poly1305 {
    type KeySize = U32;
}

impl KeyInit for Poly1305 {
    /// Poly1305 for `key` on the backend [`Backend::detect`] picks.
    #[inline]
    fn new(key: &Key) -> Self {
        Self::with_backend(key, Backend::detect())
    }
}

impl BlockSizeUser for Poly1305 {
    type BlockSize = U16;
}

impl UniversalHash for Poly1305 {
    fn update_with_backend(&mut self, f: impl UhfClosure<BlockSize = Self::BlockSize>) {
        f.call(&mut Blocks { mac: &mut self.mac, backend: self.backend });
    }

    /// Absorbs `blocks`, each with its 2^128 bit: all of them in one call of the kernel.
    #[inline]
    fn update(&mut self, blocks: &[Block]) {
        self.mac.update_with(self.backend, Array::cast_slice_to_core(blocks).as_flattened());
    }

    /// Absorbs `data` as blocks, a partial last one padded with zeros (and given the 2^128
    /// bit, as every block here is): RFC 8439 §2.8's `pad16`.
    #[inline]
    fn update_padded(&mut self, data: &[u8]) {
        let (blocks, rest) = data.as_chunks::<MAC_BLOCK_LEN>();
        self.mac.update_with(self.backend, blocks.as_flattened());
        if !rest.is_empty() {
            let mut last = [0u8; MAC_BLOCK_LEN];
            last[..rest.len()].copy_from_slice(rest);
            self.mac.update_with(Portable, &last);
        }
    }

    /// The tag of the blocks absorbed.
    #[inline]
    fn finalize(self) -> Tag {
        Tag::from(self.mac.tag())
    }
}

/// The [`UhfBackend`] that [`UniversalHash::update_with_backend`] hands its closure: a
/// single block takes the portable step, [`ParBlocks`] of 32 (where every SIMD kernel
/// starts) the backend's kernel.
struct Blocks<'a> {
    mac: &'a mut Mac,
    backend: Backend,
}

impl BlockSizeUser for Blocks<'_> {
    type BlockSize = U16;
}

impl ParBlocksSizeUser for Blocks<'_> {
    type ParBlocksSize = U32;
}

impl UhfBackend for Blocks<'_> {
    #[inline]
    fn proc_block(&mut self, block: &Block) {
        self.mac.update_with(Portable, &block.0);
    }

    #[inline]
    fn proc_par_blocks(&mut self, blocks: &ParBlocks<Self>) {
        self.mac.update_with(self.backend, Array::cast_slice_to_core(blocks).as_flattened());
    }
}

/// Only that it is one, as the published crate's: the key and the accumulator are secret.
impl fmt::Debug for Poly1305 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Poly1305").finish_non_exhaustive()
    }
}
