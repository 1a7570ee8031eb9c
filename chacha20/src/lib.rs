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
//! What every public constructor and method does with wrong lengths, zero lengths and
//! positions at and past every edge, on every cipher type (the tests run `ChaCha20`,
//! `ChaCha8`, `ChaCha20Legacy`, `ChaCha12Legacy`, `XChaCha20` and `XChaCha8`; `limits.rs` also
//! runs every backend and kernel type). Nothing else panics; a refused call leaves every
//! buffer and the position as they were. Tests are in `chacha20/tests/` unless they name
//! `chacha-rng`; the fuzz targets in `fuzz/` (`backends`, `cipher_api`, `rng`) run arbitrary
//! sequences of these calls against the reference.
//!
//! | input | what happens | test |
//! |---|---|---|
//! | [`KeyIvInit::new_from_slices`] with a key of other than 32 bytes or a nonce of other than 12 (`ChaCha*`), 8 (`*Legacy`) or 24 (`XChaCha*`) bytes, empty ones included | `Err(InvalidLength)` | `hostile.rs`: `new_from_slices_with_wrong_lengths_is_invalid_length` |
//! | `new`, `with_backend`, `with_kernel`, [`hchacha`] with any key, nonce or input (arrays: the type fixes the length) | a cipher / the subkey | `hostile.rs`: `every_key_and_input_is_valid_for_hchacha_and_the_constructors` |
//! | any zero-length call, at any position including the end | `Ok`, nothing moves | `hostile.rs`: `zero_length_calls_succeed_anywhere_even_at_the_end` |
//! | `try_apply_keystream`, `try_apply_keystream_b2b`, `try_write_keystream` needing one byte more than is left (a request crossing the end is refused whole) | `Err(StreamCipherError)` | `hostile.rs`: `calls_past_the_end_are_errors_or_the_documented_panic_before_any_write`; `limits.rs`: `ietf_…` / `legacy_last_block_is_usable_and_the_next_byte_is_refused` |
//! | `apply_keystream`, `apply_keystream_b2b`, `write_keystream`, `unchecked_apply_keystream`, `unchecked_write_keystream` past the end | panic "end of keystream reached" (as `cipher` documents), before any byte is written | `hostile.rs`: `calls_past_the_end_are_errors_or_the_documented_panic_before_any_write`; `limits.rs`: `apply_keystream_panics_at_the_end`, `unchecked_apply_still_refuses_to_reuse_keystream` |
//! | buffer-to-buffer with input and output of different lengths | `try_apply_keystream_b2b`: `Err(StreamCipherError)`; `unchecked_apply_keystream_b2b`: `Err(NotEqualError)`; `apply_keystream_b2b`: panic "Lengths of input and output buffers are not equal to each other!" (documented) | `hostile.rs`: `buffer_to_buffer_with_unequal_lengths_is_refused_and_touches_nothing` |
//! | `try_seek` exactly to the end | `Ok`; the next byte is refused | `hostile.rs`: `seeks_to_the_end_succeed_and_past_it_are_errors_up_to_u128_max`; `limits.rs` |
//! | `try_seek` past the end: end + 1, + 63, + 64, + 65, `u128::MAX`, and `u64::MAX` / `usize::MAX` on the 2^32-block types | `Err(StreamCipherError)`; `seek` panics "position value bigger than keystream length" (documented) | `hostile.rs`: `seeks_to_the_end_succeed_and_past_it_are_errors_up_to_u128_max` |
//! | `try_seek` to a negative `i32` | a multiple of 64: `Err(StreamCipherError)`; otherwise a panic "bs fits into u8" inside `cipher`'s `SeekNum` for `i32`, before this crate sees the position (the published crate does the same; not documented by `cipher`) | `hostile.rs`: `negative_i32_seeks_are_errors_or_panic_inside_cipher` |
//! | `try_current_pos::<T>` when the position does not fit `T` (`u32` / `i32` past 2^32 / 2^31 bytes, `u64` at 2^70) | `Err(OverflowError)`; `current_pos` panics "position cannot be represented by `T`" (documented); every position that fits is given, up to `T::MAX` | `hostile.rs`: `positions_that_do_not_fit_the_asked_type_are_overflow_errors`; `limits.rs`: `positions_that_do_not_fit_the_asked_type_are_errors`, `every_position_that_fits_the_asked_type_is_reported` |
//! | `remaining()` at the end | 0 | `hostile.rs`: `remaining_counts_to_zero_at_the_end` |
//! | `Backend::by_name` of an unknown name | `None` | `hostile.rs`: `backend_by_name_is_none_for_unknown_names` |
//! | RNG `set_word_pos` at or past 2^68 words, up to `u128::MAX` | taken modulo 2^68 (no panic) | `chacha-rng` `hostile.rs`: `word_positions_past_2_pow_68_are_taken_modulo_2_pow_68`; `vectors.rs`: `word_positions_wrap_at_2_pow_68_without_panicking` |
//! | RNG `next_u32` / `next_u64` / `fill_bytes` across the last word of the stream | wraps to word 0, as the published crate | `chacha-rng` `hostile.rs`: `short_fills_across_the_wrap`; `vectors.rs`: `pyca_counter_overflow_vector_9_wraps_after_block_2_pow_64_minus_1` |
//! | RNG `fill_bytes(&mut [])` at any position | nothing moves | `chacha-rng` `hostile.rs`: `zero_length_fills_never_move_the_position` |
//! | RNG `set_block_pos(u64::MAX)`, block 2^32 - 1 | that block; the counter carries | `chacha-rng` `hostile.rs`: `block_positions_at_u64_max_and_the_32_bit_carry`; `vectors.rs`: `pyca_counter_overflow_vector_8_carries_past_2_pow_32` |
//! | RNG `set_stream(u64::MAX)` | that stream, position 0 | `chacha-rng` `hostile.rs`: `set_stream_at_the_extremes_resets_the_position` |
//! | RNG `deserialize_state` of any 49 bytes | a generator; the 4 position bits above 2^68 are ignored | `chacha-rng` `hostile.rs`: `any_serialized_state_deserializes_and_high_position_bits_are_dropped` |
//! | RNG serde input with `word_pos` ≥ 2^68, or malformed (short seed, negative numbers, missing fields) | masked modulo 2^68; malformed: a serde error | `chacha-rng` `hostile.rs`: `serde_masks_out_of_range_positions_and_rejects_malformed_input` (feature `serde`) |
//! | `ChaChaCore` at block `u32::MAX` (`Ietf`) or `u64::MAX` (`Legacy`), then `generate` | wraps to block 0 (the published crate's getter once panicked here) | `chacha-rng` `hostile.rs`: `cores_wrap_at_the_end_of_their_counter_without_panicking` |
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
           [`Nonce`]: #features\n[`KeyIvInit::new`]: #features\n[`KeyIvInit::new_from_slices`]: #features\n\
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
pub use chacha::{BATCH, ChaCha, NonceSize};
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
