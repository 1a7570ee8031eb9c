//! Every backend this CPU runs against `chacha_core::reference`, through `State::xor` /
//! `State::fill` / `State::fill_batch` and `Kernel::hchacha`: fused XOR (in-place,
//! buffer-to-buffer, unaligned), raw keystream (both fills) and HChaCha, over counter
//! edges, every block count up to 70, every byte length up to 300, and random inputs
//! (proptest); every buffer a kernel writes or reads lies between guard bytes, checked
//! after each call. The matrix runs twice per backend: on
//! `Backend` (the run-time `match`) and on the backend's own kernel type
//! (`Backend::with_kernel`, static dispatch).
//!
//! Under miri (`scripts/miri.sh`), which interprets every operation some 10^4 times slower
//! than native code, the matrix keeps its edges and drops the repetition: the
//! [`block_counts`] that reach every kernel of every backend, each once, at one of the
//! counter edges in turn (the end of either layout's stream, the carry into word 13); the
//! [`lengths`] at the edges of every piece a partial block is cut into, the layouts in
//! turn; R8 only (the round count is the bound of one loop; the HChaCha test keeps R12 and
//! R20); and the backend's own kernel type only (the `Backend` match is safe code, and the
//! other tests go through it). Counter values and round counts change no memory access,
//! which is what miri checks; the native run checks the values.

use chacha_backends::{Backend, WithKernel};
use chacha_core::Kernel;
use chacha_core::{
    EndOfStream, Ietf, Legacy, MAX_BATCH_BLOCKS, R8, R12, R20, Rounds, State, Variant, XorBuf, reference,
};
use chacha_testdata::{Guarded, filler as bytes};
use proptest::prelude::*;

fn state_at<V: Variant>(key: &[u8; 32], nonce: &[u8], counter: u64) -> State<V> {
    let mut n = V::Nonce::default();
    n.as_mut().copy_from_slice(&nonce[..V::NONCE_LEN]);
    let mut state = State::<V>::new(key, &n);
    state.seek(u128::from(counter)).unwrap();
    state
}

fn expected_keystream<R: Rounds, V: Variant>(state: &State<V>, blocks: usize) -> Vec<u8> {
    let mut ks = vec![[0u8; 64]; blocks];
    reference::keystream::<R, V>(state, &mut ks);
    ks.concat()
}

/// Checks every operation of `backend` for `len` bytes from `counter`, against the reference.
/// Every buffer the kernel gets lies between guard bytes ([`Guarded`]), checked after each
/// call: a write past either end fails here, not only under the allocator's checks or miri.
fn check<R: Rounds, V: Variant, K: Kernel>(
    backend: K,
    key: &[u8; 32],
    nonce: &[u8],
    counter: u64,
    len: usize,
) {
    let start = state_at::<V>(key, nonce, counter);
    let blocks = len.div_ceil(64);
    let ks = expected_keystream::<R, V>(&start, blocks);
    let data = bytes(counter ^ len as u64, len);
    let want: Vec<u8> = data.iter().zip(&ks).map(|(d, k)| d ^ k).collect();
    let ctx = format!("{backend:?} R{} {:?} counter {counter} len {len}", R::ROUNDS, V::default());
    let check_tail = |tail: &Guarded, what: &str| {
        tail.check(format_args!("{ctx}: {what}: tail"));
        if len.is_multiple_of(64) {
            assert_eq!(tail.get(), [0xA5; 64], "{ctx}: {what}: tail written for whole blocks");
        } else {
            assert_eq!(tail.get(), &ks[(blocks - 1) * 64..], "{ctx}: {what}: tail");
        }
    };
    let check_state = |state: &State<V>| {
        assert_eq!(state.position(), start.position() + blocks as u128, "{ctx}: position after");
    };

    // In place, at offsets 0 and 1 (unaligned).
    for offset in [0, 1] {
        let what = format!("in place, offset {offset}");
        let mut state = start.clone();
        let mut buf = Guarded::new(&data, offset);
        let mut tail = Guarded::new(&[0xA5; 64], 0);
        state.xor::<R, _>(backend, XorBuf::from(buf.get_mut()), tail.block_mut()).unwrap();
        buf.check(format_args!("{ctx}: {what}"));
        assert_eq!(buf.get(), &want[..], "{ctx}: {what}");
        check_tail(&tail, &what);
        check_state(&state);
    }

    // Buffer to buffer, the output unaligned.
    let mut state = start.clone();
    let input = Guarded::new(&data, 0);
    let mut out = Guarded::new(&vec![0x5A; len], 1);
    let mut tail = Guarded::new(&[0xA5; 64], 0);
    let io = XorBuf::new(input.get(), out.get_mut()).unwrap();
    state.xor::<R, _>(backend, io, tail.block_mut()).unwrap();
    input.check(format_args!("{ctx}: buffer to buffer: input"));
    out.check(format_args!("{ctx}: buffer to buffer: output"));
    assert_eq!((out.get(), input.get()), (&want[..], &data[..]), "{ctx}: buffer to buffer");
    check_tail(&tail, "buffer to buffer");
    check_state(&state);

    // Raw keystream, whole blocks only: `fill`, and `fill_batch` (the fronts' short fills;
    // any count gives the same bytes).
    for what in ["fill", "fill_batch"] {
        let mut state = start.clone();
        let mut blocks_out = Guarded::blocks(len / 64, 0);
        let out = blocks_out.blocks_mut();
        match what {
            "fill" => state.fill::<R, _>(backend, out),
            _ => state.fill_batch::<R, _>(backend, out),
        }
        .unwrap();
        blocks_out.check(format_args!("{ctx}: {what}"));
        assert_eq!(blocks_out.get(), &ks[..len / 64 * 64], "{ctx}: {what}");
        assert_eq!(state.position(), start.position() + (len / 64) as u128, "{ctx}: position after {what}");
    }
}

/// Miri runs the reduced matrix (see the header).
const MIRI: bool = cfg!(miri);

fn for_all_rounds<V: Variant, K: Kernel>(backend: K, key: &[u8; 32], nonce: &[u8], counter: u64, len: usize) {
    check::<R8, V, K>(backend, key, nonce, counter, len);
    if !MIRI {
        check::<R12, V, K>(backend, key, nonce, counter, len);
        check::<R20, V, K>(backend, key, nonce, counter, len);
    }
}

/// Runs the body `make` gives for each available backend, first as `Backend`, then as the
/// backend's own kernel type.
fn on_every_kernel<F: WithKernel<Output = ()> + Copy>(make: impl Fn(Backend) -> F) {
    for backend in Backend::available() {
        let body = make(backend);
        if !MIRI {
            body.call(backend);
        }
        backend.with_kernel(body);
    }
}

/// Under miri, the longest request in blocks that reaches every kernel of `backend` and
/// runs its widest loop twice: twice the widest kernel plus one (`soft` 1 block, `sse2` 4,
/// `avx2` 8), and 33 for `avx512` (16-block loop twice, then one row).
fn miri_blocks(backend: Backend) -> u64 {
    match backend.name() {
        "soft" => 3,
        "sse2" => 9,
        "avx2" => 17,
        _ => 33,
    }
}

/// Block counts per request: 0 to 70. Under miri 0 to [`miri_blocks`], at most 17, which
/// reaches every kernel: `soft` 1, `sse2` rows of 1–3 and 4 word-sliced, `avx2` 1–8 and the
/// 8-block loop (9–17), `avx512` rows of 1–14 and 16 word-sliced (15 with a spare lane,
/// 16, 17 = 16 + 1); `avx512`'s loop running twice is in `long_requests`.
fn block_counts(backend: Backend) -> Vec<u64> {
    if MIRI { (0..=miri_blocks(backend).min(17)).collect() } else { (0..=70).collect() }
}

/// Byte lengths per request: 0 to 300. Under miri, the edges of every piece a partial block
/// is cut into (`avx2` XORs 32/16/8/4/2/1-byte pieces, `avx512` masks 16-byte rows) and of
/// the first five blocks.
fn lengths() -> Vec<usize> {
    if MIRI {
        vec![
            0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 100, 127, 128, 129,
            191, 193, 255, 257, 300,
        ]
    } else {
        (0..=300).collect()
    }
}

const KEY: [u8; 32] = [
    0x8f, 0x11, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0, 0x0f,
    0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xff,
];
const NONCE: [u8; 12] = [0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44];

#[derive(Clone, Copy)]
struct BlockCounts(Backend);

impl WithKernel for BlockCounts {
    type Output = ();
    fn call<K: Kernel>(self, backend: K) {
        for blocks in block_counts(self.0) {
            let len = blocks as usize * 64;
            // Ietf: the start, and a run that ends exactly on the last block (2^32 - 1).
            let ietf = [0, 1, (1 << 32) - blocks.max(1)];
            // Legacy: the start, across the 2^32 carry into word 13, and the last block (2^64 - 1).
            let legacy = [0, 1, (1 << 32) - 1, (1 << 32) - blocks / 2 - 1, u64::MAX - blocks.max(1) + 1];
            if MIRI {
                // One run per count, the edges taking turns: the last block of each layout,
                // the carry into word 13.
                match blocks % 3 {
                    0 => for_all_rounds::<Ietf, _>(backend, &KEY, &NONCE, ietf[2], len),
                    1 => for_all_rounds::<Legacy, _>(backend, &KEY, &NONCE, legacy[3], len),
                    _ => for_all_rounds::<Legacy, _>(backend, &KEY, &NONCE, legacy[4], len),
                }
                continue;
            }
            for counter in ietf {
                for_all_rounds::<Ietf, _>(backend, &KEY, &NONCE, counter, len);
            }
            for counter in legacy {
                for_all_rounds::<Legacy, _>(backend, &KEY, &NONCE, counter, len);
            }
        }
    }
}

#[test]
fn block_counts_0_to_70_at_counter_edges() {
    on_every_kernel(BlockCounts);
}

#[derive(Clone, Copy)]
struct EveryLength;

impl WithKernel for EveryLength {
    type Output = ();
    fn call<K: Kernel>(self, backend: K) {
        for (i, len) in lengths().into_iter().enumerate() {
            // Under miri the layouts take turns (a partial block is cut the same way in both).
            if !MIRI || i % 2 == 0 {
                for_all_rounds::<Ietf, _>(backend, &KEY, &NONCE, 7, len);
            }
            if !MIRI || i % 2 == 1 {
                for_all_rounds::<Legacy, _>(backend, &KEY, &NONCE, (1 << 32) - 2, len);
            }
        }
    }
}

#[test]
fn every_length_to_300_bytes() {
    on_every_kernel(|_| EveryLength);
}

/// A few long requests, so a wide kernel's loop runs many times and meets every tail.
#[derive(Clone, Copy)]
struct LongRequests(Backend);

impl WithKernel for LongRequests {
    type Output = ();
    fn call<K: Kernel>(self, backend: K) {
        // Under miri one: the widest loop twice, a narrower kernel and a partial block.
        let miri = [miri_blocks(self.0) as usize * 64 + 17];
        let lens: &[usize] = if MIRI { &miri } else { &[4095, 4096, 4097, 16 * 1024 + 1000, 65 * 1024 + 17] };
        for &len in lens {
            check::<R20, Ietf, K>(backend, &KEY, &NONCE, (1 << 32) - (len as u64).div_ceil(64), len);
            check::<R8, Legacy, K>(backend, &KEY, &NONCE, (1 << 32) - 100, len);
        }
    }
}

#[test]
fn long_requests() {
    on_every_kernel(LongRequests);
}

#[test]
fn requests_past_the_end_are_refused_and_touch_nothing() {
    for backend in Backend::available() {
        let mut state = state_at::<Ietf>(&KEY, &NONCE, u64::from(u32::MAX));
        let mut buf = [0x11u8; 65];
        let mut tail = [0x22u8; 64];
        let r = state.xor::<R20, _>(backend, XorBuf::from(&mut buf[..]), &mut tail);
        assert_eq!(r, Err(EndOfStream), "{}", backend.name());
        assert_eq!((buf, tail, state.blocks_left()), ([0x11; 65], [0x22; 64], 1));
        let mut blocks = [[0x33u8; 64]; 2];
        assert_eq!(state.fill::<R20, _>(backend, &mut blocks), Err(EndOfStream));
        assert_eq!(blocks, [[0x33; 64]; 2]);

        // The last block itself is fine, then nothing more (not even a partial block).
        state.xor::<R20, _>(backend, XorBuf::from(&mut buf[..64]), &mut tail).unwrap();
        assert_eq!((buf[64], tail, state.blocks_left()), (0x11, [0x22; 64], 0), "{}", backend.name());
        let r = state.xor::<R20, _>(backend, XorBuf::from(&mut buf[..1]), &mut tail);
        assert_eq!(r, Err(EndOfStream));
        state.xor::<R20, _>(backend, XorBuf::from(&mut buf[..0]), &mut tail).unwrap();

        let mut state = state_at::<Legacy>(&KEY, &NONCE, u64::MAX);
        assert_eq!(state.fill::<R20, _>(backend, &mut blocks), Err(EndOfStream));
        state.fill::<R20, _>(backend, &mut blocks[..1]).unwrap();
        assert_eq!((blocks[1], state.blocks_left()), ([0x33; 64], 0), "{}", backend.name());
    }
}

#[test]
fn hchacha_matches_reference() {
    for backend in Backend::available() {
        for seed in 0..if MIRI { 2 } else { 50u64 } {
            let key: [u8; 32] = bytes(seed, 32).try_into().unwrap();
            let input: [u8; 16] = bytes(seed + 1000, 16).try_into().unwrap();
            assert_eq!(backend.hchacha::<R20>(&key, &input), reference::hchacha::<R20>(&key, &input));
            assert_eq!(backend.hchacha::<R12>(&key, &input), reference::hchacha::<R12>(&key, &input));
            assert_eq!(backend.hchacha::<R8>(&key, &input), reference::hchacha::<R8>(&key, &input));
        }
    }
}

/// `CHACHA_EXPECT_BACKENDS=soft,avx2,…` makes a backend that `available()` silently lacks
/// a failure, so CI notices when a machine or a build stops exercising one.
#[test]
fn expected_backends_are_available() {
    let Ok(expected) = std::env::var("CHACHA_EXPECT_BACKENDS") else { return };
    let available: Vec<&str> = Backend::available().map(Backend::name).collect();
    for name in expected.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        assert!(available.contains(&name), "CHACHA_EXPECT_BACKENDS lists {name}, available: {available:?}");
    }
}

/// The fronts use at most `MAX_BATCH_BLOCKS` of a kernel's batch blocks: a backend that said
/// more would be batched less than it claims, silently.
#[test]
fn batch_blocks_are_within_the_contracts_bound() {
    for backend in Backend::available() {
        let free = backend.batch_blocks();
        assert!((1..=MAX_BATCH_BLOCKS).contains(&free), "{}: batch_blocks {free}", backend.name());
    }
}

#[test]
fn names_are_unique_and_detect_is_the_first_available() {
    let names: Vec<&str> = Backend::available().map(Backend::name).collect();
    assert!(!names.is_empty());
    assert_eq!(Backend::detect().name(), names[0]);
    for (i, n) in names.iter().enumerate() {
        assert!(!names[i + 1..].contains(n), "{n} twice");
        assert_eq!(Backend::by_name(n).map(Backend::name), Some(*n));
        assert!(Backend::COMPILED.contains(n));
    }
    assert_eq!(Backend::by_name("nonsense"), None);
}

proptest! {
    #[test]
    fn random_inputs_match_reference(
        key in any::<[u8; 32]>(),
        nonce in any::<[u8; 12]>(),
        counter in any::<u64>(),
        len in 0usize..if MIRI { 300 } else { 2000 },
        legacy in any::<bool>(),
    ) {
        let blocks = len.div_ceil(64) as u64;
        for backend in Backend::available() {
            if legacy {
                let counter = counter.min(u64::MAX - blocks.max(1) + 1);
                for_all_rounds::<Legacy, _>(backend, &key, &nonce, counter, len);
            } else {
                let counter = (counter & 0xFFFF_FFFF).min((1 << 32) - blocks.max(1));
                for_all_rounds::<Ietf, _>(backend, &key, &nonce, counter, len);
            }
        }
    }
}

/// The reference keystream of the `len` bytes' blocks of the `Legacy` stream from block
/// `counter`, going on from block 0 after the last block (2^64 − 1), as an RNG's stream
/// does (the reference's counter wraps).
fn legacy_keystream_cyclic(counter: u64, len: usize) -> Vec<u8> {
    let mut ks = vec![[0u8; 64]; len.div_ceil(64)];
    reference::keystream::<R20, Legacy>(&state_at::<Legacy>(&KEY, &NONCE, counter), &mut ks);
    ks.concat()
}

/// Byte lengths of the carry and end sweeps: 1 to 1100 (under miri a partial first block,
/// one and a half blocks, two blocks and one byte, the widest loops and the longest).
fn sweep_lengths() -> Vec<usize> {
    if MIRI { vec![1, 97, 129, 577, 1100] } else { (1..=1100).collect() }
}

/// Blocks before the carry (or the end) the sweeps start at: 1 to 20 (under miri 1, 2, 9).
fn sweep_starts() -> Vec<u64> {
    if MIRI { vec![1, 2, 9] } else { (1..=20).collect() }
}

/// Where a [`LegacySweep`] starts: 1 to 20 blocks before it.
#[derive(Clone, Copy, Debug)]
enum Edge {
    /// The carry from word 12 into word 13 at block 5·2^32 (word 13 goes from 4 to 5).
    Carry,
    /// The end of the 64-bit counter's stream, block 2^64.
    End,
}

/// A `Legacy` request of every length from 1 to 1100 bytes, starting 1 to 20 blocks before
/// an [`Edge`], against the reference, on `Backend` and every module's own kernel type
/// alike (the carry is cut in one place, `chacha-backends`' `counter` module).
#[derive(Clone, Copy)]
struct LegacySweep(Edge);

impl WithKernel for LegacySweep {
    type Output = ();
    fn call<K: Kernel>(self, kernel: K) {
        for before in sweep_starts() {
            let counter = match self.0 {
                Edge::Carry => (5 << 32) - before,
                Edge::End => 0u64.wrapping_sub(before),
            };
            let start = state_at::<Legacy>(&KEY, &NONCE, counter);
            let ks = legacy_keystream_cyclic(counter, 1100);
            for len in sweep_lengths() {
                let ctx =
                    format!("{kernel:?} Legacy from {before} blocks before the {:?}, {len} bytes", self.0);
                match self.0 {
                    Edge::Carry => across_the_carry(kernel, &start, &ks, len, &ctx),
                    Edge::End => to_the_end(kernel, &start, before, &ks, len, &ctx),
                }
            }
        }
    }
}

/// [`Edge::Carry`]: XOR in place and buffer to buffer, `fill` and `fill_batch` of the whole
/// blocks.
fn across_the_carry<K: Kernel>(kernel: K, start: &State<Legacy>, ks: &[u8], len: usize, ctx: &str) {
    let blocks = len.div_ceil(64) as u128;
    let data = bytes(len as u64, len);
    let want: Vec<u8> = data.iter().zip(ks).map(|(d, k)| d ^ k).collect();
    let mut tail = [0xA5; 64];
    let mut state = start.clone();
    if len.is_multiple_of(2) {
        let mut buf = data.clone();
        state.xor::<R20, _>(kernel, XorBuf::from(&mut buf[..]), &mut tail).unwrap();
        assert_eq!(buf, want, "{ctx}: in place");
    } else {
        let mut out = vec![0x5A; len];
        state.xor::<R20, _>(kernel, XorBuf::new(&data, &mut out).unwrap(), &mut tail).unwrap();
        assert_eq!(out, want, "{ctx}: buffer to buffer");
    }
    if !len.is_multiple_of(64) {
        let last = (len / 64) * 64;
        assert_eq!(tail[..], ks[last..last + 64], "{ctx}: tail");
    }
    assert_eq!(state.position(), start.position() + blocks, "{ctx}: position after");
    let mut out = vec![[0u8; 64]; len / 64];
    start.clone().fill::<R20, _>(kernel, &mut out).unwrap();
    assert_eq!(out.concat(), ks[..len / 64 * 64], "{ctx}: fill");
    out.fill([0; 64]);
    start.clone().fill_batch::<R20, _>(kernel, &mut out).unwrap();
    assert_eq!(out.concat(), ks[..len / 64 * 64], "{ctx}: fill_batch");
}

/// [`Edge::End`]: the XOR that fits gives the reference's bytes, one block more is refused
/// and writes nothing; the RNG's fill ([`State::fill_cyclic`]) crosses the end and goes on
/// from block 0.
fn to_the_end<K: Kernel>(kernel: K, start: &State<Legacy>, before: u64, ks: &[u8], len: usize, ctx: &str) {
    let data = bytes(len as u64, len);
    let mut buf = data.clone();
    let mut tail = [0xA5; 64];
    let mut state = start.clone();
    let result = state.xor::<R20, _>(kernel, XorBuf::from(&mut buf[..]), &mut tail);
    if len.div_ceil(64) as u64 <= before {
        result.unwrap();
        let want: Vec<u8> = data.iter().zip(ks).map(|(d, k)| d ^ k).collect();
        assert_eq!(buf, want, "{ctx}: xor");
        assert_eq!(state.blocks_left(), u128::from(before) - len.div_ceil(64) as u128, "{ctx}");
    } else {
        assert_eq!(result, Err(EndOfStream), "{ctx}: past the end");
        assert_eq!((buf, tail, state.position()), (data, [0xA5; 64], start.position()), "{ctx}");
    }
    let mut out = vec![[0u8; 64]; len / 64];
    let mut state = start.clone();
    state.fill_cyclic::<R20, _>(kernel, &mut out);
    assert_eq!(out.concat(), ks[..len / 64 * 64], "{ctx}: fill_cyclic");
    let moved = (start.position() + (len / 64) as u128) % Legacy::BLOCKS;
    assert_eq!(state.position() % Legacy::BLOCKS, moved, "{ctx}: position after fill_cyclic");
}

#[test]
fn legacy_requests_across_the_carry_every_length_to_1100_bytes() {
    on_every_kernel(|_| LegacySweep(Edge::Carry));
}

#[test]
fn legacy_requests_to_and_across_the_end_every_length_to_1100_bytes() {
    on_every_kernel(|_| LegacySweep(Edge::End));
}
