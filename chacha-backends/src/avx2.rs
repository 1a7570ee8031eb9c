//! `avx2`: AVX2 kernels (x86_64; x86 with intrinsics-only rounds), 1 to 8 blocks per step.
//!
//! # Kernels and widths
//!
//! | blocks left | kernel | layout |
//! |---|---|---|
//! | ≥ 16 whole | `sliced8_from_head`, repeated: 8 word-sliced blocks, each set's first double round from the head | `x[i]` = word `i` of 8 blocks |
//! | ≥ 8 (and 7, one block wasted) | `sliced8_whole` / `sliced8`: 8 word-sliced blocks in `ymm` | same |
//! | 5, 6 | `rows6`: three chains of rows, interleaved (5: one block wasted) | 2 blocks per `__m256i`, one register per state row |
//! | 3, 4 | `rows4`: two chains of rows (3: one block wasted) | same |
//! | 2 | `rows2`: one chain of rows | same |
//! | 1 | `rows1`: `__m128i` rows (also [`hchacha`](Kernel::hchacha)); a request of 1–64 bytes runs it alone, in `xor_avx2_one_block` | one row per `__m128i` |
//!
//! A request never computes more than one block it does not use. Whole blocks are XORed
//! from input to output straight out of registers (load, XOR, store); a partial last
//! block's keystream goes to `tail` and its bytes are XORed from there in 32/16/8/4/2/1-byte
//! pieces. `fill` uses the same kernels, storing raw keystream.
//!
//! # Register plan and why
//!
//! - **Word-sliced, 8 blocks**: word `i` of 8 blocks in one `ymm`, block `j` in lane `j`;
//!   the rounds need no shuffles, and `put8_whole!` transposes half a block at a time into
//!   the XOR and the stores. 16 `ymm` cannot hold 16 words, two `vpshufb` masks and shift
//!   temporaries, and LLVM spilled on the critical chains, so the double rounds of
//!   `rounds8` are `asm!` with OpenSSL's register plan: words 0–7 and 12–15 in
//!   `ymm0`–`ymm7`/`ymm12`–`ymm15`, two of the four `c` words in `ymm8`/`ymm9` and two in
//!   memory (swapped once mid-round, the reload off the chain), `ymm10`/`ymm11` the
//!   temporaries, the masks as memory operands (so LLVM cannot fold them into
//!   `vpshuflw`/`vpshufhw` pairs).
//! - **The head**: of 8 blocks' input words only word 12 differs between lanes, so a
//!   request of two sets or more starts each set from the `head` module's words, and the
//!   one counter-dependent quarter round (`column_chain8`) is computed during the set
//!   before, where it overlaps that set's transpose.
//! - **Rows**: a block's rows a, b, c, d in four registers; row `b` stays in place between
//!   column and diagonal rounds and rows `a`, `c`, `d` turn (lane diagram at
//!   `to_diagonals256`): `b` is the last row a quarter round finishes and the first the
//!   next needs, so no shuffle sits on the chain. Independent chains interleave: two to
//!   three cost about one chain's latency.
//! - **Masks**: the intrinsics kernels take them from `Masks::new`, hidden from constant
//!   folding behind an empty `asm!`, for the same reason as the memory operands above.
//! - **No extra block in general-purpose registers**: free while the core's other hardware
//!   thread is idle, slower while it is busy, and a library cannot know which.
//!
//! The figures behind each choice, what was rejected and how to measure it again:
//! `DECISIONS.md` in this crate, § avx2 (and § Machine facts for the CPUs).

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use chacha_core::{
    Block, CONSTANTS, Kernel, Rounds, State, Variant,
    inout::InOutBuf,
    poly1305::{Accumulator, MacBlock},
};

use crate::head::Heads;

mod poly1305;

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

    /// Two `ymm` row chains (4 blocks) take about the time of one block's `xmm` chain
    /// (DECISIONS.md, § avx2: widths).
    #[inline(always)]
    fn free_blocks(self) -> usize {
        4
    }

    /// 4 blocks side by side in 26-bit limbs (`poly1305.rs`) from `MIN_BLOCKS` blocks, the
    /// remainder of fewer than 4 with the portable step.
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

/// Where a request's keystream goes: XORed from `inp` into `out`, or written raw to `out`.
///
/// Blocks `0..whole` are whole; block `whole`, if the request has it, is the partial last
/// block, whose keystream goes to `tail` (null for raw keystream, which has none). The
/// writers check these bounds with `debug_assert!` (the kernels' width arithmetic keeps
/// them; the tests run with debug assertions).
#[derive(Clone, Copy)]
struct Dest {
    inp: *const u8,
    out: *mut u8,
    whole: usize,
    tail: *mut u8,
}

/// Reads 32 bytes at `p`.
///
/// # Safety
/// `p` is valid for reading 32 bytes.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load32(p: *const u8) -> __m256i {
    // SAFETY: the caller's guarantee; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(p.cast()) }
}

/// Reads 16 bytes at `p`.
///
/// # Safety
/// `p` is valid for reading 16 bytes.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load16(p: *const u8) -> __m128i {
    // SAFETY: the caller's guarantee; `loadu` has no alignment requirement.
    unsafe { _mm_loadu_si128(p.cast()) }
}

/// Writes 32 bytes at `p`.
///
/// # Safety
/// `p` is valid for writing 32 bytes.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store32(p: *mut u8, v: __m256i) {
    // SAFETY: the caller's guarantee; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(p.cast(), v) }
}

/// Emits block `i` of the request, given as its two 32-byte halves.
///
/// # Safety
/// `i <= d.whole`; `d.inp` (if `XOR`) and `d.out` are valid for `d.whole` blocks, and
/// `d.tail` for 64 bytes if `i == d.whole`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn emit<const XOR: bool>(d: Dest, i: usize, lo: __m256i, hi: __m256i) {
    debug_assert!(i < d.whole || (i == d.whole && !d.tail.is_null()), "block {i} of {} whole", d.whole);
    if i < d.whole {
        let out = d.out.wrapping_add(64 * i);
        let (lo, hi) = if XOR {
            let inp = d.inp.wrapping_add(64 * i);
            // SAFETY: block `i` is whole: 64 readable bytes at `inp`.
            let a = unsafe { load32(inp) };
            // SAFETY: as above.
            let b = unsafe { load32(inp.wrapping_add(32)) };
            (_mm256_xor_si256(lo, a), _mm256_xor_si256(hi, b))
        } else {
            (lo, hi)
        };
        // SAFETY: block `i` is whole: 64 writable bytes at `out`.
        unsafe { store32(out, lo) };
        // SAFETY: as above.
        unsafe { store32(out.wrapping_add(32), hi) };
    } else {
        // SAFETY: the partial block's keystream: `tail` has 64 writable bytes.
        unsafe { store32(d.tail, lo) };
        // SAFETY: as above.
        unsafe { store32(d.tail.wrapping_add(32), hi) };
    }
}

/// XORs `n < 64` bytes of `ks` into `inp`, writing `out`: in 32-, 16-, 8-, 4-, 2- and
/// 1-byte pieces, so a short message costs a few loads, not a byte loop.
///
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

/// The whole request: `⌈len / 64⌉` blocks, then the partial block's bytes.
///
/// The destination comes as scalars, in registers: a [`Dest`] argument (four words) goes
/// through memory in the Rust ABI, four stores on every call (see `avx512::run`).
///
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
    let d = Dest { inp, out, whole: len / 64, tail };
    // SAFETY: the caller's guarantee.
    unsafe { run::<R, V, true>(state, len.div_ceil(64), d) };
    let rem = len % 64;
    if rem != 0 {
        let at = 64 * d.whole;
        // SAFETY: the last `rem` bytes of the buffers, and the 64 bytes of `tail`.
        unsafe { xor_partial(d.inp.wrapping_add(at), d.out.wrapping_add(at), d.tail, rem) };
    }
}

/// A request of one block or less (`1 <= len <= 64`: a short message): [`rows1`] alone, in a
/// function of its own: inside [`xor_avx2`], whose frame serves the 8-block loop and its
/// out-of-line kernel calls, a short message also paid its register saves and spills.
///
/// `counter` is `state.counter()`, read by the caller: read here, LLVM joined it with the
/// nonce words into one 16-byte load of row d, which spans the counter's own 4-byte store
/// and so cannot be store-forwarded (see [`rows1`]; figures in DECISIONS.md, § Shared by the
/// x86 backends).
///
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
    let d = Dest { inp, out, whole: len / 64, tail };
    // SAFETY: the caller's guarantee: block 0 is the whole block or the partial one.
    unsafe { rows1::<R, V, true>(state.words(), counter, d, 0) };
    let rem = len % 64;
    if rem != 0 {
        // SAFETY: the `rem` bytes of the buffers, and the 64 bytes of `tail`.
        unsafe { xor_partial(inp, out, tail, rem) };
    }
}

/// Raw keystream for `blocks` whole blocks at `out` (arguments in registers, as for
/// [`xor_avx2`]).
///
/// # Safety
/// `out` is valid for writing `64 * blocks` bytes.
#[target_feature(enable = "avx2")]
unsafe fn fill_avx2<R: Rounds, V: Variant>(state: &State<V>, out: *mut u8, blocks: usize) {
    let d = Dest { inp: core::ptr::null(), out, whole: blocks, tail: core::ptr::null_mut() };
    // SAFETY: the caller's guarantee; no block past `blocks` is emitted, so `tail` is
    // never used.
    unsafe { run::<R, V, false>(state, blocks, d) }
}

/// Picks the kernels for `blocks` blocks: 8 at a time, then the narrowest kernels that
/// cover the rest.
///
/// # Safety
/// As [`emit`], for blocks `0..blocks`.
#[target_feature(enable = "avx2")]
unsafe fn run<R: Rounds, V: Variant, const XOR: bool>(state: &State<V>, blocks: usize, d: Dest) {
    let w = state.words();
    let mut counter = state.counter();
    let masks = Masks::new();
    let mut done = 0;
    // Sets of 8 whole blocks (the bulk): no per-block test for the partial block. Two
    // sets or more start from the head (see `sliced8_from_head`), with each set's column
    // chain computed during the set before.
    if d.whole >= 16 {
        let mut heads = Heads::at(state, counter);
        let mut chain = column_chain8(&heads.now, counter, masks);
        while d.whole - done >= 8 {
            // SAFETY: blocks done..done+8 are whole blocks of the request.
            chain = unsafe { sliced8_from_head::<R, V, XOR>(w, counter, &heads, chain, d, done, masks) };
            done += 8;
            counter = counter.wrapping_add(8);
            if V::COUNTER_WORDS == 2 && (counter as u32) < 8 {
                // `Legacy`: word 13 was carried into.
                heads = Heads::at(state, counter);
            }
        }
    } else if d.whole >= 8 {
        // SAFETY: blocks 0..8 are whole blocks of the request.
        unsafe { sliced8_whole::<R, V, XOR>(w, counter, d, done, masks) };
        done += 8;
        counter = counter.wrapping_add(8);
    }
    // A set of 8 whose last block is the partial one.
    if blocks - done >= 8 {
        // SAFETY: blocks done..done+8 are in the request.
        unsafe { sliced8::<R, V, XOR>(w, counter, d, done, 8, masks) };
        done += 8;
        counter = counter.wrapping_add(8);
    }
    // The rest, fewer than 8 blocks: never more than one block computed and not used.
    match blocks - done {
        0 => {}
        // SAFETY: in every arm, the kernels emit exactly the blocks `done..blocks`, all
        // in the request.
        1 => unsafe { rows1::<R, V, XOR>(w, counter, d, done) },
        // SAFETY: as above.
        2 => unsafe { rows2::<R, V, XOR>(w, counter, d, done, masks) },
        // SAFETY: as above.
        3 => unsafe { rows4::<R, V, XOR>(w, counter, d, done, 3, masks) },
        // SAFETY: as above.
        4 => unsafe { rows4::<R, V, XOR>(w, counter, d, done, 4, masks) },
        // SAFETY: as above.
        5 => unsafe { rows6::<R, V, XOR>(w, counter, d, done, 5, masks) },
        // SAFETY: as above.
        6 => unsafe { rows6::<R, V, XOR>(w, counter, d, done, 6, masks) },
        // SAFETY: as above.
        _ => unsafe { sliced8::<R, V, XOR>(w, counter, d, done, 7, masks) },
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
        // An empty `asm!` that LLVM must assume changes the registers: it cannot see the
        // masks' values afterwards, so it cannot constant-fold them and rewrite the rotates
        // (see the module header); costs nothing but the two loads.
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

// ---------------------------------------------------------------------------------------
// 8 blocks, word-sliced: `x[i]` holds word `i` of the 8 blocks, block `j` in lane `j`.

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

/// Two quarter rounds of the word-sliced state, step by step side by side.
#[cfg(not(target_arch = "x86_64"))]
macro_rules! qr8x2 {
    ($x:ident, $m:expr, [$a0:literal, $b0:literal, $c0:literal, $d0:literal], [$a1:literal, $b1:literal, $c1:literal, $d1:literal]) => {
        $x[$a0] = _mm256_add_epi32($x[$a0], $x[$b0]);
        $x[$a1] = _mm256_add_epi32($x[$a1], $x[$b1]);
        $x[$d0] = rotl256!(_mm256_xor_si256($x[$d0], $x[$a0]), 16, $m);
        $x[$d1] = rotl256!(_mm256_xor_si256($x[$d1], $x[$a1]), 16, $m);
        $x[$c0] = _mm256_add_epi32($x[$c0], $x[$d0]);
        $x[$c1] = _mm256_add_epi32($x[$c1], $x[$d1]);
        $x[$b0] = rotl256!(_mm256_xor_si256($x[$b0], $x[$c0]), 12, $m);
        $x[$b1] = rotl256!(_mm256_xor_si256($x[$b1], $x[$c1]), 12, $m);
        $x[$a0] = _mm256_add_epi32($x[$a0], $x[$b0]);
        $x[$a1] = _mm256_add_epi32($x[$a1], $x[$b1]);
        $x[$d0] = rotl256!(_mm256_xor_si256($x[$d0], $x[$a0]), 8, $m);
        $x[$d1] = rotl256!(_mm256_xor_si256($x[$d1], $x[$a1]), 8, $m);
        $x[$c0] = _mm256_add_epi32($x[$c0], $x[$d0]);
        $x[$c1] = _mm256_add_epi32($x[$c1], $x[$d1]);
        $x[$b0] = rotl256!(_mm256_xor_si256($x[$b0], $x[$c0]), 7, $m);
        $x[$b1] = rotl256!(_mm256_xor_si256($x[$b1], $x[$c1]), 7, $m);
    };
}

/// The rounds of the word-sliced state, in intrinsics: the fallback for 32-bit x86 (8
/// `ymm` registers, so it spills whatever the order).
#[cfg(not(target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
#[inline]
fn rounds8(x: &mut [__m256i; 16], m: Masks, double_rounds: usize) {
    for _ in 0..double_rounds {
        qr8x2!(x, m, [0, 4, 8, 12], [1, 5, 9, 13]);
        qr8x2!(x, m, [2, 6, 10, 14], [3, 7, 11, 15]);
        qr8x2!(x, m, [0, 5, 10, 15], [1, 6, 11, 12]);
        qr8x2!(x, m, [2, 7, 8, 13], [3, 4, 9, 14]);
    }
}

/// Two quarter rounds of the word-sliced state in `asm!`, side by side, on fixed
/// registers: `t0`/`t1` are the shift temporaries of the first/second; the `vpshufb`
/// masks are memory operands at `{s} + 128` (rotate by 16) and `{s} + 160` (by 8).
#[cfg(target_arch = "x86_64")]
#[rustfmt::skip]
macro_rules! qr8x2_asm {
    ($a0:literal, $b0:literal, $c0:literal, $d0:literal, $a1:literal, $b1:literal, $c1:literal, $d1:literal) => {
        concat!(
            qr8x2_asm!(@add_xor $a0, $b0, $d0, $a1, $b1, $d1),
            qr8x2_asm!(@rotate_by_mask $d0, $d1, 128),
            qr8x2_asm!(@add_xor $c0, $d0, $b0, $c1, $d1, $b1),
            qr8x2_asm!(@rotate_by_shifts $b0, $b1, 12, 20),
            qr8x2_asm!(@add_xor $a0, $b0, $d0, $a1, $b1, $d1),
            qr8x2_asm!(@rotate_by_mask $d0, $d1, 160),
            qr8x2_asm!(@add_xor $c0, $d0, $b0, $c1, $d1, $b1),
            qr8x2_asm!(@rotate_by_shifts $b0, $b1, 7, 25),
        )
    };
    // `x += y; z ^= x` in both quarter rounds.
    (@add_xor $x0:literal, $y0:literal, $z0:literal, $x1:literal, $y1:literal, $z1:literal) => {
        concat!(
            "vpaddd ", $x0, ", ", $x0, ", ", $y0, "\n",
            "vpaddd ", $x1, ", ", $x1, ", ", $y1, "\n",
            "vpxor ", $z0, ", ", $z0, ", ", $x0, "\n",
            "vpxor ", $z1, ", ", $z1, ", ", $x1, "\n",
        )
    };
    // Rotate both by 16 or 8: the byte shuffle at `{s} + $at`.
    (@rotate_by_mask $v0:literal, $v1:literal, $at:literal) => {
        concat!(
            "vpshufb ", $v0, ", ", $v0, ", ymmword ptr [{s} + ", $at, "]\n",
            "vpshufb ", $v1, ", ", $v1, ", ymmword ptr [{s} + ", $at, "]\n",
        )
    };
    // Rotate both left by `$l` (12 or 7; `$r` = 32 - `$l`): two shifts and an or, through
    // the temporaries `ymm10`/`ymm11`.
    (@rotate_by_shifts $v0:literal, $v1:literal, $l:literal, $r:literal) => {
        concat!(
            "vpslld ymm10, ", $v0, ", ", $l, "\n",
            "vpslld ymm11, ", $v1, ", ", $l, "\n",
            "vpsrld ", $v0, ", ", $v0, ", ", $r, "\n",
            "vpsrld ", $v1, ", ", $v1, ", ", $r, "\n",
            "vpor ", $v0, ", ", $v0, ", ymm10\n",
            "vpor ", $v1, ", ", $v1, ", ymm11\n",
        )
    };
}

/// The rounds of the word-sliced state, with OpenSSL's register plan: words 0–7 and
/// 12–15 stay in `ymm0`–`ymm7` and `ymm12`–`ymm15`, two of the four `c` words (8–11) are
/// in `ymm8`/`ymm9` and the other two in memory, `ymm10`/`ymm11` are the temporaries.
///
/// ```text
///   column round: (0,4,8,12) (1,5,9,13)   | c8,c9 out, c10,c11 in |  (2,6,10,14) (3,7,11,15)
///   diagonal:     (0,5,10,15) (1,6,11,12) | c10,c11 out, c8,c9 in |  (2,7,8,13) (3,4,9,14)
/// ```
///
/// The pair of `c` words in registers is the same across each round boundary, so each
/// round swaps two words once, in its middle; each word reloaded was stored half a round
/// earlier, so the reload is off the critical chain. No other spill.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn rounds8(x: &mut [__m256i; 16], m: Masks, double_rounds: usize) {
    /// `c` words 8–11 (those not in registers), then the rotate-by-16 and -by-8 masks.
    #[repr(C, align(32))]
    struct Scratch([__m256i; 6]);
    let mut s = Scratch([x[8], x[9], x[10], x[11], m.r16, m.r8]);
    let [x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, _, _, x12, x13, x14, x15] = x;
    // SAFETY: the asm reads and writes only the named registers, the flags and `s`
    // (through `{s}`: 192 bytes, 32-aligned for `vmovdqa`).
    unsafe {
        core::arch::asm!(
            "2:",
            qr8x2_asm!("ymm0", "ymm4", "ymm8", "ymm12", "ymm1", "ymm5", "ymm9", "ymm13"),
            "vmovdqa ymmword ptr [{s}], ymm8",
            "vmovdqa ymmword ptr [{s} + 32], ymm9",
            "vmovdqa ymm8, ymmword ptr [{s} + 64]",
            "vmovdqa ymm9, ymmword ptr [{s} + 96]",
            qr8x2_asm!("ymm2", "ymm6", "ymm8", "ymm14", "ymm3", "ymm7", "ymm9", "ymm15"),
            qr8x2_asm!("ymm0", "ymm5", "ymm8", "ymm15", "ymm1", "ymm6", "ymm9", "ymm12"),
            "vmovdqa ymmword ptr [{s} + 64], ymm8",
            "vmovdqa ymmword ptr [{s} + 96], ymm9",
            "vmovdqa ymm8, ymmword ptr [{s}]",
            "vmovdqa ymm9, ymmword ptr [{s} + 32]",
            qr8x2_asm!("ymm2", "ymm7", "ymm8", "ymm13", "ymm3", "ymm4", "ymm9", "ymm14"),
            "dec {n}",
            "jnz 2b",
            s = in(reg) &mut s,
            n = inout(reg) double_rounds => _,
            inout("ymm0") *x0, inout("ymm1") *x1, inout("ymm2") *x2, inout("ymm3") *x3,
            inout("ymm4") *x4, inout("ymm5") *x5, inout("ymm6") *x6, inout("ymm7") *x7,
            inout("ymm8") *x8, inout("ymm9") *x9, out("ymm10") _, out("ymm11") _,
            inout("ymm12") *x12, inout("ymm13") *x13, inout("ymm14") *x14, inout("ymm15") *x15,
            options(nostack),
        );
    }
    x[10] = s.0[2];
    x[11] = s.0[3];
}

/// The input words of 8 consecutive blocks, word-sliced.
#[target_feature(enable = "avx2")]
#[inline]
fn words8<V: Variant>(w: &[u32; 16], counter: u64) -> [__m256i; 16] {
    let mut x = [_mm256_setzero_si256(); 16];
    for i in 0..16 {
        x[i] = _mm256_set1_epi32(w[i] as i32);
    }
    x[12] = counters8(counter);
    if V::COUNTER_WORDS == 2 {
        // Carry into word 13 in the lanes where the low word wrapped.
        x[13] = _mm256_sub_epi32(_mm256_set1_epi32((counter >> 32) as u32 as i32), wrapped8(counter));
    }
    x
}

/// Word 12 (the counter's low half) of the 8 blocks from `counter`.
#[target_feature(enable = "avx2")]
#[inline]
fn counters8(counter: u64) -> __m256i {
    _mm256_add_epi32(_mm256_set1_epi32(counter as u32 as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
}

/// All ones in the lanes of the 8 blocks from `counter` whose word 12 wrapped (unsigned
/// `counters8 < low word`, as a signed compare with the sign bits flipped).
#[target_feature(enable = "avx2")]
#[inline]
fn wrapped8(counter: u64) -> __m256i {
    let flip = _mm256_set1_epi32(i32::MIN);
    let lo = _mm256_xor_si256(_mm256_set1_epi32(counter as u32 as i32), flip);
    _mm256_cmpgt_epi32(lo, _mm256_xor_si256(counters8(counter), flip))
}

/// Blocks `base .. base + n` (`n <= 8`) from counter `counter`: 8 computed, `n` emitted.
///
/// # Safety
/// As [`emit`], for blocks `base .. base + n`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn sliced8<R: Rounds, V: Variant, const XOR: bool>(
    w: &[u32; 16],
    counter: u64,
    d: Dest,
    base: usize,
    n: usize,
    m: Masks,
) {
    let mut x = words8::<V>(w, counter);
    let input = x;
    rounds8(&mut x, m, R::DOUBLE_ROUNDS);
    for i in 0..16 {
        x[i] = _mm256_add_epi32(x[i], input[i]);
    }
    // SAFETY: the caller's guarantee.
    unsafe { emit8::<XOR>(d, base, &x, n) };
}

/// One step of word-sliced quarter rounds side by side: `p += q; r ^= p; r <<<= n` for
/// each `[p, q, r]`.
macro_rules! step8 {
    ($x:ident, $m:expr, $n:tt; $([$p:literal, $q:literal, $r:literal]),+) => {
        $( $x[$p] = _mm256_add_epi32($x[$p], $x[$q]); $x[$r] = rotl256!(_mm256_xor_si256($x[$r], $x[$p]), $n, $m); )+
    };
}

/// The feed-forward (`x + input`), the transposes, the XOR with the input and the stores
/// of blocks `base .. base + 8`, all whole, straight from the round registers, half a
/// block at a time: words 0–7 give bytes 0..32 of the 8 blocks, then words 8–15 bytes
/// 32..64 (so only half the state is ever being transposed, and LLVM spills little).
/// A macro, so that it cannot be kept out of line: as an out-of-line call it stored all
/// 16 words and reloaded them (DECISIONS.md, § avx2: writing 8 blocks).
///
/// Expands to unsafe operations; the caller guarantees that blocks `base .. base + 8` are
/// whole and that `d.inp` (if `XOR`) and `d.out` are valid for them.
macro_rules! put8_whole {
    ($x:ident, $input:ident, $d:ident, $base:ident, $xor:ident) => {{
        debug_assert!($base + 8 <= $d.whole, "blocks {}.. of {} whole", $base, $d.whole);
        let out = $d.out.wrapping_add(64 * $base);
        let inp = $d.inp.wrapping_add(64 * $base);
        for half in 0..2 {
            // The feed-forward and the 4×4 transposes of words 8·half .. 8·half + 8.
            let i = 8 * half;
            let add = |k: usize| _mm256_add_epi32($x[i + k], $input[i + k]);
            let [t0, t1, t2, t3] = transpose4(add(0), add(1), add(2), add(3));
            let [t4, t5, t6, t7] = transpose4(add(4), add(5), add(6), add(7));
            let t = [t0, t1, t2, t3, t4, t5, t6, t7];
            for j in 0..4 {
                // Bytes 32·half .. 32·half + 32 of block j (lane 0s) and of block j + 4 (lane 1s).
                let lo = _mm256_permute2x128_si256(t[j], t[4 + j], 0x20);
                let hi = _mm256_permute2x128_si256(t[j], t[4 + j], 0x31);
                let (o_lo, o_hi) = (64 * j + 32 * half, 64 * (j + 4) + 32 * half);
                let (lo, hi) = if $xor {
                    (
                        _mm256_xor_si256(lo, load32(inp.wrapping_add(o_lo))),
                        _mm256_xor_si256(hi, load32(inp.wrapping_add(o_hi))),
                    )
                } else {
                    (lo, hi)
                };
                store32(out.wrapping_add(o_lo), lo);
                store32(out.wrapping_add(o_hi), hi);
            }
        }
    }};
}

/// Blocks `base .. base + 8`, all whole: the bulk loop's body (of a request with one set
/// of 8 whole blocks; with more, [`sliced8_from_head`]).
///
/// # Safety
/// Blocks `base .. base + 8` are whole (`base + 8 <= d.whole`); `d.inp` (if `XOR`) and
/// `d.out` are valid for them.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn sliced8_whole<R: Rounds, V: Variant, const XOR: bool>(
    w: &[u32; 16],
    counter: u64,
    d: Dest,
    base: usize,
    m: Masks,
) {
    let input = words8::<V>(w, counter);
    let mut x = input;
    rounds8(&mut x, m, R::DOUBLE_ROUNDS);
    // SAFETY: the caller's guarantee.
    unsafe { put8_whole!(x, input, d, base, XOR) };
}

/// As [`sliced8_whole`], with the first double round started from the head: the lanes start
/// from `heads` (the `head` module: 53 of the first double round's 128 vector
/// instructions, the same in every lane, done once per call in scalar code) and `chain`,
/// this set's [`column_chain8`], computed by the set before; the rest of the first
/// double round is [`first_diagonal8`]. Returns the next set's chain.
///
/// The chain is a set early because it is one chain of 11 dependent instructions that
/// the diagonal round waits for: at the start of its own set it would leave the vector
/// ports idle while the set before transposes (measured on `avx512`: DECISIONS.md,
/// § avx512: the head). LLVM sinks it to its use, after the stores, unless an empty
/// `asm!` pins it where it is computed.
///
/// # Safety
/// As [`sliced8_whole`].
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn sliced8_from_head<R: Rounds, V: Variant, const XOR: bool>(
    w: &[u32; 16],
    counter: u64,
    heads: &Heads,
    chain: [__m256i; 4],
    d: Dest,
    base: usize,
    m: Masks,
) -> [__m256i; 4] {
    let input = words8::<V>(w, counter);
    let mut x = input;
    for i in [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15] {
        x[i] = _mm256_set1_epi32(heads.now[i] as i32);
    }
    if V::COUNTER_WORDS == 2 {
        // `Legacy`: lanes whose word 13 was carried into (in one set of each 2^32 blocks)
        // take the words that depend on it from the other head.
        let wrapped = wrapped8(counter);
        for i in [1, 5, 9, 13] {
            x[i] = _mm256_blendv_epi8(x[i], _mm256_set1_epi32(heads.carried[i] as i32), wrapped);
        }
    }
    [x[0], x[4], x[8], x[12]] = chain;
    first_diagonal8(&mut x, m);
    let mut next = column_chain8(&heads.now, counter.wrapping_add(8), m);
    // Pinned here: see the docs above.
    schedule_barrier!(ymm_reg; next[0], next[1], next[2], next[3]);
    rounds8(&mut x, m, R::DOUBLE_ROUNDS - 1);
    // SAFETY: the caller's guarantee.
    unsafe { put8_whole!(x, input, d, base, XOR) };
    next
}

/// The column round's quarter round (0, 4, 8, 12) of the first double round of the 8
/// blocks from `counter`, from `head` (which did its first add): words 0, 4, 8 and 12.
/// Words 0, 4 and 8 of a head are the constants and the key, the same in both of
/// [`Heads`].
#[target_feature(enable = "avx2")]
#[inline]
fn column_chain8(head: &[u32; 16], counter: u64, m: Masks) -> [__m256i; 4] {
    let mut x = [_mm256_setzero_si256(); 16];
    for i in [0, 4, 8] {
        x[i] = _mm256_set1_epi32(head[i] as i32);
    }
    x[12] = rotl256!(_mm256_xor_si256(counters8(counter), x[0]), 16, m);
    step8!(x, m, 12; [8, 12, 4]);
    step8!(x, m, 8; [0, 4, 12]);
    step8!(x, m, 7; [8, 12, 4]);
    [x[0], x[4], x[8], x[12]]
}

/// What is left of the first double round after the head and [`column_chain8`]: the
/// diagonal round less the head's steps (`head::finish_first_double_round`
/// for every lane, with the chain). Intrinsics: LLVM spills a few words here, once per
/// set, off the `asm!` rounds.
#[target_feature(enable = "avx2")]
#[inline]
fn first_diagonal8(x: &mut [__m256i; 16], m: Masks) {
    // (1, 6, 11, 12) less its first add, (2, 7, 8, 13) less its first step,
    // (0, 5, 10, 15) and (3, 4, 9, 14) whole.
    x[12] = rotl256!(_mm256_xor_si256(x[12], x[1]), 16, m);
    step8!(x, m, 16; [0, 5, 15], [3, 4, 14]);
    step8!(x, m, 12; [10, 15, 5], [11, 12, 6], [8, 13, 7], [9, 14, 4]);
    step8!(x, m, 8; [0, 5, 15], [1, 6, 12], [2, 7, 13], [3, 4, 14]);
    step8!(x, m, 7; [10, 15, 5], [11, 12, 6], [8, 13, 7], [9, 14, 4]);
}

/// Four word-sliced words (`a`, `b`, `c`, `d`: words `4g .. 4g + 4` of 8 blocks) to the
/// blocks' 16-byte pieces, a 4×4 transpose of 32-bit words inside each 128-bit lane:
///
/// ```text
///   a = [a0 a1 a2 a3 | a4 a5 a6 a7]   (one word of blocks 0..7; b, c, d likewise)
///   unpacklo_epi32(a, b) = [a0 b0 a1 b1 | a4 b4 a5 b5]
///   unpackhi_epi32(a, b) = [a2 b2 a3 b3 | a6 b6 a7 b7]
///   unpacklo_epi64 of (a,b) and (c,d) lo = [a0 b0 c0 d0 | a4 b4 c4 d4]   blocks 0 | 4
///   ... hi / lo / hi: blocks 1 | 5, 2 | 6, 3 | 7
/// ```
#[target_feature(enable = "avx2")]
#[inline]
fn transpose4(a: __m256i, b: __m256i, c: __m256i, d: __m256i) -> [__m256i; 4] {
    let ab_lo = _mm256_unpacklo_epi32(a, b);
    let ab_hi = _mm256_unpackhi_epi32(a, b);
    let cd_lo = _mm256_unpacklo_epi32(c, d);
    let cd_hi = _mm256_unpackhi_epi32(c, d);
    [
        _mm256_unpacklo_epi64(ab_lo, cd_lo),
        _mm256_unpackhi_epi64(ab_lo, cd_lo),
        _mm256_unpacklo_epi64(ab_hi, cd_hi),
        _mm256_unpackhi_epi64(ab_hi, cd_hi),
    ]
}

/// Emits blocks `base .. base + n` (`n <= 8`) of a word-sliced state after the
/// feed-forward.
///
/// # Safety
/// As [`emit`], for blocks `base .. base + n`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn emit8<const XOR: bool>(d: Dest, base: usize, x: &[__m256i; 16], n: usize) {
    // Transpose: four 4×4 transposes of 32-bit words inside each 128-bit lane
    // (`transpose4`), then the lanes are paired up across the word groups:
    //   permute2x128(words 0-3, words 4-7, 0x20) = block j bytes 0..32, 0x31: block j+4
    let mut t = [_mm256_setzero_si256(); 16];
    for g in 0..4 {
        let [t0, t1, t2, t3] = transpose4(x[4 * g], x[4 * g + 1], x[4 * g + 2], x[4 * g + 3]);
        t[4 * g..4 * g + 4].copy_from_slice(&[t0, t1, t2, t3]);
    }
    for j in 0..4 {
        if j < n {
            let lo = _mm256_permute2x128_si256(t[j], t[4 + j], 0x20);
            let hi = _mm256_permute2x128_si256(t[8 + j], t[12 + j], 0x20);
            // SAFETY: block base + j is in the request (j < n).
            unsafe { emit::<XOR>(d, base + j, lo, hi) };
        }
    }
    for j in 0..4 {
        if j + 4 < n {
            let lo = _mm256_permute2x128_si256(t[j], t[4 + j], 0x31);
            let hi = _mm256_permute2x128_si256(t[8 + j], t[12 + j], 0x31);
            // SAFETY: block base + j + 4 is in the request (j + 4 < n).
            unsafe { emit::<XOR>(d, base + j + 4, lo, hi) };
        }
    }
}

// ---------------------------------------------------------------------------------------
// 2 and 4 blocks, row layout: one `__m256i` per state row, block 2k in the low lane and
// 2k+1 in the high lane.

/// A quarter round on whole rows (four columns at once, in each 128-bit lane).
macro_rules! qr_rows256 {
    ($a:ident, $b:ident, $c:ident, $d:ident, $m:expr) => {
        $a = _mm256_add_epi32($a, $b);
        $d = rotl256!(_mm256_xor_si256($d, $a), 16, $m);
        $c = _mm256_add_epi32($c, $d);
        $b = rotl256!(_mm256_xor_si256($b, $c), 12, $m);
        $a = _mm256_add_epi32($a, $b);
        $d = rotl256!(_mm256_xor_si256($d, $a), 8, $m);
        $c = _mm256_add_epi32($c, $d);
        $b = rotl256!(_mm256_xor_si256($b, $c), 7, $m);
    };
}

/// From columns to diagonals and back, leaving row b in place so that no shuffle sits on
/// the critical chain (b is the last row a quarter round finishes and the first the next
/// one needs):
///
/// ```text
///   lane:        0   1   2   3
///   a          a3  a0  a1  a2    (_MM_SHUFFLE(2,1,0,3) = 0x93: rotated right by one)
///   b          b0  b1  b2  b3    (in place)
///   c          c1  c2  c3  c0    (0x39: left by one)
///   d          d2  d3  d0  d1    (0x4E: by two)
/// ```
///
/// so lane `j` holds `a[j-1] b[j] c[j+1] d[j+2]`: the diagonal `(i, i+1, i+2, i+3)` for
/// `i = j - 1`, which is what the diagonal round needs. `to_columns` undoes it.
macro_rules! to_diagonals256 {
    ($a:ident, $c:ident, $d:ident) => {
        $a = _mm256_shuffle_epi32($a, 0x93);
        $c = _mm256_shuffle_epi32($c, 0x39);
        $d = _mm256_shuffle_epi32($d, 0x4E);
    };
}

macro_rules! to_columns256 {
    ($a:ident, $c:ident, $d:ident) => {
        $a = _mm256_shuffle_epi32($a, 0x39);
        $c = _mm256_shuffle_epi32($c, 0x93);
        $d = _mm256_shuffle_epi32($d, 0x4E);
    };
}

/// Row d of the block with counter `counter`: the counter from the register, the nonce
/// words from `w` (see `rows1` for why word 12 is never loaded).
#[inline(always)]
fn row_d<V: Variant>(w: &[u32; 16], counter: u64) -> [u32; 4] {
    let mut d = [counter as u32, w[13], w[14], w[15]];
    if V::COUNTER_WORDS == 2 {
        d[1] = (counter >> 32) as u32;
    }
    d
}

/// The four rows of two blocks (counter, counter + 1) of `w`.
#[target_feature(enable = "avx2")]
#[inline]
fn input_rows2<V: Variant>(w: &[u32; 16], counter: u64) -> [__m256i; 4] {
    let row = |i: usize| {
        let r = _mm_setr_epi32(w[i] as i32, w[i + 1] as i32, w[i + 2] as i32, w[i + 3] as i32);
        _mm256_broadcastsi128_si256(r)
    };
    let d = row_d::<V>(w, counter);
    let d = _mm256_broadcastsi128_si256(_mm_setr_epi32(d[0] as i32, d[1] as i32, d[2] as i32, d[3] as i32));
    // The high lane's block is one further: a 64-bit add carries into word 13 for the
    // 64-bit counter; a 32-bit add never touches the nonce.
    let one = _mm256_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0);
    let d = if V::COUNTER_WORDS == 2 { _mm256_add_epi64(d, one) } else { _mm256_add_epi32(d, one) };
    [row(0), row(4), row(8), d]
}

/// Adds `n` to the block counter of both lanes of a row-layout `d` row.
#[target_feature(enable = "avx2")]
#[inline]
fn add_counter256<V: Variant>(d: __m256i, n: i32) -> __m256i {
    let n = _mm256_setr_epi32(n, 0, 0, 0, n, 0, 0, 0);
    if V::COUNTER_WORDS == 2 { _mm256_add_epi64(d, n) } else { _mm256_add_epi32(d, n) }
}

/// Emits the two blocks of a row-layout state (after the feed-forward), the high lane's
/// block only if `both`.
///
/// # Safety
/// As [`emit`], for block `base` (and `base + 1` if `both`).
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn emit_rows<const XOR: bool>(d: Dest, base: usize, r: [__m256i; 4], both: bool) {
    let lo = _mm256_permute2x128_si256(r[0], r[1], 0x20);
    let hi = _mm256_permute2x128_si256(r[2], r[3], 0x20);
    // SAFETY: the caller's guarantee.
    unsafe { emit::<XOR>(d, base, lo, hi) };
    if both {
        let lo = _mm256_permute2x128_si256(r[0], r[1], 0x31);
        let hi = _mm256_permute2x128_si256(r[2], r[3], 0x31);
        // SAFETY: the caller's guarantee.
        unsafe { emit::<XOR>(d, base + 1, lo, hi) };
    }
}

/// Blocks `base`, `base + 1`: one chain of rows.
///
/// # Safety
/// As [`emit`], for both blocks.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn rows2<R: Rounds, V: Variant, const XOR: bool>(
    w: &[u32; 16],
    counter: u64,
    d: Dest,
    base: usize,
    m: Masks,
) {
    let input = input_rows2::<V>(w, counter);
    let [mut a, mut b, mut c, mut dd] = input;
    for _ in 0..R::DOUBLE_ROUNDS {
        qr_rows256!(a, b, c, dd, m);
        to_diagonals256!(a, c, dd);
        qr_rows256!(a, b, c, dd, m);
        to_columns256!(a, c, dd);
    }
    let out = [
        _mm256_add_epi32(a, input[0]),
        _mm256_add_epi32(b, input[1]),
        _mm256_add_epi32(c, input[2]),
        _mm256_add_epi32(dd, input[3]),
    ];
    // SAFETY: the caller's guarantee.
    unsafe { emit_rows::<XOR>(d, base, out, true) };
}

/// Blocks `base .. base + n` (`n` is 3 or 4): two chains of rows, interleaved.
///
/// # Safety
/// As [`emit`], for those blocks.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn rows4<R: Rounds, V: Variant, const XOR: bool>(
    w: &[u32; 16],
    counter: u64,
    d: Dest,
    base: usize,
    n: usize,
    m: Masks,
) {
    let i0 = input_rows2::<V>(w, counter);
    let i1 = [i0[0], i0[1], i0[2], add_counter256::<V>(i0[3], 2)];
    let [mut a0, mut b0, mut c0, mut d0] = i0;
    let [mut a1, mut b1, mut c1, mut d1] = i1;
    for _ in 0..R::DOUBLE_ROUNDS {
        qr_rows256!(a0, b0, c0, d0, m);
        qr_rows256!(a1, b1, c1, d1, m);
        to_diagonals256!(a0, c0, d0);
        to_diagonals256!(a1, c1, d1);
        qr_rows256!(a0, b0, c0, d0, m);
        qr_rows256!(a1, b1, c1, d1, m);
        to_columns256!(a0, c0, d0);
        to_columns256!(a1, c1, d1);
    }
    let o0 = [
        _mm256_add_epi32(a0, i0[0]),
        _mm256_add_epi32(b0, i0[1]),
        _mm256_add_epi32(c0, i0[2]),
        _mm256_add_epi32(d0, i0[3]),
    ];
    let o1 = [
        _mm256_add_epi32(a1, i1[0]),
        _mm256_add_epi32(b1, i1[1]),
        _mm256_add_epi32(c1, i1[2]),
        _mm256_add_epi32(d1, i1[3]),
    ];
    // SAFETY: the caller's guarantee (n is 3 or 4).
    unsafe { emit_rows::<XOR>(d, base, o0, true) };
    // SAFETY: as above.
    unsafe { emit_rows::<XOR>(d, base + 2, o1, n == 4) };
}

/// Blocks `base .. base + n` (`n` is 5 or 6): three chains of rows, interleaved.
///
/// # Safety
/// As [`emit`], for those blocks.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn rows6<R: Rounds, V: Variant, const XOR: bool>(
    w: &[u32; 16],
    counter: u64,
    d: Dest,
    base: usize,
    n: usize,
    m: Masks,
) {
    let i0 = input_rows2::<V>(w, counter);
    let i1 = [i0[0], i0[1], i0[2], add_counter256::<V>(i0[3], 2)];
    let i2 = [i0[0], i0[1], i0[2], add_counter256::<V>(i0[3], 4)];
    let [mut a0, mut b0, mut c0, mut d0] = i0;
    let [mut a1, mut b1, mut c1, mut d1] = i1;
    let [mut a2, mut b2, mut c2, mut d2] = i2;
    for _ in 0..R::DOUBLE_ROUNDS {
        qr_rows256!(a0, b0, c0, d0, m);
        qr_rows256!(a1, b1, c1, d1, m);
        qr_rows256!(a2, b2, c2, d2, m);
        to_diagonals256!(a0, c0, d0);
        to_diagonals256!(a1, c1, d1);
        to_diagonals256!(a2, c2, d2);
        qr_rows256!(a0, b0, c0, d0, m);
        qr_rows256!(a1, b1, c1, d1, m);
        qr_rows256!(a2, b2, c2, d2, m);
        to_columns256!(a0, c0, d0);
        to_columns256!(a1, c1, d1);
        to_columns256!(a2, c2, d2);
    }
    let add = |r: [__m256i; 4], i: [__m256i; 4]| -> [__m256i; 4] {
        core::array::from_fn(|k| _mm256_add_epi32(r[k], i[k]))
    };
    // SAFETY: the caller's guarantee (n is 5 or 6).
    unsafe { emit_rows::<XOR>(d, base, add([a0, b0, c0, d0], i0), true) };
    // SAFETY: as above.
    unsafe { emit_rows::<XOR>(d, base + 2, add([a1, b1, c1, d1], i1), true) };
    // SAFETY: as above.
    unsafe { emit_rows::<XOR>(d, base + 4, add([a2, b2, c2, d2], i2), n == 6) };
}

// ---------------------------------------------------------------------------------------
// 1 block.

macro_rules! rotl128 {
    ($v:expr, 16, $m:expr) => {
        _mm_shuffle_epi8($v, $m.0)
    };
    ($v:expr, 8, $m:expr) => {
        _mm_shuffle_epi8($v, $m.1)
    };
    ($v:expr, $n:literal, $m:expr) => {{
        let v = $v;
        _mm_or_si128(_mm_slli_epi32(v, $n), _mm_srli_epi32(v, 32 - $n))
    }};
}

macro_rules! qr_rows128 {
    ($a:ident, $b:ident, $c:ident, $d:ident, $m:expr) => {
        $a = _mm_add_epi32($a, $b);
        $d = rotl128!(_mm_xor_si128($d, $a), 16, $m);
        $c = _mm_add_epi32($c, $d);
        $b = rotl128!(_mm_xor_si128($b, $c), 12, $m);
        $a = _mm_add_epi32($a, $b);
        $d = rotl128!(_mm_xor_si128($d, $a), 8, $m);
        $c = _mm_add_epi32($c, $d);
        $b = rotl128!(_mm_xor_si128($b, $c), 7, $m);
    };
}

/// The rounds of one block in `__m128i` rows (`R` the round count, `rows` an array of the
/// four input rows); evaluates to the rows after the rounds. A macro, not a function: as an
/// `#[inline]` function LLVM kept it out of line in one instance of the short-message path
/// (ChaCha12 in the report binary), the rows going to the stack and back around a call.
macro_rules! rounds1_xmm {
    ($r:ty, $rows:expr) => {{
        let m = Masks::new();
        let m = (_mm256_castsi256_si128(m.r16), _mm256_castsi256_si128(m.r8));
        let [mut a, mut b, mut c, mut d] = $rows;
        for _ in 0..<$r>::DOUBLE_ROUNDS {
            qr_rows128!(a, b, c, d, m);
            a = _mm_shuffle_epi32(a, 0x93);
            c = _mm_shuffle_epi32(c, 0x39);
            d = _mm_shuffle_epi32(d, 0x4E);
            qr_rows128!(a, b, c, d, m);
            a = _mm_shuffle_epi32(a, 0x39);
            c = _mm_shuffle_epi32(c, 0x93);
            d = _mm_shuffle_epi32(d, 0x4E);
        }
        [a, b, c, d]
    }};
}

/// Block `base`.
///
/// # Safety
/// As [`emit`], for that block.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn rows1<R: Rounds, V: Variant, const XOR: bool>(w: &[u32; 16], counter: u64, d: Dest, base: usize) {
    // Rows a, b, c straight from the state; row d from the counter register and the nonce
    // words only. Nothing may load word 12 (or 13) as part of a wider load: `State`
    // stores the counter alone after every call, and a load that spans a recent smaller
    // store cannot be store-forwarded — it waits ~20 cycles on the chain (DECISIONS.md,
    // § Shared by the x86 backends).
    // SAFETY: `w` has 64 readable bytes.
    let [a, b, c] = core::array::from_fn(|i| unsafe { load16(w.as_ptr().wrapping_add(4 * i).cast()) });
    let [d0, d1, d2, d3] = row_d::<V>(w, counter);
    let dd = _mm_setr_epi32(d0 as i32, d1 as i32, d2 as i32, d3 as i32);
    let [ra, rb, rc, rd] = rounds1_xmm!(R, [a, b, c, dd]);
    let (lo, hi) = (
        _mm256_set_m128i(_mm_add_epi32(rb, b), _mm_add_epi32(ra, a)),
        _mm256_set_m128i(_mm_add_epi32(rd, dd), _mm_add_epi32(rc, c)),
    );
    // SAFETY: the caller's guarantee.
    unsafe { emit::<XOR>(d, base, lo, hi) };
}

#[target_feature(enable = "avx2")]
fn hchacha_avx2<R: Rounds>(key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
    // Little-endian bytes are the words on x86: the rows load straight from the inputs.
    let a =
        _mm_setr_epi32(CONSTANTS[0] as i32, CONSTANTS[1] as i32, CONSTANTS[2] as i32, CONSTANTS[3] as i32);
    // SAFETY: `key` has 32 readable bytes.
    let b = unsafe { load16(key.as_ptr()) };
    // SAFETY: as above.
    let c = unsafe { load16(key.as_ptr().wrapping_add(16)) };
    // SAFETY: `input` has 16 readable bytes.
    let d = unsafe { load16(input.as_ptr()) };
    let r = rounds1_xmm!(R, [a, b, c, d]);
    let words = _mm256_set_m128i(r[3], r[0]);
    let mut out = [0u8; 32];
    // SAFETY: `out` has 32 writable bytes.
    unsafe { store32(out.as_mut_ptr(), words) };
    out
}
