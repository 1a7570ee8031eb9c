//! ChaCha20-Poly1305's bulk step on `avx2`, stitched (x86_64): per set of 8 blocks (512
//! bytes), the set's word-sliced ChaCha20 in `ymm` registers and 32 Poly1305 block steps
//! in general-purpose registers, in one `asm!` loop, so that the integer multiplier works
//! while the vector pipes run the rounds (in the default pieces both run on the vector pipes,
//! one after the other).
//!
//! - **A set**: `words8`, the 10 double rounds of `rounds8` (`double_round8_asm!`: its
//!   register plan and `c` word swaps), then `put8_whole`. A quarter-round pair takes one
//!   Poly1305 block step, cut into 8 pieces between its 8 steps (`qr8x2_asm!`'s slots); the
//!   double rounds take 3, 3, 3, 3, 4 blocks (one pair in the first four goes without), in a
//!   loop of two: 32 blocks, about one per 46 vector instructions of the set, so that the
//!   steps enter the core at the pace it runs them.
//! - **Two chains from 2 KiB**: blocks 0–15 of a set go on from `h`, blocks 16–31 into a
//!   second accumulator from 0, the two in turns; after the loop `h = h · r^16 + second`
//!   (`mul_add`, once a set; `r^16` once a request). One chain of 32 steps takes about the
//!   rounds' time in latency alone (each step waits for the last: the product, its carries,
//!   the fold), which leaves the core no slack; two of 16 take half. Below 2 KiB (1–3 sets)
//!   one chain all the same (`one_chain!`): `r^16`'s four squarings and a join a set cost
//!   such a request more than the slack saves.
//! - **Which ciphertext**: opening absorbs the set's own (its input, read in the rounds,
//!   before the set's stores); sealing the set before's (its output), so the first set runs
//!   `sliced8_whole` alone and the last set's ciphertext goes to the vector Poly1305 after
//!   the loop, with the rest of the message's. What is left after the last whole set takes
//!   the default way (`xor`, the vector or portable Poly1305).
//! - **The Poly1305 step**: radix 2^64 (the [`Accumulator`]'s limbs, read and written once a
//!   request), each chain's `h` in three registers through a set's loop, `r` beside the `c`
//!   words in the scratch memory: `h · r` in full (four limbs: four `mulx`, two `imul`), then
//!   the bits from 2^130 up folded in as `4·H + H`, as BoringSSL's `poly_mul` (`mulx` form),
//!   rearranged to need one register fewer: `rdx` and four free registers, which the chains
//!   share; a step leaves its `h` in three of them and frees its old three, so the slots name
//!   each step's registers (a pass ends where it started) and nothing is copied back. It
//!   leaves `h[2] <= 5`; `mul_add` leaves it at most 4, inside the `Accumulator`'s bound.
//! - **Where**: ChaCha20 (10 double rounds in the loop), requests of one set or more (three
//!   when sealing, whose first and last sets are not stitched), and a
//!   CPU with BMI2 as well (`mulx`; [`Bmi2`], held by the `Avx2` that `detect` made);
//!   elsewhere the default pieces. `asm!` of x86_64 with 13 general-purpose registers, all
//!   that LLVM lends (the loop count is in the scratch memory).
//!
//! Figures and what was tried: `DECISIONS.md` in this crate, § avx2: the stitched AEAD.

use core::arch::x86_64::*;

use chacha_core::poly1305::Accumulator;
use chacha_core::{AeadDirection, Ietf, R20, Rounds, State, Variant, XorBuf};

use super::sliced8::{sliced8_whole, transpose4, words8};
use super::{Avx2, Blocks, Masks};
use crate::cursor::Cursor;
use crate::stitched::{self, SET, mul_add, r16};

cpufeatures::new!(cpuid_bmi2, "bmi2");

/// Sets (of [`SET`] bytes) from which a request absorbs in two Poly1305 chains (each set's
/// blocks 16–31 from 0, joined by `r^16`): below, one chain, which needs no `r^16` (four
/// squarings) and no join a set (DECISIONS.md, § avx2: the AEAD from 64 bytes to 4 KiB).
const TWO_CHAINS_FROM: usize = 4;

/// Proof that this CPU has BMI2 (`mulx`); only [`Bmi2::detect`] creates one, and only
/// `Avx2::detect` calls it, so one held by an `Avx2` means AVX2 and BMI2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Bmi2(());

impl Bmi2 {
    /// `Some` if this CPU has BMI2 (probed once per process, as every probe).
    #[inline]
    pub(super) fn detect() -> Option<Self> {
        cpuid_bmi2::get().then_some(Bmi2(()))
    }
}

impl Avx2 {
    /// An AEAD's bulk step ([`Aead::xor_then_mac`], [`Aead::mac_then_xor`]): stitched
    /// where the module header says, the default pieces elsewhere.
    ///
    /// [`Aead::xor_then_mac`]: chacha_core::Aead::xor_then_mac
    /// [`Aead::mac_then_xor`]: chacha_core::Aead::mac_then_xor
    #[inline]
    pub(super) fn aead<R: Rounds>(
        self,
        state: &State<Ietf>,
        acc: &mut Accumulator,
        buf: XorBuf<'_, '_>,
        direction: AeadDirection,
    ) {
        // `stitched::aead` runs `sets` only when told it can (`self.bmi2` is `Some`); the
        // closure holds its own proof all the same.
        let sets = |acc: &mut Accumulator, sets: XorBuf<'_, '_>| {
            let Some(_bmi2) = self.bmi2 else { unreachable!("the stitched step without BMI2") };
            let (inp, out, len) = Cursor::xor(sets).into_parts();
            if direction == AeadDirection::Seal {
                // SAFETY: as below.
                unsafe { sets_avx2::<Ietf, true>(state, acc, inp, out, len) }
            } else {
                // SAFETY: a Bmi2 (above) exists only if detect() saw BMI2, and it is held only
                // by an Avx2 (AVX2); the parts are a `Cursor`'s, of whole sets, at least one.
                unsafe { sets_avx2::<Ietf, false>(state, acc, inp, out, len) }
            }
        };
        stitched::aead::<R, Self>(self, self.bmi2.is_some(), state, acc, buf, direction, sets);
    }
}

/// The whole sets of a request: each set's ChaCha20 beside the Poly1305 steps of the
/// ciphertext it absorbs (the module header), `h` in registers from the first set to the
/// last.
/// # Safety
/// As [`Cursor::from_parts`], for a length of one set or more, whole sets.
#[target_feature(enable = "avx2,bmi2")]
unsafe fn sets_avx2<V: Variant, const SEAL: bool>(
    state: &State<V>,
    acc: &mut Accumulator,
    inp: *const u8,
    out: *mut u8,
    len: usize,
) {
    // SAFETY: the caller's guarantee.
    let cur = unsafe { Cursor::<true>::from_parts(inp, out, len) };
    if len >= TWO_CHAINS_FROM * SET {
        sets_loop::<V, SEAL, true>(state, acc, cur);
    } else {
        sets_loop::<V, SEAL, false>(state, acc, cur);
    }
}

/// [`sets_avx2`]'s loop, with two Poly1305 chains or one ([`sliced8_mac`]).
#[target_feature(enable = "avx2,bmi2")]
#[inline]
fn sets_loop<V: Variant, const SEAL: bool, const TWO: bool>(
    state: &State<V>,
    acc: &mut Accumulator,
    cur: Cursor<'_, true>,
) {
    let w = state.words();
    let masks = Masks::new();
    let r = acc.r();
    let r16 = if TWO { r16(r) } else { [0; 3] };
    let mut h = acc.h();
    let mut counter = state.counter();
    let mut before: Option<Blocks<'_, true, 8>> = None;
    let mut done = 0;
    while let Some(set) = cur.blocks_at::<8>(done) {
        let ciphertext = if SEAL { before.map(|b| b.written::<SET>(0)) } else { Some(set.inp::<SET>(0)) };
        match ciphertext {
            // SAFETY: a window's checked pointer to its 512 bytes, readable.
            Some(c) => unsafe { sliced8_mac::<V, TWO>(w, counter, set, masks, &mut h, r, r16, c) },
            None => sliced8_whole::<R20, V, true>(w, counter, set, masks),
        }
        before = Some(set);
        done += 8;
        counter = counter.wrapping_add(8);
    }
    acc.set_h(h);
}

/// ChaCha20's 8 blocks from `counter` into `set`, while `h` absorbs the 32 blocks at
/// `ciphertext` with key `r`: if `TWO`, blocks 0–15 into `h` and blocks 16–31 into a
/// second accumulator from 0, side by side in the rounds (two independent chains), then
/// `h = h · r^16 + the second` (`r16`: `r^16`, partly reduced); otherwise all 32 into `h`
/// (`r16` unused).
/// # Safety
/// `ciphertext` is valid for reading 512 bytes.
#[target_feature(enable = "avx2,bmi2")]
#[inline]
#[allow(clippy::too_many_arguments)]
unsafe fn sliced8_mac<V: Variant, const TWO: bool>(
    w: &[u32; 16],
    counter: u64,
    set: Blocks<'_, true, 8>,
    m: Masks,
    h: &mut [u64; 3],
    r: [u64; 2],
    r16: [u64; 3],
    ciphertext: *const u8,
) {
    let input = words8::<V>(w, counter);
    let mut x = input;
    let mut second = [0; 3];
    // SAFETY: the caller's guarantee.
    unsafe { rounds8_mac::<TWO>(&mut x, m, h, &mut second, r, ciphertext) };
    if TWO {
        *h = mul_add(*h, r16, second);
    }
    put8_whole!(x, input, set);
}

/// Pieces of one Poly1305 block step, `h = (h + m + 2^128) · r` mod p partly reduced: `h`
/// in `$h0`–`$h2`, the block at `{m}` + offset, `r` at `{s}` + 192 and + 200, four free
/// registers `$t0`–`$t3`, and `rdx`. The new `h` is left in `$t0`, `$t1`, `$t3`, and
/// `$h0`–`$h2`, `$t2` are free after (the slots of [`rounds8_mac`] say which register is
/// which, step by step: no copies). The carries stay inside each piece, so the vector steps
/// between them (which write no flags) can be anything. Bounds, for `h2` at most 10 in:
/// at most 12 after the block, the product below 2^256 (no carry leaves limb 3), at most 5
/// out.
#[rustfmt::skip]
macro_rules! poly_step {
    // h += the block (its two halves at `$lo`, `$hi`) and its pad bit.
    (@add $lo:literal, $hi:literal; $h0:literal, $h1:literal, $h2:literal) => {
        concat!(
            "add ", $h0, ", qword ptr [{m} + ", $lo, "]\n",
            "adc ", $h1, ", qword ptr [{m} + ", $hi, "]\n",
            "adc ", $h2, ", 1\n",
        )
    };
    // (t1 : t0) = h0 · r0 ...
    (@r0_a $h0:literal; $t0:literal, $t1:literal) => {
        concat!(
            "mov rdx, qword ptr [{s} + 192]\n",
            "mulx ", $t1, ", ", $t0, ", ", $h0, "\n",
        )
    };
    // ... + 2^64 · h1 · r0: (t3 : t1 : t0) ...
    (@r0_b $h1:literal; $t1:literal, $t2:literal, $t3:literal) => {
        concat!(
            "mulx ", $t3, ", ", $t2, ", ", $h1, "\n",
            "add ", $t1, ", ", $t2, "\n",
            "adc ", $t3, ", 0\n",
        )
    };
    // ... + 2^128 · h2 · r0 (t3 stays below 2^64): h · r0.
    (@r0_c $h2:literal; $t2:literal, $t3:literal) => {
        concat!(
            "mov ", $t2, ", rdx\n",
            "imul ", $t2, ", ", $h2, "\n",
            "add ", $t3, ", ", $t2, "\n",
        )
    };
    // + 2^64 · h0 · r1 (t3 stays below 2^64) ...
    (@r1_a $h0:literal; $t1:literal, $t2:literal, $t3:literal) => {
        concat!(
            "mov rdx, qword ptr [{s} + 200]\n",
            "mulx ", $t2, ", ", $h0, ", ", $h0, "\n",
            "add ", $t1, ", ", $h0, "\n",
            "adc ", $t3, ", ", $t2, "\n",
        )
    };
    // ... + 2^128 · h1 · r1 + 2^192 · h2 · r1: h · r = (h0 : t3 : t1 : t0).
    (@r1_b $h0:literal, $h1:literal, $h2:literal; $t2:literal, $t3:literal) => {
        concat!(
            "mulx ", $h0, ", ", $t2, ", ", $h1, "\n",
            "imul rdx, ", $h2, "\n",
            "add ", $t3, ", ", $t2, "\n",
            "adc ", $h0, ", rdx\n",
        )
    };
    // H, the bits from 2^130 up: 4·H = (h0 : t2), H's low limb in h1; the product's low 130
    // bits (t3 keeps bits 128, 129) + 4·H ...
    (@fold4 $h0:literal, $h1:literal; $t0:literal, $t1:literal, $t2:literal, $t3:literal) => {
        concat!(
            "mov ", $t2, ", ", $t3, "\n",
            "and ", $t2, ", -4\n",
            "mov ", $h1, ", ", $t3, "\n",
            "shrd ", $h1, ", ", $h0, ", 2\n",
            "and ", $t3, ", 3\n",
            "add ", $t0, ", ", $t2, "\n",
            "adc ", $t1, ", ", $h0, "\n",
            "adc ", $t3, ", 0\n",
        )
    };
    // ... + H (2^130 ≡ 5): the new h in (t0, t1, t3), t3 <= 3 + 2.
    (@fold1 $h0:literal, $h1:literal; $t0:literal, $t1:literal, $t3:literal) => {
        concat!(
            "shr ", $h0, ", 2\n",
            "add ", $t0, ", ", $h1, "\n",
            "adc ", $t1, ", ", $h0, "\n",
            "adc ", $t3, ", 0\n",
        )
    };
}

/// [`qr8x2_asm!`]'s two quarter rounds, alone (`[]`) or with one Poly1305 block step
/// (`[lo, hi; h0, h1, h2; t0, t1, t2, t3]`: the block's offsets from `{m}`, the registers
/// that hold `h`, and four free ones), a piece after each of the 8 steps.
#[rustfmt::skip]
macro_rules! qr8x2_mac {
    ($($r:literal),+; []) => {
        qr8x2_asm!($($r),+)
    };
    ($($r:literal),+;
     [$lo:literal, $hi:literal; $h0:literal, $h1:literal, $h2:literal; $t0:literal, $t1:literal, $t2:literal, $t3:literal]) => {
        qr8x2_asm!($($r),+;
            [poly_step!(@add $lo, $hi; $h0, $h1, $h2)],
            [poly_step!(@r0_a $h0; $t0, $t1)],
            [poly_step!(@r0_b $h1; $t1, $t2, $t3)],
            [poly_step!(@r0_c $h2; $t2, $t3)],
            [poly_step!(@r1_a $h0; $t1, $t2, $t3)],
            [poly_step!(@r1_b $h0, $h1, $h2; $t2, $t3)],
            [poly_step!(@fold4 $h0, $h1; $t0, $t1, $t2, $t3)],
            [poly_step!(@fold1 $h0, $h1; $t0, $t1, $t3)])
    };
}

/// The slots of a pass of [`rounds8_mac`] with two chains: 16 Poly1305 block steps, 8 of
/// each chain in turns (the block's offsets from `{m}`, the registers of its `h`, four free
/// ones), in the 20 quarter-round-pair slots of five double rounds (`[]`: a pair without
/// one), handed to `$then!`. Each step leaves its chain's `h` in three of the four free
/// registers (`poly_step!`) and the names rotate so that a pass ends where it started: `h`
/// in `{g0}`–`{g2}`, `second` in `{g3}`–`{g5}`.
#[rustfmt::skip]
macro_rules! two_chains {
    ($then:ident) => {
        $then!(
            [0, 8; "{g0}", "{g1}", "{g2}"; "{g6}", "{g7}", "{g8}", "{g9}"],
            [256, 264; "{g3}", "{g4}", "{g5}"; "{g1}", "{g2}", "{g0}", "{g8}"],
            [16, 24; "{g6}", "{g7}", "{g9}"; "{g3}", "{g4}", "{g5}", "{g0}"],
            [],
            [272, 280; "{g1}", "{g2}", "{g8}"; "{g7}", "{g9}", "{g6}", "{g5}"],
            [32, 40; "{g3}", "{g4}", "{g0}"; "{g1}", "{g2}", "{g8}", "{g6}"],
            [],
            [288, 296; "{g7}", "{g9}", "{g5}"; "{g4}", "{g0}", "{g3}", "{g8}"],
            [48, 56; "{g1}", "{g2}", "{g6}"; "{g7}", "{g9}", "{g5}", "{g3}"],
            [],
            [304, 312; "{g4}", "{g0}", "{g8}"; "{g2}", "{g6}", "{g1}", "{g5}"],
            [64, 72; "{g7}", "{g9}", "{g3}"; "{g4}", "{g0}", "{g8}", "{g1}"],
            [],
            [320, 328; "{g2}", "{g6}", "{g5}"; "{g9}", "{g3}", "{g7}", "{g8}"],
            [80, 88; "{g4}", "{g0}", "{g1}"; "{g2}", "{g6}", "{g5}", "{g7}"],
            [336, 344; "{g9}", "{g3}", "{g8}"; "{g0}", "{g1}", "{g4}", "{g5}"],
            [96, 104; "{g2}", "{g6}", "{g7}"; "{g9}", "{g3}", "{g8}", "{g4}"],
            [352, 360; "{g0}", "{g1}", "{g5}"; "{g6}", "{g7}", "{g2}", "{g8}"],
            [112, 120; "{g9}", "{g3}", "{g4}"; "{g0}", "{g1}", "{g5}", "{g2}"],
            [368, 376; "{g6}", "{g7}", "{g8}"; "{g3}", "{g4}", "{g9}", "{g5}"]
        )
    };
}

/// The slots of a pass with one chain: 16 block steps in order (256 bytes), in the same
/// slots as `two_chains!`. Two steps return `h` to `{g0}`–`{g2}`: the first leaves it in
/// `{g6}`, `{g7}`, `{g9}`, the second takes `{g0}`, `{g1}`, `{g8}`, `{g2}` as its free
/// registers.
#[rustfmt::skip]
macro_rules! one_chain {
    ($then:ident) => {
        $then!(
            [0, 8; "{g0}", "{g1}", "{g2}"; "{g6}", "{g7}", "{g8}", "{g9}"],
            [16, 24; "{g6}", "{g7}", "{g9}"; "{g0}", "{g1}", "{g8}", "{g2}"],
            [32, 40; "{g0}", "{g1}", "{g2}"; "{g6}", "{g7}", "{g8}", "{g9}"],
            [],
            [48, 56; "{g6}", "{g7}", "{g9}"; "{g0}", "{g1}", "{g8}", "{g2}"],
            [64, 72; "{g0}", "{g1}", "{g2}"; "{g6}", "{g7}", "{g8}", "{g9}"],
            [],
            [80, 88; "{g6}", "{g7}", "{g9}"; "{g0}", "{g1}", "{g8}", "{g2}"],
            [96, 104; "{g0}", "{g1}", "{g2}"; "{g6}", "{g7}", "{g8}", "{g9}"],
            [],
            [112, 120; "{g6}", "{g7}", "{g9}"; "{g0}", "{g1}", "{g8}", "{g2}"],
            [128, 136; "{g0}", "{g1}", "{g2}"; "{g6}", "{g7}", "{g8}", "{g9}"],
            [],
            [144, 152; "{g6}", "{g7}", "{g9}"; "{g0}", "{g1}", "{g8}", "{g2}"],
            [160, 168; "{g0}", "{g1}", "{g2}"; "{g6}", "{g7}", "{g8}", "{g9}"],
            [176, 184; "{g6}", "{g7}", "{g9}"; "{g0}", "{g1}", "{g8}", "{g2}"],
            [192, 200; "{g0}", "{g1}", "{g2}"; "{g6}", "{g7}", "{g8}", "{g9}"],
            [208, 216; "{g6}", "{g7}", "{g9}"; "{g0}", "{g1}", "{g8}", "{g2}"],
            [224, 232; "{g0}", "{g1}", "{g2}"; "{g6}", "{g7}", "{g8}", "{g9}"],
            [240, 248; "{g6}", "{g7}", "{g9}"; "{g0}", "{g1}", "{g8}", "{g2}"]
        )
    };
}

/// A pass of [`rounds8_mac`]: five double rounds, four slots each.
#[rustfmt::skip]
macro_rules! rounds_pass {
    ($a0:tt, $a1:tt, $a2:tt, $a3:tt, $b0:tt, $b1:tt, $b2:tt, $b3:tt, $c0:tt, $c1:tt, $c2:tt, $c3:tt,
     $d0:tt, $d1:tt, $d2:tt, $d3:tt, $e0:tt, $e1:tt, $e2:tt, $e3:tt) => {
        concat!(
            double_round8_asm!(qr8x2_mac; $a0, $a1, $a2, $a3),
            double_round8_asm!(qr8x2_mac; $b0, $b1, $b2, $b3),
            double_round8_asm!(qr8x2_mac; $c0, $c1, $c2, $c3),
            double_round8_asm!(qr8x2_mac; $d0, $d1, $d2, $d3),
            double_round8_asm!(qr8x2_mac; $e0, $e1, $e2, $e3),
        )
    };
}

/// ChaCha20's 10 double rounds of the word-sliced state (as `rounds8`), with the 32
/// Poly1305 block steps of the 512 bytes at `ciphertext` between its steps, two passes of
/// five double rounds, 16 blocks a pass: if `TWO`, blocks 0–15 into `h` and 16–31 into
/// `second`, in turns, 8 of each a pass (`two_chains!`); otherwise all 32 into `h`, in
/// order, and `second` untouched (`one_chain!`).
/// # Safety
/// `ciphertext` is valid for reading 512 bytes.
#[target_feature(enable = "avx2,bmi2")]
#[inline]
unsafe fn rounds8_mac<const TWO: bool>(
    x: &mut [__m256i; 16],
    m: Masks,
    h: &mut [u64; 3],
    second: &mut [u64; 3],
    r: [u64; 2],
    ciphertext: *const u8,
) {
    /// `c` words 8–11 (those not in registers), the rotate-by-16 and -by-8 masks, `r` (at
    /// byte 192) and the passes left (at byte 208).
    #[repr(C, align(32))]
    struct Scratch([__m256i; 6], [u64; 2], u64);
    let mut s = Scratch([x[8], x[9], x[10], x[11], m.r16, m.r8], r, 2);
    let [x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, _, _, x12, x13, x14, x15] = x;
    let [a0, a1, a2] = h;
    let [b0, b1, b2] = second;
    // The same operands for both slot tables; `$stride`: bytes of ciphertext a pass.
    macro_rules! rounds_asm {
        ($slots:ident, $stride:literal $(, $note:literal)?) => {
            core::arch::asm!(
                $($note,)?
                "2:",
                $slots!(rounds_pass),
                concat!("add {m}, ", $stride),
                "dec qword ptr [{s} + 208]",
                "jnz 2b",
                s = in(reg) &mut s,
                m = inout(reg) ciphertext => _,
                g0 = inout(reg) *a0,
                g1 = inout(reg) *a1,
                g2 = inout(reg) *a2,
                g3 = inout(reg) *b0,
                g4 = inout(reg) *b1,
                g5 = inout(reg) *b2,
                g6 = out(reg) _,
                g7 = out(reg) _,
                g8 = out(reg) _,
                g9 = out(reg) _,
                out("rdx") _,
                inout("ymm0") *x0, inout("ymm1") *x1, inout("ymm2") *x2, inout("ymm3") *x3,
                inout("ymm4") *x4, inout("ymm5") *x5, inout("ymm6") *x6, inout("ymm7") *x7,
                inout("ymm8") *x8, inout("ymm9") *x9, out("ymm10") _, out("ymm11") _,
                inout("ymm12") *x12, inout("ymm13") *x13, inout("ymm14") *x14, inout("ymm15") *x15,
                options(nostack),
            )
        };
    }
    if TWO {
        // SAFETY: the asm reads and writes only the named registers, the flags and `s`
        // (through `{s}`: 216 bytes, 32-aligned for `vmovdqa`), and reads the 512 bytes from
        // `ciphertext` (the caller's guarantee: two passes of 128 bytes of each half through
        // `{m}`).
        unsafe { rounds_asm!(two_chains, 128) };
    } else {
        // SAFETY: as above; the 512 bytes as two passes of 256 through `{m}`.
        unsafe { rounds_asm!(one_chain, 256, "/* second, unused: {g3} {g4} {g5} */") };
    }
    x[10] = s.0[2];
    x[11] = s.0[3];
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use chacha_core::{BLOCK_LEN, Ietf, reference};
    use chacha_testdata::filler;
    use std::{vec, vec::Vec};

    #[test]
    fn without_bmi2_the_default_pieces_match_reference() {
        let Some(avx2) = Avx2::detect() else {
            std::eprintln!("SKIPPED: this CPU has no AVX2");
            return;
        };
        let kernel = Avx2 { bmi2: None };
        let r: [u8; 16] = filler(3, 16).try_into().unwrap();
        let state = State::<Ietf>::new(&[9; 32], &[4; 12]);
        for len in [0, 511, 512, 1000, 4096 + 600] {
            for direction in [AeadDirection::Seal, AeadDirection::Open] {
                let data = filler(len as u64, len);
                let mut ks = vec![[0u8; BLOCK_LEN]; len.div_ceil(BLOCK_LEN)];
                reference::keystream::<R20, Ietf>(&state, &mut ks);
                let want: Vec<u8> = data.iter().zip(ks.as_flattened()).map(|(d, k)| d ^ k).collect();
                let mut ciphertext =
                    if direction == AeadDirection::Seal { want.clone() } else { data.clone() };
                ciphertext.resize(len.div_ceil(16) * 16, 0);
                let want_h = reference::poly1305_blocks(&r, [0; 3], ciphertext.as_chunks::<16>().0);
                for k in [kernel, avx2] {
                    let mut buf = data.clone();
                    let mut acc = Accumulator::new(&r);
                    k.aead::<R20>(&state, &mut acc, XorBuf::from(&mut buf[..]), direction);
                    let mut same = Accumulator::new(&[0; 16]);
                    same.set_h(want_h);
                    assert_eq!(buf, want, "{k:?} {direction:?} {len} bytes: output");
                    assert_eq!(acc.tag(&[0; 16]), same.tag(&[0; 16]), "{k:?} {direction:?} {len} bytes: MAC");
                }
            }
        }
    }
}
