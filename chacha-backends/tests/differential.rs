//! Every backend this CPU runs against `chacha_core::reference`, through `State::xor` /
//! `State::fill` and `Kernel::hchacha`: fused XOR (in-place, buffer-to-buffer, unaligned),
//! raw keystream and HChaCha, over counter edges, every block count up to 70, every byte
//! length up to 300, and random inputs (proptest). The matrix runs twice per backend: on
//! `Backend` (the run-time `match`) and on the backend's own kernel type
//! (`Backend::with_kernel`, static dispatch).

use chacha_backends::{Backend, WithKernel};
use chacha_core::Kernel;
use chacha_core::{
    Block, EndOfStream, Ietf, Legacy, R8, R12, R20, Rounds, State, Variant, inout::InOutBuf, reference,
};
use chacha_testdata::filler as bytes;
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
    let data = bytes(counter ^ len as u64, len + 1);
    let want: Vec<u8> = data[..len].iter().zip(&ks).map(|(d, k)| d ^ k).collect();
    let ctx = format!("{backend:?} R{} {:?} counter {counter} len {len}", R::ROUNDS, V::default());
    let check_tail = |tail: &Block| {
        if len.is_multiple_of(64) {
            assert_eq!(tail, &[0xA5; 64], "{ctx}: tail written for whole blocks");
        } else {
            assert_eq!(tail[..], ks[(blocks - 1) * 64..], "{ctx}: tail");
        }
    };
    let check_state = |state: &State<V>| {
        assert_eq!(state.position(), start.position() + blocks as u128, "{ctx}: position after");
    };

    // In place, at offsets 0 and 1 (unaligned).
    for offset in [0, 1] {
        let mut state = start.clone();
        let mut buf = data.clone();
        let region = &mut buf[offset..offset + len];
        region.copy_from_slice(&data[..len]);
        let mut tail = [0xA5; 64];
        state.xor::<R, _>(backend, InOutBuf::from(&mut *region), &mut tail).unwrap();
        assert_eq!(region, &want[..], "{ctx}: in place, offset {offset}");
        check_tail(&tail);
        check_state(&state);
    }

    // Buffer to buffer, the output unaligned.
    let mut state = start.clone();
    let input = data[..len].to_vec();
    let mut out = vec![0x5A; len + 1];
    let mut tail = [0xA5; 64];
    let io = InOutBuf::new(&input, &mut out[1..]).unwrap();
    state.xor::<R, _>(backend, io, &mut tail).unwrap();
    assert_eq!(out[1..], want[..], "{ctx}: buffer to buffer");
    assert_eq!(out[0], 0x5A, "{ctx}: wrote before the output");
    check_tail(&tail);
    check_state(&state);

    // Raw keystream, whole blocks only.
    let mut state = start.clone();
    let mut blocks_out = vec![[0u8; 64]; len / 64];
    state.fill::<R, _>(backend, &mut blocks_out).unwrap();
    assert_eq!(blocks_out.concat(), ks[..len / 64 * 64], "{ctx}: fill");
    assert_eq!(state.position(), start.position() + (len / 64) as u128, "{ctx}: position after fill");
}

fn for_all_rounds<V: Variant, K: Kernel>(backend: K, key: &[u8; 32], nonce: &[u8], counter: u64, len: usize) {
    check::<R8, V, K>(backend, key, nonce, counter, len);
    check::<R12, V, K>(backend, key, nonce, counter, len);
    check::<R20, V, K>(backend, key, nonce, counter, len);
}

/// Runs `body` on every available backend, first as `Backend`, then as its own kernel type.
fn on_every_kernel<F: WithKernel<Output = ()> + Copy>(body: F) {
    for backend in Backend::available() {
        body.call(backend);
        backend.with_kernel(body);
    }
}

const KEY: [u8; 32] = [
    0x8f, 0x11, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0, 0x0f,
    0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xff,
];
const NONCE: [u8; 12] = [0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44];

#[derive(Clone, Copy)]
struct BlockCounts;

impl WithKernel for BlockCounts {
    type Output = ();
    fn call<K: Kernel>(self, backend: K) {
        for blocks in 0..=70u64 {
            let len = blocks as usize * 64;
            // Ietf: the start, and a run that ends exactly on the last block (2^32 - 1).
            for counter in [0, 1, (1 << 32) - blocks.max(1)] {
                for_all_rounds::<Ietf, _>(backend, &KEY, &NONCE, counter, len);
            }
            // Legacy: the start, across the 2^32 carry into word 13, and the last block (2^64 - 1).
            for counter in [0, 1, (1 << 32) - 1, (1 << 32) - blocks / 2 - 1, u64::MAX - blocks.max(1) + 1] {
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
        for len in 0..=300 {
            for_all_rounds::<Ietf, _>(backend, &KEY, &NONCE, 7, len);
            for_all_rounds::<Legacy, _>(backend, &KEY, &NONCE, (1 << 32) - 2, len);
        }
    }
}

#[test]
fn every_length_to_300_bytes() {
    on_every_kernel(EveryLength);
}

/// A few long requests, so a wide kernel's loop runs many times and meets every tail.
#[derive(Clone, Copy)]
struct LongRequests;

impl WithKernel for LongRequests {
    type Output = ();
    fn call<K: Kernel>(self, backend: K) {
        for len in [4095, 4096, 4097, 16 * 1024 + 1000, 65 * 1024 + 17] {
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
        let r = state.xor::<R20, _>(backend, InOutBuf::from(&mut buf[..]), &mut tail);
        assert_eq!(r, Err(EndOfStream), "{}", backend.name());
        assert_eq!((buf, tail, state.blocks_left()), ([0x11; 65], [0x22; 64], 1));
        let mut blocks = [[0x33u8; 64]; 2];
        assert_eq!(state.fill::<R20, _>(backend, &mut blocks), Err(EndOfStream));
        assert_eq!(blocks, [[0x33; 64]; 2]);

        // The last block itself is fine, then nothing more (not even a partial block).
        state.xor::<R20, _>(backend, InOutBuf::from(&mut buf[..64]), &mut tail).unwrap();
        assert_eq!(state.blocks_left(), 0);
        let r = state.xor::<R20, _>(backend, InOutBuf::from(&mut buf[..1]), &mut tail);
        assert_eq!(r, Err(EndOfStream));
        state.xor::<R20, _>(backend, InOutBuf::from(&mut buf[..0]), &mut tail).unwrap();

        let mut state = state_at::<Legacy>(&KEY, &NONCE, u64::MAX);
        assert_eq!(state.fill::<R20, _>(backend, &mut blocks), Err(EndOfStream));
        state.fill::<R20, _>(backend, &mut blocks[..1]).unwrap();
        assert_eq!(state.blocks_left(), 0);
    }
}

#[test]
fn hchacha_matches_reference() {
    for backend in Backend::available() {
        for seed in 0..50u64 {
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
        len in 0usize..2000,
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
