//! Row kernels: a block's four rows (a = words 0-3, b = 4-7, c = 8-11, d = 12-15) in four
//! vectors, one block per 128-bit lane: 1 block in xmm, 2 in ymm, 4 in zmm. Several
//! independent such chains interleave step by step to hide each other's latency.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use chacha_core::{Block, CONSTANTS, Ietf, Rounds, State};

use super::sliced16::lanes_4x4;
use super::store_32;
use crate::cursor::Cursor;

/// The four rows of 1, 2 or 4 blocks (one block per 128-bit lane).
#[derive(Clone, Copy)]
pub(super) struct Rows<T> {
    a: T,
    b: T,
    c: T,
    d: T,
}

macro_rules! rows_impl {
    ($t:ty, $lanes:literal, $add:ident, $xor:ident, $rol:ident, $shuf:ident, $broadcast:path, $offsets:expr,
     $ternlog:ident, $slli:ident, $srli:ident, $shift:ty) => {
        impl Rows<$t> {
            /// Blocks side by side in one vector.
            const LANES: usize = $lanes;

            /// Blocks `counter ..` of `state` in rows; lane `j` has counter `counter + j`:
            /// ```text
            ///  row i = [w(i) w(i+1) w(i+2) w(i+3)] broadcast to every 128-bit lane
            ///  d     = [ctr n n n | ctr n n n | ...] + [0 0 0 0 | 1 0 0 0 | 2 0 0 0 | 3 0 0 0]
            /// ```
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
            fn at(state: &State<Ietf>, counter: u64) -> Self {
                let w = state.words_at(counter);
                let row = |i: usize| {
                    $broadcast(_mm_setr_epi32(w[i] as i32, w[i + 1] as i32, w[i + 2] as i32, w[i + 3] as i32))
                };
                Rows { a: row(0), b: row(4), c: row(8), d: $add(row(12), $offsets) }
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

            /// [`ad`](Self::ad) with a shorter chain where `vprold` is slow (`RotateForm`):
            /// `(d ^ a) <<< N` is `(d <<< N) ^ (a << N) ^ (a >> M)` (`L = N`, `M = 32 - N`), and
            /// `d <<< N` is computed while the add is (d is ready a step earlier), so after
            /// the add only two shifts side by side and one three-way XOR (`vpternlogd`)
            /// remain on the chain, not an XOR and then a rotate.
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
    fn put<const XOR: bool>(self, io: &mut Cursor<'_, XOR>, tail: &mut Block) {
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
    fn put<const XOR: bool>(self, io: &mut Cursor<'_, XOR>, tail: &mut Block) {
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
    fn put<const XOR: bool>(self, io: &mut Cursor<'_, XOR>, tail: &mut Block) {
        io.put_all(self.blocks(), tail);
    }
}

/// `$n` double rounds on independent row chains, interleaved step by step;
/// with `split`, in the steps of [`Rows::ad_split`].
macro_rules! row_double_rounds {
    ($n:expr, split; $($x:ident),+) => {
        for _ in 0..$n {
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
    ($n:expr; $($x:ident),+) => {
        for _ in 0..$n {
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
/// blocks from `counter` on in chain order, `double_rounds` double rounds.
macro_rules! rows_kernel {
    ($(#[$doc:meta])* $name:ident: $(($x:ident, $i:ident): $t:ty),+) => {
        $(#[$doc])*
        #[inline]
        #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
        pub(super) fn $name<const XOR: bool, const SPLIT: bool>(
            double_rounds: usize,
            state: &State<Ietf>,
            counter: u64,
            io: &mut Cursor<'_, XOR>,
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
                row_double_rounds!(double_rounds, split; $($x),+);
            } else {
                row_double_rounds!(double_rounds; $($x),+);
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
pub(super) fn hchacha_row<R: Rounds, const SPLIT: bool>(key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
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
        row_double_rounds!(R::DOUBLE_ROUNDS, split; x);
    } else {
        row_double_rounds!(R::DOUBLE_ROUNDS; x);
    }
    let mut out = [0u8; 32];
    store_32(&mut out, _mm256_set_m128i(x.d, x.a));
    out
}
