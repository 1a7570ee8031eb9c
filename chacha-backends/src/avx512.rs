//! `avx512`: AVX-512 (F + VL + BW) kernels for x86 and x86_64.
//!
//! # Kernels and widths
//! A request of `n` blocks (a partial last block counts) runs, widest first, never
//! computing more than one block it does not use:
//!
//! | blocks left | kernel | layout |
//! |---|---|---|
//! | ≥ 31 | `sliced16_sets`: 16 blocks in zmm, repeated, each set from the head; one spare lane for a last 15 | word-sliced |
//! | 15 … 30 | `sliced16`: 16 blocks in zmm, once; one spare lane for 15 | word-sliced |
//! | 1 … 14 | `rows1` … `rows14`: 1 to 4 independent row chains of xmm (1 block), ymm (2) or zmm (4); a request of 1–64 bytes runs `rows1` alone, in `run_one_block`; one-chain kernels step in the form this CPU runs faster (`RotateForm`) | rows |
//!
//! - **Word-sliced** (`sliced16`): vector `i` holds state word `i` of 16 blocks (lane
//!   `j` = block `counter + j`), so the rounds need no shuffles: per double round 32
//!   `vpaddd`, 32 `vpxord`, 32 `vprold` (`_mm512_rol_epi32`), no spills, in 32 zmm
//!   registers. The feed-forward is followed by one 16×16 transpose (`transpose_16`) and
//!   the XOR with the input, 64 bytes at a time, fused into the stores.
//! - **The head** (`sliced16_sets`): of 16 blocks' input words only word 12, the counter,
//!   differs between lanes, so 41 of the first double round's 96 instructions compute the
//!   same value in every lane (the `head` module). A request of two sets or more does
//!   them once, in scalar code, and starts each of its sets from those words; the
//!   one quarter round of the first column round that is left, (0, 4, 8, 12), is computed a
//!   set early (`column_chain`), where it overlaps the set before.
//! - **Rows** (`Rows`): a block's four rows (a = words 0–3, b = 4–7, c = 8–11,
//!   d = 12–15) in four vectors, one block per 128-bit lane; the diagonal round is
//!   `vpshufd` within lanes on rows a, c and d (b, the row each round ends on, stays in
//!   place, so the shuffles are off the dependency chain). Up to four independent chains
//!   interleave step by step: each is a dependent chain, so two to four cost about one
//!   chain's latency. `hchacha` is the 1-block row path without the feed-forward.
//! - **Split rotates** (`RotateForm`): the one-chain kernels (1 and 2 blocks, `hchacha`) have
//!   a second step form, `(d ^ a) <<< n` as `(d <<< n) ^ (a << n) ^ (a >> 32 - n)` with one
//!   `vpternlogd`, 3 cycles a step by the latency tables; `detect` picks it where `vprold`
//!   takes 2 cycles (AMD Zen 4: 4 cycles with it) and keeps `vprold` on Intel.
//! - **Partial last block**: byte-masked loads and stores (AVX-512BW; one 64-bit mask,
//!   or one 16-bit mask per row in the 1- and 2-block kernels, which XOR each 16-byte row
//!   where it lies instead of joining rows; masked-off bytes cannot fault) and its whole
//!   keystream to `tail`. `fill` (raw keystream) runs the same
//!   width rules without the XOR.
//! - **No extra block in general-purpose registers**, and `vprold` for every rotate (no
//!   `vpshufb` for 16 and 8): both alternatives measured slower.
//!
//! Every entry point is `#[target_feature(enable = "avx512f,avx512vl,avx512bw")]` and so
//! is every helper inlined into it (no intrinsic is left out of line; the double rounds
//! are macros so that no array of vectors goes through memory).
//!
//! Measured: the figures behind each choice (instruction counts, the head, the step forms
//! per CPU), what was rejected and how to measure it again are in `DECISIONS.md` in this
//! crate, § avx512 (and § Machine facts for the CPUs).

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use core::marker::PhantomData;
use core::sync::atomic::{AtomicU8, Ordering::Relaxed};

use chacha_core::poly1305::{Accumulator, MAC_BLOCK_LEN, MacBlock};
use chacha_core::{
    AeadDirection, BLOCK_LEN, Block, CONSTANTS, Kernel, Rounds, State, Variant, aead_in_pieces,
    inout::InOutBuf,
};

use crate::head::Heads;

mod poly1305;

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

/// The step form of the row kernels with one chain (1 block in xmm, 2 in ymm: requests of
/// up to 128 bytes, and `hchacha`): a dependent chain, so the faster form is the one with
/// the shorter latency per step, and that depends on the CPU's `vprold` latency. Both
/// forms give the same bytes; both are tested on every CPU with AVX-512 (the module's
/// tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum RotateForm {
    /// add, xor, `vprold`: 3 cycles a step where `vprold` takes 1 (Intel).
    Rotate,
    /// add, two shifts side by side, `vpternlogd` ([`Rows::ad_split`]): 3 cycles a step
    /// on every CPU, so faster where `vprold` takes 2 (AMD Zen 4: 4 cycles with it). On
    /// Intel it measured slower (see the module docs, "Measured").
    Split,
}

/// [`RotateForm::for_this_cpu`]'s answer, read once per process: 0 until the first
/// [`Avx512::detect`], then 1 (`Rotate`) or 2 (`Split`). CPUID is serialising and traps to
/// the hypervisor on a virtual machine (thousands of cycles), and every `ChaCha20::new`,
/// seeded RNG and AEAD message reaches `detect`: after the first, it is this load.
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
    fn free_blocks(self) -> usize {
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

// ---------------------------------------------------------------------------------------
// Memory: the only pointer loads and stores of the module.
// ---------------------------------------------------------------------------------------

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
    ///
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

// ---------------------------------------------------------------------------------------
// Width rules.
// ---------------------------------------------------------------------------------------

/// Every block of the request, widest kernel first, never more than one block computed
/// that the request does not use:
///
/// | blocks left | kernel |
/// |---|---|
/// | ≥ 15 | 16 word-sliced in zmm, repeated (one spare lane for 15) |
/// | 1 … 14 | rows: 1 to 4 independent chains of xmm (1 block), ymm (2), zmm (4) |
///
/// The cursor comes as the three words of [`Io::into_parts`]: rebuilt here, it lives in
/// registers. Passed as `&mut Io` (or as an `Io`, which the Rust ABI passes through
/// memory), the caller stored it and every block written stored it back, and a fresh
/// message's stores bound how far the next message can start early while the core's other
/// hardware thread is busy (DECISIONS.md, § Shared by the x86 backends).
///
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
    // 15 blocks may use the 16-wide kernel (one spare lane), 14 may not.
    // The bulk: 16 whole blocks at a time, written straight from registers. The last 15
    // or 16 blocks, if one is partial or missing, take the other instance. (With one
    // instance for both, `put_all`, shared with the 4-block rows, stayed out of line: the
    // call stored the 16 blocks, reloaded them and reloaded the 14 input words the callee
    // may clobber: DECISIONS.md, § avx512: keeping the 16-block kernel inline.)
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

/// A request of one block or less (`1 <= len <= 64`: a short message): `rows1` alone, in
/// a function of its own, without [`run`]'s frame (aligned for the wide kernels' spills).
///
/// `counter` is `state.counter()`, read by the caller: read here, LLVM joined it with the
/// nonce words into one 16-byte load of row d, which spans the counter's own 4-byte store
/// and so cannot be store-forwarded (DECISIONS.md, § Shared by the x86 backends).
///
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

// ---------------------------------------------------------------------------------------
// Word-sliced kernel: vector `i` holds state word `i` of 16 blocks (zmm),
// lane `j` = block `counter + j`. No shuffles in the rounds; one transpose at the end.
// ---------------------------------------------------------------------------------------

// Macros, not functions: `#[inline]` is only a hint (and `#[inline(always)]` is not
// allowed on `#[target_feature]` functions), and an out-of-line double round passes the
// sixteen vectors through memory. Literal indices, so every word stays in a register.
macro_rules! sliced_double_round {
    ($x:ident, $add:ident, $xor:ident, $rol:ident) => {
        sliced_round!($x, $add, $xor, $rol; [0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]);
        sliced_round!($x, $add, $xor, $rol; [0, 5, 10, 15], [1, 6, 11, 12], [2, 7, 8, 13], [3, 4, 9, 14]);
    };
}

/// Four quarter rounds (a, b, c, d word indices) side by side, step by step: four
/// independent dependency chains.
macro_rules! sliced_round {
    ($x:ident, $add:ident, $xor:ident, $rol:ident; $([$a:literal, $b:literal, $c:literal, $d:literal]),+) => {
        sliced_step!($x, $add, $xor, $rol, 16; $([$a, $b, $d]),+);
        sliced_step!($x, $add, $xor, $rol, 12; $([$c, $d, $b]),+);
        sliced_step!($x, $add, $xor, $rol, 8; $([$a, $b, $d]),+);
        sliced_step!($x, $add, $xor, $rol, 7; $([$c, $d, $b]),+);
    };
}

/// One step of quarter rounds side by side: `p += q; r ^= p; r <<<= n` for each `[p, q, r]`.
macro_rules! sliced_step {
    ($x:ident, $add:ident, $xor:ident, $rol:ident, $n:literal; $([$p:literal, $q:literal, $r:literal]),+) => {
        $( $x[$p] = $add($x[$p], $x[$q]); $x[$r] = $rol::<$n>($xor($x[$r], $x[$p])); )+
    };
}

/// What is left of the first double round once `head::head` and the column chain
/// ([`column_chain`]) are done: the diagonal round less the head's steps. Chain and
/// diagonal together are `head::finish_first_double_round` for every lane: 55 of a
/// double round's 96 vector instructions.
macro_rules! sliced_first_diagonal {
    ($x:ident, $add:ident, $xor:ident, $rol:ident) => {
        // (1, 6, 11, 12) less its first add, (2, 7, 8, 13) less its first step,
        // (0, 5, 10, 15) and (3, 4, 9, 14) whole.
        $x[12] = $rol::<16>($xor($x[12], $x[1]));
        sliced_step!($x, $add, $xor, $rol, 16; [0, 5, 15], [3, 4, 14]);
        sliced_step!($x, $add, $xor, $rol, 12; [10, 15, 5], [11, 12, 6], [8, 13, 7], [9, 14, 4]);
        sliced_step!($x, $add, $xor, $rol, 8; [0, 5, 15], [1, 6, 12], [2, 7, 13], [3, 4, 14]);
        sliced_step!($x, $add, $xor, $rol, 7; [10, 15, 5], [11, 12, 6], [8, 13, 7], [9, 14, 4]);
    };
}

/// The feed-forward (`x + input`), the transpose and the writes of a word-sliced set
/// (`WHOLE`: see [`sliced16`]). A macro for the reason the double rounds are: as a
/// function, LLVM kept it out of line and the 16 words went through memory.
macro_rules! sliced_put {
    ($x:ident, $input:ident, $io:ident, $tail:ident, $whole:ident) => {
        for i in 0..16 {
            $x[i] = _mm512_add_epi32($x[i], $input[i]);
        }
        let ks = transpose_16($x);
        if $whole {
            for k in ks {
                $io.put_whole(k);
            }
        } else {
            $io.put_all(ks, $tail);
        }
    };
}

/// 16 blocks from `counter`, word-sliced in zmm, written to `io` in order. `WHOLE`: all
/// 16 are whole blocks of the request (`io.len >= 1024`); otherwise the last ones may be
/// partial or missing. A request of one set (15 to 30 blocks) runs this; longer ones
/// [`sliced16_sets`].
///
/// The kernel writes its blocks itself rather than returning them: if LLVM keeps it out
/// of line, returning sixteen zmm would go through memory.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
fn sliced16<R: Rounds, V: Variant, const XOR: bool, const WHOLE: bool>(
    state: &State<V>,
    counter: u64,
    io: &mut Io<'_, XOR>,
    tail: &mut Block,
) {
    let input = sliced_input(state, counter);
    let mut x = input;
    for _ in 0..R::DOUBLE_ROUNDS {
        sliced_double_round!(x, _mm512_add_epi32, _mm512_xor_si512, _mm512_rol_epi32);
    }
    sliced_put!(x, input, io, tail, WHOLE);
}

/// Two sets of 16 blocks or more (`io.blocks() >= 31`), from `counter`; returns the
/// counter after them. Leaves fewer than 15 blocks, for the row kernels.
///
/// Every set starts its first double round from `head::head`'s words,
/// computed once for the call: of the first column round only the counter's quarter
/// round (0, 4, 8, 12) is left, one chain of 11 dependent instructions
/// ([`column_chain`]), and the diagonal round needs all its words. That chain is
/// computed during the set before (the first set's before the loop, once per call).
/// At the start of its own set it was all the work the
/// core had beside the last set's transpose, whose 64 shuffles run on one port (Intel):
/// the other port idled, and the head was slower than the whole first double round
/// though it does 41 fewer instructions; computed a set early, it is faster
/// (DECISIONS.md, § avx512: the head). LLVM sinks it to its use, after the set's stores,
/// unless an empty `asm!` pins it where it is computed. A single set (and so the RNGs'
/// 16-block refills) takes [`sliced16`]: its chain would be on the critical path.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
fn sliced16_sets<R: Rounds, V: Variant, const XOR: bool>(
    state: &State<V>,
    mut counter: u64,
    io: &mut Io<'_, XOR>,
    tail: &mut Block,
) -> u64 {
    let mut heads = Heads::at(state, counter);
    let mut chain = column_chain(&heads.now, counter);
    while io.len >= 16 * BLOCK_LEN {
        chain = sliced16_from_head::<R, V, XOR, true>(state, counter, &heads, chain, io, tail);
        counter = counter.wrapping_add(16);
        if V::COUNTER_WORDS == 2 && (counter as u32) < 16 {
            // `Legacy`: word 13 was carried into.
            heads = Heads::at(state, counter);
        }
    }
    if io.blocks() >= 15 {
        sliced16_from_head::<R, V, XOR, false>(state, counter, &heads, chain, io, tail);
        counter = counter.wrapping_add(16);
    }
    counter
}

/// As [`sliced16`], with the first double round started from `heads` and `chain` (this
/// set's [`column_chain`]); returns the next set's chain (see [`sliced16_sets`]).
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
fn sliced16_from_head<R: Rounds, V: Variant, const XOR: bool, const WHOLE: bool>(
    state: &State<V>,
    counter: u64,
    heads: &Heads,
    chain: [__m512i; 4],
    io: &mut Io<'_, XOR>,
    tail: &mut Block,
) -> [__m512i; 4] {
    let input = sliced_input(state, counter);
    let mut x = input;
    for i in [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15] {
        x[i] = _mm512_set1_epi32(heads.now[i] as i32);
    }
    if V::COUNTER_WORDS == 2 {
        // `Legacy`: in lanes whose word 13 was carried into (none, except in the one set
        // of each 2^32 blocks that crosses the carry) the words that depend on it come
        // from the other head: those of quarter round (1, 5, 9, 13), and word 2 is not.
        let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let carry = _mm512_cmplt_epu32_mask(input[12], lane);
        for i in [1, 5, 9, 13] {
            x[i] = _mm512_mask_set1_epi32(x[i], carry, heads.carried[i] as i32);
        }
    }
    [x[0], x[4], x[8], x[12]] = chain;
    sliced_first_diagonal!(x, _mm512_add_epi32, _mm512_xor_si512, _mm512_rol_epi32);
    let mut next = column_chain(&heads.now, counter.wrapping_add(16));
    // Pinned here: see `sliced16_sets`.
    schedule_barrier!(zmm_reg; next[0], next[1], next[2], next[3]);
    for _ in 1..R::DOUBLE_ROUNDS {
        sliced_double_round!(x, _mm512_add_epi32, _mm512_xor_si512, _mm512_rol_epi32);
    }
    sliced_put!(x, input, io, tail, WHOLE);
    next
}

/// The column round's quarter round (0, 4, 8, 12) of the first double round of the 16
/// blocks from `counter`, from `head` (which did its first add): words 0, 4, 8 and 12,
/// word-sliced. Words 0, 4 and 8 of a head are the constants and the key, the same in
/// both of [`Heads`].
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
fn column_chain(head: &[u32; 16], counter: u64) -> [__m512i; 4] {
    let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let mut x = [_mm512_setzero_si512(); 16];
    for i in [0, 4, 8] {
        x[i] = _mm512_set1_epi32(head[i] as i32);
    }
    x[12] = _mm512_add_epi32(_mm512_set1_epi32(counter as u32 as i32), lane);
    x[12] = _mm512_rol_epi32::<16>(_mm512_xor_si512(x[12], x[0]));
    sliced_step!(x, _mm512_add_epi32, _mm512_xor_si512, _mm512_rol_epi32, 12; [8, 12, 4]);
    sliced_step!(x, _mm512_add_epi32, _mm512_xor_si512, _mm512_rol_epi32, 8; [0, 4, 12]);
    sliced_step!(x, _mm512_add_epi32, _mm512_xor_si512, _mm512_rol_epi32, 7; [8, 12, 4]);
    [x[0], x[4], x[8], x[12]]
}

/// The input words of the 16 blocks from `counter`, word-sliced (lane `j`: counter + j).
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
fn sliced_input<V: Variant>(state: &State<V>, counter: u64) -> [__m512i; 16] {
    let w = state.words_at(counter);
    let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let mut input = [_mm512_setzero_si512(); 16];
    // Words 0–11 from the 16-byte rows `State` stores them as, each row broadcast to the
    // four 128-bit lanes and then each word to its lane's four dwords; LLVM makes that one
    // `vpbroadcastd` from memory per word, each load inside one of the state's stores.
    // From `set1` of the words alone, it read pairs of words with 8-byte loads at offsets
    // 0x0c and 0x2c, which span two stores and so cannot be store-forwarded on a fresh
    // message (DECISIONS.md, § avx512: the head). Words 12–15 (the counter, which the
    // caller passes, and the nonce) are `set1` of the words.
    for i in 12..16 {
        input[i] = _mm512_set1_epi32(w[i] as i32);
    }
    for r in 0..3 {
        // SAFETY: `state.words()` has 16 words; row r < 3 is words 4r .. 4r + 4.
        let row = unsafe { _mm_loadu_si128(state.words().as_ptr().wrapping_add(4 * r).cast()) };
        let row = _mm512_broadcast_i32x4(row);
        input[4 * r] = _mm512_shuffle_epi32::<0x00>(row);
        input[4 * r + 1] = _mm512_shuffle_epi32::<0x55>(row);
        input[4 * r + 2] = _mm512_shuffle_epi32::<0xaa>(row);
        input[4 * r + 3] = _mm512_shuffle_epi32::<0xff>(row);
    }
    input[12] = _mm512_add_epi32(input[12], lane);
    if V::COUNTER_WORDS == 2 {
        // Legacy: a lane whose low word wrapped (is now below its offset) carries into word 13.
        let carry = _mm512_cmplt_epu32_mask(input[12], lane);
        input[13] = _mm512_mask_add_epi32(input[13], carry, input[13], _mm512_set1_epi32(1));
    }
    input
}

/// Word-sliced zmm state (vector = word, lane = block) to 16 blocks, one zmm each.
///
/// Steps 1–2 work within each 128-bit lane `L` (blocks `4L..4L+3`), on words `4g..4g+3`:
/// ```text
///  v0 = [w0.b0 w0.b1 w0.b2 w0.b3] ...   (one 128-bit lane shown; w = word, b = block)
///  v1 = [w1.b0 w1.b1 w1.b2 w1.b3]
///  unpacklo_epi32(v0, v1) = [w0.b0 w1.b0 w0.b1 w1.b1]   t0 (t2 likewise from v2, v3)
///  unpackhi_epi32(v0, v1) = [w0.b2 w1.b2 w0.b3 w1.b3]   t1 (t3 likewise)
///  unpacklo_epi64(t0, t2) = [w0.b0 w1.b0 w2.b0 w3.b0]   words 0-3 of block 0 = r[g][0]
///  unpackhi_epi64(t0, t2) = words 0-3 of block 1 = r[g][1];  t1, t3 give blocks 2, 3
/// ```
/// so `r[g][k]` holds, in 128-bit lane `L`, words `4g..4g+3` of block `4L + k`; steps 3–4
/// ([`lanes_4x4`]) gather the four lanes `L` of `r[0..4][k]` into blocks `k, 4+k, 8+k, 12+k`.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
fn transpose_16(x: [__m512i; 16]) -> [__m512i; 16] {
    let r: [[__m512i; 4]; 4] = core::array::from_fn(|g| {
        let v = &x[4 * g..4 * g + 4];
        let t0 = _mm512_unpacklo_epi32(v[0], v[1]);
        let t1 = _mm512_unpackhi_epi32(v[0], v[1]);
        let t2 = _mm512_unpacklo_epi32(v[2], v[3]);
        let t3 = _mm512_unpackhi_epi32(v[2], v[3]);
        [
            _mm512_unpacklo_epi64(t0, t2),
            _mm512_unpackhi_epi64(t0, t2),
            _mm512_unpacklo_epi64(t1, t3),
            _mm512_unpackhi_epi64(t1, t3),
        ]
    });
    let mut out = [_mm512_setzero_si512(); 16];
    for k in 0..4 {
        let [o0, o1, o2, o3] = lanes_4x4(r[0][k], r[1][k], r[2][k], r[3][k]);
        out[k] = o0;
        out[4 + k] = o1;
        out[8 + k] = o2;
        out[12 + k] = o3;
    }
    out
}

/// A 4×4 transpose of 128-bit lanes: lane `j` of `a, b, c, d` becomes output `j`.
/// ```text
///  a = [a0 a1 a2 a3]  b = [b0 b1 b2 b3]  c, d likewise        (one letter = 128 bits)
///  s0 = shuffle_i32x4(a, b, 0x44) = [a0 a1 b0 b1]   s1 = (a, b, 0xEE) = [a2 a3 b2 b3]
///  s2 = shuffle_i32x4(c, d, 0x44) = [c0 c1 d0 d1]   s3 = (c, d, 0xEE) = [c2 c3 d2 d3]
///  o0 = shuffle_i32x4(s0, s2, 0x88) = [a0 b0 c0 d0] o1 = (s0, s2, 0xDD) = [a1 b1 c1 d1]
///  o2 = shuffle_i32x4(s1, s3, 0x88) = [a2 b2 c2 d2] o3 = (s1, s3, 0xDD) = [a3 b3 c3 d3]
/// ```
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
fn lanes_4x4(a: __m512i, b: __m512i, c: __m512i, d: __m512i) -> [__m512i; 4] {
    let s0 = _mm512_shuffle_i32x4::<0x44>(a, b);
    let s1 = _mm512_shuffle_i32x4::<0xEE>(a, b);
    let s2 = _mm512_shuffle_i32x4::<0x44>(c, d);
    let s3 = _mm512_shuffle_i32x4::<0xEE>(c, d);
    [
        _mm512_shuffle_i32x4::<0x88>(s0, s2),
        _mm512_shuffle_i32x4::<0xDD>(s0, s2),
        _mm512_shuffle_i32x4::<0x88>(s1, s3),
        _mm512_shuffle_i32x4::<0xDD>(s1, s3),
    ]
}

// ---------------------------------------------------------------------------------------
// Row kernels: a block's four rows (a = words 0-3, b = 4-7, c = 8-11, d = 12-15) in four
// vectors, one block per 128-bit lane: 1 block in xmm, 2 in ymm, 4 in zmm. Several
// independent such chains interleave step by step to hide each other's latency.
// ---------------------------------------------------------------------------------------

/// The four rows of 1, 2 or 4 blocks (one block per 128-bit lane).
#[derive(Clone, Copy)]
struct Rows<T> {
    a: T,
    b: T,
    c: T,
    d: T,
}

macro_rules! rows_impl {
    ($t:ty, $lanes:literal, $add:ident, $add64:ident, $xor:ident, $rol:ident, $shuf:ident, $broadcast:path, $offsets:expr,
     $ternlog:ident, $slli:ident, $srli:ident, $shift:ty) => {
        impl Rows<$t> {
            /// Blocks side by side in one vector.
            const LANES: usize = $lanes;

            /// Blocks `counter ..` of `state` in rows; lane `j` has counter `counter + j`
            /// (a 64-bit add of the lane offset for `Legacy`, so word 12 carries into 13):
            /// ```text
            ///  row i = [w(i) w(i+1) w(i+2) w(i+3)] broadcast to every 128-bit lane
            ///  d     = [ctr n n n | ctr n n n | ...] + [0 0 0 0 | 1 0 0 0 | 2 0 0 0 | 3 0 0 0]
            ///          (Legacy: [ctr_lo ctr_hi n n]; the offsets add as 64-bit lanes)
            /// ```
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
            fn at<V: Variant>(state: &State<V>, counter: u64) -> Self {
                let w = state.words_at(counter);
                let row = |i: usize| {
                    $broadcast(_mm_setr_epi32(w[i] as i32, w[i + 1] as i32, w[i + 2] as i32, w[i + 3] as i32))
                };
                let d =
                    if V::COUNTER_WORDS == 2 { $add64(row(12), $offsets) } else { $add(row(12), $offsets) };
                Rows { a: row(0), b: row(4), c: row(8), d }
            }

            /// `a += b; d ^= a; d <<<= N` (steps 1 and 3 of a quarter round).
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
            fn ad<const N: i32>(&mut self) {
                self.a = $add(self.a, self.b);
                self.d = $rol::<N>($xor(self.d, self.a));
            }

            /// `c += d; b ^= c; b <<<= N` (steps 2 and 4 of a quarter round).
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
            fn cb<const N: i32>(&mut self) {
                self.c = $add(self.c, self.d);
                self.b = $rol::<N>($xor(self.b, self.c));
            }

            /// [`ad`](Self::ad) with a shorter chain where `vprold` takes 2 cycles (AMD Zen 4):
            /// `(d ^ a) <<< N` is `(d <<< N) ^ (a << N) ^ (a >> M)` (`L = N`, `M = 32 - N`), and
            /// `d <<< N` is computed while the add is (d is ready a step earlier), so after
            /// the add only two shifts side by side and one three-way XOR (`vpternlogd`)
            /// remain: 3 cycles a step against 4.
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
            fn ad_split<const N: i32, const L: $shift, const M: $shift>(&mut self) {
                const { assert!(N as $shift == L && L + M == 32) };
                let rd = $rol::<N>(self.d);
                self.a = $add(self.a, self.b);
                self.d = $ternlog::<0x96>(rd, $slli::<L>(self.a), $srli::<M>(self.a));
            }

            /// [`cb`](Self::cb) with the shorter chain of [`ad_split`](Self::ad_split).
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
            fn cb_split<const N: i32, const L: $shift, const M: $shift>(&mut self) {
                const { assert!(N as $shift == L && L + M == 32) };
                let rb = $rol::<N>(self.b);
                self.c = $add(self.c, self.d);
                self.b = $ternlog::<0x96>(rb, $slli::<L>(self.c), $srli::<M>(self.c));
            }

            /// Lines the diagonals up in lanes, moving a, c, d and leaving b, which the
            /// round ends on, in place (the shuffles stay off the dependency chain):
            /// ```text
            ///  a = [a0 a1 a2 a3] -> shuffle 0x93 -> [a3 a0 a1 a2]
            ///  b = [b0 b1 b2 b3]                     (in place)
            ///  c = [c0 c1 c2 c3] -> shuffle 0x39 -> [c1 c2 c3 c0]
            ///  d = [d0 d1 d2 d3] -> shuffle 0x4E -> [d2 d3 d0 d1]
            /// ```
            /// column `i` is then (`a[i-1]`, `b[i]`, `c[i+1]`, `d[i+2]`): the diagonals
            /// (3,4,9,14), (0,5,10,15), (1,6,11,12), (2,7,8,13).
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
            fn diagonalize(&mut self) {
                self.a = $shuf::<0x93>(self.a);
                self.c = $shuf::<0x39>(self.c);
                self.d = $shuf::<0x4E>(self.d);
            }

            /// The inverse of [`diagonalize`](Self::diagonalize).
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
            fn undiagonalize(&mut self) {
                self.a = $shuf::<0x39>(self.a);
                self.c = $shuf::<0x93>(self.c);
                self.d = $shuf::<0x4E>(self.d);
            }

            /// The feed-forward: `self += input`, row by row.
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
            fn add(&mut self, input: &Self) {
                self.a = $add(self.a, input.a);
                self.b = $add(self.b, input.b);
                self.c = $add(self.c, input.c);
                self.d = $add(self.d, input.d);
            }
        }
    };
}

rows_impl!(
    __m128i,
    1,
    _mm_add_epi32,
    _mm_add_epi64,
    _mm_xor_si128,
    _mm_rol_epi32,
    _mm_shuffle_epi32,
    core::convert::identity,
    _mm_setzero_si128(),
    _mm_ternarylogic_epi32,
    _mm_slli_epi32,
    _mm_srli_epi32,
    i32
);
rows_impl!(
    __m256i,
    2,
    _mm256_add_epi32,
    _mm256_add_epi64,
    _mm256_xor_si256,
    _mm256_rol_epi32,
    _mm256_shuffle_epi32,
    _mm256_broadcastsi128_si256,
    _mm256_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0),
    _mm256_ternarylogic_epi32,
    _mm256_slli_epi32,
    _mm256_srli_epi32,
    i32
);
rows_impl!(
    __m512i,
    4,
    _mm512_add_epi32,
    _mm512_add_epi64,
    _mm512_xor_si512,
    _mm512_rol_epi32,
    _mm512_shuffle_epi32,
    _mm512_broadcast_i32x4,
    _mm512_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0),
    _mm512_ternarylogic_epi32,
    _mm512_slli_epi32,
    _mm512_srli_epi32,
    u32
);

impl Rows<__m128i> {
    /// Writes the block to `io`, row by row (rows a, b, c, d are bytes 0–15, 16–31, 32–47,
    /// 48–63: no shuffle needed).
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    fn put<const XOR: bool>(self, io: &mut Io<'_, XOR>, tail: &mut Block) {
        io.put_rows([self.a, self.b, self.c, self.d], tail);
    }
}

impl Rows<__m256i> {
    /// Writes the two blocks to `io`, row by row, with no shuffle joining rows:
    /// ```text
    ///  a = [a0 | a1] (ymm; one letter = a 128-bit row)
    ///  castsi256_si128(a) = a0 (block 0)    extracti128::<1>(a) = a1 (block 1)
    /// ```
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    fn put<const XOR: bool>(self, io: &mut Io<'_, XOR>, tail: &mut Block) {
        // Arrays written out, not `rows.map(..)`: in some instances of `run` LLVM kept
        // `array::map` out of line, and its closure with it (the rows went through the
        // stack, a call per row).
        let Rows { a, b, c, d } = self;
        io.put_rows(
            [
                _mm256_castsi256_si128(a),
                _mm256_castsi256_si128(b),
                _mm256_castsi256_si128(c),
                _mm256_castsi256_si128(d),
            ],
            tail,
        );
        io.put_rows(
            [
                _mm256_extracti128_si256::<1>(a),
                _mm256_extracti128_si256::<1>(b),
                _mm256_extracti128_si256::<1>(c),
                _mm256_extracti128_si256::<1>(d),
            ],
            tail,
        );
    }
}

impl Rows<__m512i> {
    /// The four blocks as zmm each ([`lanes_4x4`]).
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    fn blocks(self) -> [__m512i; 4] {
        lanes_4x4(self.a, self.b, self.c, self.d)
    }

    /// Writes the four blocks to `io`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    fn put<const XOR: bool>(self, io: &mut Io<'_, XOR>, tail: &mut Block) {
        io.put_all(self.blocks(), tail);
    }
}

/// `R::DOUBLE_ROUNDS` double rounds on independent row chains, interleaved step by step;
/// with `split`, in the steps of [`Rows::ad_split`].
macro_rules! row_double_rounds {
    ($r:ty, split; $($x:ident),+) => {
        for _ in 0..<$r>::DOUBLE_ROUNDS {
            $( $x.ad_split::<16, 16, 16>(); )+
            $( $x.cb_split::<12, 12, 20>(); )+
            $( $x.ad_split::<8, 8, 24>(); )+
            $( $x.cb_split::<7, 7, 25>(); )+
            $( $x.diagonalize(); )+
            $( $x.ad_split::<16, 16, 16>(); )+
            $( $x.cb_split::<12, 12, 20>(); )+
            $( $x.ad_split::<8, 8, 24>(); )+
            $( $x.cb_split::<7, 7, 25>(); )+
            $( $x.undiagonalize(); )+
        }
    };
    ($r:ty; $($x:ident),+) => {
        for _ in 0..<$r>::DOUBLE_ROUNDS {
            $( $x.ad::<16>(); )+
            $( $x.cb::<12>(); )+
            $( $x.ad::<8>(); )+
            $( $x.cb::<7>(); )+
            $( $x.diagonalize(); )+
            $( $x.ad::<16>(); )+
            $( $x.cb::<12>(); )+
            $( $x.ad::<8>(); )+
            $( $x.cb::<7>(); )+
            $( $x.undiagonalize(); )+
        }
    };
}

/// A row kernel over one or more chains, each named `(state, input copy): type`, the
/// blocks from `counter` on in chain order.
macro_rules! rows_kernel {
    ($(#[$doc:meta])* $name:ident: $(($x:ident, $i:ident): $t:ty),+) => {
        $(#[$doc])*
        #[inline]
        #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
        fn $name<R: Rounds, V: Variant, const XOR: bool, const SPLIT: bool>(
            state: &State<V>,
            counter: u64,
            io: &mut Io<'_, XOR>,
            tail: &mut Block,
        ) {
            let at = counter;
            $(
                let $i = Rows::<$t>::at(state, at);
                let at = at.wrapping_add(Rows::<$t>::LANES as u64);
            )+
            let _ = at;
            $( let mut $x = $i; )+
            if SPLIT {
                row_double_rounds!(R, split; $($x),+);
            } else {
                row_double_rounds!(R; $($x),+);
            }
            $(
                $x.add(&$i);
                $x.put(io, tail);
            )+
        }
    };
}

rows_kernel!(
    /// 1 block in xmm.
    rows1: (x0, i0): __m128i
);
rows_kernel!(
    /// 2 blocks in ymm.
    rows2: (x0, i0): __m256i
);
rows_kernel!(
    /// 3 or 4 blocks in zmm.
    rows4: (x0, i0): __m512i
);
rows_kernel!(
    /// 5 blocks: zmm and xmm chains.
    rows5: (x0, i0): __m512i, (x1, i1): __m128i
);
rows_kernel!(
    /// 6 blocks: zmm and ymm chains.
    rows6: (x0, i0): __m512i, (x1, i1): __m256i
);
rows_kernel!(
    /// 7 or 8 blocks: two zmm chains.
    rows8: (x0, i0): __m512i, (x1, i1): __m512i
);

rows_kernel!(
    /// 9 blocks: two zmm chains and an xmm chain.
    rows9: (x0, i0): __m512i, (x1, i1): __m512i, (x2, i2): __m128i
);
rows_kernel!(
    /// 10 blocks: two zmm chains and a ymm chain.
    rows10: (x0, i0): __m512i, (x1, i1): __m512i, (x2, i2): __m256i
);
rows_kernel!(
    /// 11 or 12 blocks: three zmm chains.
    rows12: (x0, i0): __m512i, (x1, i1): __m512i, (x2, i2): __m512i
);

rows_kernel!(
    /// 13 blocks.
    rows13: (x0, i0): __m512i, (x1, i1): __m512i, (x2, i2): __m512i, (x3, i3): __m128i
);
rows_kernel!(
    /// 14 blocks.
    rows14: (x0, i0): __m512i, (x1, i1): __m512i, (x2, i2): __m512i, (x3, i3): __m256i
);
/// HChaCha on one block in rows: the rounds without the feed-forward, then words 0–3 and
/// 12–15.
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
fn hchacha_row<R: Rounds, const SPLIT: bool>(key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
    let word = |b: &[u8]| i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let row = |b: &[u8]| _mm_setr_epi32(word(&b[0..]), word(&b[4..]), word(&b[8..]), word(&b[12..]));
    let c = CONSTANTS.map(|w| w as i32);
    let mut x = Rows::<__m128i> {
        a: _mm_setr_epi32(c[0], c[1], c[2], c[3]),
        b: row(&key[..16]),
        c: row(&key[16..]),
        d: row(input),
    };
    if SPLIT {
        row_double_rounds!(R, split; x);
    } else {
        row_double_rounds!(R; x);
    }
    let mut out = [0u8; 32];
    store_32(&mut out, _mm256_set_m128i(x.d, x.a));
    out
}

#[cfg(test)]
mod tests {
    //! The two [`RotateForm`] forms against the reference on every CPU with AVX-512, whichever
    //! one `detect` chose here (the differential tests run the chosen one over the whole
    //! matrix): every request that reaches a one-chain row kernel, 1 to 128 bytes, fused
    //! XOR in place (aligned and not) and buffer to buffer, the raw keystream of one and two
    //! blocks, at the counter edges of both layouts, every round count; and HChaCha.

    extern crate std;

    use super::*;
    use chacha_core::{Ietf, Legacy, R8, R12, R20, reference};
    use chacha_testdata::filler;
    use std::{format, vec, vec::Vec};

    /// Both forms, if this CPU runs the module (nothing to test otherwise).
    fn both_forms() -> impl Iterator<Item = Avx512> {
        Avx512::detect()
            .into_iter()
            .flat_map(|k| [RotateForm::Rotate, RotateForm::Split].map(|steps| Avx512 { steps, ..k }))
    }

    fn check<R: Rounds, V: Variant>(kernel: Avx512, counter: u64, len: usize) {
        let key: [u8; 32] = filler(counter ^ 0x55, 32).try_into().unwrap();
        let mut nonce = V::Nonce::default();
        let nonce_len = nonce.as_ref().len();
        nonce.as_mut().copy_from_slice(&filler(len as u64, nonce_len));
        let mut start = State::<V>::new(&key, &nonce);
        start.seek(u128::from(counter)).unwrap();
        let blocks = len.div_ceil(BLOCK_LEN);
        let mut ks = vec![[0u8; BLOCK_LEN]; blocks];
        reference::keystream::<R, V>(&start, &mut ks);
        let ks = ks.concat();
        let data = filler(counter.wrapping_add(len as u64), len + 1);
        let want: Vec<u8> = data[..len].iter().zip(&ks).map(|(d, k)| d ^ k).collect();
        let ctx = format!("{kernel:?} R{} {:?} counter {counter} len {len}", R::ROUNDS, V::default());
        let tail_ok = |tail: &Block| {
            if len.is_multiple_of(BLOCK_LEN) {
                tail == &[0xA5; BLOCK_LEN]
            } else {
                tail[..] == ks[(blocks - 1) * BLOCK_LEN..]
            }
        };

        for offset in [0, 1] {
            let mut state = start.clone();
            let mut buf = data.clone();
            let region = &mut buf[offset..offset + len];
            region.copy_from_slice(&data[..len]);
            let mut tail = [0xA5; BLOCK_LEN];
            state.xor::<R, _>(kernel, InOutBuf::from(&mut *region), &mut tail).unwrap();
            assert_eq!(region, &want[..], "{ctx}: in place, offset {offset}");
            assert!(tail_ok(&tail), "{ctx}: tail");
            assert_eq!(state.position(), start.position() + blocks as u128, "{ctx}: position");
        }

        let mut state = start.clone();
        let mut out = vec![0x5A; len + 1];
        let mut tail = [0xA5; BLOCK_LEN];
        state.xor::<R, _>(kernel, InOutBuf::new(&data[..len], &mut out[1..]).unwrap(), &mut tail).unwrap();
        assert_eq!(out[1..], want[..], "{ctx}: buffer to buffer");
        assert_eq!(out[0], 0x5A, "{ctx}: wrote before the output");
        assert!(tail_ok(&tail), "{ctx}: tail");

        let mut state = start.clone();
        let mut raw = vec![[0u8; BLOCK_LEN]; len / BLOCK_LEN];
        state.fill::<R, _>(kernel, &mut raw).unwrap();
        assert_eq!(raw.concat(), ks[..len / BLOCK_LEN * BLOCK_LEN], "{ctx}: fill");
    }

    fn check_all_rounds<V: Variant>(kernel: Avx512, counter: u64, len: usize) {
        check::<R8, V>(kernel, counter, len);
        check::<R12, V>(kernel, counter, len);
        check::<R20, V>(kernel, counter, len);
    }

    #[test]
    fn both_row_step_forms_match_reference_to_two_blocks() {
        // Under miri, a few lengths at the edges of the pieces a block is cut into.
        let lengths: Vec<usize> = if cfg!(miri) { vec![1, 16, 63, 64, 65, 128] } else { (1..=128).collect() };
        for kernel in both_forms() {
            for &len in &lengths {
                let blocks = len.div_ceil(BLOCK_LEN) as u64;
                // Ietf: the start and a request ending on the last block (2^32 - 1);
                // Legacy: across the carry into word 13 and ending on block 2^64 - 1.
                for counter in [0, (1 << 32) - blocks] {
                    check_all_rounds::<Ietf>(kernel, counter, len);
                }
                for counter in [(1 << 32) - 1, u64::MAX - blocks + 1] {
                    check_all_rounds::<Legacy>(kernel, counter, len);
                }
            }
        }
    }

    #[test]
    fn both_row_step_forms_match_reference_hchacha() {
        for kernel in both_forms() {
            for seed in 0..if cfg!(miri) { 2 } else { 20u64 } {
                let key: [u8; 32] = filler(seed, 32).try_into().unwrap();
                let input: [u8; 16] = filler(seed + 1000, 16).try_into().unwrap();
                assert_eq!(kernel.hchacha::<R8>(&key, &input), reference::hchacha::<R8>(&key, &input));
                assert_eq!(kernel.hchacha::<R12>(&key, &input), reference::hchacha::<R12>(&key, &input));
                assert_eq!(kernel.hchacha::<R20>(&key, &input), reference::hchacha::<R20>(&key, &input));
            }
        }
    }
}
