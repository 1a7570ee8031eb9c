//! `avx2`: AVX2 kernels (x86_64; x86 with intrinsics-only rounds), 1 to 8 blocks per step.
//!
//! | blocks left | kernel | layout |
//! |---|---|---|
//! | ≥ 16 whole | `sliced8_from_head`, repeated: each set's first double round from the head | word-sliced: `x[i]` = word `i` of 8 blocks, block `j` in lane `j` |
//! | ≥ 8 (and 7, one block wasted) | `sliced8_whole` / `sliced8` | same |
//! | 5, 6 | `rows6`: three row chains (5: one block wasted) | rows: one register per state row, 2 blocks per `__m256i` |
//! | 3, 4 | `rows4`: two row chains (3: one block wasted) | same |
//! | 2 | `rows2`: one row chain | same |
//! | 1 | `rows1` (also `hchacha`); 1–64 bytes run it alone, in `xor_avx2_one_block` | one row per `__m128i` |
//!
//! `avx2/sliced8.rs` holds the word-sliced kernel, `avx2/rows.rs` the row kernels; this file
//! the entry points, the width rules (`run`), the output cursor and the rotate masks. Whole
//! blocks are XORed straight out of registers; a partial last block's keystream goes to
//! `tail` and is XORed from there (`xor_partial`). `fill` stores raw keystream from the same
//! kernels.
//!
//! The cursor: `Dest` holds the raw pointers and their invariant; the kernels, safe
//! functions, write through it. `put_at(i, ..)` writes block `i` in any order (the 8-block
//! transpose yields block `j` beside `j + 4`), a block past the request caught by
//! `debug_assert!`; `blocks::<8>` hands out the 8 whole blocks of a set as one window
//! (`Blocks`), checked once, the check being `run`'s loop condition. `Blocks` holds the only
//! loads and stores of the output, each at a constant offset whose check folds away.
//!
//! Why:
//! - **Word-sliced**: the rounds need no shuffles. 16 `ymm` cannot hold 16 words, two
//!   `vpshufb` masks and the shift temporaries (LLVM spilled on the chains), so `rounds8` is
//!   `asm!` on OpenSSL's register plan: two of the `c` words in memory, swapped mid-round
//!   off the chain, the masks as memory operands (folded, LLVM made them
//!   `vpshuflw`/`vpshufhw` pairs; `Masks::new` hides them from the intrinsics kernels too).
//! - **The head**: only word 12 differs between the 8 lanes, so a request of two sets or
//!   more starts each set from the `head` module's words, and the set's one counter quarter
//!   round (`column_chain8`) runs during the set before, beside its transpose.
//! - **Rows**: row `b` stays in place between column and diagonal rounds (lane diagram at
//!   `to_diagonals256`), so no shuffle sits on the chain; two or three interleaved chains
//!   cost about one chain's latency.
//! - **No extra block in general-purpose registers**: free while the core's other hardware
//!   thread is idle, slower while it is busy, and a library cannot know which.
//!
//! Figures, rejected designs and how to measure them again: `DECISIONS.md` in this crate,
//! § avx2 (and § Machine facts for the CPUs).

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use chacha_core::{
    Block, Kernel, Rounds, State, Variant,
    inout::InOutBuf,
    poly1305::{Accumulator, MacBlock},
};

use core::marker::PhantomData;

use crate::head::Heads;

/// Each 32-bit lane rotated by 16 or 8 (`vpshufb`, [`Masks`]) or by 12 or 7 (two shifts
/// and an or). Defined before the submodules, which use it.
macro_rules! rotl256 {
    ($v:expr, 16, $m:expr) => {
        _mm256_shuffle_epi8($v, $m.r16)
    };
    ($v:expr, 8, $m:expr) => {
        _mm256_shuffle_epi8($v, $m.r8)
    };
    ($v:expr, $n:literal, $m:expr) => {{
        let v = $v;
        _mm256_or_si256(_mm256_slli_epi32(v, $n), _mm256_srli_epi32(v, 32 - $n))
    }};
}

mod poly1305;
mod rows;
mod sliced8;

use rows::{hchacha_avx2, rows1, rows2, rows4, rows6};
use sliced8::{column_chain8, sliced8, sliced8_from_head, sliced8_whole};

cpufeatures::new!(cpuid_avx2, "avx2");

/// Proof that this CPU has AVX2; only [`Avx2::detect`] creates one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Avx2(());

impl Avx2 {
    /// `Some` if this CPU (and the OS, for the `ymm` state) supports AVX2.
    pub fn detect() -> Option<Self> {
        cpuid_avx2::get().then_some(Avx2(()))
    }
}

impl Kernel for Avx2 {
    #[inline]
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, buf: InOutBuf<'_, '_, u8>, tail: &mut Block) {
        let len = buf.len();
        let (inp, out) = buf.into_raw();
        if (1..=64).contains(&len) {
            // SAFETY: as below.
            return unsafe {
                xor_avx2_one_block::<R, V>(state, state.counter(), inp, out, len, tail.as_mut_ptr())
            };
        }
        // SAFETY: an Avx2 exists only if detect() saw AVX2; `inp` and `out` are valid for
        // `len` bytes (they come from one `InOutBuf`) and `tail` for 64.
        unsafe { xor_avx2::<R, V>(state, inp, out, len, tail.as_mut_ptr()) }
    }

    #[inline]
    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        // SAFETY: an Avx2 exists only if detect() saw AVX2; `out` is valid for all its
        // blocks.
        unsafe { fill_avx2::<R, V>(state, out.as_mut_ptr().cast(), out.len()) }
    }

    #[inline]
    fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
        // SAFETY: an Avx2 exists only if detect() saw AVX2.
        unsafe { hchacha_avx2::<R>(key, input) }
    }

    /// Two `ymm` row chains (4 blocks) take about one `xmm` chain's time (DECISIONS.md).
    #[inline(always)]
    fn batch_blocks(self) -> usize {
        4
    }

    /// 4 blocks side by side (`poly1305.rs`) from `MIN_BLOCKS` blocks on.
    #[inline]
    fn poly1305_blocks(self, acc: &mut Accumulator, blocks: &[MacBlock]) {
        if blocks.len() < poly1305::MIN_BLOCKS {
            return acc.absorb(blocks);
        }
        let (groups, rest) = blocks.as_chunks::<4>();
        self.poly1305_groups(acc, groups);
        acc.absorb(rest);
    }
}

// ---- Memory: the output cursor and the pointer loads and stores.

/// Where a request's keystream goes, block by block in any order (the 8-block kernels write
/// block `j` beside block `j + 4`): XORed from `inp` into `out`, or raw to `out`.
///
/// Invariant (established by [`Dest::from_raw`]'s caller, relied on by [`Dest::blocks`] and
/// [`Dest::tail`]): `out` is valid for writing `64 * whole` bytes and, if `XOR`, `inp`
/// for reading them, the same or not overlapping; if `XOR`, `tail` is valid for writing 64
/// bytes. Blocks `0..whole` are whole; block `whole`, if requested, is the partial one,
/// whose keystream goes to `tail`. Four words and `Copy`, passed by value: the kernels
/// stay as they were with the raw pointers (DECISIONS.md, § avx2: the output cursor).
#[derive(Clone, Copy)]
struct Dest<'a, const XOR: bool> {
    inp: *const u8,
    out: *mut u8,
    whole: usize,
    tail: *mut u8,
    _buf: PhantomData<&'a mut [u8]>,
}

impl<'a, const XOR: bool> Dest<'a, XOR> {
    /// The cursor over `whole` whole blocks at `inp`/`out` and a partial one's keystream
    /// at `tail` (null when `!XOR`: raw keystream has no partial block).
    /// # Safety
    /// The pointers satisfy the type's invariant for the cursor's lifetime.
    #[inline(always)]
    unsafe fn from_raw(inp: *const u8, out: *mut u8, whole: usize, tail: *mut u8) -> Self {
        Dest { inp, out, whole, tail, _buf: PhantomData }
    }

    /// Writes block `i` of the request, given as its two 32-byte halves: a whole block
    /// (XORed with the input if `XOR`) or the partial block's keystream to `tail`. A block
    /// past the request is a bug (`debug_assert!`); in a release build it goes to `tail`
    /// (or nowhere, for raw keystream), never past the buffer.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn put_at(self, i: usize, lo: __m256i, hi: __m256i) {
        debug_assert!(i < self.whole || (XOR && i == self.whole), "block {i} of {} whole", self.whole);
        if let Some(block) = self.blocks::<1>(i) {
            block.put_whole_at(0, lo, hi);
        } else if let Some(tail) = self.tail() {
            tail.put_whole_at(0, lo, hi);
        }
    }

    /// Blocks `base .. base + N` as one window, if all are whole: the one bounds check per
    /// `N` blocks (for [`put8_whole!`], the loop condition of [`run`]'s 8-block loop).
    /// Written `base <= whole - N`: one compare with a loop invariant per set, where
    /// `base <= whole && whole - base >= N` left two; for one block `base < whole`, the
    /// compare `put_at` makes anyway (the other form cost 5 instructions a block).
    #[inline(always)]
    fn blocks<const N: usize>(self, base: usize) -> Option<Blocks<'a, XOR, N>> {
        let fits = if N == 1 { base < self.whole } else { self.whole >= N && base <= self.whole - N };
        fits.then(|| Blocks {
            inp: self.inp.wrapping_add(64 * base),
            out: self.out.wrapping_add(64 * base),
            _buf: PhantomData,
        })
    }

    /// The partial block's keystream buffer, as a window that reads no input; `None` for
    /// raw keystream, which has no partial block.
    #[inline(always)]
    fn tail(self) -> Option<Blocks<'a, false, 1>> {
        XOR.then_some(Blocks { inp: core::ptr::null(), out: self.tail, _buf: PhantomData })
    }
}

/// `N` whole blocks: `64 * N` bytes writable at `out` and, if `XOR`, readable at `inp` (the
/// same or not overlapping). Created only by [`Dest::blocks`] and [`Dest::tail`], which
/// check this against the [`Dest`] invariant.
#[derive(Clone, Copy)]
struct Blocks<'a, const XOR: bool, const N: usize> {
    inp: *const u8,
    out: *mut u8,
    _buf: PhantomData<&'a mut [u8]>,
}

impl<const XOR: bool, const N: usize> Blocks<'_, XOR, N> {
    /// Writes bytes `at .. at + 32` of the window (XORed with the input if `XOR`).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn put32_at(self, at: usize, ks: __m256i) {
        let v = if XOR { _mm256_xor_si256(ks, self.load32_at(at)) } else { ks };
        self.store32_at(at, v);
    }

    /// Writes block `k` of the window from its two 32-byte halves: both loads, then both
    /// stores, as the kernels were written before the cursor.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn put_whole_at(self, k: usize, lo: __m256i, hi: __m256i) {
        let (lo, hi) = if XOR {
            (_mm256_xor_si256(lo, self.load32_at(64 * k)), _mm256_xor_si256(hi, self.load32_at(64 * k + 32)))
        } else {
            (lo, hi)
        };
        self.store32_at(64 * k, lo);
        self.store32_at(64 * k + 32, hi);
    }

    /// Input bytes `at .. at + 32`. `at` is a constant in the unrolled callers, so the
    /// checks fold away.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn load32_at(self, at: usize) -> __m256i {
        assert!(XOR && at < 64 * N && 64 * N - at >= 32, "bytes {at}.. of {N} blocks");
        // SAFETY: `at + 32 <= 64 N` and `XOR`: inside the readable window (the `Blocks`
        // invariant).
        unsafe { load32(self.inp.wrapping_add(at)) }
    }

    /// Output bytes `at .. at + 32` = `v`; checked as [`Blocks::load32_at`].
    #[target_feature(enable = "avx2")]
    #[inline]
    fn store32_at(self, at: usize, v: __m256i) {
        assert!(at < 64 * N && 64 * N - at >= 32, "bytes {at}.. of {N} blocks");
        // SAFETY: `at + 32 <= 64 N`: inside the writable window (the `Blocks` invariant).
        unsafe { store32(self.out.wrapping_add(at), v) };
    }
}

/// Reads 32 bytes at `p`.
/// # Safety
/// `p` is valid for reading 32 bytes.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load32(p: *const u8) -> __m256i {
    // SAFETY: the caller's guarantee; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(p.cast()) }
}

/// Row `r` of the state words `w` as one `__m128i` (little-endian bytes are the words on
/// x86).
#[target_feature(enable = "avx2")]
#[inline]
fn load_row(w: &[u32; 16], r: usize) -> __m128i {
    let row: &[u32; 4] = &w.as_chunks::<4>().0[r];
    // SAFETY: `row` is a reference to 16 readable bytes; `loadu` needs no alignment.
    unsafe { _mm_loadu_si128(row.as_ptr().cast()) }
}

/// The 16 bytes of `b`.
#[target_feature(enable = "avx2")]
#[inline]
fn load_16(b: &[u8; 16]) -> __m128i {
    // SAFETY: `b` is a reference to 16 readable bytes; `loadu` needs no alignment.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// `out = v`, 32 bytes.
#[target_feature(enable = "avx2")]
#[inline]
fn store_32(out: &mut [u8; 32], v: __m256i) {
    // SAFETY: `out` is a `&mut` to 32 writable bytes; `storeu` needs no alignment.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) }
}

/// Writes 32 bytes at `p`.
/// # Safety
/// `p` is valid for writing 32 bytes.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store32(p: *mut u8, v: __m256i) {
    // SAFETY: the caller's guarantee; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(p.cast(), v) }
}

/// `out = inp ^ ks` for `n < 64` bytes, in 32-, 16-, 8-, 4-, 2- and 1-byte pieces.
/// # Safety
/// `inp` and `out` valid for `n` bytes (the same or not overlapping), `ks` for 64.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn xor_partial(inp: *const u8, out: *mut u8, ks: *const u8, n: usize) {
    debug_assert!(n < 64, "a partial block of {n} bytes");
    let mut k = 0;
    if n & 32 != 0 {
        // SAFETY: bytes 0..32 are inside all three.
        let a = unsafe { load32(inp) };
        // SAFETY: as above.
        let b = unsafe { load32(ks) };
        let x = _mm256_xor_si256(a, b);
        // SAFETY: as above.
        unsafe { store32(out, x) };
        k = 32;
    }
    macro_rules! piece {
        ($t:ty) => {
            if n & size_of::<$t>() != 0 {
                // SAFETY: `k + size_of::<$t>() <= n`: the bytes are inside all three.
                let a = unsafe { inp.wrapping_add(k).cast::<$t>().read_unaligned() };
                // SAFETY: as above.
                let b = unsafe { ks.wrapping_add(k).cast::<$t>().read_unaligned() };
                // SAFETY: as above.
                unsafe { out.wrapping_add(k).cast::<$t>().write_unaligned(a ^ b) };
                k += size_of::<$t>();
            }
        };
    }
    piece!(u128);
    piece!(u64);
    piece!(u32);
    piece!(u16);
    piece!(u8);
    let _ = k;
}

/// The whole request: `⌈len / 64⌉` blocks, then the partial block's bytes. Scalar
/// arguments, not a [`Dest`]: the Rust ABI passes a struct of four words through memory.
/// # Safety
/// `inp` and `out` are valid for `len` bytes (the same or not overlapping), `tail` for 64.
#[target_feature(enable = "avx2")]
unsafe fn xor_avx2<R: Rounds, V: Variant>(
    state: &State<V>,
    inp: *const u8,
    out: *mut u8,
    len: usize,
    tail: *mut u8,
) {
    // SAFETY: the caller's guarantee: `len / 64` whole blocks and 64 bytes at `tail`.
    let d = unsafe { Dest::<true>::from_raw(inp, out, len / 64, tail) };
    run::<R, V, true>(state, len.div_ceil(64), d);
    let rem = len % 64;
    if rem != 0 {
        let at = 64 * d.whole;
        // SAFETY: the last `rem` bytes of the buffers, and the 64 bytes of `tail`.
        unsafe { xor_partial(d.inp.wrapping_add(at), d.out.wrapping_add(at), d.tail, rem) };
    }
}

/// A request of 1–64 bytes: [`rows1`] alone, without [`xor_avx2`]'s frame (register saves
/// and spills for the 8-block loop). `counter` comes from the caller: read here, LLVM
/// joined it with the nonce words into a 16-byte load that cannot be store-forwarded from
/// the counter's 4-byte store (DECISIONS.md, § Shared by the x86 backends).
/// # Safety
/// As [`xor_avx2`].
#[target_feature(enable = "avx2")]
unsafe fn xor_avx2_one_block<R: Rounds, V: Variant>(
    state: &State<V>,
    counter: u64,
    inp: *const u8,
    out: *mut u8,
    len: usize,
    tail: *mut u8,
) {
    // SAFETY: the caller's guarantee: `len / 64` whole blocks and 64 bytes at `tail`.
    let d = unsafe { Dest::<true>::from_raw(inp, out, len / 64, tail) };
    // Block 0 is the whole block or the partial one.
    rows1::<R, V, true>(state.words(), counter, d, 0);
    let rem = len % 64;
    if rem != 0 {
        // SAFETY: the `rem` bytes of the buffers, and the 64 bytes of `tail`.
        unsafe { xor_partial(inp, out, tail, rem) };
    }
}

/// Raw keystream for `blocks` whole blocks at `out`.
/// # Safety
/// `out` is valid for writing `64 * blocks` bytes.
#[target_feature(enable = "avx2")]
unsafe fn fill_avx2<R: Rounds, V: Variant>(state: &State<V>, out: *mut u8, blocks: usize) {
    // SAFETY: the caller's guarantee: `blocks` whole blocks; raw keystream reads no input
    // and writes no tail.
    let d = unsafe { Dest::<false>::from_raw(core::ptr::null(), out, blocks, core::ptr::null_mut()) };
    run::<R, V, false>(state, blocks, d)
}

/// The width rules (the module header's table) for `blocks` blocks, `d.whole` of them whole.
#[target_feature(enable = "avx2")]
fn run<R: Rounds, V: Variant, const XOR: bool>(state: &State<V>, blocks: usize, d: Dest<'_, XOR>) {
    let w = state.words();
    let mut counter = state.counter();
    let masks = Masks::new();
    let mut done = 0;
    // Sets of 8 whole blocks; two or more start from the head (`sliced8_from_head`).
    if d.whole >= 16 {
        let mut heads = Heads::at(state, counter);
        let mut chain = column_chain8(&heads.at_counter, counter, masks);
        while let Some(set) = d.blocks::<8>(done) {
            chain = sliced8_from_head::<R, V, XOR>(w, counter, &heads, chain, set, masks);
            done += 8;
            counter = counter.wrapping_add(8);
            if V::COUNTER_WORDS == 2 && (counter as u32) < 8 {
                // `Legacy`: word 13 was carried into.
                heads = Heads::at(state, counter);
            }
        }
    } else if let Some(set) = d.blocks::<8>(0) {
        sliced8_whole::<R, V, XOR>(w, counter, set, masks);
        done += 8;
        counter = counter.wrapping_add(8);
    }
    // A set of 8 whose last block is the partial one.
    if blocks - done >= 8 {
        sliced8::<R, V, XOR>(w, counter, d, done, 8, masks);
        done += 8;
        counter = counter.wrapping_add(8);
    }
    // The rest, fewer than 8 blocks: never more than one block computed and not used.
    match blocks - done {
        0 => {}
        // In every arm the kernels write exactly the blocks `done..blocks`.
        1 => rows1::<R, V, XOR>(w, counter, d, done),
        2 => rows2::<R, V, XOR>(w, counter, d, done, masks),
        3 => rows4::<R, V, XOR>(w, counter, d, done, 3, masks),
        4 => rows4::<R, V, XOR>(w, counter, d, done, 4, masks),
        5 => rows6::<R, V, XOR>(w, counter, d, done, 5, masks),
        6 => rows6::<R, V, XOR>(w, counter, d, done, 6, masks),
        _ => sliced8::<R, V, XOR>(w, counter, d, done, 7, masks),
    }
}

/// The `vpshufb` masks of the 16- and 8-bit rotates, per 32-bit lane.
#[derive(Clone, Copy)]
struct Masks {
    r16: __m256i,
    r8: __m256i,
}

const ROT16: [u8; 32] = {
    let mut m = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        m[i] = (i & !3) as u8 + ((i + 2) & 3) as u8;
        i += 1;
    }
    m
};

const ROT8: [u8; 32] = {
    let mut m = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        m[i] = (i & !3) as u8 + ((i + 3) & 3) as u8;
        i += 1;
    }
    m
};

impl Masks {
    #[target_feature(enable = "avx2")]
    #[inline]
    fn new() -> Self {
        // SAFETY: 32 readable bytes each.
        let mut r16 = unsafe { load32(ROT16.as_ptr()) };
        // SAFETY: as above.
        let mut r8 = unsafe { load32(ROT8.as_ptr()) };
        // An empty `asm!` hides the values from LLVM, which would otherwise fold the masks
        // and rewrite the rotates (see the module header).
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the asm is empty.
        unsafe {
            core::arch::asm!("/* {0} {1} */", inout(ymm_reg) r16, inout(ymm_reg) r8, options(pure, nomem, nostack, preserves_flags));
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            r16 = core::hint::black_box(r16);
            r8 = core::hint::black_box(r8);
        }
        Masks { r16, r8 }
    }
}
