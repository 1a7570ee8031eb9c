//! [`ChaChaRng`]: the generator, its buffer and its position.
//!
//! ```text
//!   keystream blocks:  ... | buf[0] | buf[1] | ... | buf[n-1] | state.position() ...
//!   words:                   ^ index (next word to return)       ^ next block computed
//! ```
//!
//! The buffer always holds the keystream of the `n` blocks just before the state's
//! position; words `index..16·n` of it are not used yet. So the position in words is
//! `16 · state.position() − (16·n − index)`, modulo 2^68 (the stream starts again after its
//! last block: [`State::fill_cyclic`]). `n` is [`MAX_BATCH_BLOCKS`] until the first bulk
//! refill and [`BUFFER_BLOCKS`] from then on ([`Buffer`]).

use core::fmt;

use chacha_backends::Backend;
use chacha_core::{BLOCK_LEN, Block, Kernel, Legacy, MAX_BATCH_BLOCKS, Rounds, State};
use rand_core::{Infallible, SeedableRng, TryCryptoRng, TryRng};

/// A 32-byte RNG seed: the ChaCha key.
pub type Seed = [u8; 32];

/// The serialised state: seed (32 bytes), stream (8, little-endian), word position (9,
/// little-endian, 68 bits): the published `chacha20` crate's format.
pub type SerializedRngState = [u8; 49];

/// Blocks of keystream the generator buffers for `next_u32` / `next_u64`: the contract's
/// bulk width ([`BULK_BLOCKS`](chacha_core::BULK_BLOCKS)), so refills run at the kernel's
/// bulk speed. The first refill after a new seed or a seek computes only the kernel's
/// batch blocks ([`Kernel::batch_blocks`], one dependent chain), so "seed, draw one" and
/// "seek, draw one" cost one chain, not 16 blocks; until the first bulk refill a generator
/// holds only [`MAX_BATCH_BLOCKS`] blocks.
pub const BUFFER_BLOCKS: usize = chacha_core::BULK_BLOCKS;

#[cfg(feature = "rayon")]
mod parallel;

#[cfg(feature = "rayon")]
pub use parallel::{PAR_MIN_LEN, PAR_WARM_MIN_LEN, par_min_len};

const BLOCK_WORDS: usize = BLOCK_LEN / 4;
/// Positions are counted in words modulo 2^68: 2^64 blocks of 16 words.
const WORD_POS_MASK: u128 = (1 << 68) - 1;

/// A ChaCha random number generator with `R` rounds on the kernel `K`.
///
/// Use the aliases [`ChaCha8Rng`](crate::ChaCha8Rng), [`ChaCha12Rng`](crate::ChaCha12Rng)
/// and [`ChaCha20Rng`](crate::ChaCha20Rng); see the [crate docs](crate) for the stream,
/// the API and the kernels.
#[derive(Clone)]
pub struct ChaChaRng<R: Rounds, K: Kernel = Backend> {
    state: State<Legacy>,
    kernel: K,
    buf: Buffer,
    /// The next unused word of `buf`; `buf.words()` when all are used. A `u32` (it is at most
    /// 256) so that the draws' bounds checks need no overflow check.
    index: u32,
    /// Refills compute the whole buffer. False after a new seed or a seek, where the first
    /// refill computes only the blocks one kernel call makes for the cost of one
    /// ([`Kernel::batch_blocks`]): seeding and drawing a few words, or seeking and drawing
    /// one (a work item each), then pays for one block chain, not for 16 blocks.
    bulk: bool,
    _rounds: R,
}

/// The output buffer: small until the generator's first bulk refill.
///
/// A new generator holds [`MAX_BATCH_BLOCKS`] blocks (256 bytes, as the peers' do), so
/// making one zeroes 256 bytes, not 1 KiB, and a seed with a few draws never touches the
/// bulk buffer (the zeroing was a large share of a seed and one draw: `chacha-backends`'
/// DECISIONS.md § The fronts: the generators). The first bulk refill makes the
/// [`BUFFER_BLOCKS`]-block buffer, once per generator. Both arrays start at the same
/// offset, 8-aligned (`repr(C, u64)`), so a draw reads either through the same pointer;
/// only the length differs. `Batch` is tag 1, not 0: a new buffer is then a tag store and
/// 256 zero bytes in 16 inline stores, where tag 0 made it 264 zero bytes, past LLVM's
/// inline limit, a `memset` call.
#[derive(Clone)]
#[repr(C, u64)]
#[expect(
    clippy::large_enum_variant,
    reason = "the small variant is the point: a new generator zeroes only it"
)]
enum Buffer {
    Bulk([Block; BUFFER_BLOCKS]) = 0,
    Batch([Block; MAX_BATCH_BLOCKS]) = 1,
}

impl Buffer {
    /// The buffered keystream, as words (little-endian bytes).
    #[inline(always)]
    fn words_le(&self) -> &[[u8; 4]] {
        self.bytes().as_chunks::<4>().0
    }

    /// The buffered keystream, as bytes.
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        match self {
            Buffer::Batch(blocks) => blocks.as_flattened(),
            Buffer::Bulk(blocks) => blocks.as_flattened(),
        }
    }

    /// The blocks, to be written.
    #[inline(always)]
    fn blocks_mut(&mut self) -> &mut [Block] {
        match self {
            Buffer::Batch(blocks) => blocks,
            Buffer::Bulk(blocks) => blocks,
        }
    }

    /// Its length in words.
    #[inline(always)]
    fn words(&self) -> usize {
        match self {
            Buffer::Batch(_) => MAX_BATCH_BLOCKS * BLOCK_WORDS,
            Buffer::Bulk(_) => BUFFER_BLOCKS * BLOCK_WORDS,
        }
    }

    /// The bulk buffer, made (and the batch one wiped, with `zeroize`) if this is still
    /// the batch one.
    #[inline]
    fn bulk(&mut self) -> &mut [Block; BUFFER_BLOCKS] {
        if let Buffer::Batch(_blocks) = self {
            #[cfg(feature = "zeroize")]
            zeroize::Zeroize::zeroize(_blocks.as_flattened_mut());
            *self = Buffer::Bulk([[0; BLOCK_LEN]; BUFFER_BLOCKS]);
        }
        match self {
            Buffer::Bulk(blocks) => blocks,
            Buffer::Batch(_) => unreachable!("made `Bulk` above"),
        }
    }
}

impl<R: Rounds> ChaChaRng<R, Backend> {
    /// A generator for `seed` on stream 0 at position 0, running on `backend` (one of
    /// [`Backend::available`]); `SeedableRng::from_seed` uses [`Backend::detect`].
    pub fn with_backend(seed: Seed, backend: Backend) -> Self {
        Self::with_kernel(seed, backend)
    }
}

impl<R: Rounds, K: Kernel> ChaChaRng<R, K> {
    /// A generator for `seed` on stream 0 at position 0, running on `kernel`.
    pub fn with_kernel(seed: Seed, kernel: K) -> Self {
        Self::at_stream(&seed, 0, kernel)
    }

    fn at_stream(seed: &Seed, stream: u64, kernel: K) -> Self {
        Self {
            state: State::new(seed, &stream.to_le_bytes()),
            kernel,
            buf: Buffer::Batch([[0; BLOCK_LEN]; MAX_BATCH_BLOCKS]),
            index: (MAX_BATCH_BLOCKS * BLOCK_WORDS) as u32,
            bulk: false,
            _rounds: R::default(),
        }
    }

    /// The kernel this generator runs on.
    pub fn kernel(&self) -> K {
        self.kernel
    }

    /// Refills the buffer, whole or (the first time after a seed or a seek) its last
    /// [`Kernel::batch_blocks`] blocks (at most [`MAX_BATCH_BLOCKS`]); the next word is the
    /// first one computed.
    #[inline(never)]
    fn refill(&mut self) {
        let blocks: &mut [Block] = if self.bulk { self.buf.bulk() } else { self.buf.blocks_mut() };
        let first =
            if self.bulk { 0 } else { blocks.len() - self.kernel.batch_blocks().clamp(1, MAX_BATCH_BLOCKS) };
        self.state.fill_cyclic::<R, K>(self.kernel, &mut blocks[first..]);
        self.index = (first * BLOCK_WORDS) as u32;
        self.bulk = true;
    }

    /// One bounds check and one load: `get` fails exactly when the buffer is used up.
    #[inline]
    fn next_word(&mut self) -> u32 {
        if let Some(&word) = self.buf.words_le().get(self.index as usize) {
            self.index += 1;
            return u32::from_le_bytes(word);
        }
        self.next_word_after_refill()
    }

    /// Two words as one little-endian load (the first word is the low half).
    #[inline]
    fn next_pair(&mut self) -> u64 {
        // `index` is a `u32`, so `at + 8` cannot overflow: one compare.
        let at = 4 * self.index as usize;
        if let Some(&bytes) = self.buf.bytes().get(at..at + 8).and_then(|b| <&[u8; 8]>::try_from(b).ok()) {
            self.index += 2;
            return u64::from_le_bytes(bytes);
        }
        self.next_pair_across_refill()
    }

    /// The rare ends of `next_word` and `next_pair`, out of line so that the draws stay a
    /// few instructions where a caller inlines them.
    #[cold]
    #[inline(never)]
    fn next_word_after_refill(&mut self) -> u32 {
        self.refill();
        let word = *self.buf.words_le().get(self.index as usize).expect("a refill leaves a word");
        self.index += 1;
        u32::from_le_bytes(word)
    }

    #[cold]
    #[inline(never)]
    fn next_pair_across_refill(&mut self) -> u64 {
        let lo = self.next_word();
        u64::from(self.next_word()) << 32 | u64::from(lo)
    }

    fn fill(&mut self, dest: &mut [u8]) {
        let mut dest = self.fill_buffered(dest);
        // 2. Less than a buffer left: through the buffer, whose refill computes a whole
        //    buffer in one kernel call (a call for one or a few blocks costs about what a
        //    refill does, and a generator drawn in 64-byte pieces would make one per draw).
        while !dest.is_empty() && dest.len() < BUFFER_BLOCKS * BLOCK_LEN {
            self.refill();
            dest = self.fill_buffered(dest);
        }
        // 3. Whole blocks straight into `dest`, with the widest kernel.
        let (blocks, tail) = dest.as_chunks_mut::<BLOCK_LEN>();
        self.state.fill_cyclic::<R, K>(self.kernel, blocks);
        self.fill_tail(tail);
    }

    /// Step 1 of `fill`: the unused words of the buffer into the front of `dest`; returns the
    /// rest of `dest`.
    #[inline(always)]
    fn fill_buffered<'d>(&mut self, dest: &'d mut [u8]) -> &'d mut [u8] {
        let buffered = (self.buf.words() - self.index as usize) * 4;
        if buffered == 0 {
            return dest;
        }
        let n = dest.len().min(buffered);
        let start = self.index as usize * 4;
        dest[..n].copy_from_slice(&self.buf.bytes()[start..start + n]);
        self.index += n.div_ceil(4) as u32;
        &mut dest[n..]
    }

    /// Step 4 of `fill`: the last partial block (`tail`, under 64 bytes) through the buffer.
    #[inline(always)]
    fn fill_tail(&mut self, tail: &mut [u8]) {
        if !tail.is_empty() {
            self.refill();
            let start = self.index as usize * 4;
            tail.copy_from_slice(&self.buf.bytes()[start..start + tail.len()]);
            self.index += tail.len().div_ceil(4) as u32;
        }
    }

    /// The position in the stream, in 32-bit words (modulo 2^68, so 0 again after the last
    /// word of the stream).
    pub fn get_word_pos(&self) -> u128 {
        let next_block = self.state.position() * BLOCK_WORDS as u128;
        next_block.wrapping_sub((self.buf.words() - self.index as usize) as u128) & WORD_POS_MASK
    }

    /// Moves to word `word_pos` of the stream (modulo 2^68).
    ///
    /// [`set_stream`](Self::set_stream) resets the position, so call it first when you set
    /// both.
    pub fn set_word_pos(&mut self, word_pos: u128) {
        let word_pos = word_pos & WORD_POS_MASK;
        let block = word_pos / BLOCK_WORDS as u128;
        let within = (word_pos % BLOCK_WORDS as u128) as usize;
        // Inside a block, that block goes to the buffer's last block; its first words are
        // skipped.
        let words = self.buf.words();
        let last = self.buf.blocks_mut().last_mut().expect("a buffer has blocks");
        self.state.seek_into::<R, K>(self.kernel, block, 4 * within, || last).expect("block < 2^64");
        self.index = (if within == 0 { words } else { words - BLOCK_WORDS + within }) as u32;
        self.bulk = false;
    }

    /// The block of the stream the next word comes from (the word position over 16).
    pub fn get_block_pos(&self) -> u64 {
        (self.get_word_pos() / BLOCK_WORDS as u128) as u64
    }

    /// Moves to the start of block `block_pos`.
    pub fn set_block_pos(&mut self, block_pos: u64) {
        self.set_word_pos(u128::from(block_pos) * BLOCK_WORDS as u128);
    }

    /// The stream number: the 64-bit nonce.
    pub fn get_stream(&self) -> u64 {
        u64::from_le_bytes(self.state.nonce())
    }

    /// Switches to stream `stream` of the same seed, at position 0.
    pub fn set_stream(&mut self, stream: u64) {
        #[allow(unused_mut)] // mutated only to be wiped, with `zeroize`
        let mut seed = self.get_seed();
        // The old generator is dropped here (and wiped, with `zeroize`).
        *self = Self::at_stream(&seed, stream, self.kernel);
        #[cfg(feature = "zeroize")]
        // As a slice (one fill behind an optimization barrier), not byte by byte.
        zeroize::Zeroize::zeroize(&mut seed[..]);
    }

    /// The seed.
    pub fn get_seed(&self) -> Seed {
        let mut seed = [0u8; 32];
        self.write_seed(&mut seed);
        seed
    }

    /// Writes the seed into `out` (32 bytes) straight from the state, leaving no copy.
    fn write_seed(&self, out: &mut [u8]) {
        for (bytes, w) in out.chunks_exact_mut(4).zip(self.state.key_words()) {
            bytes.copy_from_slice(&w.to_le_bytes());
        }
    }

    /// The state as bytes: seed, stream and word position (see [`SerializedRngState`]).
    ///
    /// # Warning
    /// Whoever reads the serialised state can compute every output, past and future.
    pub fn serialize_state(&self) -> SerializedRngState {
        let mut out = [0u8; 49];
        self.write_seed(&mut out[..32]);
        out[32..40].copy_from_slice(&self.get_stream().to_le_bytes());
        out[40..].copy_from_slice(&self.get_word_pos().to_le_bytes()[..9]);
        out
    }

    /// The generator [`serialize_state`](Self::serialize_state) described, on `kernel`.
    /// The word position's bits above 68 are ignored.
    pub fn deserialize_state_with_kernel(state: &SerializedRngState, kernel: K) -> Self {
        let seed: &Seed = state[..32].try_into().expect("32 bytes");
        let stream = u64::from_le_bytes(state[32..40].try_into().expect("8 bytes"));
        let mut pos = [0u8; 16];
        pos[..9].copy_from_slice(&state[40..]);
        let mut rng = Self::at_stream(seed, stream, kernel);
        rng.set_word_pos(u128::from_le_bytes(pos));
        rng
    }
}

impl<R: Rounds, K: Kernel + Default> ChaChaRng<R, K> {
    /// The generator [`serialize_state`](Self::serialize_state) described. The word
    /// position's bits above 68 are ignored.
    pub fn deserialize_state(state: &SerializedRngState) -> Self {
        Self::deserialize_state_with_kernel(state, K::default())
    }
}

impl<R: Rounds, K: Kernel + Default> SeedableRng for ChaChaRng<R, K> {
    type Seed = Seed;

    #[inline]
    fn from_seed(seed: Seed) -> Self {
        Self::with_kernel(seed, K::default())
    }

    /// The seed `rand_core`'s provided method makes (eight PCG32 outputs, XSH RR, the
    /// state advanced before each), so the same generator as the published crates' for
    /// every `state` (`tests/published.rs` checks it against `rand_core`'s). Written here so
    /// that it inlines into the caller: the provided method stayed out of line, and its
    /// seed came back through memory in 4-byte stores, which the 16-byte loads of the key
    /// then could not be forwarded from.
    #[inline]
    fn seed_from_u64(mut state: u64) -> Self {
        const MUL: u64 = 0x5851_F42D_4C95_7F2D;
        const INC: u64 = 0xA176_54E4_6FBE_17F3;
        let mut seed = [0u8; 32];
        for word in seed.chunks_exact_mut(4) {
            state = state.wrapping_mul(MUL).wrapping_add(INC);
            let xorshifted = (((state >> 18) ^ state) >> 27) as u32;
            word.copy_from_slice(&xorshifted.rotate_right((state >> 59) as u32).to_le_bytes());
        }
        Self::from_seed(seed)
    }
}

impl<R: Rounds, K: Kernel> TryRng for ChaChaRng<R, K> {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.next_word())
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.next_pair())
    }

    #[inline]
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.fill(dst);
        Ok(())
    }
}

impl<R: Rounds, K: Kernel> TryCryptoRng for ChaChaRng<R, K> {}

/// The generator that goes on from `core`'s next block (seed, stream and block position),
/// on its kernel, as `rand_chacha`'s `From<ChaChaXCore> for ChaChaXRng` does.
///
/// ```
/// use chacha_rng::rand_core::{Rng, SeedableRng};
/// use chacha_rng::{ChaCha20Core, ChaCha20Rng};
///
/// let mut core = ChaCha20Core::from_seed([3; 32]);
/// core.set_block_pos(5);
/// let mut rng = ChaCha20Rng::from(core);
/// let mut want = ChaCha20Rng::from_seed([3; 32]);
/// want.set_block_pos(5);
/// assert_eq!(rng.next_u64(), want.next_u64());
/// ```
impl<R: Rounds, K: Kernel> From<crate::ChaChaCore<R, Legacy, K>> for ChaChaRng<R, K> {
    fn from(core: crate::ChaChaCore<R, Legacy, K>) -> Self {
        let (state, kernel) = core.parts();
        let mut rng = Self {
            state: state.clone(),
            kernel,
            buf: Buffer::Batch([[0; BLOCK_LEN]; MAX_BATCH_BLOCKS]),
            index: (MAX_BATCH_BLOCKS * BLOCK_WORDS) as u32,
            bulk: false,
            _rounds: R::default(),
        };
        // The core's next block; `set_block_pos` also handles a core that wrapped.
        rng.set_block_pos(core.get_block_pos());
        // `core` is dropped here (and its state wiped, with `zeroize`).
        rng
    }
}

/// Equal when seed, stream and word position are: two generators that buffered
/// different parts of one stream but stand at the same word are equal.
impl<R: Rounds, K: Kernel> PartialEq for ChaChaRng<R, K> {
    fn eq(&self, other: &Self) -> bool {
        // The key words in place, not `get_seed` copies, and without an early exit at the
        // first differing word (slice `==` may stop there): how long a comparison takes
        // says nothing about where two seeds differ.
        let (a, b) = (self.state.key_words(), other.state.key_words());
        let diff = a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x ^ y));
        core::hint::black_box(diff) == 0
            && self.get_stream() == other.get_stream()
            && self.get_word_pos() == other.get_word_pos()
    }
}

impl<R: Rounds, K: Kernel> Eq for ChaChaRng<R, K> {}

/// Rounds, kernel and position; never the seed or the buffered output.
impl<R: Rounds, K: Kernel> fmt::Debug for ChaChaRng<R, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChaChaRng")
            .field("rounds", &R::ROUNDS)
            .field("kernel", &self.kernel)
            .field("word_pos", &self.get_word_pos())
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "zeroize")]
impl<R: Rounds, K: Kernel> ChaChaRng<R, K> {
    /// What `drop` does: wipes the state (seed, stream, position) and the whole output
    /// buffer. Not a public `Zeroize`: a generator is infallible, and a wiped one would go
    /// on from the all-zero state.
    fn wipe(&mut self) {
        use zeroize::Zeroize;
        self.state.zeroize();
        // As one byte slice (one fill behind an optimization barrier), not byte by byte
        // with volatile writes as `zeroize` does for an array of arrays.
        self.buf.blocks_mut().as_flattened_mut().zeroize();
        self.index.zeroize();
    }
}

#[cfg(feature = "zeroize")]
impl<R: Rounds, K: Kernel> Drop for ChaChaRng<R, K> {
    fn drop(&mut self) {
        self.wipe();
    }
}

#[cfg(feature = "zeroize")]
impl<R: Rounds, K: Kernel> zeroize::ZeroizeOnDrop for ChaChaRng<R, K> {}

#[cfg(feature = "serde")]
mod abstract_state {
    //! `rand_chacha`'s serde format: the abstract state `{seed, stream, word_pos}`.

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{ChaChaRng, Kernel, Rounds};

    #[derive(Serialize, Deserialize)]
    struct AbstractState {
        seed: [u8; 32],
        stream: u64,
        word_pos: u128,
    }

    /// The copy of the seed in it is wiped when it goes, with `zeroize` (what the
    /// serializer or deserializer keeps is theirs).
    #[cfg(feature = "zeroize")]
    impl Drop for AbstractState {
        fn drop(&mut self) {
            zeroize::Zeroize::zeroize(&mut self.seed[..]);
        }
    }

    impl<R: Rounds, K: Kernel> Serialize for ChaChaRng<R, K> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            AbstractState { seed: self.get_seed(), stream: self.get_stream(), word_pos: self.get_word_pos() }
                .serialize(s)
        }
    }

    impl<'de, R: Rounds, K: Kernel + Default> Deserialize<'de> for ChaChaRng<R, K> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let a = AbstractState::deserialize(d)?;
            let mut rng = Self::at_stream(&a.seed, a.stream, K::default());
            rng.set_word_pos(a.word_pos);
            Ok(rng)
        }
    }
}

#[cfg(all(test, feature = "zeroize"))]
mod tests {
    use rand_core::Rng;

    use super::*;
    use crate::R12;

    /// Every field that holds seed, state or output is zero after `wipe` (what `drop` runs).
    fn check_wiped<R: Rounds, K: Kernel>(rng: &mut ChaChaRng<R, K>) {
        rng.wipe();
        assert_eq!(rng.state.words(), &[0; 16], "state words");
        assert!(rng.buf.bytes().iter().all(|&b| b == 0), "output buffer");
        assert_eq!((rng.index, rng.state.blocks_left()), (0, 0));
    }

    #[test]
    fn equal_exactly_when_seed_stream_and_position_are() {
        let rng = |seed: [u8; 32], stream: u64, word_pos: u128| {
            let mut rng = ChaChaRng::<R12>::from_seed(seed);
            rng.set_stream(stream);
            rng.set_word_pos(word_pos);
            rng
        };
        let base = rng([7; 32], 3, 100);
        assert!(base == rng([7; 32], 3, 100));
        // A differing seed byte at either end of the key words, then stream and position.
        for i in [0, 31] {
            let mut seed = [7; 32];
            seed[i] ^= 1;
            assert!(base != rng(seed, 3, 100), "seed byte {i}");
        }
        // Two key words that differ by the same bits: an accumulator that XORs the
        // differences (instead of ORing them) would cancel them out.
        let mut seed = [7; 32];
        (seed[0], seed[4]) = (6, 6);
        assert!(base != rng(seed, 3, 100), "two words, the same difference");
        assert!(base != rng([7; 32], 4, 100));
        assert!(base != rng([7; 32], 3, 101));
    }

    #[test]
    fn wipe_clears_seed_state_and_the_whole_buffer_on_every_backend() {
        for backend in Backend::available() {
            let mut rng = ChaChaRng::<R12>::with_backend([0xAB; 32], backend);
            rng.set_stream(0x0123_4567_89AB_CDEF);
            // Past the first refill after the seek, which computes only the batch blocks.
            for _ in 0..=MAX_BATCH_BLOCKS * BLOCK_WORDS {
                rng.next_u32();
            }
            assert!(
                matches!(rng.buf, Buffer::Bulk(_))
                    && rng.buf.bytes().chunks(BLOCK_LEN).all(|b| b != [0; BLOCK_LEN]),
                "{backend:?}: the test needs a full bulk buffer"
            );
            check_wiped(&mut rng);

            // A partial block through the buffer, and a position inside a block.
            let mut rng = ChaChaRng::<R12>::with_backend([0xAB; 32], backend);
            rng.fill_bytes(&mut [0u8; 100]);
            rng.set_word_pos(1000 * 16 + 3);
            check_wiped(&mut rng);
        }
    }
}
