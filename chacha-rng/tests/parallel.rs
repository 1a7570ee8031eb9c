//! `par_fill_bytes` (feature `rayon`) against `fill_bytes` on a clone, on every backend:
//! the same bytes, the same word position, and the same outputs afterwards (words and
//! fills served from what each left buffered), after every kind of earlier draw (partial
//! blocks, single words, a seek into a block, a whole buffer), around the end of the
//! cyclic stream (2^64 blocks, then block 0 again), and never a write outside the
//! destination (guard bytes).
//!
//! The threshold is lowered to 0 through the `#[doc(hidden)]`
//! `par_fill_bytes_with_min_len` so that fills of a few blocks are split; pools of 2, 3 and
//! 5 threads split them differently (and a 1-thread pool takes the sequential path).
//! `par_fill_bytes` itself runs above its threshold, [`par_min_len`]. `scripts/miri.sh` leaves this file out
//! (its header says why); run under miri by hand, it takes fewer cases and pools.

use chacha_rng::rand_core::{Rng, SeedableRng};
use chacha_rng::{Backend, ChaChaRng, PAR_MIN_LEN, R8, R12, R20, Rounds, par_min_len};
use chacha_testdata::Guarded;
use chacha_testdata::pools::{install, pools, threads};
use rayon::ThreadPool;

/// Words in the whole stream: 2^64 blocks of 16.
const WORDS: u128 = 1 << 68;

/// An earlier draw, leaving the generator with some output buffered (or none).
#[derive(Clone, Copy, Debug)]
enum Draw {
    Fill(usize),
    Words(usize),
    U64,
    Seek(u128),
}

fn draws() -> Vec<Vec<Draw>> {
    let mut draws = vec![vec![]];
    let heads: Vec<usize> = if cfg!(miri) { vec![1, 63] } else { (1..64).collect() };
    draws.extend(heads.into_iter().map(|h| vec![Draw::Fill(h)]));
    if !cfg!(miri) {
        draws.extend((1..=17).map(|n| vec![Draw::Words(n)]));
        draws.extend([
            vec![Draw::U64],
            vec![Draw::Words(3), Draw::Fill(5)],
            vec![Draw::Seek(5)],
            vec![Draw::Seek(16 * 3)],
            vec![Draw::Seek(16 * 7 + 9), Draw::Words(2)],
            vec![Draw::Fill(1024), Draw::Words(1)],
            vec![Draw::Words(300)],
        ]);
    }
    draws
}

/// Fill lengths: zero, under one block, around 1, 2, 16 (the generator's buffer) and more
/// blocks, with and without a partial last block and partial last word.
fn lengths() -> Vec<usize> {
    if cfg!(miri) {
        return vec![0, 65, 3 * 64 + 6, 9 * 64];
    }
    let mut lengths = vec![0, 1, 3, 4, 5, 63];
    for blocks in [1, 2, 3, 5, 16, 17, 33, 64, 100] {
        lengths.extend([blocks * 64 - 1, blocks * 64, blocks * 64 + 1, blocks * 64 + 38]);
    }
    lengths
}

fn apply<R: Rounds>(rng: &mut ChaChaRng<R>, draw: Draw) {
    match draw {
        Draw::Fill(n) => rng.fill_bytes(&mut vec![0; n]),
        Draw::Words(n) => (0..n).for_each(|_| _ = rng.next_u32()),
        Draw::U64 => _ = rng.next_u64(),
        Draw::Seek(word) => rng.set_word_pos(word),
    }
}

/// `len` bytes through `par_fill_bytes_with_min_len` on `pool` and `fill_bytes` on a clone:
/// the same bytes, position and later outputs.
fn same_as_sequential<R: Rounds>(rng: &mut ChaChaRng<R>, pool: Option<&ThreadPool>, len: usize, what: &str) {
    let mut seq = rng.clone();
    let mut want = vec![0u8; len];
    seq.fill_bytes(&mut want);
    let mut got = Guarded::new(&vec![0xEE; len], len % 3);
    install(pool, || rng.par_fill_bytes_with_min_len(got.get_mut(), 0));
    got.check(what);
    assert!(got.get() == want.as_slice(), "{what}: bytes");
    assert_eq!(rng.get_word_pos(), seq.get_word_pos(), "{what}: word position");
    assert_eq!((rng.next_u32(), rng.next_u64()), (seq.next_u32(), seq.next_u64()), "{what}: next words");
    let (mut a, mut b) = ([0u8; 1100], [0u8; 1100]);
    rng.fill_bytes(&mut a);
    seq.fill_bytes(&mut b);
    assert_eq!(a, b, "{what}: the next fill");
}

fn every_split<R: Rounds>() {
    for backend in Backend::available() {
        for pool in pools() {
            for draws in draws() {
                for len in lengths() {
                    let mut rng = ChaChaRng::<R>::with_backend([0x5e; 32], backend);
                    rng.set_stream(0x0102_0304_0506_0708);
                    draws.iter().for_each(|&d| apply(&mut rng, d));
                    let what =
                        format!("{rng:?} {backend:?}, {} threads, after {draws:?}, {len} B", threads(pool));
                    same_as_sequential(&mut rng, pool, len, &what);
                }
            }
        }
    }
}

#[test]
fn chacha20_every_split_matches_fill_bytes_on_every_backend() {
    every_split::<R20>();
}

#[test]
fn chacha8_every_split_matches_fill_bytes_on_every_backend() {
    every_split::<R8>();
}

/// Fills that end before, at and past the last word of the stream (where it starts again
/// from word 0), from a few words to several buffers before it.
fn near_the_end<R: Rounds>() {
    let lefts: &[u128] = if cfg!(miri) { &[20] } else { &[1, 3, 15, 16, 17, 20, 16 * 16, 16 * 40 + 5] };
    let lens: &[usize] = if cfg!(miri) {
        &[40, 200]
    } else {
        &[1, 4, 63, 64, 65, 200, 64 * 16, 64 * 40 + 20, 64 * 41, 64 * 90]
    };
    for backend in Backend::available() {
        for pool in pools() {
            for &left in lefts {
                for &len in lens {
                    for draw in [None, Some(Draw::Words(1))] {
                        let mut rng = ChaChaRng::<R>::with_backend([0x77; 32], backend);
                        rng.set_word_pos(WORDS - left - u128::from(draw.is_some()));
                        draw.into_iter().for_each(|d| apply(&mut rng, d));
                        let what = format!(
                            "{rng:?} {backend:?}, {} threads, {left} words before the end, {len} B",
                            threads(pool)
                        );
                        same_as_sequential(&mut rng, pool, len, &what);
                    }
                }
            }
        }
    }
}

#[test]
fn fills_around_the_end_of_the_cyclic_stream_match_fill_bytes() {
    near_the_end::<R20>();
    near_the_end::<R12>();
}

/// `par_fill_bytes` with its threshold, on the global pool: from just under it to twice it
/// (many pieces), after a partial draw.
#[test]
fn par_fill_bytes_above_the_threshold_matches_fill_bytes() {
    let lens: Vec<usize> = if cfg!(miri) {
        vec![PAR_MIN_LEN + 70]
    } else {
        vec![PAR_MIN_LEN - 1, PAR_MIN_LEN, PAR_MIN_LEN + 70, 2 * PAR_MIN_LEN + 37]
    };
    for backend in Backend::available() {
        for &len in &lens {
            let mut rng = ChaChaRng::<R20>::with_backend([0x31; 32], backend);
            rng.next_u32();
            let mut seq = rng.clone();
            let (mut got, mut want) = (vec![0u8; len], vec![0u8; len]);
            rng.par_fill_bytes(&mut got);
            seq.fill_bytes(&mut want);
            assert!(got == want, "{backend:?} {len} B: bytes");
            assert_eq!(rng.get_word_pos(), seq.get_word_pos(), "{backend:?} {len} B: position");
            assert_eq!(rng.next_u64(), seq.next_u64(), "{backend:?} {len} B: next word");
        }
    }
    // `from_seed`, the type users name.
    let mut rng = chacha_rng::ChaCha8Rng::from_seed([2; 32]);
    let mut seq = rng.clone();
    let len = par_min_len::<R8>() + 3;
    let (mut got, mut want) = (vec![0u8; len], vec![0u8; len]);
    rng.par_fill_bytes(&mut got);
    seq.fill_bytes(&mut want);
    assert!(got == want && rng == seq);
}

/// The thresholds stand for the same work: ChaCha8Rng's is 10/4 of ChaCha20Rng's.
#[test]
fn thresholds_scale_with_rounds() {
    assert_eq!(par_min_len::<R20>(), PAR_MIN_LEN);
    assert_eq!(par_min_len::<R12>(), PAR_MIN_LEN * 10 / 6);
    assert_eq!(par_min_len::<R8>(), PAR_MIN_LEN * 10 / 4);
}
