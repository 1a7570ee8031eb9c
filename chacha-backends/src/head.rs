//! The counter-free head of the first double round: work that is the same for every
//! block of a batch, done once in scalar code instead of once per vector lane. A
//! scheduling aid of the word-sliced kernels (`sse2`, `avx2`, `avx512`), not part of the
//! `Kernel` contract.
//!
//! Of the 16 input words only word 12 (the counter) differs between the blocks of a
//! word-sliced batch, or of a whole call: the kernels compute the RFC 8439 layout only,
//! whose word 13 is a nonce word (a `Legacy` request reaches them cut at its carries,
//! `crate::counter`). So in the first column round three quarter rounds of
//! four, (1, 5, 9, 13), (2, 6, 10, 14) and (3, 7, 11, 15), compute the same words in every
//! lane, and so do a few steps after them:
//!
//! ```text
//!   column round    (0,4,8,12): the first add, a += b (words 0 and 4 are constants)
//!                   (1,5,9,13) (2,6,10,14) (3,7,11,15): all of them
//!   diagonal round  (1,6,11,12): the first add, 1 += 6
//!                   (2,7,8,13): the first step, 2 += 7; 13 ^= 2; 13 <<<= 16
//!                   (0,5,10,15) and (3,4,9,14) start from word 0 or 4, which by then
//!                   depend on word 12: nothing
//! ```
//!
//! That is 41 of the 96 vector instructions of the first double round (ChaCha20: 41 of
//! 960 in the rounds; ChaCha8: 41 of 384), the work a vector unit does not
//! have to do: [`head`] does it once per call on the integer units, and each word-sliced
//! kernel starts its lanes from the head's words and runs what is left of the first
//! double round, which [`finish_first_double_round`] spells out for one block.
//! OpenSSL's assembly does all 96.
//!
//! [`finish_first_double_round`]: crate::head::finish_first_double_round

use crate::quarter_round;

/// The words a word-sliced kernel starts the first double round from: the input words
/// `words` with the counter-free work of the [module docs](self) done. Word 12 is
/// returned as given (each lane sets its own); words 4 and 8 are unchanged.
#[inline]
pub(crate) fn head(words: &[u32; 16]) -> [u32; 16] {
    let mut h = *words;
    quarter_round_ops::<0, 1>(&mut h, [0, 4, 8, 12]);
    quarter_round(&mut h, 1, 5, 9, 13);
    quarter_round(&mut h, 2, 6, 10, 14);
    quarter_round(&mut h, 3, 7, 11, 15);
    quarter_round_ops::<0, 1>(&mut h, [1, 6, 11, 12]);
    quarter_round_ops::<0, 3>(&mut h, [2, 7, 8, 13]);
    h
}

/// What is left of the first double round (RFC 8439's `inner_block`) after [`head`], for
/// one block whose word 12 is `word12`: the model each word-sliced kernel follows lane by
/// lane, step for step. `finish_first_double_round(&head(w), w[12])` is the state after
/// one `inner_block` on `w`.
#[inline(always)]
#[cfg_attr(
    not(chacha_uses = "head_finish"),
    allow(dead_code, reason = "sse2 runs it; without sse2 only the tests, as the other kernels' model")
)]
pub(crate) fn finish_first_double_round(head: &[u32; 16], word12: u32) -> [u32; 16] {
    let mut x = *head;
    x[12] = word12;
    quarter_round_ops::<1, 12>(&mut x, [0, 4, 8, 12]);
    quarter_round_ops::<1, 12>(&mut x, [1, 6, 11, 12]);
    quarter_round_ops::<3, 12>(&mut x, [2, 7, 8, 13]);
    quarter_round(&mut x, 0, 5, 10, 15);
    quarter_round(&mut x, 3, 4, 9, 14);
    x
}

/// Operations `FROM..TO` of the twelve of RFC 8439's quarter round (§2.1) on words
/// `[a, b, c, d]`: `a += b` is operation 0, `d ^= a` 1, `d <<<= 16` 2, `c += d` 3, and so
/// on to `b <<<= 7`, 11. (Constant bounds and four steps: inlined, it unrolls into
/// straight-line code, as a backend's scalar block needs it.)
#[inline(always)]
fn quarter_round_ops<const FROM: usize, const TO: usize>(x: &mut [u32; 16], [a, b, c, d]: [usize; 4]) {
    let run = |op: usize| FROM <= op && op < TO;
    for (step, (p, q, r, n)) in
        [(a, b, d, 16), (c, d, b, 12), (a, b, d, 8), (c, d, b, 7)].into_iter().enumerate()
    {
        if run(3 * step) {
            x[p] = x[p].wrapping_add(x[q]);
        }
        if run(3 * step + 1) {
            x[r] ^= x[p];
        }
        if run(3 * step + 2) {
            x[r] = x[r].rotate_left(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use chacha_core::reference::inner_block;

    fn check(words: [u32; 16]) {
        let mut want = words;
        inner_block(&mut want);
        assert_eq!(finish_first_double_round(&head(&words), words[12]), want, "input {words:08x?}");
    }

    #[test]
    fn head_then_finish_is_one_double_round_rfc8439_2_3_2() {
        // RFC 8439 §2.3.2's input state (key 00..1f, nonce 00 00 00 09 00 00 00 4a 00 00
        // 00 00, counter 1); the reference's `inner_block` is the oracle.
        let v = chacha_testdata::get("rfc8439-2.3.2");
        check(v.words("setup"));
    }

    #[test]
    fn head_ignores_word_12_and_keeps_words_4_and_8() {
        let w: [u32; 16] = core::array::from_fn(|i| 0x0101_0101u32.wrapping_mul(i as u32 + 3));
        let mut other = w;
        other[12] ^= 0xdead_beef;
        let (a, b) = (head(&w), head(&other));
        assert_eq!(a[..12], b[..12]);
        assert_eq!(a[13..], b[13..]);
        assert_eq!((a[4], a[8], a[12]), (w[4], w[8], w[12]));
        // The head is not the identity on the words it claims to compute.
        assert_ne!(a[1], w[1]);
        assert_ne!(a[13], w[13]);
    }

    /// The head is exactly the work the module docs list, spelled out step by step: the
    /// kernels start from these words and take them as done (a head that left an op to
    /// the finish would still pass `check`, and a kernel trusting it would not).
    #[test]
    fn head_is_the_listed_work_exactly() {
        let w: [u32; 16] = core::array::from_fn(|i| 0x9e37_79b9u32.wrapping_mul(i as u32 + 1));
        let mut want = w;
        for (a, b, c, d) in [(1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15)] {
            quarter_round(&mut want, a, b, c, d);
        }
        want[0] = want[0].wrapping_add(want[4]);
        want[1] = want[1].wrapping_add(want[6]);
        want[2] = want[2].wrapping_add(want[7]);
        want[13] = (want[13] ^ want[2]).rotate_left(16);
        assert_eq!(head(&w), want);
    }

    proptest! {
        #[test]
        fn head_then_finish_is_one_double_round(words in any::<[u32; 16]>()) {
            check(words);
        }
    }
}
