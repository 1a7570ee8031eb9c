//! A ChaCha kernel written outside `chacha-backends`: the second way to audit the
//! workspace. It implements [`chacha_core::Kernel`] on nothing but
//! [`chacha_core::reference`] (RFC 8439 §2.3, one block at a time, never optimised), and
//! the `chacha20` front runs on it unchanged:
//!
//! ```
//! use chacha20::cipher::{KeyIvInit, StreamCipher};
//! use chacha20::{ChaCha, Ietf, R20};
//! use chacha_reference_kernel::Reference;
//!
//! let mut cipher = ChaCha::<R20, Ietf, Reference>::new(&[0x42; 32].into(), &[0x24; 12].into());
//! let mut buf = *b"plugged into the chacha20 front";
//! cipher.apply_keystream(&mut buf);
//!
//! let mut check = chacha20::ChaCha20::new(&[0x42; 32].into(), &[0x24; 12].into());
//! check.apply_keystream(&mut buf);
//! assert_eq!(&buf, b"plugged into the chacha20 front");
//! ```
//!
//! What a kernel must do is stated on [`Kernel`]; what it may assume (the request fits in
//! the stream) is checked by `chacha_core::State::xor` / `fill`, which the front calls, so
//! a kernel like this one cannot be made to reuse keystream however it is driven.
//!
//! The AEAD runs on it too: [`chacha_core::Aead`] has a portable default for every step
//! (written with the kernel's `xor` and `fill`), so one empty `impl` is all it takes:
//!
//! ```
//! use chacha20::{ChaCha, Ietf, R20};
//! use chacha20poly1305::aead::{AeadInOut, KeyInit};
//! use chacha20poly1305::{ChaCha20Poly1305, ChaChaPoly1305};
//! use chacha_reference_kernel::Reference;
//!
//! let ours = ChaChaPoly1305::<ChaCha<R20, Ietf, Reference>>::new(&[0x42; 32].into());
//! let mut buf = *b"sealed on the reference kernel";
//! let tag = ours.encrypt_inout_detached(&[7; 12].into(), b"aad", (&mut buf[..]).into()).unwrap();
//!
//! let check = ChaCha20Poly1305::new(&[0x42; 32].into());
//! check.decrypt_inout_detached(&[7; 12].into(), b"aad", (&mut buf[..]).into(), &tag).unwrap();
//! assert_eq!(&buf, b"sealed on the reference kernel");
//! ```
#![no_std]
#![forbid(unsafe_code)]

use chacha_core::{Aead, Block, Kernel, Rounds, State, Variant, XorBuf, reference};

/// The workspace README's examples (the quick start: the AEAD, the cipher, the RNGs) run as
/// doc tests, so they cannot go stale. Here, in a crate that is never packaged: a library
/// crate's package does not hold the workspace README, and must test on its own.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct WorkspaceReadme;

/// The RFC 8439 reference block function as a [`Kernel`]: slow, plain, easy to read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reference;

impl Kernel for Reference {
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, mut buf: XorBuf<'_, '_>, tail: &mut Block) {
        let mut counter = state.counter();
        while buf.len() >= 64 {
            let (mut block, rest) = buf.split_at(64);
            block.xor_in2out(&reference::block::<R, V>(state, counter));
            counter = counter.wrapping_add(1);
            buf = rest;
        }
        if !buf.is_empty() {
            *tail = reference::block::<R, V>(state, counter);
            buf.xor_in2out(&tail[..buf.len()]);
        }
    }

    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        reference::keystream::<R, V>(state, out);
    }

    fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
        reference::hchacha::<R>(key, input)
    }
}

/// ChaCha20-Poly1305's steps: the portable defaults, on the reference's `xor` and `fill`.
impl Aead for Reference {}
