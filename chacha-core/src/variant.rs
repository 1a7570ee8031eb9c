//! The two ways to split words 12–15 of the state between block counter and nonce.
//!
//! ```text
//!            word 12    word 13    word 14    word 15
//! Ietf     | counter  | nonce[0] | nonce[1] | nonce[2] |   RFC 8439: 2^32 blocks (256 GiB)
//! Legacy   | ctr low  | ctr high | nonce[0] | nonce[1] |   original: 2^64 blocks
//! ```
//!
//! A 32-bit counter never carries into the nonce: the stream simply ends after block
//! `0xFFFF_FFFF`. A 64-bit counter carries from word 12 into word 13. XChaCha uses the
//! `Legacy` layout after HChaCha, which is what libsodium does and what
//! draft-irtf-cfrg-xchacha's layout (zero word 13) agrees with for the first 2^32 blocks.

use core::fmt::Debug;

mod sealed {
    pub trait Sealed {}
}

/// A counter/nonce layout, as a type. Sealed: only [`Ietf`] and [`Legacy`] exist.
pub trait Variant: sealed::Sealed + Copy + Default + Debug + Send + Sync + 'static {
    /// The nonce, as bytes.
    type Nonce: AsRef<[u8]> + AsMut<[u8]> + Copy + Default + Debug + Send + Sync + 'static;
    /// The block counter as an integer of its own width: `u32` or `u64` (the published
    /// `chacha20` crate's `Variant::Counter`).
    type Counter: Copy + Debug + Default + Eq + Ord + Into<u64> + TryFrom<u64> + Send + Sync + 'static;
    /// State words that hold the block counter, starting at word 12: 1 or 2.
    const COUNTER_WORDS: usize;
    /// Nonce length in bytes: `4 * (4 - COUNTER_WORDS)`.
    const NONCE_LEN: usize = 4 * (4 - Self::COUNTER_WORDS);
    /// The largest block counter value: `u32::MAX` or `u64::MAX`.
    const MAX_COUNTER: u64;
    /// How many blocks one key and nonce can produce: `MAX_COUNTER + 1`.
    const BLOCKS: u128 = Self::MAX_COUNTER as u128 + 1;
}

/// RFC 8439 layout: 32-bit block counter in word 12, 96-bit nonce in words 13–15.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ietf;

/// Original (djb) layout: 64-bit block counter in words 12–13, 64-bit nonce in words 14–15.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Legacy;

impl sealed::Sealed for Ietf {}
impl Variant for Ietf {
    type Nonce = [u8; 12];
    type Counter = u32;
    const COUNTER_WORDS: usize = 1;
    const MAX_COUNTER: u64 = u32::MAX as u64;
}

impl sealed::Sealed for Legacy {}
impl Variant for Legacy {
    type Nonce = [u8; 8];
    type Counter = u64;
    const COUNTER_WORDS: usize = 2;
    const MAX_COUNTER: u64 = u64::MAX;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_fill_four_words() {
        assert_eq!(Ietf::NONCE_LEN, [0u8; 12].len());
        assert_eq!(Legacy::NONCE_LEN, [0u8; 8].len());
        assert_eq!(Ietf::BLOCKS, 1 << 32);
        assert_eq!(Legacy::BLOCKS, 1 << 64);
    }
}
