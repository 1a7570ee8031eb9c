//! # chacha-core
//!
//! The small, `no_std`, `unsafe`-free heart of the `chacha` workspace:
//!
//! - [`Rounds`] markers [`R8`], [`R12`], [`R20`];
//! - [`Variant`] markers for the two counter/nonce layouts, [`Ietf`] (RFC 8439) and
//!   [`Legacy`] (64-bit counter), and [`StateRef`], a state as its own layout's type;
//! - [`State`], the 16-word input state that knows where its stream ends;
//! - [`Kernel`], the contract every backend in `chacha-backends` implements, the buffer it
//!   XORs into, [`XorBuf`], and the widths it states for the fronts, [`BULK_BLOCKS`] and
//!   [`MAX_BATCH_BLOCKS`];
//! - [`Aead`], what a kernel adds for ChaCha20-Poly1305 (each step with a portable
//!   default), and [`poly1305`], the Poly1305 accumulator the backends' MAC kernels share
//!   and the MAC on top;
//! - [`reference`](mod@reference), the RFC 8439 §2.3 block function, HChaCha and the §2.5
//!   Poly1305, written plainly: the oracle for every backend.
//!
//! Applications want the `chacha20` crate (stream ciphers) or `chacha-rng` (random number
//! generators); this crate is for backends and those front crates.
//!
//! ```
//! use chacha_core::{reference, Ietf, State, R20};
//!
//! // RFC 8439 §2.3.2: key 00 01 .. 1f, nonce 00 00 00 09 00 00 00 4a 00 00 00 00, counter 1.
//! let key: [u8; 32] = core::array::from_fn(|i| i as u8);
//! let nonce = [0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0];
//! let block = reference::block::<R20, Ietf>(&State::new(&key, &nonce), 1);
//! assert_eq!(block[..4], [0x10, 0xf1, 0xe7, 0xe4]);
//! ```
#![cfg_attr(not(test), no_std)]
// docs.rs (`--cfg docsrs`, nightly): each item gated by a feature says which.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

mod aead;
mod buf;
mod contract;
pub mod poly1305;
pub mod reference;
mod rounds;
mod state;

pub use aead::{AEAD_CHUNK, Aead, AeadDirection, AeadMac, aead_in_pieces, message_in_steps, wipe_keystream};
pub use buf::{LengthMismatch, XorBuf};
pub use contract::{BULK_BLOCKS, Kernel, MAX_BATCH_BLOCKS};
pub use rounds::{R8, R12, R20, Rounds};
pub use state::{BLOCK_LEN, Block, CONSTANTS, EndOfStream, Ietf, Legacy, State, StateRef, Variant};
