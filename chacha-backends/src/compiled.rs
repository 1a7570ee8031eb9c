//! The kernels compiled once, here, for each rounds × layout pair, behind entry points
//! that are not generic: what [`Backend`]'s [`Kernel`] impl calls, so that a crate using
//! the fronts compiles none of the kernels again.
//!
//! A generic function is compiled in the crate that names its type parameters, so a
//! generic kernel is compiled in every user's crate, at every build of it (a release
//! rebuild of a 54-line program took 6.4 s for that, the published crate's 0.76 s). A
//! function that is not generic (and not `#[inline]`) is compiled in its own crate once,
//! and a user's crate only calls it. That costs nothing at run time: the SIMD kernels are
//! `#[target_feature]` functions, which never inlined into the caller anyway; the call
//! here only adds one direct call before them (`ab.sh` measured no difference, figures in
//! DECISIONS.md, § Kernels compiled once).
//!
//! The `avx512` and `sse2` kernels take the round count as an argument, so their code is
//! here once for all three round counts (`avx2` and the others still once per count).
//! Each round count is a module of its own (`r20_ietf`, …, made by `rounds!`) with the
//! [`Kernel`] methods; each function is a `match` over the compiled-in backends (the
//! [`Generic`] kernel) with `R` and `V` fixed. The [`Legacy`] entry points run the
//! [`Ietf`] kernels (`rounds!` says how), so only those are compiled. HChaCha per round
//! count. `fill_batch` beside `fill`: the ciphers fill only their short-call batches and a
//! seek's block, and the x86 backends serve those from small functions of their own, so a
//! program without an RNG links none of the `fill` kernels. The AEAD's one-pass steps with
//! the `aead` feature only, for ChaCha20 and the `Ietf` layout (`r20_aead`:
//! ChaCha20-Poly1305's). Only the pairs a program uses are
//! linked into it: the dispatch in [`Backend`] names one entry point per call, chosen by
//! constants.
//!
//! [`Kernel`]: chacha_core::Kernel
//! [`Generic`]: crate::backend::Generic
//! [`Legacy`]: chacha_core::Legacy
//! [`Ietf`]: chacha_core::Ietf

#[cfg(feature = "aead")]
use chacha_core::poly1305::Accumulator;
use chacha_core::{BLOCK_LEN, Block, Ietf, Kernel, Legacy, R8, R12, R20, State, StateRef, Variant, XorBuf};

use crate::backend::{Backend, Generic};

/// One round count's entry points, in one module (`$ietf`) for both layouts, and a module
/// (`$legacy`) that names the [`Legacy`] ones as `route!` calls them.
///
/// The `Legacy` entry points run the [`Ietf`] kernels of the same rounds: between carries
/// from word 12 into word 13 a 64-bit counter's stream is a 32-bit counter's (see
/// [`State::ietf_piece`]), so a request runs as one `Ietf` piece, or as two when it crosses
/// a carry (once in 2^32 blocks). The kernels' own `Legacy` code is not compiled here: half
/// the code to compile and to link into a program that uses both layouts, for a copy of the
/// state per call on the `Legacy` side. Both layouts' functions are in one module, so in one
/// codegen unit: an `#[inline]` kernel that stays out of line (`avx512::run`, a
/// `#[target_feature]` function) is emitted once, not once per module that calls it
/// (DECISIONS.md, § Kernels compiled once).
macro_rules! rounds {
    ($(#[$doc:meta])* $ietf:ident, $legacy:ident: $r:ty) => {
        $(#[$doc])*
        pub(crate) mod $ietf {
            use super::*;

            /// [`Kernel::xor`] of every backend, for these rounds and the `Ietf` layout.
            #[inline(never)]
            pub(crate) fn xor(backend: Backend, state: &State<Ietf>, buf: XorBuf<'_, '_>, tail: &mut Block) {
                Generic(backend).xor::<$r, Ietf>(state, buf, tail)
            }

            /// [`Kernel::fill`] of every backend, for these rounds and the `Ietf` layout.
            #[inline(never)]
            pub(crate) fn fill(backend: Backend, state: &State<Ietf>, out: &mut [Block]) {
                Generic(backend).fill::<$r, Ietf>(state, out)
            }

            /// [`Kernel::fill_batch`] of every backend, for these rounds and the `Ietf`
            /// layout: the ciphers' only fills, so a program without an RNG links no
            /// `fill` of a backend whose `fill_batch` is a function of its own.
            #[inline(never)]
            pub(crate) fn fill_batch(backend: Backend, state: &State<Ietf>, out: &mut [Block]) {
                Generic(backend).fill_batch::<$r, Ietf>(state, out)
            }

            /// [`Kernel::xor`] of every backend, for these rounds and the `Legacy` layout.
            #[inline(never)]
            pub(crate) fn legacy_xor(
                backend: Backend,
                state: &State<Legacy>,
                buf: XorBuf<'_, '_>,
                tail: &mut Block,
            ) {
                if buf.len().div_ceil(BLOCK_LEN) as u64 <= state.blocks_before_carry() {
                    Generic(backend).xor::<$r, Ietf>(&state.ietf_piece_here(), buf, tail)
                } else {
                    legacy_xor_across_carry(backend, state, buf, tail)
                }
            }

            /// [`legacy_xor`] of a request that crosses a carry: two pieces.
            #[cold]
            #[inline(never)]
            fn legacy_xor_across_carry(
                backend: Backend,
                state: &State<Legacy>,
                buf: XorBuf<'_, '_>,
                tail: &mut Block,
            ) {
                let kernel = Generic(backend);
                let (piece, blocks, next) = across_carry(state);
                let (mut first, rest) = buf.split_at(blocks * BLOCK_LEN);
                kernel.xor::<$r, Ietf>(&piece, first.reborrow(), tail);
                kernel.xor::<$r, Ietf>(&next, rest, tail);
            }

            /// [`Kernel::fill`] of every backend, for these rounds and the `Legacy` layout.
            #[inline(never)]
            pub(crate) fn legacy_fill(backend: Backend, state: &State<Legacy>, out: &mut [Block]) {
                if out.len() as u64 <= state.blocks_before_carry() {
                    Generic(backend).fill::<$r, Ietf>(&state.ietf_piece_here(), out)
                } else {
                    legacy_fill_across_carry(backend, state, out)
                }
            }

            /// [`legacy_fill`] of a request that crosses a carry: two pieces.
            #[cold]
            #[inline(never)]
            fn legacy_fill_across_carry(backend: Backend, state: &State<Legacy>, out: &mut [Block]) {
                let kernel = Generic(backend);
                let (piece, blocks, next) = across_carry(state);
                let (first, rest) = out.split_at_mut(blocks);
                kernel.fill::<$r, Ietf>(&piece, first);
                kernel.fill::<$r, Ietf>(&next, rest);
            }

            /// [`Kernel::fill_batch`] of every backend, for these rounds and the `Legacy`
            /// layout.
            #[inline(never)]
            pub(crate) fn legacy_fill_batch(backend: Backend, state: &State<Legacy>, out: &mut [Block]) {
                if out.len() as u64 <= state.blocks_before_carry() {
                    Generic(backend).fill_batch::<$r, Ietf>(&state.ietf_piece_here(), out)
                } else {
                    legacy_fill_batch_across_carry(backend, state, out)
                }
            }

            /// [`legacy_fill_batch`] of a request that crosses a carry: two pieces.
            #[cold]
            #[inline(never)]
            fn legacy_fill_batch_across_carry(backend: Backend, state: &State<Legacy>, out: &mut [Block]) {
                let kernel = Generic(backend);
                let (piece, blocks, next) = across_carry(state);
                let (first, rest) = out.split_at_mut(blocks);
                kernel.fill_batch::<$r, Ietf>(&piece, first);
                kernel.fill_batch::<$r, Ietf>(&next, rest);
            }
        }

        /// The [`Legacy`] layout's entry points of
        #[doc = concat!("[`", stringify!($ietf), "`](", stringify!($ietf), "), as `route!` names them.")]
        pub(crate) mod $legacy {
            pub(crate) use super::$ietf::{legacy_fill as fill, legacy_fill_batch as fill_batch, legacy_xor as xor};
        }
    };
}

rounds!(
    /// ChaCha8: the [`Ietf`] layout's entry points, and the [`Legacy`] layout's on them.
    r8_ietf, r8_legacy: R8
);
rounds!(
    /// ChaCha12: the [`Ietf`] layout's entry points, and the [`Legacy`] layout's on them.
    r12_ietf, r12_legacy: R12
);
rounds!(
    /// ChaCha20: the [`Ietf`] layout's entry points, and the [`Legacy`] layout's on them.
    r20_ietf, r20_legacy: R20
);

/// ChaCha20-Poly1305's one-pass steps, with the `aead` feature (which the
/// `chacha20poly1305` front turns on): a program without an AEAD does not compile
/// Poly1305's kernels (this crate's release build 2.7 s → 2.3 s). The kernels they reach
/// that are also `xor`'s (`avx512::run`, `xor_avx2`, `xor_sse2`) are not `#[inline]`, so
/// this module of its own emits no second copy of them. The reduced-round AEADs
/// (ChaCha8/12-Poly1305) run [`Generic`]'s, compiled in the caller.
#[cfg(feature = "aead")]
pub(crate) mod r20_aead {
    use super::*;

    /// [`Kernel::xor_then_mac`] of every backend, for ChaCha20 and the `Ietf` layout.
    #[inline(never)]
    pub(crate) fn xor_then_mac(
        backend: Backend,
        state: &State<Ietf>,
        acc: &mut Accumulator,
        buf: XorBuf<'_, '_>,
    ) {
        Generic(backend).xor_then_mac::<R20, Ietf>(state, acc, buf)
    }

    /// [`Kernel::mac_then_xor`] of every backend, for ChaCha20 and the `Ietf` layout.
    #[inline(never)]
    pub(crate) fn mac_then_xor(
        backend: Backend,
        state: &State<Ietf>,
        acc: &mut Accumulator,
        buf: XorBuf<'_, '_>,
    ) {
        Generic(backend).mac_then_xor::<R20, Ietf>(state, acc, buf)
    }
}

/// The two [`Ietf`] pieces of a [`Legacy`] request that crosses a carry (the caller checked
/// it does): the piece from the state's counter, the blocks before the carry (fewer than the
/// request's, so a `usize`), and the piece from the carry on. (The request fits in the
/// stream, so the carry is not the end of it.)
#[inline(always)]
fn across_carry(state: &State<Legacy>) -> (State<Ietf>, usize, State<Ietf>) {
    let before_carry = state.blocks_before_carry();
    let next = state.ietf_piece(state.counter().wrapping_add(before_carry));
    (state.ietf_piece_here(), before_carry as usize, next)
}

/// [`Kernel::hchacha`] of every backend with 8 rounds.
#[inline(never)]
pub(crate) fn hchacha_r8(backend: Backend, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
    Generic(backend).hchacha::<R8>(key, input)
}

/// [`Kernel::hchacha`] of every backend with 12 rounds.
#[inline(never)]
pub(crate) fn hchacha_r12(backend: Backend, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
    Generic(backend).hchacha::<R12>(key, input)
}

/// [`Kernel::hchacha`] of every backend with 20 rounds.
#[inline(never)]
pub(crate) fn hchacha_r20(backend: Backend, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
    Generic(backend).hchacha::<R20>(key, input)
}

/// `state` as the [`Ietf`] state it is; for a `V` with one counter word.
#[inline(always)]
pub(crate) fn ietf<V: Variant>(state: &State<V>) -> &State<Ietf> {
    match state.layout() {
        StateRef::Ietf(state) => state,
        StateRef::Legacy(_) => unreachable!("a layout with one counter word is Ietf"),
    }
}

/// `state` as the [`Legacy`] state it is; for a `V` with two counter words.
#[inline(always)]
pub(crate) fn legacy<V: Variant>(state: &State<V>) -> &State<Legacy> {
    match state.layout() {
        StateRef::Legacy(state) => state,
        StateRef::Ietf(_) => unreachable!("a layout with two counter words is Legacy"),
    }
}

/// Picks the entry point of `V` and `R` for an operation, by constants: `match` on an
/// associated constant is resolved when the caller's generic code is instantiated, before
/// any code is generated, so the caller's crate holds one call and names one entry point.
/// `$pair` is bound to the pair's module and `$state` to the state as its layout's type
/// in `$call`; a pair not compiled here (a round count of another `Rounds` type) runs
/// `$fallback`, the generic kernel.
macro_rules! route {
    ($r:ty, $v:ty, $s:expr, |$pair:ident, $state:ident| $call:expr, $fallback:expr) => {
        match <$v as chacha_core::Variant>::COUNTER_WORDS {
            1 => {
                let $state = $crate::compiled::ietf($s);
                route!(@rounds $r, [r8_ietf, r12_ietf, r20_ietf], |$pair| $call, $fallback)
            }
            _ => {
                let $state = $crate::compiled::legacy($s);
                route!(@rounds $r, [r8_legacy, r12_legacy, r20_legacy], |$pair| $call, $fallback)
            }
        }
    };
    (@rounds $r:ty, [$r8:ident, $r12:ident, $r20:ident], |$pair:ident| $call:expr, $fallback:expr) => {
        match <$r as chacha_core::Rounds>::DOUBLE_ROUNDS {
            4 => {
                use $crate::compiled::$r8 as $pair;
                $call
            }
            6 => {
                use $crate::compiled::$r12 as $pair;
                $call
            }
            10 => {
                use $crate::compiled::$r20 as $pair;
                $call
            }
            _ => $fallback,
        }
    };
}
pub(crate) use route;
