//! # chacha20
//!
//! ChaCha20, ChaCha12 and ChaCha8 (RFC 8439), XChaCha20/12/8 and the original
//! 64-bit-counter variants, with the RustCrypto [`cipher`] 0.5 API and the published
//! `chacha20` crate's names: switch by changing one line of Cargo.toml, keep your code,
//! get the same bytes, faster.
//!
//! ```
//! use chacha20::ChaCha20;
//! use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
//!
//! let key = [0x42; 32];
//! let nonce = [0x24; 12];
//! let plaintext = *b"hello, world: one message, any length";
//!
//! let mut cipher = ChaCha20::new(&key.into(), &nonce.into());
//! let mut buffer = plaintext;
//! cipher.apply_keystream(&mut buffer); // encrypt in place
//! assert_ne!(buffer, plaintext);
//!
//! cipher.seek(0u32); // back to the start of the keystream
//! cipher.apply_keystream(&mut buffer); // decrypt: XOR again
//! assert_eq!(buffer, plaintext);
//! ```
//!
//! ## Types
//!
//! | type | nonce | block counter | keystream |
//! |---|---|---|---|
//! | [`ChaCha20`], [`ChaCha12`], [`ChaCha8`] | 12 bytes ([`Nonce`]) | 32 bits | 2^32 blocks = 256 GiB |
//! | [`ChaCha20Legacy`], [`ChaCha12Legacy`], [`ChaCha8Legacy`] (feature `legacy`) | 8 bytes ([`LegacyNonce`]) | 64 bits | 2^64 blocks |
//! | [`XChaCha20`], [`XChaCha12`], [`XChaCha8`] (feature `xchacha`) | 24 bytes ([`XNonce`]) | 64 bits | 2^64 blocks |
//!
//! XChaCha gives libsodium's XChaCha20 bytes over its whole stream, and the published
//! crate's for the first 2^32 blocks (where that crate stops).
//!
//! ## The end of the keystream
//!
//! Every block of a stream is usable, including the last (counter `0xFFFF_FFFF` for
//! [`ChaCha20`]); one byte more and [`StreamCipher::try_apply_keystream`] returns
//! [`StreamCipherError`] with the buffer untouched,
//! [`StreamCipher::apply_keystream`] panics as the `cipher` API documents, and seeking past
//! the end is an error. Keystream is never reused: the `unchecked_*` methods of
//! [`StreamCipher`] panic at the end too, before writing anything.
//!
//! ## Hostile inputs
//!
//! Wrong key or nonce lengths are `Err(InvalidLength)`; zero-length calls succeed anywhere,
//! even at the end of the stream; a request that would cross the end is refused whole
//! before any byte is written (`try_*` and `try_seek`: `Err(StreamCipherError)`; the other
//! calls panic as the `cipher` API documents); a position that does not fit the asked type
//! is `Err(OverflowError)`. Nothing else panics, and a refused call leaves every buffer and
//! the position as they were. One panic is `cipher`'s own, before this crate sees the
//! call: `try_seek` to a negative `i32` that is not a multiple of 64. The generators (feature
//! `rng`) take word positions modulo 2^68 and start their stream again after its last word,
//! as the published crate's do. Every case, with the test that checks it, is tabled in this
//! crate's `tests/README.md`.
//!
//! ## Backends
//!
//! [`KeyIvInit::new`] runs on [`Backend::detect`], the fastest backend this CPU supports
//! (detected once per process). `with_backend` pins one of [`Backend::available`]; the
//! backend names and the build flag that compiles exactly one are listed in the
//! `chacha-backends` README.
//!
//! Every cipher type is generic over its kernel: `ChaCha<R, V, K: Kernel = Backend>` and
//! `XChaCha<R, K = Backend>`. The aliases use [`Backend`]; [`ChaCha::with_kernel`] takes
//! any [`Kernel`] value — a backend module's own type from [`backends`] (static dispatch)
//! or a kernel of your own — and `KeyIvInit::new` works for every kernel that is
//! `Default`. The end of the stream is enforced by `chacha-core` for every kernel.
//!
//! ```
//! use chacha20::{Backend, ChaCha20};
//! use chacha20::cipher::StreamCipher;
//!
//! for backend in Backend::available() {
//!     let mut cipher = ChaCha20::with_backend(&[1; 32], &[2; 12], backend);
//!     let mut buf = [0u8; 100];
//!     cipher.apply_keystream(&mut buf);
//! }
//! ```
//!
//! ## The published crate's API, item by item
//!
//! Everything of `chacha20` 0.10.2's public API, and where it is here (this crate's version
//! is in the 0.10 series so that `[patch.crates-io]` can put it under `rand` and
//! `chacha20poly1305`; the workspace README's "Use it everywhere" shows how):
//!
//! `tests/published_api.rs` names every item of this table that is the same, in one body
//! compiled against the published crate and against this one, and compares the output byte
//! for byte; the rows that differ are left out of it by name.
//!
//! | published 0.10.2 | here |
//! |---|---|
//! | `ChaCha20`, `ChaCha12`, `ChaCha8`, `Key`, `Nonce`, `KeyIvInit`, `cipher` | the same names; `KeyIvInit + StreamCipher + StreamCipherSeek` as there |
//! | `cipher::StreamCipherCoreWrapper` (`cipher`'s `stream-wrapper` feature, which the published crate turns on) | the same: the feature is on here too, for cores of your own |
//! | `ChaCha20Legacy`, `LegacyNonce` (`legacy`) | the same; plus `ChaCha12Legacy`, `ChaCha8Legacy` |
//! | `XChaCha20`, `XChaCha12`, `XChaCha8`, `XNonce`, `hchacha` (`xchacha`) | the same; XChaCha also keeps going past 2^32 blocks (libsodium's stream) |
//! | `R8`, `R12`, `R20`, `Rounds` | the same markers |
//! | `Rounds::COUNT` | the same: **double rounds, as the published crate's** (10 for `R20`); beside it `DOUBLE_ROUNDS` (the same) and `ROUNDS` (20) |
//! | a `Rounds` of your own (the published trait is open: an `R4` compiles there) | not possible: [`Rounds`] is sealed here. The SIMD backends are monomorphised on `R` and tested against the reference for 8, 12 and 20 rounds only; opening the trait would promise every backend is right for any round count, which no test checks yet |
//! | `variants::{Ietf, Legacy, Variant}` | the same, with `Variant::Counter` (`u32` / `u64`); sealed, as there |
//! | `Variant::get_block_pos(row)`, `set_block_pos(row, pos)`, `remaining_blocks(pos)` | the same functions and values |
//! | `ChaCha8Rng`, `ChaCha12Rng`, `ChaCha20Rng`, `Seed`, `SerializedRngState`, `rand_core` (`rng`) | the same API and output, from `chacha-rng` |
//! | `ChaChaCore<R, V>` as `rand_core::block::Generator` + `SeedableRng`, `get_block_pos`/`set_block_pos` (`rng`) | `ChaChaCore` from `chacha-rng`: 16 blocks per `generate` instead of 4 (`rand` reads the size from the type) |
//! | `ChaChaCore<R, V>`, `ChaCha20LegacyCore`, `XChaChaCore<R>` as `cipher` block-level cores (`KeyIvInit`, `StreamCipherCore`, `StreamCipherSeekCore`) under `StreamCipherCoreWrapper`, and the wrapper's `.get_core()` | not here: the cipher types are [`ChaCha`] / [`XChaCha`] themselves, which XOR whole requests in one kernel call instead of block by block, so there is no core to get; `ChaChaCore` is here the `rand_core` block generator only (`rand`'s `ThreadRng` names it, as `BlockRng<ChaChaCore<R12, Legacy>>`); nothing in `rand` or `chacha20poly1305` names the cipher cores (`XChaChaCore` cannot be named outside the published crate) |
//! | `ChaChaCore::<R, Ietf>::from_seed` | panics there (an 8-byte nonce in the 12-byte layout); here the zero-nonce RFC 8439 stream |
//! | `zeroize` feature (`ZeroizeOnDrop`) | the same for the RNGs and `ChaChaCore`; the ciphers here implement it too, where the published `StreamCipherCoreWrapper` does not (that takes `cipher`'s own `zeroize` feature, which the published crate leaves off; its cores wipe on drop either way) |
//! | `--cfg chacha20_backend="soft|sse2|avx2|avx512"`, `--cfg chacha20_avx512` | the same flags: `chacha20_backend` pins that one backend (as `--cfg chacha_backend="…"`, see `chacha-backends`), without needing `-C target-feature`; `chacha20_avx512` is accepted, and AVX-512 needs no opt-in here |
//!
//! ## Features
//!
//! `cipher` (default): the stream ciphers; `legacy`: the 8-byte-nonce types; `xchacha`:
//! XChaCha and [`hchacha`]; `rng`: the `chacha-rng` generators `ChaCha8Rng`, `ChaCha12Rng`,
//! `ChaCha20Rng` and `rand_core` (builds without `cipher`); `zeroize`: wipe key state and
//! buffered keystream on drop (`zeroize::ZeroizeOnDrop`). The same names as the published
//! crate's. One more, not in the published crate: `rayon` (needs `std`), the parallel
//! calls below.
//!
//! ## Every core (feature `rayon`)
//!
//! ChaCha's keystream is seekable, so one large buffer can be encrypted on several cores
//! at once. `par_apply_keystream`, `try_par_apply_keystream`, `par_apply_keystream_b2b` and
//! `try_par_apply_keystream_b2b` on [`ChaCha`] and [`XChaCha`] (and the RNGs'
//! `par_fill_bytes`, with `rng`) give exactly the bytes, the position, the buffered
//! keystream and the end-of-stream errors of the sequential calls, with the whole blocks
//! of the request cut at block boundaries and spread over rayon's current pool. Requests
//! shorter than `par_min_len::<R>()` (2 MiB for ChaCha20, the same time's worth for fewer
//! rounds; a quarter of it within 50 µs of the end of a request that long, so a buffer
//! encrypted in chunks of 512 KiB or more, back to back, splits every chunk after the
//! first) and
//! one-thread pools take the sequential call.
//!
//! ## Zeroization (feature `zeroize`)
//!
//! Dropping a cipher ([`ChaCha`] and its aliases, [`XChaCha`], the `Legacy` types) wipes,
//! with `zeroize` (a fill behind an optimization barrier the compiler cannot remove),
//! everything it holds that depends on the key: the 16 state words (key, nonce, counter;
//! the wiped state is at the end of its stream) and every byte of its keystream buffer (the
//! rest of a partial block and the blocks a short call batched ahead). `XChaCha` holds its HChaCha subkey only in that state; the temporary
//! subkey it was made from is wiped as soon as the state is built. The types implement
//! `zeroize::ZeroizeOnDrop`, as the published crate's do, and not `Zeroize`: a wiped
//! cipher can only refuse to go on, so the time to wipe it is its drop. The unit tests
//! check every field after the wipe that `drop` runs, on every backend.
//!
//! What no Rust code can wipe, and this crate does not try to:
//! - copies in CPU registers and stack spills: the kernels load the state and compute the
//!   keystream in vector or general-purpose registers, and the compiler may spill them
//!   to the stack, where they stay until overwritten;
//! - moves: a cipher moved (returned from a function, put in a `Box` or a `Vec` that then
//!   grows) leaves its old bytes behind, unwiped; only the place it is dropped from is
//!   wiped (pin it, or keep it where it was made, if that matters);
//! - copies the caller made: the key and nonce arrays passed in, a [`Clone`] of the cipher
//!   (wiped when *it* is dropped), the output of [`hchacha`], and the keystream or
//!   ciphertext written into the caller's buffers;
//! - a cipher never dropped (`mem::forget`, a leaked `Box`, a process that aborts).
//!
// Links of the docs above to items behind a feature that this build leaves off go to the
// list of features instead (every feature set documents without a broken link; docs.rs
// builds with all of them).
#![cfg_attr(feature = "cipher", doc = "[`StreamCipherError`]: cipher::StreamCipherError")]
#![cfg_attr(
    not(feature = "cipher"),
    doc = "[`StreamCipherError`]: #features\n[`cipher`]: #features\n[`ChaCha`]: #features\n[`ChaCha::with_kernel`]: #features\n\
           [`ChaCha20`]: #features\n[`ChaCha12`]: #features\n[`ChaCha8`]: #features\n\
           [`Nonce`]: #features\n[`KeyIvInit::new`]: #features\n\
           [`StreamCipher`]: #features\n[`StreamCipher::apply_keystream`]: #features\n\
           [`StreamCipher::try_apply_keystream`]: #features"
)]
#![cfg_attr(
    not(feature = "legacy"),
    doc = "[`ChaCha20Legacy`]: #features\n[`ChaCha12Legacy`]: #features\n[`ChaCha8Legacy`]: #features\n\
           [`LegacyNonce`]: #features"
)]
#![cfg_attr(
    not(feature = "xchacha"),
    doc = "[`XChaCha`]: #features\n[`XChaCha20`]: #features\n[`XChaCha12`]: #features\n\
           [`XChaCha8`]: #features\n[`XNonce`]: #features\n[`hchacha`]: #features"
)]
#![no_std]
// docs.rs (`--cfg docsrs`, nightly): each item gated by a feature says which.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

#[cfg(feature = "cipher")]
mod chacha;
#[cfg(feature = "xchacha")]
mod xchacha;

pub use chacha_backends::{self as backends, Backend};
pub use chacha_core::{Ietf, Legacy, Variant};
pub use chacha_core::{Kernel, R8, R12, R20, Rounds};

#[cfg(feature = "cipher")]
pub use chacha::{ChaCha, MAX_BATCH_BLOCKS, NonceSize};
#[cfg(feature = "rayon")]
pub use chacha::{PAR_MIN_LEN, PAR_WARM_MIN_LEN, par_min_len};
#[cfg(feature = "cipher")]
pub use cipher::{self, KeyIvInit, StreamCipher, StreamCipherSeek};
#[cfg(feature = "xchacha")]
pub use xchacha::{XChaCha, XNonce, hchacha};
#[cfg(feature = "zeroize")]
pub use zeroize;

#[cfg(feature = "rng")]
#[doc(inline)]
pub use chacha_rng::{
    ChaCha8Rng, ChaCha12Rng, ChaCha20Rng, ChaChaCore, ChaChaRng, Seed, SerializedRngState, rand_core,
};

/// The counter/nonce layouts, where the published crate has them.
pub mod variants {
    pub use chacha_core::{Ietf, Legacy, Variant};
}

/// A 32-byte ChaCha key.
#[cfg(feature = "cipher")]
pub type Key = cipher::array::Array<u8, cipher::consts::U32>;
/// The 12-byte RFC 8439 nonce.
#[cfg(feature = "cipher")]
pub type Nonce = cipher::array::Array<u8, cipher::consts::U12>;
/// The 8-byte nonce of the original layout.
#[cfg(feature = "legacy")]
pub type LegacyNonce = cipher::array::Array<u8, cipher::consts::U8>;

/// ChaCha20 (RFC 8439): 12-byte nonce, 32-bit block counter.
#[cfg(feature = "cipher")]
pub type ChaCha20 = ChaCha<R20, Ietf>;
/// ChaCha12: 12 rounds, RFC 8439 layout.
#[cfg(feature = "cipher")]
pub type ChaCha12 = ChaCha<R12, Ietf>;
/// ChaCha8: 8 rounds, RFC 8439 layout.
#[cfg(feature = "cipher")]
pub type ChaCha8 = ChaCha<R8, Ietf>;

/// ChaCha20 in the original layout: 8-byte nonce, 64-bit block counter.
#[cfg(feature = "legacy")]
pub type ChaCha20Legacy = ChaCha<R20, Legacy>;
/// ChaCha12 in the original layout.
#[cfg(feature = "legacy")]
pub type ChaCha12Legacy = ChaCha<R12, Legacy>;
/// ChaCha8 in the original layout.
#[cfg(feature = "legacy")]
pub type ChaCha8Legacy = ChaCha<R8, Legacy>;

/// XChaCha20: 24-byte nonce through HChaCha20, 64-bit block counter.
#[cfg(feature = "xchacha")]
pub type XChaCha20 = XChaCha<R20>;
/// XChaCha12.
#[cfg(feature = "xchacha")]
pub type XChaCha12 = XChaCha<R12>;
/// XChaCha8.
#[cfg(feature = "xchacha")]
pub type XChaCha8 = XChaCha<R8>;
