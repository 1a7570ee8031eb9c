//! `avx2`: AVX2 kernels (x86_64; x86 with intrinsics-only rounds), 1 to 8 blocks per step.
//!
//! | blocks left | kernel | layout |
//! |---|---|---|
//! | ≥ 16 whole | `sliced8_from_head`, repeated | word-sliced: `x[i]` = word `i` of 8 blocks, block `j` in lane `j` |
//! | 7–15 | `sliced8_whole` / `sliced8` (7: one block wasted) | same |
//! | 5, 6 | `rows6`: three row chains (5: one block wasted) | rows: one register per state row, 2 blocks per `__m256i` |
//! | 3, 4 | `rows4`: two row chains (3: one block wasted) | same |
//! | 2 | `rows2`: one row chain | same |
//! | 1 | `rows1` (and `hchacha`); a request of 1–64 bytes runs it alone | one row per `__m128i` |
//!
//! Here: the entry points, the width rules (`run`) and the writes through the output cursor
//! (`cursor.rs`); the kernels in `avx2/sliced8.rs` and `avx2/rows.rs`, the AEAD in
//! `avx2/aead.rs` and `avx2/poly1305.rs`.
//!
//! - The word-sliced rounds need no shuffles; they are `asm!` on OpenSSL's register plan,
//!   since 16 `ymm` cannot hold 16 words, two masks and the temporaries without spilling.
//! - Only word 12 differs between the 8 lanes, so from two sets on each set starts from the
//!   head (`head.rs`) and its counter quarter round runs during the set before.
//! - Row `b` stays in place between column and diagonal rounds, so no shuffle sits on the
//!   chain, and two or three interleaved chains cost about one chain's latency.
//! - A partial last block's keystream goes to the caller's `tail` block, XORed from there.
//!
//! Figures and rejected designs (a ninth block in general-purpose registers among them):
//! `DECISIONS.md` in this crate, § avx2.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

#[cfg(target_arch = "x86_64")]
use chacha_core::AeadDirection;
use chacha_core::{
    Block, Ietf, Kernel, MAX_BATCH_BLOCKS, Rounds, State, Variant, XorBuf,
    poly1305::{Accumulator, MacBlock},
};

use crate::counter::in_ietf_pieces;
use crate::cursor::{Blocks, Cursor, Partial, Tail};
use crate::head::head;

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

// First, so that its macros are `aead.rs`'s too.
#[macro_use]
mod sliced8;

#[cfg(target_arch = "x86_64")]
mod aead;
mod poly1305;
mod rows;

use rows::{hchacha_avx2, rows1, rows2, rows4, rows6, xor_avx2_one_block};
use sliced8::{column_chain8, sliced8, sliced8_from_head, sliced8_whole};

cpufeatures::new!(cpuid_avx2, "avx2");

/// Proof that this CPU has AVX2; only [`Avx2::detect`] creates one. On x86_64 it also
/// says whether the CPU has BMI2, which the AEAD's stitched step needs (`avx2/aead.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Avx2 {
    #[cfg(target_arch = "x86_64")]
    bmi2: Option<aead::Bmi2>,
    #[cfg(not(target_arch = "x86_64"))]
    _proof: (),
}

impl Avx2 {
    /// `Some` if this CPU (and the OS, for the `ymm` state) supports AVX2. Both probes are
    /// cached once per process.
    #[inline]
    pub fn detect() -> Option<Self> {
        if !cpuid_avx2::get() {
            return None;
        }
        Some(Avx2 {
            #[cfg(target_arch = "x86_64")]
            bmi2: aead::Bmi2::detect(),
            #[cfg(not(target_arch = "x86_64"))]
            _proof: (),
        })
    }
}

impl Kernel for Avx2 {
    #[inline]
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, buf: XorBuf<'_, '_>, tail: &mut Block) {
        in_ietf_pieces(state, buf, |state, buf| {
            let (inp, out, len) = Cursor::xor(buf).into_parts();
            if (1..=64).contains(&len) {
                // SAFETY: as below.
                return unsafe { xor_avx2_one_block::<R>(state, state.counter(), inp, out, len, tail) };
            }
            // SAFETY: an Avx2 exists only if detect() saw AVX2; the parts are a `Cursor`'s.
            unsafe { xor_avx2::<R>(state, inp, out, len, tail) }
        })
    }

    #[inline]
    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        in_ietf_pieces(state, out, |state, out| {
            if out.len() <= MAX_BATCH_BLOCKS {
                // A few blocks (an RNG's short draw) in the batch kernel.
                // SAFETY: as below.
                return unsafe { fill_batch_avx2::<R>(state, state.counter(), out) };
            }
            // SAFETY: an Avx2 exists only if detect() saw AVX2.
            unsafe { fill_avx2::<R>(state, out) }
        })
    }

    #[inline]
    fn fill_batch<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        in_ietf_pieces(state, out, |state, out| {
            if out.len() > MAX_BATCH_BLOCKS {
                // SAFETY: as below.
                let batch =
                    |counter, piece: &mut [Block]| unsafe { fill_batch_avx2::<R>(state, counter, piece) };
                return crate::fill_batch_in_pieces(state.counter(), out, batch);
            }
            // SAFETY: an Avx2 exists only if detect() saw AVX2.
            unsafe { fill_batch_avx2::<R>(state, state.counter(), out) }
        })
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
}

/// ChaCha20-Poly1305's steps on `avx2` (`chacha_core::Aead`).
impl chacha_core::Aead for Avx2 {
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

    /// Stitched from 512 bytes on where the CPU has BMI2 (`aead.rs`); the default pieces
    /// elsewhere.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn xor_then_mac<R: Rounds>(self, state: &State<Ietf>, acc: &mut Accumulator, buf: XorBuf<'_, '_>) {
        self.aead::<R>(state, acc, buf, AeadDirection::Seal);
    }

    /// As [`xor_then_mac`](chacha_core::Aead::xor_then_mac).
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn mac_then_xor<R: Rounds>(self, state: &State<Ietf>, acc: &mut Accumulator, buf: XorBuf<'_, '_>) {
        self.aead::<R>(state, acc, buf, AeadDirection::Open);
    }
}

// ---- Memory: `avx2`'s use of the output cursor (`cursor.rs`) and its loads and stores.

/// Where a request's keystream goes, block by block in any order (the 8-block kernels write
/// block `j` beside block `j + 4`): the [`Cursor`] and the [`Tail`] that takes a partial
/// block's keystream. Four words and `Copy`, passed by value.
#[derive(Clone, Copy)]
struct Dest<'a, const XOR: bool> {
    cur: Cursor<'a, XOR>,
    tail: Tail<'a>,
}

impl<const XOR: bool> Dest<'_, XOR> {
    /// Writes block `i` of the request, given as its two 32-byte halves: a whole block
    /// (XORed with the input if `XOR`) or the partial block's keystream to `tail`. A block
    /// past the request is a bug (`debug_assert!`); in a release build it goes to `tail`
    /// (or nowhere, for raw keystream), never past the buffer.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn put_at(self, i: usize, lo: __m256i, hi: __m256i) {
        let whole = self.cur.whole();
        debug_assert!(i < whole || (XOR && i == whole), "block {i} of {whole} whole");
        if let Some(block) = self.cur.blocks_at::<1>(i) {
            block.put_whole_at(0, lo, hi);
        } else if XOR {
            self.tail.window().put_whole_at(0, lo, hi);
        }
    }
}

/// The window's stores, through [`Blocks`]' checked pointers.
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

    #[target_feature(enable = "avx2")]
    #[inline]
    fn load32_at(self, at: usize) -> __m256i {
        // SAFETY: `inp::<32>` checked that the 32 bytes are readable; `loadu` needs no alignment.
        unsafe { _mm256_loadu_si256(self.inp::<32>(at).cast()) }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn store32_at(self, at: usize, v: __m256i) {
        // SAFETY: `out::<32>` checked that the 32 bytes are writable; `storeu` needs no alignment.
        unsafe { _mm256_storeu_si256(self.out::<32>(at).cast(), v) }
    }
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

/// The 32 bytes of `b`.
#[target_feature(enable = "avx2")]
#[inline]
fn load_32(b: &[u8; 32]) -> __m256i {
    // SAFETY: `b` is a reference to 32 readable bytes; `loadu` needs no alignment.
    unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
}

/// `out = v`, 32 bytes.
#[target_feature(enable = "avx2")]
#[inline]
fn store_32(out: &mut [u8; 32], v: __m256i) {
    // SAFETY: `out` is a `&mut` to 32 writable bytes; `storeu` needs no alignment.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) }
}

/// The partial block `p` = its input XOR the first bytes of `ks`, in 32-, 16-, 8-, 4-, 2-
/// and 1-byte pieces.
#[target_feature(enable = "avx2")]
#[inline]
fn xor_partial(p: Partial<'_>, ks: &Block) {
    if let Some((at, s)) = p.piece::<32>() {
        // SAFETY: a `Span<32>`: 32 readable bytes; `loadu` needs no alignment.
        let a = unsafe { _mm256_loadu_si256(s.inp().cast()) };
        let x = _mm256_xor_si256(a, load_32(ks[at..at + 32].try_into().expect("32 bytes")));
        // SAFETY: and 32 writable bytes, read above.
        unsafe { _mm256_storeu_si256(s.out().cast(), x) };
    }
    macro_rules! piece {
        ($t:ty) => {
            if let Some((at, s)) = p.piece::<{ size_of::<$t>() }>() {
                let b = <$t>::from_ne_bytes(ks[at..at + size_of::<$t>()].try_into().expect("piece"));
                // SAFETY: a `Span` of `size_of::<$t>()` readable bytes; unaligned read.
                let a = unsafe { s.inp().cast::<$t>().read_unaligned() };
                // SAFETY: and as many writable bytes, read above.
                unsafe { s.out().cast::<$t>().write_unaligned(a ^ b) };
            }
        };
    }
    piece!(u128);
    piece!(u64);
    piece!(u32);
    piece!(u16);
    piece!(u8);
}

/// The whole request: `⌈len / 64⌉` blocks, then the partial block's bytes. The cursor
/// comes as the three words of [`Cursor::into_parts`] and `tail` as a reference: the Rust
/// ABI passes a struct of four words through memory.
/// # Safety
/// As [`Cursor::from_parts`].
#[target_feature(enable = "avx2")]
unsafe fn xor_avx2<R: Rounds>(
    state: &State<Ietf>,
    inp: *const u8,
    out: *mut u8,
    len: usize,
    tail: &mut Block,
) {
    // SAFETY: the caller's guarantee.
    let cur = unsafe { Cursor::<true>::from_parts(inp, out, len) };
    run::<R, true>(state, cur.blocks(), Dest { cur, tail: Tail::new(tail) });
    if let Some(p) = cur.partial() {
        xor_partial(p, tail);
    }
}

/// Raw keystream for `out`.
#[target_feature(enable = "avx2")]
fn fill_avx2<R: Rounds>(state: &State<Ietf>, out: &mut [Block]) {
    let cur = Cursor::fill(out);
    // Never written: raw keystream has no partial block.
    let mut unused = [0u8; 64];
    run::<R, false>(state, cur.whole(), Dest { cur, tail: Tail::new(&mut unused) })
}

/// A front's short fill ([`Kernel::fill_batch`]): its batch of 1–4 blocks (`out`) from
/// block `counter` in `rows1`, `rows2` or `rows4`, out of [`fill_avx2`], so that a program
/// whose only fills are these (a cipher's) links this and not `fill_avx2` (DECISIONS.md,
/// § Kernels compiled once: build cost). No loop here (see `avx512::fill_batch`).
#[target_feature(enable = "avx2")]
fn fill_batch_avx2<R: Rounds>(state: &State<Ietf>, counter: u64, out: &mut [Block]) {
    let n = out.len();
    debug_assert!(n <= 4, "a batch of {n} blocks");
    // Never written: raw keystream has no partial block.
    let mut unused = [0u8; 64];
    let d = Dest { cur: Cursor::fill(out), tail: Tail::new(&mut unused) };
    // Each kernel writes exactly the `n` blocks.
    match n {
        0 => {}
        1 => rows1::<R, false>(state.words(), counter, d, 0),
        2 => rows2::<R, false>(state.words(), counter, d, 0, 2, Masks::new()),
        _ => rows4::<R, false>(state.words(), counter, d, 0, n, Masks::new()),
    }
}

/// The width rules (the module header's table) for `blocks` blocks, `d.cur.whole()` of them whole.
#[target_feature(enable = "avx2")]
fn run<R: Rounds, const XOR: bool>(state: &State<Ietf>, blocks: usize, d: Dest<'_, XOR>) {
    let whole = d.cur.whole();
    let w = state.words();
    let mut counter = state.counter();
    let masks = Masks::new();
    let mut done = 0;
    // Sets of 8 whole blocks; two or more start from the head (`sliced8_from_head`).
    if whole >= 16 {
        let head = head(&state.words_at(counter));
        let mut chain = column_chain8(&head, counter, masks);
        while let Some(set) = d.cur.blocks_at::<8>(done) {
            chain = sliced8_from_head::<R, XOR>(w, counter, &head, chain, set, masks);
            done += 8;
            counter = counter.wrapping_add(8);
        }
    } else if let Some(set) = d.cur.blocks_at::<8>(0) {
        sliced8_whole::<R, Ietf, XOR>(w, counter, set, masks);
        done += 8;
        counter = counter.wrapping_add(8);
    }
    // A set of 8 whose last block is the partial one.
    if blocks - done >= 8 {
        sliced8::<R, XOR>(w, counter, d, done, 8, masks);
        done += 8;
        counter = counter.wrapping_add(8);
    }
    // The rest, fewer than 8 blocks: never more than one block computed and not used.
    match blocks - done {
        0 => {}
        // In every arm the kernels write exactly the blocks `done..blocks`.
        1 => rows1::<R, XOR>(w, counter, d, done),
        2 => rows2::<R, XOR>(w, counter, d, done, 2, masks),
        3 => rows4::<R, XOR>(w, counter, d, done, 3, masks),
        4 => rows4::<R, XOR>(w, counter, d, done, 4, masks),
        5 => rows6::<R, XOR>(w, counter, d, done, 5, masks),
        6 => rows6::<R, XOR>(w, counter, d, done, 6, masks),
        _ => sliced8::<R, XOR>(w, counter, d, done, 7, masks),
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
        let mut r16 = load_32(&ROT16);
        let mut r8 = load_32(&ROT8);
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
