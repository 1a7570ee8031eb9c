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

use crate::state::State;

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

    /// The block counter held in `row`, state words 12.. (the published `chacha20` crate's
    /// `Variant::get_block_pos`): word 12 for [`Ietf`], words 12 (low) and 13 (high) for
    /// [`Legacy`].
    ///
    /// # Panics
    /// If `row` is shorter than [`COUNTER_WORDS`](Self::COUNTER_WORDS).
    ///
    /// ```
    /// use chacha_core::{Ietf, Legacy, Variant};
    /// assert_eq!(Ietf::get_block_pos(&[7, 1, 2, 3]), 7u32);
    /// assert_eq!(Legacy::get_block_pos(&[7, 1, 2, 3]), (1u64 << 32) | 7);
    /// ```
    fn get_block_pos(row: &[u32]) -> Self::Counter {
        let low = u64::from(row[0]);
        let high = if Self::COUNTER_WORDS == 2 { u64::from(row[1]) } else { 0 };
        // At most `COUNTER_WORDS` words, so it fits the counter's width.
        Self::Counter::try_from((high << 32) | low).unwrap_or_default()
    }

    /// Writes the block counter `pos` into `row`, state words 12.. (the published crate's
    /// `Variant::set_block_pos`); the nonce words are left as they are.
    ///
    /// # Panics
    /// If `row` is shorter than [`COUNTER_WORDS`](Self::COUNTER_WORDS).
    ///
    /// ```
    /// use chacha_core::{Legacy, Variant};
    /// let mut row = [0u32; 4];
    /// Legacy::set_block_pos(&mut row, (5u64 << 32) | 9);
    /// assert_eq!(row, [9, 5, 0, 0]);
    /// ```
    fn set_block_pos(row: &mut [u32], pos: Self::Counter) {
        let pos: u64 = pos.into();
        row[0] = pos as u32;
        if Self::COUNTER_WORDS == 2 {
            row[1] = (pos >> 32) as u32;
        }
    }

    /// The blocks after block `block_pos` to the end of the stream, `MAX_COUNTER -
    /// block_pos`, if that fits a `usize` (the published crate's
    /// `Variant::remaining_blocks`, which `cipher` uses as a core's `remaining_blocks`).
    ///
    /// ```
    /// use chacha_core::{Ietf, Variant};
    /// assert_eq!(Ietf::remaining_blocks(u32::MAX), Some(0));
    /// assert_eq!(Ietf::remaining_blocks(0), Some(u32::MAX as usize));
    /// ```
    fn remaining_blocks(block_pos: Self::Counter) -> Option<usize> {
        (Self::MAX_COUNTER - block_pos.into()).try_into().ok()
    }

    /// `state` as the one layout type it is: for code compiled once per layout, which
    /// takes a `State<Ietf>` or a `State<Legacy>` rather than a generic `State<V>` (the
    /// `chacha-backends` dispatch, whose kernels are compiled in its own crate). The same
    /// as [`State::layout`].
    ///
    /// ```
    /// use chacha_core::{Ietf, State, StateRef, Variant};
    /// let state = State::<Ietf>::new(&[1; 32], &[2; 12]);
    /// assert!(matches!(Ietf::state_ref(&state), StateRef::Ietf(s) if s.words() == state.words()));
    /// ```
    fn state_ref(state: &State<Self>) -> StateRef<'_>;
}

/// A [`State`] of either layout, as its own type: what [`Variant::state_ref`] gives.
#[derive(Clone, Copy, Debug)]
pub enum StateRef<'a> {
    /// An [`Ietf`] state.
    Ietf(&'a State<Ietf>),
    /// A [`Legacy`] state.
    Legacy(&'a State<Legacy>),
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

    #[inline(always)]
    fn state_ref(state: &State<Self>) -> StateRef<'_> {
        StateRef::Ietf(state)
    }
}

impl sealed::Sealed for Legacy {}
impl Variant for Legacy {
    type Nonce = [u8; 8];
    type Counter = u64;
    const COUNTER_WORDS: usize = 2;
    const MAX_COUNTER: u64 = u64::MAX;

    #[inline(always)]
    fn state_ref(state: &State<Self>) -> StateRef<'_> {
        StateRef::Legacy(state)
    }
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

    #[test]
    fn block_positions_round_trip_and_leave_the_nonce() {
        let mut row = [0xAAAA_AAAA; 4];
        Ietf::set_block_pos(&mut row, 0x1234_5678);
        assert_eq!(row, [0x1234_5678, 0xAAAA_AAAA, 0xAAAA_AAAA, 0xAAAA_AAAA]);
        assert_eq!(Ietf::get_block_pos(&row), 0x1234_5678);
        Legacy::set_block_pos(&mut row, 0x0102_0304_0506_0708);
        assert_eq!(row, [0x0506_0708, 0x0102_0304, 0xAAAA_AAAA, 0xAAAA_AAAA]);
        assert_eq!(Legacy::get_block_pos(&row), 0x0102_0304_0506_0708);
        assert_eq!(Ietf::remaining_blocks(u32::MAX - 3), Some(3));
        assert_eq!(Legacy::remaining_blocks(u64::MAX - 3), Some(3));
        assert_eq!(Legacy::remaining_blocks(0), usize::try_from(u64::MAX).ok());
    }

    #[test]
    fn state_ref_names_the_layout_and_the_same_state() {
        let ietf = State::<Ietf>::new(&[1; 32], &[2; 12]);
        let legacy = State::<Legacy>::new(&[1; 32], &[2; 8]);
        assert!(matches!(ietf.layout(), StateRef::Ietf(s) if core::ptr::eq(s, &ietf)));
        assert!(matches!(legacy.layout(), StateRef::Legacy(s) if core::ptr::eq(s, &legacy)));
    }
}
