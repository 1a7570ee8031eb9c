//! [`Backend`]: which ISA module runs, chosen once, and the one path from a call to a kernel.
//!
//! Every compiled-in backend is a variant (`build.rs` says which are compiled in). A SIMD
//! variant carries its module's proof type, which only that module's `detect()` can create
//! after checking the CPU, so holding a `Backend` means it can run here.
//!
//! The backends are listed once, in the `backends!` table below: the enum, the probes
//! (fastest first), `name()`, `COMPILED`, [`Backend::with_kernel`] and `on_kernel!`, the
//! one `match` over the backends, all follow from it.
//!
//! How a call reaches a kernel, all in this file:
//!
//! 1. `impl Kernel for Backend`, inlined into the caller, hands the request to
//!    `counter::in_ietf_pieces` (an `Ietf` state as it is, a `Legacy` one as the RFC 8439
//!    pieces between its counter's carries) and picks the entry point of the call's round
//!    count (`by_rounds!`, a `match` on `R::DOUBLE_ROUNDS`). Both are known when the
//!    caller's generic code is instantiated, so the caller's crate holds one call (two
//!    across a carry) and compiles no kernel.
//! 2. The entry point (`entry::r20::xor`, …) is not generic, so it is compiled once, in
//!    this crate. It runs `on_kernel!`: the module's own `Kernel` method for the backend
//!    inside the `Backend`, with the rounds and the `Ietf` layout fixed.
//!
//! The operations without a round count (`batch_blocks`, `poly1305_blocks`) run
//! `on_kernel!` directly, and so do the AEAD steps other than ChaCha20-Poly1305's, compiled
//! in the caller's crate.

use core::fmt;

use crate::counter::in_ietf_pieces;
use chacha_core::{
    Aead, AeadDirection, Block, Ietf, Kernel, Rounds, State, Variant, XorBuf,
    poly1305::{Accumulator, MacBlock, TAG_LEN},
};

/// Code generic over the kernel type, run by [`Backend::with_kernel`] with the concrete
/// kernel inside a `Backend`: static dispatch from then on (tests and benches use it to
/// run one generic body on every backend type).
pub trait WithKernel {
    /// What the body returns.
    type Output;
    /// The body, monomorphised for each backend type (every one is a [`Kernel`] and an
    /// [`Aead`]).
    fn call<K: Aead>(self, kernel: K) -> Self::Output;
}

macro_rules! backends {
    ($( $(#[$doc:meta])* $name:literal => $module:ident :: $ty:ident, )+) => {
        /// A ChaCha implementation that this CPU can run: the default [`Kernel`] of the
        /// front crates.
        ///
        /// Get one from [`Backend::detect`] (the fastest, also [`Backend::default`]) or
        /// [`Backend::available`] (all of them), store it, and every call pays one
        /// predictable `match`. To skip even that, hold the module's kernel type itself
        /// (e.g. [`Soft`](crate::soft::Soft)) as the front's kernel parameter.
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Backend {
            $( $(#[$doc])* #[cfg(chacha_enabled = $name)] $ty(crate::$module::$ty), )+
        }

        /// `$body` with `$kernel` bound to the module's kernel inside `$backend`, as its
        /// own type: the one `match` over the backends, exhaustive in every build.
        macro_rules! on_kernel {
            ($backend:expr, |$kernel:ident| $body:expr) => {
                match $backend { $( #[cfg(chacha_enabled = $name)] Backend::$ty($kernel) => $body, )+ }
            };
        }

        /// The compiled-in backends' probes, fastest first.
        const PROBES: &[fn() -> Option<Backend>] = &[
            $( #[cfg(chacha_enabled = $name)] || crate::$module::$ty::detect().map(Backend::$ty), )+
        ];

        impl Backend {
            /// The first probe that says yes, fastest first: each is inlined, so on any
            /// CPU this is a few relaxed loads of the probes' caches.
            #[inline]
            fn fastest() -> Option<Backend> {
                $( #[cfg(chacha_enabled = $name)] if let Some(k) = crate::$module::$ty::detect() { return Some(Backend::$ty(k)); } )+
                #[allow(unreachable_code)] // every build but a pinned SIMD one ends with `soft`
                None
            }

            /// Every backend name this build knows, whether or not this CPU runs it,
            /// fastest first.
            pub const COMPILED: &'static [&'static str] = &[ $( #[cfg(chacha_enabled = $name)] $name, )+ ];

            /// The backend's name: its module, cfg value and bench id (`"soft"`, …).
            pub fn name(self) -> &'static str {
                match self { $( #[cfg(chacha_enabled = $name)] Backend::$ty(_) => $name, )+ }
            }
        }
    };
}

// The table: one line per backend, fastest first. The name is the module, the cfg value
// (`build.rs` lists the same names), `Backend::name()` and the bench id.
backends! {
    /// AVX-512F + VL + BW, x86 and x86_64: [`crate::avx512`].
    "avx512" => avx512::Avx512,
    /// AVX2 (x86, x86_64): [`crate::avx2`].
    "avx2" => avx2::Avx2,
    /// SSE2, x86 and x86_64: [`crate::sse2`].
    "sse2" => sse2::Sse2,
    /// NEON, little-endian aarch64: [`crate::neon`].
    "neon" => neon::Neon,
    /// WebAssembly SIMD, wasm32 built with `-C target-feature=+simd128`: [`crate::simd128`].
    "simd128" => simd128::Simd128,
    /// Portable Rust, every CPU: [`crate::soft`].
    "soft" => soft::Soft,
}

impl Backend {
    /// The fastest backend this CPU runs.
    ///
    /// Everything a probe reads of the CPU (CPUID, XGETBV) is read once per process and
    /// cached in statics, so after the first call this is a few relaxed atomic loads and
    /// executes no CPUID: cheap enough for every constructor ([`Default`] calls it), which
    /// matters on virtual machines, where CPUID traps to the hypervisor. A CI stage
    /// (`chacha-cpuid-guard`) fails if any constructor executes CPUID after the first.
    ///
    /// # Panics
    /// Only in a build pinned to one SIMD backend (`--cfg chacha_backend="…"`) running on a
    /// CPU without that instruction set: the pinned build has nothing else to run.
    #[inline]
    pub fn detect() -> Backend {
        match Self::fastest() {
            Some(backend) => backend,
            None => unsupported(),
        }
    }

    /// Every backend this CPU runs, fastest first. Tests, benches and fuzzers iterate it.
    /// The probes are the cached ones of [`detect`](Self::detect).
    pub fn available() -> impl Iterator<Item = Backend> + Clone {
        PROBES.iter().filter_map(|probe| probe())
    }

    /// The available backend called `name` (as [`Backend::name`] spells it); as cheap as
    /// [`available`](Self::available).
    pub fn by_name(name: &str) -> Option<Backend> {
        Self::available().find(|b| b.name() == name)
    }

    /// Runs `body` with the kernel inside this backend, as its own type.
    pub fn with_kernel<F: WithKernel>(self, body: F) -> F::Output {
        on_kernel!(self, |kernel| body.call(kernel))
    }
}

#[cold]
#[inline(never)]
fn unsupported() -> ! {
    panic!(
        "this build was pinned to the {:?} backend (--cfg chacha_backend) and this CPU cannot run it",
        Backend::COMPILED
    )
}

/// [`Backend::detect`]: a few cached loads, no CPUID after the first call in a process.
impl Default for Backend {
    #[inline]
    fn default() -> Self {
        Self::detect()
    }
}

/// The name only (`Backend(avx2)`): there is nothing else in it.
impl fmt::Debug for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Backend({})", self.name())
    }
}

/// `$call` with `$at` naming the entry-point module of `$r`'s round count (`entry::r8`,
/// `entry::r12`, `entry::r20`). A `match` on an associated constant is resolved when the
/// caller's generic code is instantiated, before any code is generated: the caller's crate
/// names one entry point.
macro_rules! by_rounds {
    ($r:ty, |$at:ident| $call:expr) => {
        match <$r as Rounds>::DOUBLE_ROUNDS {
            4 => {
                use entry::r8 as $at;
                $call
            }
            6 => {
                use entry::r12 as $at;
                $call
            }
            10 => {
                use entry::r20 as $at;
                $call
            }
            _ => unreachable!("`Rounds` is sealed: R8, R12 and R20 are all there is"),
        }
    };
}

/// The fronts' default kernel: each call goes to the entry point of its layout and rounds,
/// compiled once in this crate (see the module's header for the path).
impl Kernel for Backend {
    #[inline]
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, buf: XorBuf<'_, '_>, tail: &mut Block) {
        in_ietf_pieces(state, buf, |state, buf| by_rounds!(R, |at| at::xor(self, state, buf, tail)))
    }

    #[inline]
    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        in_ietf_pieces(state, out, |state, out| by_rounds!(R, |at| at::fill(self, state, out)))
    }

    #[inline]
    fn fill_batch<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        in_ietf_pieces(state, out, |state, out| by_rounds!(R, |at| at::fill_batch(self, state, out)))
    }

    #[inline]
    fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
        by_rounds!(R, |at| at::hchacha(self, key, input))
    }

    #[inline]
    fn batch_blocks(self) -> usize {
        on_kernel!(self, |kernel| kernel.batch_blocks())
    }
}

/// ChaCha20-Poly1305's steps: ChaCha20's one-pass steps go to their entry points (compiled
/// once, here); the reduced-round AEADs and the MAC alone to the kernel directly.
impl Aead for Backend {
    #[inline]
    fn poly1305_blocks(self, acc: &mut Accumulator, blocks: &[MacBlock]) {
        on_kernel!(self, |kernel| kernel.poly1305_blocks(acc, blocks))
    }

    #[inline]
    fn xor_then_mac<R: Rounds>(self, state: &State<Ietf>, acc: &mut Accumulator, buf: XorBuf<'_, '_>) {
        #[cfg(feature = "aead")]
        if const { is_chacha20::<R>() } {
            return entry::r20_aead::xor_then_mac(self, state, acc, buf);
        }
        on_kernel!(self, |kernel| kernel.xor_then_mac::<R>(state, acc, buf))
    }

    #[inline]
    fn mac_then_xor<R: Rounds>(self, state: &State<Ietf>, acc: &mut Accumulator, buf: XorBuf<'_, '_>) {
        #[cfg(feature = "aead")]
        if const { is_chacha20::<R>() } {
            return entry::r20_aead::mac_then_xor(self, state, acc, buf);
        }
        on_kernel!(self, |kernel| kernel.mac_then_xor::<R>(state, acc, buf))
    }

    #[inline]
    fn message<R: Rounds>(
        self,
        state: &State<Ietf>,
        direction: AeadDirection,
        aad: &[u8],
        buf: XorBuf<'_, '_>,
    ) -> [u8; TAG_LEN] {
        #[cfg(feature = "aead")]
        if const { is_chacha20::<R>() } {
            return entry::r20_aead::message(self, state, direction, aad, buf);
        }
        on_kernel!(self, |kernel| kernel.message::<R>(state, direction, aad, buf))
    }
}

/// Whether `R` is ChaCha20's: the AEAD with entry points of its own.
#[cfg(feature = "aead")]
const fn is_chacha20<R: Rounds>() -> bool {
    R::DOUBLE_ROUNDS == <chacha_core::R20 as Rounds>::DOUBLE_ROUNDS
}

/// The entry points: the kernels compiled once, here, for each round count, so
/// that a crate using the fronts compiles none of them again.
///
/// A generic function is compiled in the crate that names its type parameters, so a
/// generic kernel would be compiled in every user's crate, at every build of it; a function
/// that is neither generic nor `#[inline]` is compiled in its own crate, once. That costs
/// nothing at run time: the SIMD kernels are `#[target_feature]` functions, which never
/// inline into the caller anyway (DECISIONS.md, § Kernels compiled once).
///
/// The `avx512` and `sse2` kernels take the round count as an argument, so their code is
/// here once for all three round counts. `fill_batch` beside `fill`: the ciphers fill only
/// their short-call batches and a seek's block, and the x86 backends serve those from small
/// functions of their own, so a program without an RNG links none of the `fill` kernels.
mod entry {
    use chacha_core::{Block, Ietf, Kernel, R8, R12, R20, State, XorBuf};

    use super::Backend;

    /// One round count's entry points (`$module`), for the [`Ietf`] layout: the kernels
    /// compute no other. A `Legacy` request reaches them as `Ietf` pieces, cut at the carry
    /// by [`Backend`]'s `Kernel` impl (`crate::counter`).
    macro_rules! rounds {
        ($(#[$doc:meta])* $module:ident: $r:ty) => {
            $(#[$doc])*
            pub(super) mod $module {
                use super::*;

                /// [`Kernel::xor`] of every backend, for these rounds and the `Ietf` layout.
                #[inline(never)]
                pub(crate) fn xor(backend: Backend, state: &State<Ietf>, buf: XorBuf<'_, '_>, tail: &mut Block) {
                    on_kernel!(backend, |kernel| kernel.xor::<$r, Ietf>(state, buf, tail))
                }

                /// [`Kernel::fill`] of every backend, for these rounds and the `Ietf` layout.
                #[inline(never)]
                pub(crate) fn fill(backend: Backend, state: &State<Ietf>, out: &mut [Block]) {
                    on_kernel!(backend, |kernel| kernel.fill::<$r, Ietf>(state, out))
                }

                /// [`Kernel::fill_batch`] of every backend, for these rounds and the `Ietf`
                /// layout: the ciphers' only fills, so a program without an RNG links no
                /// `fill` of a backend whose `fill_batch` is a function of its own.
                #[inline(never)]
                pub(crate) fn fill_batch(backend: Backend, state: &State<Ietf>, out: &mut [Block]) {
                    on_kernel!(backend, |kernel| kernel.fill_batch::<$r, Ietf>(state, out))
                }

                /// [`Kernel::hchacha`] of every backend, for these rounds.
                #[inline(never)]
                pub(crate) fn hchacha(backend: Backend, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
                    on_kernel!(backend, |kernel| kernel.hchacha::<$r>(key, input))
                }
            }
        };
    }

    rounds!(
        /// ChaCha8's entry points.
        r8: R8
    );
    rounds!(
        /// ChaCha12's entry points.
        r12: R12
    );
    rounds!(
        /// ChaCha20's entry points.
        r20: R20
    );

    /// ChaCha20-Poly1305's one-pass steps, with the `aead` feature (which the
    /// `chacha20poly1305` front turns on): a program without an AEAD does not compile
    /// Poly1305's kernels. The kernels they reach that are also `xor`'s (`avx512::run`,
    /// `xor_avx2`, `xor_sse2`) are not `#[inline]`, so this module of its own emits no second
    /// copy of them.
    #[cfg(feature = "aead")]
    pub(super) mod r20_aead {
        use chacha_core::poly1305::{Accumulator, TAG_LEN};
        use chacha_core::{Aead, AeadDirection};

        use super::*;

        /// [`Aead::xor_then_mac`] of every backend, for ChaCha20.
        #[inline(never)]
        pub(crate) fn xor_then_mac(
            backend: Backend,
            state: &State<Ietf>,
            acc: &mut Accumulator,
            buf: XorBuf<'_, '_>,
        ) {
            on_kernel!(backend, |kernel| kernel.xor_then_mac::<R20>(state, acc, buf))
        }

        /// [`Aead::mac_then_xor`] of every backend, for ChaCha20.
        #[inline(never)]
        pub(crate) fn mac_then_xor(
            backend: Backend,
            state: &State<Ietf>,
            acc: &mut Accumulator,
            buf: XorBuf<'_, '_>,
        ) {
            on_kernel!(backend, |kernel| kernel.mac_then_xor::<R20>(state, acc, buf))
        }

        /// [`Aead::message`] of every backend, for ChaCha20.
        #[inline(never)]
        pub(crate) fn message(
            backend: Backend,
            state: &State<Ietf>,
            direction: AeadDirection,
            aad: &[u8],
            buf: XorBuf<'_, '_>,
        ) -> [u8; TAG_LEN] {
            on_kernel!(backend, |kernel| kernel.message::<R20>(state, direction, aad, buf))
        }
    }
}
