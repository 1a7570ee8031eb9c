//! [`Backend`]: which ISA module runs, chosen once, and the one place that dispatches.
//!
//! Every compiled-in backend is a variant (see `build.rs` for which are compiled in). A
//! SIMD variant carries its module's proof type, which only that module's `detect()` can
//! create after checking the CPU, so holding a `Backend` means it can run here.

use chacha_core::{Block, EndOfStream, Kernel, Rounds, State, Variant, inout::InOutBuf};

#[cfg(chacha_enabled = "soft")]
use crate::soft::Soft;

/// A ChaCha implementation that this CPU can run.
///
/// Get one from [`Backend::detect`] (the fastest) or [`Backend::available`] (all of them),
/// store it, and every call pays one predictable `match`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// Portable Rust, every CPU: [`crate::soft`].
    #[cfg(chacha_enabled = "soft")]
    Soft(Soft),
}

/// The compiled-in backends' probes, fastest first.
const PROBES: &[fn() -> Option<Backend>] = &[
    #[cfg(chacha_enabled = "soft")]
    || Soft::detect().map(Backend::Soft),
];

/// Runs `$body` with `$kernel` bound to the kernel inside `$backend`: the one `match`.
macro_rules! dispatch {
    ($backend:expr, $kernel:ident => $body:expr) => {
        match $backend {
            #[cfg(chacha_enabled = "soft")]
            Backend::Soft($kernel) => $body,
        }
    };
}

impl Backend {
    /// The fastest backend this CPU runs.
    ///
    /// Each CPU probe is made once per process and cached (the `cpufeatures` statics), so
    /// this is a few relaxed atomic loads; still, call it once and keep the result.
    pub fn detect() -> Backend {
        Self::available().next().expect("build.rs compiles in at least one backend that runs on the target")
    }

    /// Every backend this CPU runs, fastest first. Tests, benches and fuzzers iterate it.
    pub fn available() -> impl Iterator<Item = Backend> + Clone {
        PROBES.iter().filter_map(|probe| probe())
    }

    /// The available backend called `name` (as [`Backend::name`] spells it).
    pub fn by_name(name: &str) -> Option<Backend> {
        Self::available().find(|b| b.name() == name)
    }

    /// The backend's name: its module, cfg value and bench id (`"soft"`, …).
    pub fn name(self) -> &'static str {
        match self {
            #[cfg(chacha_enabled = "soft")]
            Backend::Soft(_) => "soft",
        }
    }

    /// Every backend name this build knows, whether or not this CPU runs it.
    pub const COMPILED: &'static [&'static str] = &[
        #[cfg(chacha_enabled = "soft")]
        "soft",
    ];

    /// XORs the keystream at `state`'s position into `buf` and moves `state` past the
    /// `⌈len / 64⌉` blocks used. A partial last block's whole keystream goes to `tail`
    /// (see [`Kernel::xor`]).
    ///
    /// # Errors
    /// [`EndOfStream`] if the stream has fewer blocks left; `buf`, `tail` and `state` are
    /// untouched.
    #[inline]
    pub fn xor<R: Rounds, V: Variant>(
        self,
        state: &mut State<V>,
        buf: InOutBuf<'_, '_, u8>,
        tail: &mut Block,
    ) -> Result<(), EndOfStream> {
        let blocks = buf.len().div_ceil(64) as u64;
        if u128::from(blocks) > state.blocks_left() {
            return Err(EndOfStream);
        }
        dispatch!(self, k => k.xor::<R, V>(state, buf, tail));
        state.advance(blocks)
    }

    /// Writes keystream blocks at `state`'s position into `out` and moves `state` past them.
    ///
    /// # Errors
    /// [`EndOfStream`] if the stream has fewer blocks left; `out` and `state` are untouched.
    #[inline]
    pub fn fill<R: Rounds, V: Variant>(
        self,
        state: &mut State<V>,
        out: &mut [Block],
    ) -> Result<(), EndOfStream> {
        let blocks = out.len() as u64;
        if u128::from(blocks) > state.blocks_left() {
            return Err(EndOfStream);
        }
        dispatch!(self, k => k.fill::<R, V>(state, out));
        state.advance(blocks)
    }

    /// HChaCha with `R` rounds: the XChaCha subkey for `key` and the first 16 nonce bytes.
    #[inline]
    pub fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
        dispatch!(self, k => k.hchacha::<R>(key, input))
    }
}
