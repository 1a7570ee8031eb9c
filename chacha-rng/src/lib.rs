//! # chacha-rng
//!
//! ChaCha8, ChaCha12 and ChaCha20 random number generators for `rand_core` 0.10, with the
//! published `chacha20` crate's RNG API and exactly its output (which is also
//! `rand_chacha`'s): the same seed, stream and position give the same words, through any
//! mix of `next_u32`, `next_u64` and `fill_bytes`. They run on the fastest backend this
//! CPU has (`chacha_backends::Backend`), chosen once.
//!
//! ```
//! use chacha_rng::ChaCha12Rng;
//! use chacha_rng::rand_core::{Rng, SeedableRng};
//!
//! let mut rng = ChaCha12Rng::from_seed([42; 32]);
//! let dice = rng.next_u32() % 6 + 1;
//! let mut key = [0u8; 32];
//! rng.fill_bytes(&mut key);
//! assert!((1..=6).contains(&dice));
//!
//! // Any position of the stream, directly: 2^64 blocks of 16 words per (seed, stream).
//! let mut again = ChaCha12Rng::from_seed([42; 32]);
//! again.set_word_pos(1);
//! let mut key2 = [0u8; 32];
//! again.fill_bytes(&mut key2);
//! assert_eq!(key, key2);
//! ```
//!
//! ## The stream
//!
//! The seed is a ChaCha key; the 64-bit *stream* is the nonce (words 14–15, the original
//! layout) and the 64-bit block counter runs in words 12–13 from 0. The output is the
//! keystream read as little-endian 32-bit words, in order: `next_u32` takes one word,
//! `next_u64` two (the first is the low half), `fill_bytes` of `n` bytes takes `⌈n/4⌉`
//! words and drops the unused bytes of the last one. After 2^64 blocks (2^68 words) the
//! stream starts again from block 0, as the published crate's does; positions are taken
//! modulo 2^68 and no method panics in any build profile.
//!
//! ## Speed
//!
//! `fill_bytes` writes whole blocks straight into the caller's slice in one kernel call
//! (`Kernel::fill`, which picks its own widths); only the bytes before and after them pass
//! through the buffer. The buffer holds [`BUFFER_BLOCKS`] blocks, the kernel contract's
//! bulk width, so `next_u32` / `next_u64` are a bounds check and a load, and their refills
//! run at bulk speed.
//!
//! ## Kernels
//!
//! Like the `chacha20` front, every generator is generic over its kernel:
//! [`ChaChaRng<R, K = Backend>`](ChaChaRng). The aliases use [`Backend`];
//! [`ChaChaRng::with_backend`] pins one of [`Backend::available`] and
//! [`ChaChaRng::with_kernel`] takes any [`Kernel`] (a backend module's own type, or a kernel
//! of your own). `SeedableRng` works for every kernel that is `Default`.
//!
//! ## The published crate's API, item by item
//!
//! | item of `chacha20` 0.10 (`rng` feature) | here |
//! |---|---|
//! | `ChaCha8Rng`, `ChaCha12Rng`, `ChaCha20Rng` | aliases of [`ChaChaRng`] with `Backend` |
//! | `SeedableRng` (`from_seed`, `seed_from_u64`, `from_rng`, `try_from_rng`, `fork`) | yes |
//! | `TryRng<Error = Infallible>` (so `Rng`), `TryCryptoRng` (so `CryptoRng`) | yes |
//! | `get_word_pos` / `set_word_pos` (`u128`, modulo 2^68) | yes, same values |
//! | `get_block_pos` / `set_block_pos` (`u64`) | yes; never panics after the counter wrapped (the published one did in debug builds) |
//! | `get_stream` / `set_stream` (resets the position to 0) | yes |
//! | `get_seed` | yes |
//! | `serialize_state` / `deserialize_state`, `SerializedRngState` (`[u8; 49]`), `Seed` | yes, the same bytes |
//! | `PartialEq`/`Eq` on (seed, stream, position) | yes |
//! | `Clone` | the published `chacha20` RNGs are *not* `Clone` (`rand_chacha`'s are); these are, an addition |
//! | `Debug` without the seed | yes (it shows rounds, kernel and position) |
//! | `ZeroizeOnDrop` (feature `zeroize`) | yes, buffer included |
//! | `ChaChaCore<R, V>` with `block::Generator`, `SeedableRng`, `get_block_pos`/`set_block_pos` (`V::Counter`) | [`ChaChaCore`] (what `rand`'s `ThreadRng` uses); its output is 16 blocks, not 4 (see its docs); it is not a `cipher` stream core here (the ciphers are `chacha20::ChaCha`) |
//! | `Rounds::COUNT` | yes: double rounds, as there (10 for `R20`); beside `DOUBLE_ROUNDS` and `ROUNDS` |
//! | user-defined `Rounds` (an `R4` of your own) | no: [`Rounds`] is sealed here (the SIMD backends are monomorphised and tested on `R8`, `R12`, `R20` only; an unsealed trait would promise every backend is right for any round count, which no test checks yet) |
//!
//! And `rand_chacha` 0.10's:
//!
//! | item of `rand_chacha` 0.10 | here |
//! |---|---|
//! | `ChaCha8Rng`, `ChaCha12Rng`, `ChaCha20Rng` (`SeedableRng`, `Rng`, `CryptoRng`, `get/set_word_pos`, `get_stream`, `get_seed`, `PartialEq`/`Eq`, `Clone`, `Debug`) | yes, the same output |
//! | `ChaCha8Core`, `ChaCha12Core`, `ChaCha20Core` (`Generator`, `SeedableRng`, `Clone`, `Debug`) | yes: aliases of [`ChaChaCore`] with `Legacy`; the output is 16 blocks per `generate`, not 4; not `PartialEq` |
//! | `set_stream` | different: `rand_chacha` keeps the word position, this crate resets it to 0 as the published `chacha20` 0.10.2 (whose RNGs `rand` 0.10 uses) does; call `set_word_pos` after `set_stream` for the same stream position in both |
//! | `From<ChaChaXCore> for ChaChaXRng` | yes, for every kernel: the generator goes on from the core's block, as `rand_chacha`'s does |
//! | `ChaChaRng` = `ChaCha20Rng`, `ChaChaCore` = `ChaCha20Core` (non-generic aliases) | no: here [`ChaChaRng<R, K>`](ChaChaRng) and [`ChaChaCore<R, V, K>`](ChaChaCore) are the generic types themselves, so `ChaChaRng::from_seed` needs the rounds named (`ChaCha20Rng::from_seed`); renaming them would break this crate's own API and the published `chacha20` crate's `ChaChaCore<R, V>` name |
//! | `serde` (`rand_chacha`'s feature) | feature `serde`: the abstract state `{seed, stream, word_pos}` in `rand_chacha`'s format |
//!
//! Deliberately different: `Debug` prints `ChaChaRng { rounds, kernel, word_pos, .. }`
//! rather than `ChaCha20Rng { ... }` (the position is not secret; the seed is never shown).
//!
//! ## Every core (feature `rayon`)
//!
//! `ChaChaRng::par_fill_bytes` fills one large buffer on every thread of rayon's current
//! pool: exactly `fill_bytes`'s bytes and word position afterwards. Fills shorter than
//! `par_min_len::<R>()` (2 MiB for ChaCha20Rng, the same time's worth for fewer rounds; a
//! quarter of it within 50 µs of the end of a fill that long) and one-thread pools take `fill_bytes`
//! itself. The feature needs
//! `std` (rayon's); without it the crate is `no_std` and has no rayon in its build.
//!
//! ## Zeroization (feature `zeroize`)
//!
//! Dropping a [`ChaChaRng`] wipes, with `zeroize` (a fill behind an optimization barrier the
//! compiler cannot remove), its state words (seed, stream, position) and its whole output
//! buffer ([`BUFFER_BLOCKS`] blocks); dropping a
//! [`ChaChaCore`] wipes its state, and `rand_core`'s `BlockRng` around it has the core wipe
//! the output buffer it holds (`Generator::drop`). `set_stream` wipes its temporary copy of
//! the seed (and the generator it replaces is dropped, so wiped); `serialize_state` and
//! `PartialEq` read the seed from the state without a copy; the serde state's seed is
//! wiped when it goes. Both types implement `zeroize::ZeroizeOnDrop` and not `Zeroize`: a
//! generator cannot fail, so a wiped one would go on from the all-zero state. The unit
//! tests check every field after the wipe that `drop` runs, on every backend.
//!
//! What no Rust code can wipe, and this crate does not try to: the copies in CPU
//! registers and stack spills that computing the output leaves; the old bytes of a
//! generator that was moved (only the place it is dropped from is wiped); the copies the
//! caller has — the seed passed in (`from_seed` takes it by value), the results of
//! `get_seed` and `serialize_state`, what a serde serializer wrote, a [`Clone`] (wiped when
//! it is dropped) and the output itself; and a generator never dropped.
#![no_std]
// docs.rs (`--cfg docsrs`, nightly): each item gated by a feature says which.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

mod generator;
mod rng;

pub use chacha_backends::Backend;
pub use chacha_core::{Ietf, Kernel, Legacy, R8, R12, R20, Rounds, Variant};
pub use generator::{ChaChaCore, GENERATE_BLOCKS};

pub use rand_core;
pub use rng::{BUFFER_BLOCKS, ChaChaRng, Seed, SerializedRngState};
#[cfg(feature = "rayon")]
pub use rng::{PAR_MIN_LEN, PAR_WARM_MIN_LEN, par_min_len};

/// ChaCha with 8 rounds as a random number generator.
pub type ChaCha8Rng = ChaChaRng<R8>;
/// ChaCha with 12 rounds as a random number generator: `rand`'s `StdRng`.
pub type ChaCha12Rng = ChaChaRng<R12>;
/// ChaCha with 20 rounds as a random number generator.
pub type ChaCha20Rng = ChaChaRng<R20>;

/// ChaCha8's block generator (`rand_chacha`'s `ChaCha8Core`): [`ChaChaCore`] with the
/// original layout, the stream of [`ChaCha8Rng`].
///
/// ```
/// use chacha_rng::rand_core::{Rng, SeedableRng};
/// use chacha_rng::{ChaCha8Core, ChaCha8Rng};
///
/// let mut rng = ChaCha8Rng::from(ChaCha8Core::from_seed([7; 32]));
/// assert_eq!(rng.next_u64(), ChaCha8Rng::from_seed([7; 32]).next_u64());
/// ```
pub type ChaCha8Core = ChaChaCore<R8, Legacy>;
/// ChaCha12's block generator (`rand_chacha`'s `ChaCha12Core`), the stream of [`ChaCha12Rng`].
pub type ChaCha12Core = ChaChaCore<R12, Legacy>;
/// ChaCha20's block generator (`rand_chacha`'s `ChaCha20Core`), the stream of [`ChaCha20Rng`].
pub type ChaCha20Core = ChaChaCore<R20, Legacy>;
