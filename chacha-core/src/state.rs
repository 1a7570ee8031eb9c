//! The 16-word ChaCha state (RFC 8439 §2.3) and where a stream stands in it.
//!
//! ```text
//!  0: const   1: const   2: const   3: const      "expand 32-byte k"
//!  4: key     5: key     6: key     7: key
//!  8: key     9: key    10: key    11: key
//! 12: counter 13: ...   14: ...    15: ...        Ietf or Legacy: below
//! ```
//!
//! Besides the words, a state remembers whether its last block has been produced: after
//! the block with counter `V::MAX_COUNTER` the counter word(s) would wrap to 0 and
//! repeat the keystream, so the state records the end instead and refuses to go on.
//!
//! The layouts ([`Variant`]): two ways to split words 12–15 between block counter and nonce.
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

use core::fmt;
use core::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
}

/// A counter/nonce layout, as a type. Sealed: only [`Ietf`] and [`Legacy`] exist.
pub trait Variant: sealed::Sealed + Copy + Default + fmt::Debug + Send + Sync + 'static {
    /// The nonce, as bytes.
    type Nonce: AsRef<[u8]> + AsMut<[u8]> + Copy + Default + fmt::Debug + Send + Sync + 'static;
    /// The block counter as an integer of its own width: `u32` or `u64` (the published
    /// `chacha20` crate's `Variant::Counter`).
    type Counter: Copy + fmt::Debug + Default + Eq + Ord + Into<u64> + TryFrom<u64> + Send + Sync + 'static;
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

/// "expand 32-byte k" as four little-endian words (RFC 8439 §2.3).
pub const CONSTANTS: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// Bytes in one ChaCha block.
pub const BLOCK_LEN: usize = 64;

/// One block of keystream (or data), as bytes.
pub type Block = [u8; BLOCK_LEN];

/// The keystream has no more blocks: one key and nonce give `V::BLOCKS` blocks, and using
/// more would repeat keystream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct EndOfStream;

impl fmt::Display for EndOfStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("end of the ChaCha keystream for this key and nonce")
    }
}

impl core::error::Error for EndOfStream {}

/// A ChaCha input state for one key and nonce, positioned at a block counter.
///
/// `Debug` shows the position only, never the key.
pub struct State<V: Variant> {
    words: [u32; 16],
    /// The block with counter `V::MAX_COUNTER` has been produced; the counter word(s)
    /// have wrapped to 0 and must not be used again.
    ended: bool,
    _variant: PhantomData<V>,
}

impl<V: Variant> State<V> {
    /// The state for `key` and `nonce`, at block counter 0.
    #[inline]
    pub fn new(key: &[u8; 32], nonce: &V::Nonce) -> Self {
        let k = |i: usize| le_word(&key[4 * i..]);
        // Words 14 and 15 (the nonce's last 8 bytes in both layouts) from one 64-bit value,
        // which LLVM stores as one 8-byte store: the SIMD kernels read the two words with
        // one 8-byte load, and a load that spans two earlier stores cannot be
        // store-forwarded (it waits for both to reach the cache, on the latency path of a
        // fresh message: `chacha-backends/DECISIONS.md`, § LLVM pitfalls).
        let nonce = nonce.as_ref();
        let (first, last) = nonce.split_at(nonce.len() - 8);
        let last = u64::from_le_bytes(last.try_into().expect("8 bytes"));
        // Word 13: the nonce's first 4 bytes (RFC 8439), or the counter's high half (0).
        let w13 = if V::COUNTER_WORDS == 1 { le_word(first) } else { 0 };
        // One array expression: filled in place (`copy_from_slice` into a zeroed array
        // made LLVM copy the constants and key through a stack temporary first: three
        // dead 16-byte stores on every new cipher).
        #[rustfmt::skip]
        let words = [
            CONSTANTS[0], CONSTANTS[1], CONSTANTS[2], CONSTANTS[3],
            k(0), k(1), k(2), k(3), k(4), k(5), k(6), k(7),
            0, w13, last as u32, (last >> 32) as u32,
        ];
        Self { words, ended: false, _variant: PhantomData }
    }

    /// The input words for the block at the current counter.
    ///
    /// Only meaningful while [`blocks_left`](Self::blocks_left) is non-zero.
    #[inline(always)]
    pub fn words(&self) -> &[u32; 16] {
        &self.words
    }

    /// The input words for the block with counter `counter` (same key and nonce).
    #[inline(always)]
    pub fn words_at(&self, counter: u64) -> [u32; 16] {
        let mut words = self.words;
        set_counter_words::<V>(&mut words, counter);
        words
    }

    /// The key, as the state holds it: words 4–11, each four key bytes little-endian.
    /// By reference, so a caller can read or compare it without a copy of the key.
    #[inline(always)]
    pub fn key_words(&self) -> &[u32; 8] {
        self.words[4..12].try_into().expect("words 4 to 11")
    }

    /// The nonce [`new`](Self::new) was given: words 13–15 ([`Ietf`]) or 14–15
    /// ([`Legacy`]), never the counter.
    #[inline]
    pub fn nonce(&self) -> V::Nonce {
        let mut nonce = V::Nonce::default();
        let words = &self.words[16 - V::NONCE_LEN / 4..];
        for (bytes, word) in nonce.as_mut().chunks_exact_mut(4).zip(words) {
            bytes.copy_from_slice(&word.to_le_bytes());
        }
        nonce
    }

    /// This state as the one layout type it is ([`Variant::state_ref`]): what code
    /// compiled once per layout takes.
    #[inline(always)]
    pub fn layout(&self) -> StateRef<'_> {
        V::state_ref(self)
    }

    /// The block counter of the next block (0 after the last block, see
    /// [`blocks_left`](Self::blocks_left)).
    #[inline(always)]
    pub fn counter(&self) -> u64 {
        if V::COUNTER_WORDS == 1 {
            u64::from(self.words[12])
        } else {
            u64::from(self.words[12]) | u64::from(self.words[13]) << 32
        }
    }

    /// Blocks produced so far, counted from counter 0: `0..=V::BLOCKS`.
    #[inline]
    pub fn position(&self) -> u128 {
        if self.ended { V::BLOCKS } else { u128::from(self.counter()) }
    }

    /// Blocks this key and nonce can still produce.
    #[inline]
    pub fn blocks_left(&self) -> u128 {
        V::BLOCKS - self.position()
    }

    /// Moves to block `block` (`0..=V::BLOCKS`; `V::BLOCKS` is the end of the stream).
    ///
    /// # Errors
    /// [`EndOfStream`] if `block > V::BLOCKS`; the state is unchanged.
    pub fn seek(&mut self, block: u128) -> Result<(), EndOfStream> {
        if block > V::BLOCKS {
            return Err(EndOfStream);
        }
        self.ended = block == V::BLOCKS;
        // At the end the counter wraps to 0, exactly as `advance` leaves it.
        set_counter_words::<V>(&mut self.words, block as u64);
        Ok(())
    }

    /// Moves `blocks` blocks forward.
    ///
    /// # Errors
    /// [`EndOfStream`] if fewer than `blocks` blocks are left; the state is unchanged.
    #[inline]
    pub fn advance(&mut self, blocks: u64) -> Result<(), EndOfStream> {
        let left = self.blocks_left();
        let blocks = u128::from(blocks);
        if blocks > left {
            return Err(EndOfStream);
        }
        self.ended = blocks == left;
        let next = self.counter().wrapping_add(blocks as u64);
        set_counter_words::<V>(&mut self.words, next);
        Ok(())
    }
}

impl State<Legacy> {
    /// This stream from block `counter` up to the next carry from word 12 into word 13
    /// (the next multiple of 2^32), as an [`Ietf`] state: the same words, word 13 (the
    /// counter's high half) taken for the first nonce word. Between carries a 64-bit
    /// counter's stream is a 32-bit counter's, so a kernel for the `Ietf` layout computes
    /// it, a request that crosses a carry in two pieces (`chacha-backends` compiles its
    /// kernels for `Ietf` only, so). The piece's
    /// [`blocks_left`](State::blocks_left) are the blocks before the carry.
    ///
    /// ```
    /// use chacha_core::{Ietf, Legacy, R20, State, reference};
    /// let state = State::<Legacy>::new(&[1; 32], &[2; 8]);
    /// let counter = (5 << 32) | 0xffff_fffe;
    /// let piece = state.ietf_piece(counter);
    /// assert_eq!(piece.blocks_left(), 2);
    /// assert_eq!(reference::block::<R20, Ietf>(&piece, 0xffff_ffff), reference::block::<R20, Legacy>(&state, counter + 1));
    /// ```
    #[inline(always)]
    pub fn ietf_piece(&self, counter: u64) -> State<Ietf> {
        State { words: self.words_at(counter), ended: false, _variant: PhantomData }
    }

    /// [`ietf_piece`](Self::ietf_piece) at the state's own counter: the stream from its
    /// next block up to the next carry.
    ///
    /// Written for store forwarding, on every short `Legacy` request: a load is served from
    /// an earlier store still in flight only if one store holds all its bytes, else it waits
    /// for the stores to retire. Words 0–11 are copied in 16-byte pieces, the
    /// counter (words 12–13) and the nonce (14–15) as two values, each read within the
    /// 8 bytes a front's counter update writes or outside them: one 16-byte read of words
    /// 12–15 spanned that store on every call of a generator or a warm cipher. The copy's own stores
    /// are the same 8-byte halves, which hold every load a kernel makes of row 3 (word 12
    /// or 13 alone, 13–15 as 4 + 8 bytes). `black_box` keeps LLVM from folding the copy of
    /// words 12–15 back into one 16-byte load and store.
    ///
    /// ```
    /// use chacha_core::{Legacy, State};
    /// let mut state = State::<Legacy>::new(&[1; 32], &[2; 8]);
    /// state.seek((3 << 32) | 9).unwrap();
    /// let piece = state.ietf_piece_here();
    /// assert_eq!(piece.words(), state.ietf_piece(state.counter()).words());
    /// assert_eq!(piece.blocks_left(), (1 << 32) - 9);
    /// ```
    #[inline(always)]
    pub fn ietf_piece_here(&self) -> State<Ietf> {
        let w = &self.words;
        let pair = |i: usize| u64::from(w[i]) | u64::from(w[i + 1]) << 32;
        let (counter, nonce) = (core::hint::black_box(self.counter()), pair(14));
        let mut words = [0u32; 16];
        words[..12].copy_from_slice(&w[..12]);
        words[12] = counter as u32;
        words[13] = (counter >> 32) as u32;
        words[14] = nonce as u32;
        words[15] = (nonce >> 32) as u32;
        State { words, ended: false, _variant: PhantomData }
    }

    /// Blocks from the state's counter up to the next carry from word 12 into word 13
    /// (`1..=2^32`): the [`blocks_left`](State::blocks_left) of
    /// [`ietf_piece_here`](Self::ietf_piece_here), read from this state (reading them
    /// from the piece made LLVM write the piece's counter word on its own, and the
    /// kernel's row load then waited for it).
    ///
    /// ```
    /// use chacha_core::{Legacy, State};
    /// let mut state = State::<Legacy>::new(&[1; 32], &[2; 8]);
    /// assert_eq!(state.blocks_before_carry(), 1 << 32);
    /// state.seek((3 << 32) | 0xffff_fffe).unwrap();
    /// assert_eq!(state.blocks_before_carry(), 2);
    /// ```
    #[inline(always)]
    pub fn blocks_before_carry(&self) -> u64 {
        (1 << 32) - u64::from(self.words[12])
    }
}

/// Writes `counter` into the counter word(s) of `words` (truncated to 32 bits for a
/// one-word counter).
#[inline(always)]
fn set_counter_words<V: Variant>(words: &mut [u32; 16], counter: u64) {
    words[12] = counter as u32;
    if V::COUNTER_WORDS == 2 {
        words[13] = (counter >> 32) as u32;
    }
}

#[inline(always)]
fn le_word(bytes: &[u8]) -> u32 {
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

impl<V: Variant> Clone for State<V> {
    fn clone(&self) -> Self {
        Self { words: self.words, ended: self.ended, _variant: PhantomData }
    }
}

impl<V: Variant> fmt::Debug for State<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("variant", &V::default())
            .field("position", &self.position())
            .finish_non_exhaustive()
    }
}

/// Wipes the words (constants, key, counter, nonce) and leaves the state at the end of its
/// stream: a wiped state refuses every request with
/// [`EndOfStream`] instead of producing the all-zero state's keystream, which is all
/// zeros (data would pass through unencrypted).
#[cfg(feature = "zeroize")]
impl<V: Variant> zeroize::Zeroize for State<V> {
    fn zeroize(&mut self) {
        // As a slice: `zeroize` wipes a slice with one fill behind an optimization barrier
        // (volatile writes on targets without `asm!`); an array goes element by element.
        self.words[..].zeroize();
        self.ended = true;
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

    #[test]
    fn rfc8439_2_3_2_state_layout() {
        let v = chacha_testdata::get("rfc8439-2.3.2");
        let state = State::<Ietf>::new(&v.array("key"), &v.array("nonce"));
        assert_eq!(state.words_at(v.number("counter")), v.words("setup"));
    }

    #[test]
    fn ietf_counter_ends_after_u32_max_without_touching_nonce() {
        let mut s = State::<Ietf>::new(&[7; 32], &[0xff; 12]);
        s.seek(u128::from(u32::MAX)).unwrap();
        assert_eq!((s.counter(), s.blocks_left()), (u64::from(u32::MAX), 1));
        assert_eq!(s.advance(2), Err(EndOfStream));
        assert_eq!(s.blocks_left(), 1, "a refused advance leaves the state alone");
        s.advance(1).unwrap();
        assert_eq!((s.blocks_left(), s.position(), s.counter()), (0, 1 << 32, 0));
        assert_eq!(s.words()[13..], [u32::MAX; 3], "the nonce never changes");
        assert_eq!(s.advance(1), Err(EndOfStream));
        s.advance(0).unwrap();
        assert_eq!(s.seek((1 << 32) + 1), Err(EndOfStream));
        s.seek(5).unwrap();
        assert_eq!((s.counter(), s.blocks_left()), (5, (1 << 32) - 5));
    }

    #[test]
    fn legacy_counter_carries_into_word_13_and_ends_after_u64_max() {
        let mut s = State::<Legacy>::new(&[7; 32], &[0xff; 8]);
        s.seek(u128::from(u32::MAX)).unwrap();
        s.advance(1).unwrap();
        assert_eq!(s.words()[12..14], [0, 1]);
        assert_eq!(s.counter(), 1 << 32);
        s.seek(u128::from(u64::MAX)).unwrap();
        assert_eq!(s.words()[12..], [u32::MAX; 4]);
        assert_eq!(s.blocks_left(), 1);
        s.advance(1).unwrap();
        assert_eq!((s.blocks_left(), s.position()), (0, 1 << 64));
        assert_eq!(s.words()[12..], [0, 0, u32::MAX, u32::MAX]);
        assert_eq!(s.advance(1), Err(EndOfStream));
    }

    #[cfg(feature = "zeroize")]
    #[test]
    fn zeroize_wipes_every_word_and_ends_the_stream() {
        use zeroize::Zeroize;
        let mut s = State::<Legacy>::new(&[0xAB; 32], &[0xCD; 8]);
        s.seek(12345).unwrap();
        s.zeroize();
        assert_eq!(s.words(), &[0; 16]);
        assert_eq!((s.blocks_left(), s.advance(1)), (0, Err(EndOfStream)));
        let mut s = State::<Ietf>::new(&[0xAB; 32], &[0xCD; 12]);
        s.zeroize();
        assert_eq!((s.words(), s.blocks_left()), (&[0; 16], 0));
    }

    #[test]
    fn an_ietf_piece_is_the_legacy_stream_up_to_the_carry() {
        use crate::{R8, reference::block};
        // Nonce words 14 and 15 differ, so that a piece with either twice is wrong.
        let state = State::<Legacy>::new(&[0x3c; 32], &[0xc3, 1, 2, 3, 4, 5, 6, 7]);
        for counter in [0, 7, (9 << 32) | 0xffff_fffd, u64::MAX] {
            let piece = state.ietf_piece(counter);
            assert_eq!(piece.words(), &state.words_at(counter));
            assert_eq!(piece.counter(), counter & 0xffff_ffff);
            assert_eq!(piece.blocks_left(), (1 << 32) - u128::from(counter & 0xffff_ffff));
            let last = (counter | 0xffff_ffff) - counter;
            for i in [0, last] {
                assert_eq!(
                    block::<R8, Ietf>(&piece, piece.counter() + i),
                    block::<R8, Legacy>(&state, counter + i)
                );
            }
            // The same piece from a state positioned there.
            let mut at = state.clone();
            at.seek(u128::from(counter)).unwrap();
            assert_eq!(at.ietf_piece_here().words(), piece.words());
            assert_eq!(u128::from(at.blocks_before_carry()), piece.blocks_left());
        }
    }

    #[test]
    fn debug_hides_the_key() {
        let s = State::<Ietf>::new(&[0xAB; 32], &[0xCD; 12]);
        let text = format!("{s:?}");
        assert!(!text.contains("171") && !text.to_lowercase().contains("ab"), "{text}");
        assert!(text.contains("position: 0"), "{text}");
    }
}
