//! `avx512`: AVX-512 (F + VL + BW) kernels for x86 and x86_64, 1 to 16 blocks per step.
//!
//! | blocks left | kernel | layout |
//! |---|---|---|
//! | ≥ 31 | `sliced16_sets`: 16 blocks, repeated, each set from the head | word-sliced: zmm `i` = word `i` of 16 blocks, lane `j` = block `counter + j` |
//! | 15 … 30 | `sliced16`: 16 blocks once (15: one spare lane) | same |
//! | 1 … 14 | `rows1` … `rows14`: 1 to 4 row chains of xmm, ymm or zmm; a request of 1–64 bytes runs `rows1` alone | rows: one block per 128-bit lane |
//!
//! Here: the entry points, the width rules (`run`) and the writes through the output cursor
//! (`cursor.rs`); the kernels in `avx512/sliced16.rs` and `avx512/rows.rs`, Poly1305 on
//! IFMA in `avx512/poly1305.rs`.
//!
//! - The word-sliced rounds need no shuffles and no spills in 32 zmm; one 16×16 transpose
//!   is fused into the XOR and the stores.
//! - Only word 12 differs between lanes, so the head (`head.rs`) does 41 of the first double
//!   round's 96 instructions once, and its counter quarter round runs a set early.
//! - Where `vprold` is slow (AMD family 19h), the one-chain kernels rotate with one
//!   `vpternlogd` instead (`RotateForm`, picked by `detect`).
//! - A partial last block goes through byte-masked loads and stores, which cannot fault.
//! - The round count is an argument (`DoubleRoundsAndSplit`), so one instance serves
//!   ChaCha8, 12 and 20.
//!
//! Figures and rejected designs: `DECISIONS.md` in this crate, § avx512.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use core::sync::atomic::{AtomicU8, Ordering::Relaxed};

use chacha_core::poly1305::{Accumulator, MAC_BLOCK_LEN, MacBlock};
use chacha_core::{
    AeadDirection, BLOCK_LEN, Block, Ietf, Kernel, MAX_BATCH_BLOCKS, Rounds, State, Variant, XorBuf,
    aead_in_pieces,
};

use crate::counter::in_ietf_pieces;
use crate::cursor::{Blocks, Cursor};

mod poly1305;
mod rows;
mod sliced16;
#[cfg(test)]
mod tests;

use rows::{hchacha_row, rows1, rows2, rows4, rows5, rows6, rows8, rows9, rows10, rows12, rows13, rows14};
use sliced16::{sliced16, sliced16_sets};

// AVX-512F: the 512-bit ops and `vprold`; AVX-512VL: `vprold`
// on xmm/ymm (the row kernels); AVX-512BW: the byte-masked load/store of a partial last
// block.
cpufeatures::new!(cpuid_avx512, "avx512f", "avx512vl", "avx512bw");

/// Proof that this CPU (and OS) runs AVX-512F, AVX-512VL and AVX-512BW; only
/// [`detect`](Avx512::detect) creates one. It also carries which form of the one-chain
/// row steps (rotate, or split into two shifts; see the module docs) is faster on this
/// CPU, and whether it has AVX-512 IFMA, on which Poly1305 runs 16 blocks a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Avx512 {
    rotate_form: RotateForm,
    ifma: Option<poly1305::Ifma>,
}

/// The step form of the one-chain row kernels (1 block in xmm, 2 in ymm, `hchacha`): the
/// one with the shorter latency per step on this CPU. Both are tested on every CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum RotateForm {
    /// add, xor, `vprold`: the shorter step where `vprold` has the latency of an add.
    Rotate,
    /// add, two shifts side by side, `vpternlogd` ([`rows::Rows::ad_split`]): a step as long
    /// whatever `vprold` costs, so the shorter one where `vprold` is slow (DECISIONS.md,
    /// § Instruction latency and throughput).
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
                let form = Self::for_this_cpu();
                ROTATE_FORM.store(if form == RotateForm::Split { 2 } else { 1 }, Relaxed);
                form
            }
        }
    }

    /// `Split` on AMD family 19h, whose `vprold` is slow (DECISIONS.md, § avx512: split
    /// rotates in the one-chain rows). `Rotate` elsewhere, including families not measured
    /// (1Ah).
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
        cpuid_avx512::get()
            .then(|| Avx512 { rotate_form: RotateForm::cached(), ifma: poly1305::Ifma::detect() })
    }

    fn split(self) -> bool {
        self.rotate_form == RotateForm::Split
    }

    /// [`Kernel::fill_batch`] of at most 4 blocks from block `counter`.
    #[inline(always)]
    fn fill_batch_at<R: Rounds>(self, state: &State<Ietf>, counter: u64, out: &mut [Block]) {
        let (inp, out, len) = Cursor::fill(out).into_parts();
        if len == BLOCK_LEN {
            return if self.split() {
                // SAFETY: as below.
                unsafe { fill_one_block::<R, true>(state, counter, inp, out, len) }
            } else {
                // SAFETY: as below.
                unsafe { fill_one_block::<R, false>(state, counter, inp, out, len) }
            };
        }
        // SAFETY: an Avx512 exists only if detect() saw AVX-512F, AVX-512VL and AVX-512BW;
        // `out` and `len` are a fill `Cursor`'s, of at most 4 blocks (the callers').
        unsafe { fill_batch(self.double_rounds_and_split::<R>(), state, counter, out, len) }
    }

    /// [`run`]'s double rounds for `R` and row step form on this CPU.
    fn double_rounds_and_split<R: Rounds>(self) -> DoubleRoundsAndSplit {
        DoubleRoundsAndSplit::new(R::DOUBLE_ROUNDS, self.split())
    }

    /// An AEAD's bulk step: on IFMA, long messages in one pass with `r`'s powers computed
    /// once; the rest in the default pieces.
    #[inline]
    fn aead<R: Rounds>(
        self,
        state: &State<Ietf>,
        acc: &mut Accumulator,
        buf: XorBuf<'_, '_>,
        direction: AeadDirection,
    ) {
        match self.ifma {
            Some(ifma) if buf.len() >= poly1305::MIN_BLOCKS * MAC_BLOCK_LEN => {
                ifma.xor_and_mac::<R>(self, state, acc, buf, direction)
            }
            _ => aead_in_pieces::<R, Self>(self, state, buf, direction, |ct| acc.absorb_padded(self, ct)),
        }
    }
}

impl Kernel for Avx512 {
    #[inline]
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, buf: XorBuf<'_, '_>, tail: &mut Block) {
        in_ietf_pieces(state, buf, |state, buf| {
            let (inp, out, len) = Cursor::xor(buf).into_parts();
            if (1..=BLOCK_LEN).contains(&len) {
                let counter = state.counter();
                return if self.split() {
                    // SAFETY: as below.
                    unsafe { run_one_block::<R, true, true>(state, counter, inp, out, len, tail) }
                } else {
                    // SAFETY: as below.
                    unsafe { run_one_block::<R, true, false>(state, counter, inp, out, len, tail) }
                };
            }
            // SAFETY: an Avx512 exists only if detect() saw AVX-512F, AVX-512VL and
            // AVX-512BW; the parts are a `Cursor`'s.
            unsafe { run::<true>(self.double_rounds_and_split::<R>(), state, inp, out, len, Some(tail)) }
        })
    }

    #[inline]
    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        in_ietf_pieces(state, out, |state, out| {
            let (inp, out, len) = Cursor::fill(out).into_parts();
            if len == BLOCK_LEN {
                let counter = state.counter();
                return if self.split() {
                    // SAFETY: as below.
                    unsafe { fill_one_block::<R, true>(state, counter, inp, out, len) }
                } else {
                    // SAFETY: as below.
                    unsafe { fill_one_block::<R, false>(state, counter, inp, out, len) }
                };
            }
            // SAFETY: an Avx512 exists only if detect() saw AVX-512F, AVX-512VL and
            // AVX-512BW; the parts are a `Cursor`'s.
            unsafe { run::<false>(self.double_rounds_and_split::<R>(), state, inp, out, len, None) }
        })
    }

    /// One block as `fill` does it, 2–4 in this module's `fill_batch` function, not in
    /// `run`'s `fill` instance; a longer request (no front makes one) in pieces.
    #[inline]
    fn fill_batch<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        in_ietf_pieces(state, out, |state, out| {
            if out.len() > MAX_BATCH_BLOCKS {
                let batch = |counter, piece: &mut [Block]| self.fill_batch_at::<R>(state, counter, piece);
                return crate::fill_batch_in_pieces(state.counter(), out, batch);
            }
            self.fill_batch_at::<R>(state, state.counter(), out);
        })
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
}

/// ChaCha20-Poly1305's steps on `avx512` (`chacha_core::Aead`).
impl chacha_core::Aead for Avx512 {
    /// 16 blocks a step on IFMA (two sets of 8 lanes); without it, the portable step.
    #[inline]
    fn poly1305_blocks(self, acc: &mut Accumulator, blocks: &[MacBlock]) {
        match self.ifma {
            Some(ifma) => ifma.absorb(acc, blocks),
            None => acc.absorb(blocks),
        }
    }

    #[inline]
    fn xor_then_mac<R: Rounds>(self, state: &State<Ietf>, acc: &mut Accumulator, buf: XorBuf<'_, '_>) {
        self.aead::<R>(state, acc, buf, AeadDirection::Seal);
    }

    #[inline]
    fn mac_then_xor<R: Rounds>(self, state: &State<Ietf>, acc: &mut Accumulator, buf: XorBuf<'_, '_>) {
        self.aead::<R>(state, acc, buf, AeadDirection::Open);
    }
}

// ---- Memory: `avx512`'s use of the output cursor (`cursor.rs`), in order, and its loads
// and stores.

impl<const XOR: bool> Cursor<'_, XOR> {
    /// Writes the keystream blocks `ks` to the next output blocks, in order: straight-line
    /// code when all of them are whole (the bulk case), block by block otherwise.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    fn put_all<const N: usize>(&mut self, ks: [__m512i; N], tail: &mut Block) {
        if let Some(set) = self.next::<N>() {
            for (j, k) in ks.into_iter().enumerate() {
                set.put64_at(BLOCK_LEN * j, k);
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
        if self.len() >= BLOCK_LEN {
            self.put_whole(ks);
        } else if XOR && !self.is_empty() {
            self.put_last(ks, tail);
        }
    }

    /// A whole block: `len >= 64`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    fn put_whole(&mut self, ks: __m512i) {
        self.next::<1>().expect("a whole block").put64_at(0, ks);
    }

    /// The partial last block (`len < 64`; nothing for `len == 0`).
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    fn put_last(&mut self, ks: __m512i, tail: &mut Block) {
        assert!(self.len() < BLOCK_LEN);
        let Some(p) = self.last() else { return };
        store_block(tail, ks);
        // The first `len` (1..=63) bytes: masked-off bytes are neither read nor written,
        // and cannot fault.
        let mask: __mmask64 = (1u64 << p.len()) - 1;
        let (inp, out) = p.masked();
        // SAFETY: the mask selects the partial block's bytes, readable at `inp`.
        let data = unsafe { _mm512_maskz_loadu_epi8(mask, inp.cast()) };
        let v = _mm512_xor_si512(data, ks);
        // SAFETY: and writable at `out`.
        unsafe { _mm512_mask_storeu_epi8(out.cast(), mask, v) };
    }

    /// Writes one keystream block given as its four 16-byte rows, row by row, so that no
    /// shuffle joins them on the latency path of a 1-block request; a partial last block
    /// through one 16-bit byte mask per row, its rows whole to `tail`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    fn put_rows(&mut self, rows: [__m128i; 4], tail: &mut Block) {
        if let Some(block) = self.next::<1>() {
            for (r, ks) in rows.into_iter().enumerate() {
                let v = if XOR {
                    // SAFETY: `inp::<16>` checked that the 16 bytes are readable.
                    let data = unsafe { _mm_loadu_si128(block.inp::<16>(16 * r).cast()) };
                    _mm_xor_si128(data, ks)
                } else {
                    ks
                };
                // SAFETY: `out::<16>` checked that the 16 bytes are writable.
                unsafe { _mm_storeu_si128(block.out::<16>(16 * r).cast(), v) };
            }
        } else if let Some(p) = self.last() {
            // The first `len` (1..=63) bytes; row `r` takes mask bits `16 r ..`.
            let mask: u64 = (1u64 << p.len()) - 1;
            let (inp, out) = p.masked();
            for (r, (ks, t)) in rows.into_iter().zip(tail.chunks_exact_mut(16)).enumerate() {
                store_16(t.try_into().expect("16-byte chunk"), ks);
                let m = (mask >> (16 * r)) as __mmask16;
                // SAFETY: the mask selects bytes of the partial block, readable at `inp`;
                // masked-off bytes are neither read nor faulted on.
                let data = unsafe { _mm_maskz_loadu_epi8(m, inp.wrapping_add(16 * r).cast()) };
                let v = _mm_xor_si128(data, ks);
                // SAFETY: and writable at `out`.
                unsafe { _mm_mask_storeu_epi8(out.wrapping_add(16 * r).cast(), m, v) };
            }
        }
    }
}

impl<const XOR: bool, const N: usize> Blocks<'_, XOR, N> {
    /// Writes bytes `at .. at + 64` of the window (XORed with the input if `XOR`).
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    fn put64_at(self, at: usize, ks: __m512i) {
        let v = if XOR {
            // SAFETY: `inp::<64>` checked that the 64 bytes are readable; no alignment needed.
            _mm512_xor_si512(unsafe { _mm512_loadu_si512(self.inp::<64>(at).cast()) }, ks)
        } else {
            ks
        };
        // SAFETY: `out::<64>` checked that the 64 bytes are writable; no alignment needed.
        unsafe { _mm512_storeu_si512(self.out::<64>(at).cast(), v) };
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

/// The double rounds of a request and whether the one-chain row kernels take split
/// steps ([`RotateForm::Split`]), packed into one word, `double_rounds << 1 | split`: [`run`]
/// has six arguments with it, and as two (a struct of two fields is passed as two) the
/// seventh went through the stack and the callers could not jump to `run` (a frame and a
/// call more per request).
#[derive(Clone, Copy)]
struct DoubleRoundsAndSplit(usize);

impl DoubleRoundsAndSplit {
    #[inline(always)]
    fn new(double_rounds: usize, split: bool) -> Self {
        DoubleRoundsAndSplit(double_rounds << 1 | split as usize)
    }

    #[inline(always)]
    fn double_rounds(self) -> usize {
        self.0 >> 1
    }

    #[inline(always)]
    fn split(self) -> bool {
        self.0 & 1 == 1
    }
}

/// Every block of the request, by the module header's width rules. The cursor comes as
/// the three words of [`Cursor::into_parts`], so that it lives in registers: as a `Cursor`
/// or `&mut Cursor` it went through memory, a store per block written (DECISIONS.md, § Shared by
/// the x86 backends).
///
/// One instance per operation for every round count (`rounds`), out of line: an `#[inline]`
/// one is emitted in each codegen unit that calls it, and each round count's entry points
/// are one (`backend.rs`). `tail`: `None` for a `fill` (no partial block), so that its
/// caller neither makes one nor keeps a frame for it, and jumps here.
/// # Safety
/// As [`Cursor::from_parts`].
#[inline(never)]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
unsafe fn run<const XOR: bool>(
    rounds: DoubleRoundsAndSplit,
    state: &State<Ietf>,
    inp: *const u8,
    out: *mut u8,
    len: usize,
    tail: Option<&mut Block>,
) {
    let (double_rounds, split) = (rounds.double_rounds(), rounds.split());
    // Never written: a fill has no partial block. Chosen by `XOR`, not by `tail` (LLVM kept
    // a zeroed block on the stack of every `xor` for a select at run time).
    let mut unused = [0u8; BLOCK_LEN];
    let tail = if XOR { tail.expect("an xor has a tail") } else { &mut unused };
    // A fill is whole blocks (its caller's `&mut [Block]`); said again here, where that
    // knowledge no longer reaches (`run` is not inlined), so the partial-block tests fold.
    let len = if XOR { len } else { len - len % BLOCK_LEN };
    // SAFETY: the caller's guarantee.
    let io = &mut unsafe { Cursor::<XOR>::from_parts(inp, out, len) };
    let mut counter = state.counter();
    // 16 whole blocks at a time; a last 15 or 16 with a partial or missing block take the
    // other instance (one instance for both stayed out of line: DECISIONS.md, § avx512:
    // keeping the 16-block kernel inline).
    if io.blocks() >= 31 {
        // Two sets or more: each set starts from the head.
        counter = sliced16_sets::<XOR>(double_rounds, state, counter, io, tail);
    } else if io.len() >= 16 * BLOCK_LEN {
        sliced16::<XOR, true>(double_rounds, state, counter, io, tail);
        counter = counter.wrapping_add(16);
    } else if io.blocks() >= 15 {
        sliced16::<XOR, false>(double_rounds, state, counter, io, tail);
        counter = counter.wrapping_add(16);
    }
    match (io.blocks(), split) {
        (0, _) => {}
        (1, false) => rows1::<XOR, false>(double_rounds, state, counter, io, tail),
        (1, true) => rows1::<XOR, true>(double_rounds, state, counter, io, tail),
        (2, false) => rows2::<XOR, false>(double_rounds, state, counter, io, tail),
        (2, true) => rows2::<XOR, true>(double_rounds, state, counter, io, tail),
        (3 | 4, _) => rows4::<XOR, false>(double_rounds, state, counter, io, tail),
        (5, _) => rows5::<XOR, false>(double_rounds, state, counter, io, tail),
        (6, _) => rows6::<XOR, false>(double_rounds, state, counter, io, tail),
        (7 | 8, _) => rows8::<XOR, false>(double_rounds, state, counter, io, tail),
        (9, _) => rows9::<XOR, false>(double_rounds, state, counter, io, tail),
        (10, _) => rows10::<XOR, false>(double_rounds, state, counter, io, tail),
        (11 | 12, _) => rows12::<XOR, false>(double_rounds, state, counter, io, tail),
        (13, _) => rows13::<XOR, false>(double_rounds, state, counter, io, tail),
        _ => rows14::<XOR, false>(double_rounds, state, counter, io, tail),
    }
}

/// A front's short fill ([`Kernel::fill_batch`]): its batch of 2–4 blocks in `rows2` or
/// `rows4`, out of [`run`]'s `fill` instance, so that a program whose only fills are these
/// (a cipher's) links this and not `run`'s `fill` instance. No loop here: with one, LLVM
/// hoisted the state's rows out of it as one 32-byte load over the counter word the caller
/// has just stored, which cannot be store-forwarded (DECISIONS.md, § Kernels compiled once:
/// build cost).
/// `counter` comes from the caller, as in [`run_one_block`].
/// # Safety
/// `out` and `len` are from the `into_parts` of a fill [`Cursor`] of at most 4 blocks
/// whose buffer is still borrowed.
#[inline(never)]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
unsafe fn fill_batch(
    rounds: DoubleRoundsAndSplit,
    state: &State<Ietf>,
    counter: u64,
    out: *mut u8,
    len: usize,
) {
    let double_rounds = rounds.double_rounds();
    // Never written: a fill has no partial block.
    let mut unused = [0u8; BLOCK_LEN];
    // SAFETY: the caller's guarantee (a fill cursor's input pointer is null, never read).
    let io = &mut unsafe { Cursor::<false>::from_parts(core::ptr::null(), out, len - len % BLOCK_LEN) };
    debug_assert!(io.blocks() <= 4, "a batch of {} blocks", io.blocks());
    match (io.blocks(), rounds.split()) {
        (0, _) => {}
        (1 | 2, false) => rows2::<false, false>(double_rounds, state, counter, io, &mut unused),
        (1 | 2, true) => rows2::<false, true>(double_rounds, state, counter, io, &mut unused),
        _ => rows4::<false, false>(double_rounds, state, counter, io, &mut unused),
    }
}

/// A request of 1–64 bytes: `rows1` alone, without [`run`]'s frame. `counter` comes from the
/// caller: read here, it joined a 16-byte load that cannot be store-forwarded from the
/// counter's 4-byte store (DECISIONS.md, § Shared by the x86 backends). One instance per
/// round count, unlike `run`: with seven arguments the caller could not jump to it, and the
/// constant count lets LLVM unroll the short round loop (a few hundred bytes each).
/// # Safety
/// As [`run`].
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
unsafe fn run_one_block<R: Rounds, const XOR: bool, const SPLIT: bool>(
    state: &State<Ietf>,
    counter: u64,
    inp: *const u8,
    out: *mut u8,
    len: usize,
    tail: &mut Block,
) {
    // SAFETY: the caller's guarantee.
    let io = &mut unsafe { Cursor::<XOR>::from_parts(inp, out, len) };
    rows1::<XOR, SPLIT>(R::DOUBLE_ROUNDS, state, counter, io, tail);
}

/// A `fill` of one block: [`run_one_block`], its `tail` made here (see [`run`]).
/// # Safety
/// As [`run`].
#[target_feature(enable = "avx512f,avx512vl,avx512bw")]
unsafe fn fill_one_block<R: Rounds, const SPLIT: bool>(
    state: &State<Ietf>,
    counter: u64,
    inp: *const u8,
    out: *mut u8,
    len: usize,
) {
    // Never written: a fill has no partial block.
    let mut unused = [0u8; BLOCK_LEN];
    // SAFETY: the caller's guarantee.
    unsafe { run_one_block::<R, false, SPLIT>(state, counter, inp, out, len, &mut unused) }
}
