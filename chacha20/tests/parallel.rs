//! The parallel calls (feature `rayon`) against the sequential ones, on every cipher type
//! and backend: `par_apply_keystream`, `try_par_apply_keystream` and the `_b2b` forms
//! must give the same bytes, the same position, the same buffered keystream (the next
//! calls' bytes) and the same errors as `apply_keystream` / `try_apply_keystream` on a
//! clone, for every split of a request into buffered keystream, whole blocks and a
//! partial last block, near the end of the stream too, and never write outside the
//! buffer (guard bytes).
//!
//! The threshold is lowered to 0 through the `#[doc(hidden)]` `_with_min_len` forms so
//! that requests of a few blocks are split; pools of 2, 3 and 5 threads split them
//! differently (and a 1-thread pool takes the sequential path). The public forms run
//! above their threshold, [`par_min_len`]. `scripts/miri.sh` leaves this file out (its header says why); run
//! under miri by hand, it takes fewer heads, lengths and pools.

use chacha_testdata::pools::{install, pools, threads};
use chacha_testdata::{Guarded, filler};
use chacha20::cipher::{StreamCipher, StreamCipherError, StreamCipherSeek};
use chacha20::{
    Backend, ChaCha8, ChaCha12Legacy, ChaCha20, ChaCha20Legacy, PAR_MIN_LEN, R8, R12, R20, XChaCha8,
    XChaCha20, par_min_len,
};
use rayon::ThreadPool;

/// A cipher type under test, made on one backend, with its parallel calls.
trait Par: StreamCipher + StreamCipherSeek + Clone + Send + std::fmt::Debug {
    /// Bytes in the whole stream.
    const STREAM_BYTES: u128;
    /// The public calls' threshold for the type's round count.
    const MIN_LEN: usize;
    fn make(backend: Backend) -> Self;
    fn remaining_bytes(&self) -> u128;
    fn par(&mut self, buf: &mut [u8], min_len: usize) -> Result<(), StreamCipherError>;
    fn par_b2b(&mut self, input: &[u8], out: &mut [u8], min_len: usize) -> Result<(), StreamCipherError>;
    fn par_public(&mut self, buf: &mut [u8]);
    fn try_par_public(&mut self, buf: &mut [u8]) -> Result<(), StreamCipherError>;
    fn par_b2b_public(&mut self, input: &[u8], out: &mut [u8]);
    fn try_par_b2b_public(&mut self, input: &[u8], out: &mut [u8]) -> Result<(), StreamCipherError>;
}

macro_rules! par {
    ($ty:ty, $rounds:ty, $nonce:expr, $blocks:expr) => {
        impl Par for $ty {
            const STREAM_BYTES: u128 = $blocks * 64;
            const MIN_LEN: usize = par_min_len::<$rounds>();
            fn make(backend: Backend) -> Self {
                <$ty>::with_backend(&[0x3c; 32], &$nonce, backend)
            }
            fn remaining_bytes(&self) -> u128 {
                self.remaining()
            }
            fn par(&mut self, buf: &mut [u8], min_len: usize) -> Result<(), StreamCipherError> {
                self.try_par_apply_keystream_with_min_len(buf, min_len)
            }
            fn par_b2b(
                &mut self,
                input: &[u8],
                out: &mut [u8],
                min_len: usize,
            ) -> Result<(), StreamCipherError> {
                self.try_par_apply_keystream_b2b_with_min_len(input, out, min_len)
            }
            fn par_public(&mut self, buf: &mut [u8]) {
                self.par_apply_keystream(buf)
            }
            fn try_par_public(&mut self, buf: &mut [u8]) -> Result<(), StreamCipherError> {
                self.try_par_apply_keystream(buf)
            }
            fn par_b2b_public(&mut self, input: &[u8], out: &mut [u8]) {
                self.par_apply_keystream_b2b(input, out)
            }
            fn try_par_b2b_public(&mut self, input: &[u8], out: &mut [u8]) -> Result<(), StreamCipherError> {
                self.try_par_apply_keystream_b2b(input, out)
            }
        }
    };
}

par!(ChaCha20, R20, [0xa1; 12], 1u128 << 32);
par!(ChaCha8, R8, [0xa2; 12], 1u128 << 32);
par!(ChaCha20Legacy, R20, [0xa3; 8], 1u128 << 64);
par!(ChaCha12Legacy, R12, [0xa4; 8], 1u128 << 64);
par!(XChaCha20, R20, [0xa5; 24], 1u128 << 64);
par!(XChaCha8, R8, [0xa6; 24], 1u128 << 64);

/// Calls made first, sequentially: none, each partial block (1..63 bytes buffered from a
/// fresh cipher), whole blocks (nothing buffered, warm), and a warm cipher's short call
/// (a short-call batch buffered on the SIMD backends) with and without some of it used.
fn prefixes() -> Vec<Vec<usize>> {
    let heads: Vec<usize> = if cfg!(miri) { vec![1, 63] } else { (1..64).collect() };
    let mut prefixes = vec![vec![]];
    prefixes.extend(heads.into_iter().map(|h| vec![h]));
    prefixes.extend([vec![128], vec![64, 16], vec![64, 16, 100], vec![64, 200], vec![1000]]);
    prefixes
}

/// Request lengths: zero, under one block, around 1, 2, 4 and 16 blocks (a short-call
/// batch is 4 blocks at most), and several pieces per thread with and without a partial
/// last block.
fn lengths() -> Vec<usize> {
    if cfg!(miri) {
        return vec![0, 65, 3 * 64 + 5, 9 * 64];
    }
    let mut lengths = vec![0, 1, 17, 63];
    for blocks in [1, 2, 3, 4, 5, 7, 16, 17, 33, 40, 64, 100] {
        lengths.extend([blocks * 64 - 1, blocks * 64, blocks * 64 + 1, blocks * 64 + 37]);
    }
    lengths
}

/// Runs `prefix`, then `len` bytes through the parallel call on `pool` (in place or
/// buffer to buffer, between guard bytes) and the sequential call on a clone; both must
/// give the same result, bytes and position, and the next calls (a partial block and
/// more, served from what each left buffered) the same bytes.
fn same_as_sequential<C: Par>(
    c: &mut C,
    pool: Option<&ThreadPool>,
    len: usize,
    b2b: bool,
    min_len: usize,
    what: &str,
) {
    let input = filler(len as u64 + 7, len);
    let mut seq = c.clone();
    let mut want = input.clone();
    let want_result = seq.try_apply_keystream(&mut want);

    let before = if b2b { vec![0xEE; len] } else { input.clone() };
    let mut got = Guarded::new(&before, len % 3);
    let result = install(pool, || {
        if b2b { c.par_b2b(&input, got.get_mut(), min_len) } else { c.par(got.get_mut(), min_len) }
    });
    got.check(what);
    assert_eq!(result.is_ok(), want_result.is_ok(), "{what}: result");
    if want_result.is_ok() {
        assert!(got.get() == want.as_slice(), "{what}: bytes");
    } else {
        assert!(got.get() == before.as_slice(), "{what}: a refused call wrote");
    }
    assert_eq!(c.current_pos::<u128>(), seq.current_pos::<u128>(), "{what}: position");
    assert_eq!(c.remaining_bytes(), seq.remaining_bytes(), "{what}: remaining");
    for next in [5, 100, 300] {
        let (mut a, mut b) = (vec![0u8; next], vec![0u8; next]);
        let (ra, rb) = (c.try_apply_keystream(&mut a), seq.try_apply_keystream(&mut b));
        assert_eq!((ra.is_ok(), a), (rb.is_ok(), b), "{what}: the next {next} bytes");
    }
}

fn every_split<C: Par>() {
    for backend in Backend::available() {
        for pool in pools() {
            for prefix in prefixes() {
                for len in lengths() {
                    for b2b in [false, true] {
                        let mut c = C::make(backend);
                        for &p in &prefix {
                            c.apply_keystream(&mut vec![0u8; p]);
                        }
                        let what = format!(
                            "{c:?} {backend:?}, {} threads, after {prefix:?}, {len} B, b2b {b2b}",
                            threads(pool)
                        );
                        same_as_sequential(&mut c, pool, len, b2b, 0, &what);
                    }
                }
            }
        }
    }
}

#[test]
fn chacha20_every_split_matches_the_sequential_call_on_every_backend() {
    every_split::<ChaCha20>();
}

#[test]
fn chacha8_every_split_matches_the_sequential_call_on_every_backend() {
    every_split::<ChaCha8>();
}

#[test]
fn legacy_every_split_matches_the_sequential_call_on_every_backend() {
    every_split::<ChaCha20Legacy>();
    if !cfg!(miri) {
        every_split::<ChaCha12Legacy>();
    }
}

#[test]
fn xchacha_every_split_matches_the_sequential_call_on_every_backend() {
    every_split::<XChaCha20>();
    if !cfg!(miri) {
        every_split::<XChaCha8>();
    }
}

/// Requests around the end of the stream (2^32 blocks for `Ietf`, 2^64 for `Legacy` and
/// XChaCha): from `left` bytes before it, each length up to and past what is left. The
/// same refusals (nothing written, nothing moved) and the same last bytes.
fn near_the_end<C: Par>() {
    let lefts: &[u128] = if cfg!(miri) { &[130] } else { &[0, 1, 63, 64, 65, 130, 64 * 9 + 7, 64 * 40] };
    for backend in Backend::available() {
        for pool in pools() {
            for &left in lefts {
                let mut lens: Vec<usize> = vec![0, 1, 64, 65, 64 * 9, 64 * 9 + 7, 64 * 40, 64 * 41];
                lens.extend([left as usize, left as usize + 1, (left as usize).saturating_sub(1)]);
                for len in lens {
                    for b2b in [false, true] {
                        let mut c = C::make(backend);
                        c.seek(C::STREAM_BYTES - left);
                        let what = format!(
                            "{c:?} {backend:?}, {} threads, {left} B before the end, {len} B, b2b {b2b}",
                            threads(pool)
                        );
                        same_as_sequential(&mut c, pool, len, b2b, 0, &what);
                    }
                }
            }
        }
    }
}

#[test]
fn ietf_requests_near_the_end_of_the_stream_match_the_sequential_call() {
    near_the_end::<ChaCha20>();
    near_the_end::<ChaCha8>();
}

#[test]
fn legacy_and_xchacha_requests_near_the_end_of_the_stream_match_the_sequential_call() {
    near_the_end::<ChaCha20Legacy>();
    near_the_end::<XChaCha20>();
}

/// Buffer to buffer with lengths that differ: refused whole, as `try_apply_keystream_b2b`.
#[test]
fn buffer_to_buffer_with_unequal_lengths_is_refused_and_touches_nothing() {
    fn check<C: Par>() {
        for (a, b) in [(0, 1), (1, 0), (100, 99), (4096, 4097)] {
            let mut c = C::make(Backend::detect());
            c.apply_keystream(&mut [0u8; 10]);
            let input = vec![1u8; a];
            let mut out = Guarded::new(&vec![0xEE; b], 0);
            assert!(c.par_b2b(&input, out.get_mut(), 0).is_err());
            assert!(c.try_par_b2b_public(&input, out.get_mut()).is_err());
            out.check(format!("{a} into {b}"));
            assert!(out.get().iter().all(|&x| x == 0xEE), "{a} into {b}: wrote");
            assert_eq!(c.current_pos::<u64>(), 10, "{a} into {b}: moved");
        }
    }
    check::<ChaCha20>();
    check::<XChaCha20>();
}

/// The public forms, with their threshold: requests from just under it to twice it (many
/// pieces), after each kind of prefix, on the global pool.
///
/// Under miri, and under emulation (`CHACHA_EMULATED`, set by `scripts/cross-test.sh` for
/// qemu, where the whole set took minutes of the s390x stage: `chacha-backends/DECISIONS.md`
/// § rayon: the tests under emulation), one length, one prefix and one form: the other
/// orders of the same requests run natively on x86_64 and i686, and a byte-order bug shows
/// in any of them.
#[test]
fn public_calls_above_the_threshold_match_the_sequential_call() {
    let few = cfg!(miri) || std::env::var_os("CHACHA_EMULATED").is_some();
    fn check<C: Par>(few: bool) {
        let lens: Vec<usize> = if few {
            vec![C::MIN_LEN + 65]
        } else {
            vec![C::MIN_LEN - 1, C::MIN_LEN, C::MIN_LEN + 65, 2 * C::MIN_LEN + 37]
        };
        let prefixes: &[&[usize]] = if few { &[&[7]] } else { &[&[], &[7], &[64, 16]] };
        for backend in Backend::available() {
            for &len in &lens {
                for prefix in prefixes {
                    for form in 0..if few { 1 } else { 2 } {
                        let mut c = C::make(backend);
                        for &p in *prefix {
                            c.apply_keystream(&mut vec![0u8; p]);
                        }
                        let input = filler(len as u64, len);
                        let (mut seq, mut want) = (c.clone(), input.clone());
                        seq.apply_keystream(&mut want);
                        let mut got = input.clone();
                        match form {
                            0 => c.par_public(&mut got),
                            _ => c.try_par_public(&mut got).unwrap(),
                        }
                        let what = format!("{c:?} {backend:?} after {prefix:?}, {len} B, form {form}");
                        assert!(got == want, "{what}: bytes");
                        let mut out = vec![0u8; len];
                        let (mut seq2, mut want2) = (c.clone(), input.clone());
                        seq2.apply_keystream(&mut want2);
                        match form {
                            0 => c.par_b2b_public(&input, &mut out),
                            _ => c.try_par_b2b_public(&input, &mut out).unwrap(),
                        }
                        assert!(out == want2, "{what}: b2b bytes");
                        assert_eq!(c.current_pos::<u128>(), seq2.current_pos::<u128>(), "{what}: position");
                        let (mut a, mut b) = ([0u8; 100], [0u8; 100]);
                        c.apply_keystream(&mut a);
                        seq2.apply_keystream(&mut b);
                        assert_eq!(a, b, "{what}: the next bytes");
                    }
                }
            }
        }
    }
    check::<ChaCha20>(few);
    if !cfg!(miri) {
        check::<ChaCha8>(few);
        check::<ChaCha20Legacy>(few);
        check::<XChaCha8>(few);
    }
}

#[test]
#[should_panic(expected = "end of keystream reached")]
fn par_apply_keystream_panics_at_the_end_as_apply_keystream() {
    let mut c = ChaCha20::make(Backend::detect());
    c.seek(ChaCha20::STREAM_BYTES - 64);
    c.par_public(&mut [0u8; 65]);
}

#[test]
#[should_panic(expected = "end of keystream reached")]
fn par_apply_keystream_b2b_panics_at_the_end_as_apply_keystream_b2b() {
    let mut c = XChaCha8::make(Backend::detect());
    c.seek(XChaCha8::STREAM_BYTES - 1);
    c.par_b2b_public(&[0u8; 2], &mut [0u8; 2]);
}

#[test]
#[should_panic(expected = "Lengths of input and output buffers are not equal to each other!")]
fn par_apply_keystream_b2b_panics_on_unequal_lengths_as_apply_keystream_b2b() {
    ChaCha8::make(Backend::detect()).par_b2b_public(&[0u8; 2], &mut [0u8; 3]);
}

/// The thresholds stand for the same work: ChaCha8's is 10/4 of ChaCha20's.
#[test]
fn thresholds_scale_with_rounds() {
    assert_eq!(par_min_len::<R20>(), PAR_MIN_LEN);
    assert_eq!(par_min_len::<R12>(), PAR_MIN_LEN * 10 / 6);
    assert_eq!(par_min_len::<R8>(), PAR_MIN_LEN * 10 / 4);
}
