//! The fuzz targets' inputs and checks, shared by the targets in `fuzz_targets/` and the
//! seed generator `src/bin/seed-corpus.rs`.
//!
//! Every input is read with `arbitrary::Unstructured` as fixed-width little-endian fields
//! from the front (no length prefixes, no bytes taken from the back), and every input type
//! has an `encode` that writes the same layout, so the generator can write seeds that mean
//! exactly the boundary case it names. Selectors are taken modulo their number of choices,
//! so every byte string is a valid input. Sequences of operations run until the input is
//! used up.
//!
//! Each target computes what must happen from `chacha_core::reference` alone (a model),
//! then checks every backend of `Backend::available()` against it, both through `Backend`
//! (the run-time `match`) and as the backend's own kernel type (`Backend::with_kernel`);
//! the `aead` and `secretstream` targets through the `chacha20poly1305` crate's
//! `with_backend` (and `new`).

#![forbid(unsafe_code)]

use arbitrary::Unstructured;
use chacha_core::{Block, Rounds, State, Variant, reference};
pub use chacha_testdata::filler;

pub mod aead;
pub mod backends;
pub mod cipher_api;
pub mod rng;
pub mod secretstream;

/// Reads `N` bytes from the front (zeros once the input is used up).
pub fn take<const N: usize>(u: &mut Unstructured<'_>) -> [u8; N] {
    let mut out = [0u8; N];
    u.fill_buffer(&mut out).expect("fill_buffer never fails");
    out
}

/// A little-endian `u16` from the front.
pub fn u16_of(u: &mut Unstructured<'_>) -> u16 {
    u16::from_le_bytes(take(u))
}

/// A little-endian `u64` from the front.
pub fn u64_of(u: &mut Unstructured<'_>) -> u64 {
    u64::from_le_bytes(take(u))
}

/// Reference keystream bytes `from..from + len` of the stream of `state` (key and nonce;
/// its position is ignored), block counters wrapping like the state's counter words.
pub fn reference_bytes<R: Rounds, V: Variant>(state: &State<V>, from: u128, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    let mut block_index = from / 64;
    let mut skip = (from % 64) as usize;
    while out.len() < len {
        let block: Block = reference::block::<R, V>(state, block_index as u64);
        let take = (64 - skip).min(len - out.len());
        out.extend_from_slice(&block[skip..skip + take]);
        skip = 0;
        block_index += 1;
    }
    out
}

/// The round count of a selector byte: R8, R12 or R20.
pub fn rounds_of(selector: u8) -> u32 {
    [8, 12, 20][usize::from(selector % 3)]
}

/// Runs `$body` with `$r` bound to the round marker type for `$rounds` (8, 12 or 20).
#[macro_export]
macro_rules! with_rounds {
    ($rounds:expr, $r:ident => $body:expr) => {
        match $rounds {
            8 => {
                type $r = chacha_core::R8;
                $body
            }
            12 => {
                type $r = chacha_core::R12;
                $body
            }
            _ => {
                type $r = chacha_core::R20;
                $body
            }
        }
    };
}
