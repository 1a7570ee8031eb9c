#![doc = include_str!("../README.md")]
#![no_std]
// docs.rs (`--cfg docsrs`, nightly): each item gated by a feature says which.
#![cfg_attr(docsrs, feature(doc_cfg))]

/// A scheduling barrier: keeps each value where it is computed. An empty `asm!` per value
/// takes it in and out of a register of class `$class`, so that LLVM can move its
/// computation neither past this point nor into a later iteration (it sinks work to its
/// first use otherwise).
#[cfg(chacha_uses = "barrier")]
macro_rules! schedule_barrier {
    ($class:ident; $($v:expr),+ $(,)?) => {
        // Only a scheduling hint: miri, which runs no `asm!`, goes without it.
        #[cfg(not(miri))]
        {
            $(
                // SAFETY: an empty asm block; it reads and writes only the named register.
                unsafe { core::arch::asm!("/* {0} */", inout($class) $v, options(nomem, nostack, preserves_flags)) };
            )+
        }
        #[cfg(miri)]
        {
            $( let _ = &mut $v; )+
        }
    };
}

/// `$body` run `$n` times, `$n` a double-round count known at run time (at least 1): the
/// kernels are compiled once for every round count, so the count is an argument. Written as
/// a loop that tests at its end: `for _ in 0..n` tests for zero before the first pass and
/// keeps the inputs' copies for that case (DECISIONS.md, § Kernels compiled once: build
/// cost, the round count in `sse2`).
#[cfg(chacha_uses = "repeat_rounds")]
macro_rules! repeat_rounds {
    ($n:expr, $body:block) => {{
        let mut left: usize = $n;
        debug_assert!(left >= 1, "a round count of at least one");
        loop {
            $body
            left -= 1;
            if left == 0 {
                break;
            }
        }
    }};
}

/// [`Kernel::fill_batch`](chacha_core::Kernel::fill_batch) of more than
/// [`MAX_BATCH_BLOCKS`](chacha_core::MAX_BATCH_BLOCKS) blocks, which no front asks for (the
/// x86 backends' batch kernels take at most that many): `batch(counter, piece)` for each
/// piece of `out`, from block `counter` on. Cold and out of line, so that the fronts'
/// requests stay one jump to the kernel (with a loop around it, the entry point kept a
/// frame and a call: DECISIONS.md, § Kernels compiled once: build cost).
#[cfg(chacha_uses = "batch_in_pieces")]
#[cold]
#[inline(never)]
fn fill_batch_in_pieces(
    counter: u64,
    out: &mut [chacha_core::Block],
    mut batch: impl FnMut(u64, &mut [chacha_core::Block]),
) {
    const N: usize = chacha_core::MAX_BATCH_BLOCKS;
    for (k, piece) in out.chunks_mut(N).enumerate() {
        batch(counter.wrapping_add((k * N) as u64), piece);
    }
}

/// RFC 8439 §2.1's quarter round on the words `a`, `b`, `c`, `d` of one block, on `u32`s in
/// general-purpose registers: the whole of `soft`'s rounds, `sse2`'s fifth block, and the
/// head of the word-sliced kernels (`head.rs`). Always inlined: a call per quarter round
/// would cost more than the round. Not the reference's (`chacha_core::reference`), on
/// purpose: the oracle the backends are tested against shares no code with them.
#[cfg(chacha_uses = "quarter_round")]
#[inline(always)]
fn quarter_round(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(16);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(12);
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(8);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(7);
}

#[cfg(chacha_enabled = "avx2")]
pub mod avx2;
#[cfg(chacha_enabled = "avx512")]
pub mod avx512;
/// `Backend`, the backends' table and the one path from a call to a kernel.
mod backend;
/// The original layout's 64-bit counter: every request cut into RFC 8439 pieces at its
/// carries, for every kernel.
mod counter;
/// The output cursor: the one holder of the pointers the SIMD backends write through.
#[cfg(chacha_uses = "cursor")]
mod cursor;
/// The counter-free head of the first double round, shared by the word-sliced kernels.
#[cfg(chacha_uses = "head")]
mod head;
#[cfg(chacha_enabled = "neon")]
pub mod neon;
#[cfg(feature = "rayon")]
pub mod parallel;
/// The row-layout output of `sse2`, `neon` and `simd128`, written once (`rows128!`).
#[cfg(chacha_uses = "rows128")]
mod rows128;
#[cfg(chacha_enabled = "simd128")]
pub mod simd128;
#[cfg(chacha_enabled = "soft")]
pub mod soft;
#[cfg(chacha_enabled = "sse2")]
pub mod sse2;
/// What the stitched AEAD steps share (`avx2` on x86_64, `neon`).
#[cfg(chacha_uses = "stitched")]
mod stitched;

pub use backend::{Backend, WithKernel};
pub use chacha_core;
