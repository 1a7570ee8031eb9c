//! Which stream cipher an AEAD runs on: the `C` of [`ChaChaPoly1305<C, N>`], one of the
//! `chacha20` crate's cipher types, read here for its rounds, its kernel and how its nonce
//! makes the ChaCha state.
//!
//! Both nonce sizes end up in the RFC 8439 layout (32-bit block counter, 96-bit nonce):
//! XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03 §2.3) is ChaCha20-Poly1305 under the
//! HChaCha20 subkey of the first 16 nonce bytes, with the nonce `0^4 || nonce[16..24]`. So
//! both have the RFC's message limit, (2^32 − 1) · 64 bytes, enforced by the state.
//!
//! [`ChaChaPoly1305<C, N>`]: crate::ChaChaPoly1305

use aead::array::{Array, ArraySize};
use aead::consts::{U12, U24};
use chacha_core::{Aead, Ietf, Rounds, State};
use chacha20::{ChaCha, XChaCha};

/// A `chacha20` cipher type an AEAD can be built on: [`ChaCha<R, Ietf, K>`] (12-byte
/// nonces) and [`XChaCha<R, K>`] (24-byte nonces). Sealed: the construction's nonce
/// handling is defined for these only.
pub trait AeadStream: sealed::Sealed {
    /// The round count.
    type Rounds: Rounds;
    /// The kernel the AEAD runs on (the cipher type's; [`chacha20::Backend`] by default): a
    /// [`Kernel`](chacha_core::Kernel) with the AEAD's steps, [`Aead`] (`impl Aead for MyKernel {}` takes the
    /// portable ones).
    type Kernel: Aead;
    /// The AEAD's nonce size.
    type NonceSize: ArraySize;

    /// The ChaCha state at block 0 for `key` and `nonce`.
    fn state(kernel: Self::Kernel, key: &[u8; 32], nonce: &Array<u8, Self::NonceSize>) -> State<Ietf>;
}

impl<R: Rounds, K: Aead> AeadStream for ChaCha<R, Ietf, K> {
    type Rounds = R;
    type Kernel = K;
    type NonceSize = U12;

    #[inline(always)]
    fn state(_: K, key: &[u8; 32], nonce: &Array<u8, U12>) -> State<Ietf> {
        State::new(key, &nonce.0)
    }
}

impl<R: Rounds, K: Aead> AeadStream for XChaCha<R, K> {
    type Rounds = R;
    type Kernel = K;
    type NonceSize = U24;

    #[inline(always)]
    fn state(kernel: K, key: &[u8; 32], nonce: &Array<u8, U24>) -> State<Ietf> {
        let (head, tail) = nonce.0.split_at(16);
        #[cfg_attr(not(feature = "zeroize"), expect(unused_mut, reason = "wiped only with zeroize"))]
        let mut subkey = kernel.hchacha::<R>(key, head.try_into().expect("16 bytes"));
        let mut ietf_nonce = [0u8; 12];
        ietf_nonce[4..].copy_from_slice(tail);
        let state = State::new(&subkey, &ietf_nonce);
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(&mut subkey);
        state
    }
}

mod sealed {
    pub trait Sealed {}
    impl<R: chacha_core::Rounds, K: chacha_core::Aead> Sealed for chacha20::ChaCha<R, chacha_core::Ietf, K> {}
    impl<R: chacha_core::Rounds, K: chacha_core::Aead> Sealed for chacha20::XChaCha<R, K> {}
}
