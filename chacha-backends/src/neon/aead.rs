//! ChaCha20-Poly1305's bulk step on `neon`, stitched: per set of 8 blocks (512 bytes), the
//! set's ChaCha20 in vector registers and its 32 Poly1305 block steps in general-purpose
//! registers, in one `asm!` loop ([`rounds8_mac`]), so that the integer multiplier works
//! while the SIMD pipes run the rounds.
//!
//! | per set | where |
//! |---|---|
//! | 8 blocks: two word-sliced sets of 4 (`sliced_words`), then `sliced_rows` and the XOR | `v0`–`v30`, one word in memory, `v31` the rotates' temporary |
//! | 32 Poly1305 steps (`block_step!`, radix 2^64, 30 instructions), 3 or 4 between the parts of a double round | two chains of three registers each |
//!
//! - The rounds are `asm!` because LLVM's allocation of the same intrinsics spilled about 60
//!   vectors a double round; this plan moves 8.
//! - Two chains (blocks 0–15 from `h`, 16–31 from 0, joined by `stitched::mul_add`): one
//!   chain of 32 dependent steps would take about as long as the rounds.
//! - Opening absorbs a set's own ciphertext, read in the rounds; sealing absorbs the set
//!   before's, so the first set runs alone and the last one's MAC follows the loop.
//! - ChaCha20 only, from one set opening and three sealing: `avx2`'s thresholds.
//!
//! Not measured on ARM hardware; the `llvm-mca` figures and the rejected designs:
//! `DECISIONS.md` in this crate, § neon: the stitched AEAD.

use core::arch::aarch64::uint32x4_t;

use chacha_core::poly1305::Accumulator;
use chacha_core::{AeadDirection, BLOCK_LEN, Ietf, R20, Rounds, State, XorBuf};

use super::{IN_AEAD, Neon, sliced, sliced_rows, sliced_words, xor16};
use crate::cursor::{Blocks, Cursor};
use crate::stitched::{self, SET, mul_add, r16};

impl Neon {
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
        let sets = |acc: &mut Accumulator, sets: XorBuf<'_, '_>| {
            if direction == AeadDirection::Seal {
                // SAFETY: as below.
                unsafe { sets_neon::<true>(state, acc, sets) }
            } else {
                // SAFETY: a Neon exists only if detect() saw NEON, the only feature
                // sets_neon enables.
                unsafe { sets_neon::<false>(state, acc, sets) }
            }
        };
        stitched::aead::<R, Self>(self, true, state, acc, buf, direction, sets);
    }
}

/// The whole sets of `sets` (a multiple of [`SET`] bytes, at least one set): each set's
/// ChaCha20 beside the Poly1305 steps of the ciphertext it absorbs (the module header), `h`
/// in registers from the first set to the last.
// Never inlined: one function per direction for the checks and the disassembly to find.
#[inline(never)]
#[target_feature(enable = "neon")]
fn sets_neon<const SEAL: bool>(state: &State<Ietf>, acc: &mut Accumulator, sets: XorBuf<'_, '_>) {
    let cur = Cursor::xor(sets);
    let r = acc.r();
    let r16 = r16(r);
    let mut h = acc.h();
    let mut counter = state.counter();
    let mut before: Option<Blocks<'_, true, 8>> = None;
    let mut done = 0;
    while let Some(set) = cur.blocks_at::<8>(done) {
        let ciphertext = if SEAL { before.map(|b| b.written::<SET>(0)) } else { Some(set.inp::<SET>(0)) };
        let ks = match ciphertext {
            Some(c) => {
                // ChaCha20 beside `h` absorbing the 32 blocks at `c`: blocks 0–15 go on from
                // `h`, 16–31 into a second accumulator from 0; then `h · r^16 + second`.
                let input = sliced_words::<2>(state, counter);
                let mut x = input;
                let (mut first, mut second) = (h, [0; 3]);
                // SAFETY: a window's checked pointer to its 512 bytes, readable.
                unsafe { rounds8_mac(&mut x, &mut first, &mut second, r, c) };
                h = mul_add(first, r16, second);
                sliced_rows::<2, 8>(x, &input)
            }
            None => sliced::<R20, 2, 8, IN_AEAD>(state, counter),
        };
        // Every offset a constant: the windows' checks fold away.
        for (b, rows) in ks.iter().enumerate() {
            for (i, &k) in rows.iter().enumerate() {
                xor16(set.span::<16>(BLOCK_LEN * b + 16 * i), k);
            }
        }
        before = Some(set);
        done += 8;
        counter = counter.wrapping_add(8);
    }
    acc.set_h(h);
}

/// Parts 0 and 2 of a round on 8 quarter rounds `[a, b, c, d]` (register names):
/// `a += b; d ^= a; d <<<= 16` (`rev32`, in place; the 8 `eor`s before the 8 `rev32`s, for
/// cores that issue in order) or `<<<= 8` (`ushr` into `d` from the XOR in `v31`, then
/// `sli`).
#[rustfmt::skip]
macro_rules! part_ad {
    (16; $([$a:literal, $b:literal, $c:tt, $d:literal]),+) => {
        concat!(
            $("add ", $a, ".4s, ", $a, ".4s, ", $b, ".4s\n",)+
            $("eor ", $d, ".16b, ", $d, ".16b, ", $a, ".16b\n",)+
            $("rev32 ", $d, ".8h, ", $d, ".8h\n",)+
        )
    };
    ($rot:tt; $([$a:literal, $b:literal, $c:tt, $d:literal]),+) => {
        concat!(
            $("add ", $a, ".4s, ", $a, ".4s, ", $b, ".4s\n",)+
            $(part_ad!(@rot $rot, $a, $d),)+
        )
    };
    (@rot 8, $a:literal, $d:literal) => {
        concat!(
            "eor v31.16b, ", $d, ".16b, ", $a, ".16b\n",
            "ushr ", $d, ".4s, v31.4s, #24\n",
            "sli ", $d, ".4s, v31.4s, #8\n",
        )
    };
}

/// Parts 1 and 3 of a round on 8 quarter rounds `[a, b, c, d]`: `c += d; b ^= c;
/// b <<<= $l` (`$r` = 32 − `$l`), the XOR in `v31`, `ushr` into `b` and `sli`. A `c` named
/// `spill` lives at `{s}`: loaded into `v31`, added to, stored back, then XORed.
#[rustfmt::skip]
macro_rules! part_cb {
    ($l:literal, $r:literal; $([$a:literal, $b:literal, $c:tt, $d:literal]),+) => {
        concat!(
            $(part_cb!(@add $c, $d),)+
            $(part_cb!(@rot $l, $r, $b, $c, $d),)+
        )
    };
    (@add spill, $d:literal) => { "" };
    (@add $c:literal, $d:literal) => { concat!("add ", $c, ".4s, ", $c, ".4s, ", $d, ".4s\n") };
    (@rot $l:literal, $r:literal, $b:literal, spill, $d:literal) => {
        concat!(
            "ldr q31, [{s}]\n",
            "add v31.4s, v31.4s, ", $d, ".4s\n",
            "str q31, [{s}]\n",
            "eor v31.16b, ", $b, ".16b, v31.16b\n",
            "ushr ", $b, ".4s, v31.4s, #", $r, "\n",
            "sli ", $b, ".4s, v31.4s, #", $l, "\n",
        )
    };
    (@rot $l:literal, $r:literal, $b:literal, $c:literal, $d:literal) => {
        concat!(
            "eor v31.16b, ", $b, ".16b, ", $c, ".16b\n",
            "ushr ", $b, ".4s, v31.4s, #", $r, "\n",
            "sli ", $b, ".4s, v31.4s, #", $l, "\n",
        )
    };
}

/// `$part!` on the column round's 8 quarter rounds (both sets): the register plan of
/// [`rounds8_mac`], set A's word `i` in `v{i}`, set B's words 0–10 in `v16`–`v26`, 12–15 in
/// `v27`–`v30`, 11 at `{s}` (`spill`).
#[rustfmt::skip]
macro_rules! columns {
    ($part:ident, $($arg:tt),+) => {
        $part!($($arg),+;
            ["v0", "v4", "v8", "v12"], ["v1", "v5", "v9", "v13"],
            ["v2", "v6", "v10", "v14"], ["v3", "v7", "v11", "v15"],
            ["v16", "v20", "v24", "v27"], ["v17", "v21", "v25", "v28"],
            ["v18", "v22", "v26", "v29"], ["v19", "v23", spill, "v30"])
    };
}

/// `$part!` on the diagonal round's 8 quarter rounds (both sets), as [`columns!`].
#[rustfmt::skip]
macro_rules! diagonals {
    ($part:ident, $($arg:tt),+) => {
        $part!($($arg),+;
            ["v0", "v5", "v10", "v15"], ["v1", "v6", "v11", "v12"],
            ["v2", "v7", "v8", "v13"], ["v3", "v4", "v9", "v14"],
            ["v16", "v21", "v26", "v30"], ["v17", "v22", spill, "v27"],
            ["v18", "v23", "v24", "v28"], ["v19", "v20", "v25", "v29"])
    };
}

/// One Poly1305 block step, `h = (h + m + 2^128) · r` mod p partly reduced, on the chain
/// whose `h` is in `$h0`–`$h2`, the block at `{m}` + `$off`: `{d0}`–`{d3}`, `{t}` free,
/// `r` in `{r0}`, `{r1}` (clamped: both below 2^60, `r1 % 4 == 0`), 1 in `{one}`. The
/// carries stay inside the step; the vector instructions around it write no flags.
///
/// Bounds: for `h[2]` at most 7 in, `h + m + 2^128` is below 2^131.4, `h · r` below
/// 2^255.4, so its limb 3 (`d3`) is below 2^63.4 and `d3 + (d3 >> 2) + 1` does not carry
/// out; `h[2]` leaves at most 3 + 1.
#[rustfmt::skip]
macro_rules! block_step {
    ($off:literal; $h0:literal, $h1:literal, $h2:literal) => {
        concat!(
            // h += m + 2^128.
            "ldp {d0}, {d1}, [{m}, #", $off, "]\n",
            "adds ", $h0, ", ", $h0, ", {d0}\n",
            "adcs ", $h1, ", ", $h1, ", {d1}\n",
            "adc ", $h2, ", ", $h2, ", {one}\n",
            // (d2 : d1 : d0) = h · r0; h2 · r0 is below 2^64 (h2 small): d2 does not carry.
            "mul {d0}, ", $h0, ", {r0}\n",
            "umulh {d1}, ", $h0, ", {r0}\n",
            "mul {t}, ", $h1, ", {r0}\n",
            "umulh {d2}, ", $h1, ", {r0}\n",
            "adds {d1}, {d1}, {t}\n",
            "mul {t}, ", $h2, ", {r0}\n",
            "adc {d2}, {d2}, {t}\n",
            // + 2^64 · h · r1: limb 1 += lo(h0 r1), limb 2 += hi(h0 r1) + lo(h1 r1), limb 3
            // = hi(h1 r1) + h2 · r1, with the carries (`mul`, `umulh` leave the flags).
            "mul {t}, ", $h0, ", {r1}\n",
            "umulh ", $h0, ", ", $h0, ", {r1}\n",
            "adds {d1}, {d1}, {t}\n",
            "mul {t}, ", $h1, ", {r1}\n",
            "umulh ", $h1, ", ", $h1, ", {r1}\n",
            "adcs {t}, {t}, ", $h0, "\n",
            "mul ", $h2, ", ", $h2, ", {r1}\n",
            "adc ", $h2, ", ", $h2, ", ", $h1, "\n",
            "adds {d2}, {d2}, {t}\n",
            "adc {d3}, ", $h2, ", xzr\n",
            // The low 130 bits (d1 : d0, d2 & 3) + 4·H + H, H the bits from 2^130 up:
            // 4·H = (d3 : d2 & !3), H = (d3 >> 2 : extr(d3 : d2, 2)).
            "and ", $h2, ", {d2}, #3\n",
            "and ", $h0, ", {d2}, #-4\n",
            "extr {d2}, {d3}, {d2}, #2\n",
            "adds ", $h0, ", ", $h0, ", {d0}\n",
            "lsr {d0}, {d3}, #2\n",
            "adc ", $h1, ", {d3}, {d0}\n",
            "adds ", $h0, ", ", $h0, ", {d2}\n",
            "adcs ", $h1, ", ", $h1, ", {d1}\n",
            "adc ", $h2, ", ", $h2, ", xzr\n",
        )
    };
}

/// The first chain's step on the block at `{m}` + `$off` (the set's first half).
macro_rules! first {
    ($off:literal) => {
        block_step!($off; "{a0}", "{a1}", "{a2}")
    };
}

/// The second chain's step on the block at `{m}` + `$off` (the set's second half).
macro_rules! second {
    ($off:literal) => {
        block_step!($off; "{b0}", "{b1}", "{b2}")
    };
}

/// One double round of both sets with a piece of text (`""` or a `block_step!`) after
/// each of its 8 parts: the column round's 4, then the diagonal round's.
#[rustfmt::skip]
macro_rules! double_round_mac {
    ($p0:expr, $p1:expr, $p2:expr, $p3:expr, $p4:expr, $p5:expr, $p6:expr, $p7:expr) => {
        concat!(
            columns!(part_ad, 16), $p0,
            columns!(part_cb, 12, 20), $p1,
            columns!(part_ad, 8), $p2,
            columns!(part_cb, 7, 25), $p3,
            diagonals!(part_ad, 16), $p4,
            diagonals!(part_cb, 12, 20), $p5,
            diagonals!(part_ad, 8), $p6,
            diagonals!(part_cb, 7, 25), $p7,
        )
    };
}

/// ChaCha20's 10 double rounds of the two word-sliced sets `x`, with the 32 Poly1305 block
/// steps of the 512 bytes at `ciphertext` between their parts: blocks 0–15 into `first`,
/// 16–31 into `second`, in turns; two passes of five double rounds, 16 blocks a pass (8 of
/// each chain), 3, 3, 4, 3, 3 a double round.
///
/// Register plan: the 32 words in `v0`–`v30` but one (set B's word 11, a `c` word, in
/// memory at `{s}`), `v31` the XOR before each shift-and-insert rotate (no `tbl` table:
/// that register is the spilled word's); `h` of each chain in three general-purpose
/// registers, five more free for the step.
/// # Safety
/// `ciphertext` is valid for reading 512 bytes.
#[inline(always)]
unsafe fn rounds8_mac(
    x: &mut [[uint32x4_t; 16]; 2],
    first: &mut [u64; 3],
    second: &mut [u64; 3],
    r: [u64; 2],
    ciphertext: *const u8,
) {
    /// Set B's word 11, the word not in a register.
    #[repr(C, align(16))]
    struct Spill(uint32x4_t);
    let mut s = Spill(x[1][11]);
    let [a, b] = x;
    let [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15] = a;
    let [b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, _, b12, b13, b14, b15] = b;
    let [f0, f1, f2] = first;
    let [s0, s1, s2] = second;
    // SAFETY: the asm reads and writes only the named registers, the flags and `s` (16
    // bytes, 16-aligned), and reads the 512 bytes at `ciphertext` (the caller's guarantee:
    // two passes of 128 bytes of each half through `{m}`).
    unsafe {
        core::arch::asm!(
            "2:",
            double_round_mac!("", first!(0), "", second!(256), "", "", first!(16), ""),
            double_round_mac!(second!(272), "", "", first!(32), "", second!(288), "", ""),
            double_round_mac!(first!(48), "", second!(304), "", "", first!(64), "", second!(320)),
            double_round_mac!("", "", first!(80), "", second!(336), "", "", first!(96)),
            double_round_mac!("", second!(352), "", "", first!(112), "", second!(368), ""),
            "add {m}, {m}, #128",
            "subs {n}, {n}, #1",
            "b.ne 2b",
            s = in(reg) &mut s,
            m = inout(reg) ciphertext => _,
            n = inout(reg) 2u64 => _,
            one = in(reg) 1u64,
            r0 = in(reg) r[0],
            r1 = in(reg) r[1],
            a0 = inout(reg) *f0,
            a1 = inout(reg) *f1,
            a2 = inout(reg) *f2,
            b0 = inout(reg) *s0,
            b1 = inout(reg) *s1,
            b2 = inout(reg) *s2,
            d0 = out(reg) _,
            d1 = out(reg) _,
            d2 = out(reg) _,
            d3 = out(reg) _,
            t = out(reg) _,
            inout("v0") *a0, inout("v1") *a1, inout("v2") *a2, inout("v3") *a3,
            inout("v4") *a4, inout("v5") *a5, inout("v6") *a6, inout("v7") *a7,
            inout("v8") *a8, inout("v9") *a9, inout("v10") *a10, inout("v11") *a11,
            inout("v12") *a12, inout("v13") *a13, inout("v14") *a14, inout("v15") *a15,
            inout("v16") *b0, inout("v17") *b1, inout("v18") *b2, inout("v19") *b3,
            inout("v20") *b4, inout("v21") *b5, inout("v22") *b6, inout("v23") *b7,
            inout("v24") *b8, inout("v25") *b9, inout("v26") *b10, inout("v27") *b12,
            inout("v28") *b13, inout("v29") *b14, inout("v30") *b15, out("v31") _,
            options(nostack),
        );
    }
    x[1][11] = s.0;
}
