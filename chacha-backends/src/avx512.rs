//! `avx512`: AVX-512 (F + VL + BW) kernels for x86 and x86_64, 1 to 16 blocks per step.
//!
//! | blocks left | kernel | layout |
//! |---|---|---|
//! | ≥ 31 | `sliced16_sets`: 16 blocks, repeated, each set from the head; one spare lane for a last 15 | word-sliced: zmm `i` = word `i` of 16 blocks, lane `j` = block `counter + j` |
//! | 15 … 30 | `sliced16`: 16 blocks, once; one spare lane for 15 | same |
//! | 1 … 14 | `rows1` … `rows14`: 1 to 4 row chains of xmm (1 block), ymm (2) or zmm (4); 1–64 bytes run `rows1` alone, in `run_one_block` | rows: a block's rows a, b, c, d in four vectors, one block per 128-bit lane |
//!
//! `avx512/sliced16.rs` holds the word-sliced kernel, `avx512/rows.rs` the row kernels;
//! this file the entry points, the output cursor (`Io`) and the width rules (`run`).
//!
//! Why:
//! - **Word-sliced**: no shuffles in the rounds (32 `vpaddd`, 32 `vpxord`, 32 `vprold` a
//!   double round, no spills in 32 zmm), one 16×16 transpose fused into the XOR and stores.
//! - **The head**: only word 12 differs between lanes, so 41 of the first double round's 96
//!   instructions are done once, in scalar code (`head` module), and the one counter
//!   quarter round left (`column_chain`) runs a set early, beside the set before.
//! - **Rows**: row b stays in place between column and diagonal rounds (no shuffle on the
//!   chain); two to four interleaved chains cost about one chain's latency.
//! - **Split rotates** (`RotateForm`): the one-chain kernels (1 and 2 blocks, `hchacha`) can
//!   step as `(d <<< n) ^ (a << n) ^ (a >> 32 - n)` with one `vpternlogd`; `detect` picks it
//!   where `vprold` takes 2 cycles (AMD Zen 4) and keeps `vprold` on Intel.
//! - **Partial last block**: byte-masked loads and stores (masked-off bytes cannot fault),
//!   its whole keystream to `tail`. `fill` runs the same width rules without the XOR.
//! - **No extra block in general-purpose registers**, and `vprold` for every rotate: the
//!   alternatives measured slower.
//!
//! Every function is `#[target_feature(enable = "avx512f,avx512vl,avx512bw")]`, so no
//! intrinsic is left out of line; the double rounds are macros, so no array of vectors goes
//! through memory. Figures, rejected designs and how to measure them again: `DECISIONS.md`
//! in this crate, § avx512 (and § Machine facts for the CPUs).

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use core::marker::PhantomData;
use core::sync::atomic::{AtomicU8, Ordering::Relaxed};

use chacha_core::poly1305::{Accumulator, MAC_BLOCK_LEN, MacBlock};
use chacha_core::{
    AeadDirection, BLOCK_LEN, Block, Kernel, Rounds, State, Variant, aead_in_pieces, inout::InOutBuf,
};

mod poly1305;
mod rows;
mod sliced16;
#[cfg(test)]
mod tests;

use rows::{hchacha_row, rows1, rows2, rows4, rows5, rows6, rows8, rows9, rows10, rows12, rows13, rows14};
use sliced16::{sliced16, sliced16_sets};

// AVX-512F: the 512-bit ops, `vprold` and the counter carry mask; AVX-512VL: `vprold`
// on xmm/ymm (the row kernels); AVX-512BW: the byte-masked load/store of a partial last
// block.
cpufeatures::new!(cpuid_avx512, "avx512f", "avx512vl", "avx512bw");

/// Proof that this CPU (and OS) runs AVX-512F, AVX-512VL and AVX-512BW; only
/// [`detect`](Avx512::detect) creates one. It also carries which form of the one-chain
/// row steps (rotate, or split into two shifts; see the module docs) is faster on this
/// CPU, and whether it has AVX-512 IFMA, on which Poly1305 runs 16 blocks a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Avx512 {
    steps: RotateForm,
    ifma: Option<poly1305::Ifma>,
}

/// The step form of the one-chain row kernels (1 block in xmm, 2 in ymm, `hchacha`): the
/// one with the shorter latency per step on this CPU. Both are tested on every CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum RotateForm {
    /// add, xor, `vprold`: 3 cycles a step where `vprold` takes 1 (Intel).
    Rotate,
    /// add, two shifts side by side, `vpternlogd` ([`rows::Rows::ad_split`]): 3 cycles a step
    /// everywhere, so faster where `vprold` takes 2 (AMD Zen 4); slower on Intel.
    Split,
}

/// [`RotateForm::for_this_cpu`]'s answer, cached: 0 until the first [`Avx512::detect`],
/// then 1 (`Rotate`) or 2 (`Split`). CPUID traps to the hypervisor on a virtual machine,
/// and every new cipher, RNG and AEAD message reaches `detect`.
static ROTATE_FORM: AtomicU8 = AtomicU8::new(0);

impl RotateForm {
    /// This CPU's form, from the once-per-process cache. Two threads may both execute
    /// CPUID on a first call at once; they store the same answer.
    #[inline]
    fn cached() -> Self {
        match ROTATE_FORM.load(Relaxed) {
            1 => RotateForm::Rotate,
            2 => RotateForm::Split,
            _ => {
                let steps = Self::for_this_cpu();
                ROTATE_FORM.store(if steps == RotateForm::Split { 2 } else { 1 }, Relaxed);
                steps
            }
        }
    }

    /// `Split` on AMD family 19h (Zen 3 and 4; of them only Zen 4 has AVX-512): its
    /// `vprold` has 2-cycle latency. `Rotate` elsewhere, including CPUs not measured
    /// (Zen 5, family 1Ah).
    /// Miri sees no CPU and cannot execute CPUID (inline assembly): `Rotate` there.
    #[cfg(miri)]
    fn for_this_cpu() -> Self {
        RotateForm::Rotate
    }

    #[cfg(not(miri))]
    #[cold]
    fn for_this_cpu() -> Self {
        #[cfg(target_arch = "x86")]
        use core::arch::x86::{__cpuid, CpuidResult};
        #[cfg(target_arch = "x86_64")]
        use core::arch::x86_64::{__cpuid, CpuidResult};
        // `__cpuid` is a safe function in recent Rust and an unsafe one in the MSRV's
        // (1.89): the block is needed there and unused here.
        #[allow(unused_unsafe)]
        let cpuid = |leaf: u32| -> CpuidResult {
            // SAFETY: the CPUID instruction exists: `cpuid_avx512` (cpufeatures) executed
            // it before any `Avx512` is made, and only `cached` calls this.
            unsafe { __cpuid(leaf) }
        };
        let vendor = cpuid(0);
        // "AuthenticAMD" in EBX, EDX, ECX.
        let amd = (vendor.ebx, vendor.edx, vendor.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163);
        // The family: base (bits 8–11) plus extended (bits 20–27).
        let eax = cpuid(1).eax;
        let family = ((eax >> 8) & 0xf) + ((eax >> 20) & 0xff);
        if amd && family == 0x19 { RotateForm::Split } else { RotateForm::Rotate }
    }
}

impl Avx512 {
    /// `Some` if this CPU runs AVX-512F, AVX-512VL and AVX-512BW with the OS saving the
    /// 512-bit state. Everything it reads of the CPU (the features, and the vendor and
    /// family that choose the row steps) is read once per process and cached: after the
    /// first call this is two relaxed atomic loads.
    #[inline]
    pub fn detect() -> Option<Self> {
        cpuid_avx512::get().then(|| Avx512 { steps: RotateForm::cached(), ifma: poly1305::Ifma::detect() })
    }

    fn split(self) -> bool {
        self.steps == RotateForm::Split
    }

    /// An AEAD's bulk step: on IFMA, long messages in one pass with `r`'s powers computed
    /// once; the rest in the default pieces.
    #[inline]
    fn aead<R: Rounds, V: Variant>(
        self,
        state: &State<V>,
        acc: &mut Accumulator,
        buf: InOutBuf<'_, '_, u8>,
        direction: AeadDirection,
    ) {
        match self.ifma {
            Some(ifma) if buf.len() >= poly1305::MIN_BLOCKS * MAC_BLOCK_LEN => {
                ifma.xor_and_mac::<R, V>(self, state, acc, buf, direction)
            }
            _ => aead_in_pieces::<R, V, Self>(self, state, buf, direction, |ct| acc.absorb_padded(self, ct)),
        }
    }
}

impl Kernel for Avx512 {
    #[inline]
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, buf: InOutBuf<'_, '_, u8>, tail: &mut Block) {
        let (inp, out, len) = Io::<true>::xor(buf).into_parts();
        if (1..=BLOCK_LEN).contains(&len) {
            let counter = state.counter();
            return if self.split() {
                // SAFETY: as below.
                unsafe { run_one_block::<R, V, true>(state, counter, inp, out, len, tail) }
            } else {
                // SAFETY: as below.
                unsafe { run_one_block::<R, V, false>(state, counter, inp, out, len, tail) }
            };
        }
        // SAFETY: an Avx512 exists only if detect() saw AVX-512F, AVX-512VL and AVX-512BW;
        // the parts are an `Io`'s.
        unsafe { run::<R, V, true>(state, inp, out, len, tail, self.split()) }
    }

    #[inline]
    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        let (inp, out, len) = Io::<false>::fill(out).into_parts();
        // Never written: a fill has no partial block.
        let mut unused = [0u8; BLOCK_LEN];
        // SAFETY: an Avx512 exists only if detect() saw AVX-512F, AVX-512VL and AVX-512BW;
        // the parts are an `Io`'s.
        unsafe { run::<R, V, false>(state, inp, out, len, &mut unused, self.split()) }
    }

    #[inline]
    fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
        if self.split() {
            // SAFETY: an Avx512 exists only if detect() saw AVX-512F, AVX-512VL and AVX-512BW.
            unsafe { hchacha_row::<R, true>(key, input) }
        } else {
            // SAFETY: as above.
            unsafe { hchacha_row::<R, false>(key, input) }
        }
    }

    /// One `zmm` row chain holds 4 blocks at the latency of one block's `xmm` chain.
    #[inline(always)]
    fn batch_blocks(self) -> usize {
        4
    }

    /// 16 blocks a step on IFMA (two sets of 8 lanes); without it, the portable step.
    #[inline]
    fn poly1305_blocks(self, acc: &mut Accumulator, blocks: &[MacBlock]) {
        match self.ifma {
            Some(ifma) => ifma.absorb(acc, blocks),
            None => acc.absorb(blocks),
        }
    }

    #[inline]
    fn xor_then_mac<R: Rounds, V: Variant>(
        self,
        state: &State<V>,
        acc: &mut Accumulator,
        buf: InOutBuf<'_, '_, u8>,
    ) {
        self.aead::<R, V>(state, acc, buf, AeadDirection::Seal);
    }

    #[inline]
    fn mac_then_xor<R: Rounds, V: Variant>(
        self,
        state: &State<V>,
        acc: &mut Accumulator,
        buf: InOutBuf<'_, '_, u8>,
    ) {
        self.aead::<R, V>(state, acc, buf, AeadDirection::Open);
    }
}

// ---- Memory: the only pointer loads and stores of the module.

/// Where keystream goes: the caller's buffer as a cursor over raw pointers.
///
/// Invariant (established by the two constructors, kept by [`Io::put_whole`],
/// [`Io::put_last`] and [`Io::put_rows`]): `out` is valid
/// for writing `len` bytes and, if `XOR`, `inp` is valid for reading `len` bytes; `inp`
/// and `out` are the same or do not overlap (`InOutBuf` guarantees it). `XOR = false`
/// (raw keystream) has `len` a multiple of 64 and never reads `inp`.
struct Io<'a, const XOR: bool> {
    inp: *const u8,
    out: *mut u8,
    len: usize,
    _buf: PhantomData<&'a mut [u8]>,
}

impl<'a> Io<'a, true> {
    /// The cursor over a fused-XOR request.
    #[inline(always)]
    fn xor(buf: InOutBuf<'_, 'a, u8>) -> Self {
        let len = buf.len();
        let (inp, out) = buf.into_raw();
        Io { inp, out, len, _buf: PhantomData }
    }
}

impl<'a> Io<'a, false> {
    /// The cursor over a raw-keystream request.
    #[inline(always)]
    fn fill(out: &'a mut [Block]) -> Self {
        let len = out.len() * BLOCK_LEN;
        Io { inp: core::ptr::null(), out: out.as_mut_ptr().cast(), len, _buf: PhantomData }
    }
}

impl<const XOR: bool> Io<'_, XOR> {
    /// The cursor as three words, for [`run`]: passed as arguments, they stay in
    /// registers (see there).
    #[inline(always)]
    fn into_parts(self) -> (*const u8, *mut u8, usize) {
        (self.inp, self.out, self.len)
    }

    /// The cursor back from [`Io::into_parts`].
    /// # Safety
    /// `inp`, `out` and `len` come from `into_parts` of an `Io` with the same `XOR`, and
    /// its buffer is still borrowed for the new one's lifetime.
    #[inline(always)]
    unsafe fn from_parts(inp: *const u8, out: *mut u8, len: usize) -> Self {
        Io { inp, out, len, _buf: PhantomData }
    }

    /// Blocks still to write (a partial last block counts as one).
    #[inline(always)]
    fn blocks(&self) -> usize {
        self.len.div_ceil(BLOCK_LEN)
    }

    /// Writes the keystream blocks `ks` to the next output blocks, in order: straight-line
    /// code when all of them are whole (the bulk case), block by block otherwise.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    fn put_all<const N: usize>(&mut self, ks: [__m512i; N], tail: &mut Block) {
        if self.len >= N * BLOCK_LEN {
            for k in ks {
                self.put_whole(k);
            }
        } else {
            for k in ks {
                self.put(k, tail);
            }
        }
    }

    /// Writes keystream block `ks` to the next output block (XORed with the input if
    /// `XOR`). A partial last block is XORed through a byte mask and `ks` goes whole to
    /// `tail`; with nothing left, `ks` is dropped (the spare lane of a wider kernel).
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    fn put(&mut self, ks: __m512i, tail: &mut Block) {
        if self.len >= BLOCK_LEN {
            self.put_whole(ks);
        } else if XOR && self.len > 0 {
            self.put_last(ks, tail);
        }
    }

    /// A whole block: `len >= 64`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    fn put_whole(&mut self, ks: __m512i) {
        assert!(self.len >= BLOCK_LEN);
        let v = if XOR {
            // SAFETY: `len >= 64` bytes are readable at `inp` (the `Io` invariant).
            let data = unsafe { _mm512_loadu_si512(self.inp.cast()) };
            _mm512_xor_si512(data, ks)
        } else {
            ks
        };
        // SAFETY: `len >= 64` bytes are writable at `out` (the `Io` invariant).
        unsafe { _mm512_storeu_si512(self.out.cast(), v) };
        self.inp = self.inp.wrapping_add(BLOCK_LEN);
        self.out = self.out.wrapping_add(BLOCK_LEN);
        self.len -= BLOCK_LEN;
    }

    /// The partial last block (`len < 64`; nothing for `len == 0`).
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    fn put_last(&mut self, ks: __m512i, tail: &mut Block) {
        assert!(self.len < BLOCK_LEN);
        if self.len == 0 {
            return;
        }
        store_block(tail, ks);
        // The first `len` (1..=63) bytes: masked-off bytes are neither read nor written,
        // and cannot fault.
        let mask: __mmask64 = (1u64 << self.len) - 1;
        let data = if XOR {
            // SAFETY: the mask selects the first `len` bytes, readable at `inp` (the `Io` invariant).
            unsafe { _mm512_maskz_loadu_epi8(mask, self.inp.cast()) }
        } else {
            _mm512_setzero_si512()
        };
        let v = _mm512_xor_si512(data, ks);
        // SAFETY: the mask selects the first `len` bytes, writable at `out` (the `Io` invariant).
        unsafe { _mm512_mask_storeu_epi8(self.out.cast(), mask, v) };
        self.len = 0;
    }
}

impl<const XOR: bool> Io<'_, XOR> {
    /// Writes one keystream block given as its four 16-byte rows, row by row, so that no
    /// shuffle joins them on the latency path of a 1-block request; a partial last block
    /// through one 16-bit byte mask per row, its rows whole to `tail`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    fn put_rows(&mut self, rows: [__m128i; 4], tail: &mut Block) {
        if self.len >= BLOCK_LEN {
            for (r, ks) in rows.into_iter().enumerate() {
                let v = if XOR {
                    // SAFETY: `len >= 64` bytes are readable at `inp` (the `Io` invariant);
                    // row `r` is bytes `16 r .. 16 r + 16`.
                    let data = unsafe { _mm_loadu_si128(self.inp.wrapping_add(16 * r).cast()) };
                    _mm_xor_si128(data, ks)
                } else {
                    ks
                };
                // SAFETY: `len >= 64` bytes are writable at `out` (the `Io` invariant).
                unsafe { _mm_storeu_si128(self.out.wrapping_add(16 * r).cast(), v) };
            }
            self.inp = self.inp.wrapping_add(BLOCK_LEN);
            self.out = self.out.wrapping_add(BLOCK_LEN);
            self.len -= BLOCK_LEN;
        } else if XOR && self.len > 0 {
            // The first `len` (1..=63) bytes; row `r` takes mask bits `16 r ..`.
            let mask: u64 = (1u64 << self.len) - 1;
            for (r, (ks, t)) in rows.into_iter().zip(tail.chunks_exact_mut(16)).enumerate() {
                store_16(t.try_into().expect("16-byte chunk"), ks);
                let m = (mask >> (16 * r)) as __mmask16;
                // SAFETY: the mask selects bytes below `len`, readable at `inp` (the `Io`
                // invariant); masked-off bytes are neither read nor faulted on.
                let data = unsafe { _mm_maskz_loadu_epi8(m, self.inp.wrapping_add(16 * r).cast()) };
                let v = _mm_xor_si128(data, ks);
                // SAFETY: the mask selects bytes below `len`, writable at `out` (the `Io` invariant).
                unsafe { _mm_mask_storeu_epi8(self.out.wrapping_add(16 * r).cast(), m, v) };
            }
            self.len = 0;
        }
    }
}

/// `out = v`, 16 bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
fn store_16(out: &mut [u8; 16], v: __m128i) {
    // SAFETY: `out` is a `&mut [u8; 16]`: 16 writable bytes (no alignment needed).
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), v) }
}

/// `block = v`, 64 bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
fn store_block(block: &mut Block, v: __m512i) {
    // SAFETY: `block` is a `&mut [u8; 64]`: 64 writable bytes (no alignment needed).
    unsafe { _mm512_storeu_si512(block.as_mut_ptr().cast(), v) }
}

/// `out = v`, 32 bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
fn store_32(out: &mut [u8; 32], v: __m256i) {
    // SAFETY: `out` is a `&mut [u8; 32]`: 32 writable bytes (no alignment needed).
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) }
}

// ---- Width rules.

/// Every block of the request, by the module header's width rules. The cursor comes as
/// the three words of [`Io::into_parts`], so that it lives in registers: as an `Io` or
/// `&mut Io` it went through memory, a store per block written (DECISIONS.md, § Shared by
/// the x86 backends).
/// # Safety
/// As [`Io::from_parts`].
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
unsafe fn run<R: Rounds, V: Variant, const XOR: bool>(
    state: &State<V>,
    inp: *const u8,
    out: *mut u8,
    len: usize,
    tail: &mut Block,
    split: bool,
) {
    // SAFETY: the caller's guarantee.
    let io = &mut unsafe { Io::<XOR>::from_parts(inp, out, len) };
    let mut counter = state.counter();
    // 16 whole blocks at a time; a last 15 or 16 with a partial or missing block take the
    // other instance (one instance for both stayed out of line: DECISIONS.md, § avx512:
    // keeping the 16-block kernel inline).
    if io.blocks() >= 31 {
        // Two sets or more: each set starts from the head.
        counter = sliced16_sets::<R, V, XOR>(state, counter, io, tail);
    } else if io.len >= 16 * BLOCK_LEN {
        sliced16::<R, V, XOR, true>(state, counter, io, tail);
        counter = counter.wrapping_add(16);
    } else if io.blocks() >= 15 {
        sliced16::<R, V, XOR, false>(state, counter, io, tail);
        counter = counter.wrapping_add(16);
    }
    match (io.blocks(), split) {
        (0, _) => {}
        (1, false) => rows1::<R, V, XOR, false>(state, counter, io, tail),
        (1, true) => rows1::<R, V, XOR, true>(state, counter, io, tail),
        (2, false) => rows2::<R, V, XOR, false>(state, counter, io, tail),
        (2, true) => rows2::<R, V, XOR, true>(state, counter, io, tail),
        (3 | 4, _) => rows4::<R, V, XOR, false>(state, counter, io, tail),
        (5, _) => rows5::<R, V, XOR, false>(state, counter, io, tail),
        (6, _) => rows6::<R, V, XOR, false>(state, counter, io, tail),
        (7 | 8, _) => rows8::<R, V, XOR, false>(state, counter, io, tail),
        (9, _) => rows9::<R, V, XOR, false>(state, counter, io, tail),
        (10, _) => rows10::<R, V, XOR, false>(state, counter, io, tail),
        (11 | 12, _) => rows12::<R, V, XOR, false>(state, counter, io, tail),
        (13, _) => rows13::<R, V, XOR, false>(state, counter, io, tail),
        _ => rows14::<R, V, XOR, false>(state, counter, io, tail),
    }
}

/// A request of 1–64 bytes: `rows1` alone, without [`run`]'s frame. `counter` comes from the
/// caller: read here, it joined a 16-byte load that cannot be store-forwarded from the
/// counter's 4-byte store (DECISIONS.md, § Shared by the x86 backends).
/// # Safety
/// As [`run`].
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
unsafe fn run_one_block<R: Rounds, V: Variant, const SPLIT: bool>(
    state: &State<V>,
    counter: u64,
    inp: *const u8,
    out: *mut u8,
    len: usize,
    tail: &mut Block,
) {
    // SAFETY: the caller's guarantee.
    let io = &mut unsafe { Io::<true>::from_parts(inp, out, len) };
    rows1::<R, V, true, SPLIT>(state, counter, io, tail);
}
