//! [`Backend`]: which ISA module runs, chosen once, and the one place that dispatches.
//!
//! Every compiled-in backend is a variant (see `build.rs` for which are compiled in). A
//! SIMD variant carries its module's proof type, which only that module's `detect()` can
//! create after checking the CPU, so holding a `Backend` means it can run here.
//!
//! The backends are listed once, in the `backends!` table at the bottom of this file: the
//! enum, the probes (fastest first), `name()`, `COMPILED`, the generic `Kernel` dispatch
//! and [`Backend::with_kernel`] all follow from it. `Backend`'s own [`Kernel`] impl goes
//! through the entry points of `compiled`, compiled once in this crate.

use core::fmt;

use crate::compiled::{self, route};

use chacha_core::{
    Block, Kernel, Rounds, State, Variant, XorBuf,
    poly1305::{Accumulator, MacBlock},
};

/// Code generic over the kernel type, run by [`Backend::with_kernel`] with the concrete
/// kernel inside a `Backend`: static dispatch from then on (tests and benches use it to
/// run one generic body on every backend type).
pub trait WithKernel {
    /// What the body returns.
    type Output;
    /// The body, monomorphised for each backend type.
    fn call<K: Kernel>(self, kernel: K) -> Self::Output;
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

            /// Runs `body` with the kernel inside this backend, as its own type.
            pub fn with_kernel<F: WithKernel>(self, body: F) -> F::Output {
                match self { $( #[cfg(chacha_enabled = $name)] Backend::$ty(k) => body.call(k), )+ }
            }
        }

        /// The kernels of every backend, monomorphised for the caller's `R` and `V`: what the
        /// entry points of `compiled` run, each with its own rounds and layout.
        impl Kernel for Generic {
            #[inline]
            fn xor<R: Rounds, V: Variant>(self, state: &State<V>, buf: XorBuf<'_, '_>, tail: &mut Block) {
                match self.0 { $( #[cfg(chacha_enabled = $name)] Backend::$ty(k) => k.xor::<R, V>(state, buf, tail), )+ }
            }

            #[inline]
            fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
                match self.0 { $( #[cfg(chacha_enabled = $name)] Backend::$ty(k) => k.fill::<R, V>(state, out), )+ }
            }

            #[inline]
            fn fill_batch<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
                match self.0 { $( #[cfg(chacha_enabled = $name)] Backend::$ty(k) => k.fill_batch::<R, V>(state, out), )+ }
            }

            #[inline]
            fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
                match self.0 { $( #[cfg(chacha_enabled = $name)] Backend::$ty(k) => k.hchacha::<R>(key, input), )+ }
            }

            #[inline]
            fn batch_blocks(self) -> usize {
                match self.0 { $( #[cfg(chacha_enabled = $name)] Backend::$ty(k) => k.batch_blocks(), )+ }
            }

            #[inline]
            fn poly1305_blocks(self, acc: &mut Accumulator, blocks: &[MacBlock]) {
                match self.0 { $( #[cfg(chacha_enabled = $name)] Backend::$ty(k) => k.poly1305_blocks(acc, blocks), )+ }
            }

            #[inline]
            fn xor_then_mac<R: Rounds, V: Variant>(self, state: &State<V>, acc: &mut Accumulator, buf: XorBuf<'_, '_>) {
                match self.0 { $( #[cfg(chacha_enabled = $name)] Backend::$ty(k) => k.xor_then_mac::<R, V>(state, acc, buf), )+ }
            }

            #[inline]
            fn mac_then_xor<R: Rounds, V: Variant>(self, state: &State<V>, acc: &mut Accumulator, buf: XorBuf<'_, '_>) {
                match self.0 { $( #[cfg(chacha_enabled = $name)] Backend::$ty(k) => k.mac_then_xor::<R, V>(state, acc, buf), )+ }
            }
        }
    };
}

/// The compiled-in backends' kernels, generic: a `match` over the backends and the module's
/// kernel monomorphised for the caller's rounds and layout. The entry points of `compiled`
/// run it with each pair (compiled once, in this crate), and [`Backend`] for a pair without
/// one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Generic(pub(crate) Backend);

/// The fronts' default kernel: each call goes to a non-generic entry point for its rounds
/// and layout, compiled once in this crate (`src/compiled.rs`; chosen by constants: one
/// call in the caller's code, no kernel compiled there).
impl Kernel for Backend {
    #[inline]
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, buf: XorBuf<'_, '_>, tail: &mut Block) {
        route!(
            R,
            V,
            state,
            |pair, s| pair::xor(self, s, buf, tail),
            Generic(self).xor::<R, V>(state, buf, tail)
        )
    }

    #[inline]
    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        route!(R, V, state, |pair, s| pair::fill(self, s, out), Generic(self).fill::<R, V>(state, out))
    }

    #[inline]
    fn fill_batch<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        route!(
            R,
            V,
            state,
            |pair, s| pair::fill_batch(self, s, out),
            Generic(self).fill_batch::<R, V>(state, out)
        )
    }

    #[inline]
    fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
        match R::DOUBLE_ROUNDS {
            4 => compiled::hchacha_r8(self, key, input),
            6 => compiled::hchacha_r12(self, key, input),
            10 => compiled::hchacha_r20(self, key, input),
            _ => Generic(self).hchacha::<R>(key, input),
        }
    }

    #[inline]
    fn batch_blocks(self) -> usize {
        Generic(self).batch_blocks()
    }

    #[inline]
    fn poly1305_blocks(self, acc: &mut Accumulator, blocks: &[MacBlock]) {
        Generic(self).poly1305_blocks(acc, blocks)
    }

    #[inline]
    fn xor_then_mac<R: Rounds, V: Variant>(
        self,
        state: &State<V>,
        acc: &mut Accumulator,
        buf: XorBuf<'_, '_>,
    ) {
        #[cfg(feature = "aead")]
        if V::COUNTER_WORDS == 1 && R::DOUBLE_ROUNDS == <chacha_core::R20 as Rounds>::DOUBLE_ROUNDS {
            return compiled::r20_aead::xor_then_mac(self, compiled::ietf(state), acc, buf);
        }
        Generic(self).xor_then_mac::<R, V>(state, acc, buf)
    }

    #[inline]
    fn mac_then_xor<R: Rounds, V: Variant>(
        self,
        state: &State<V>,
        acc: &mut Accumulator,
        buf: XorBuf<'_, '_>,
    ) {
        #[cfg(feature = "aead")]
        if V::COUNTER_WORDS == 1 && R::DOUBLE_ROUNDS == <chacha_core::R20 as Rounds>::DOUBLE_ROUNDS {
            return compiled::r20_aead::mac_then_xor(self, compiled::ietf(state), acc, buf);
        }
        Generic(self).mac_then_xor::<R, V>(state, acc, buf)
    }
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
