//! Known answers and the inherent API's edges, on every available backend.
//!
//! Sources: draft-nir-cfrg-chacha20-poly1305-04 §A.1 (test vectors 1–4, the ChaCha20 block
//! function with a zero nonce: the same words as RFC 8439 §A.1 for these counters) and the
//! pyca/cryptography `vectors/cryptography_vectors/ciphers/ChaCha20/counter-overflow.txt`
//! vectors 8 and 9, as the published `chacha20` crate's RNG tests use them; the golden
//! serialized state is that crate's, the JSON is `rand_chacha` 0.10's format-stability
//! string.

use chacha_rng::rand_core::{CryptoRng, Rng, SeedableRng};
use chacha_rng::{Backend, ChaCha8Rng, ChaCha12Rng, ChaCha20Rng, ChaChaRng, R20};

fn unhex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(u8::is_ascii_hexdigit).collect();
    digits.chunks(2).map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap()).collect()
}

fn seed(hex: &str) -> [u8; 32] {
    unhex(hex).try_into().unwrap()
}

fn every_backend(seed: [u8; 32]) -> impl Iterator<Item = ChaChaRng<R20>> {
    Backend::available().map(move |b| ChaChaRng::<R20>::with_backend(seed, b))
}

fn words(rng: &mut impl Rng, n: usize) -> Vec<u32> {
    (0..n).map(|_| rng.next_u32()).collect()
}

#[test]
fn draft_nir_vectors_1_and_2_zero_key_blocks_0_and_1() {
    let expected = [
        0xade0b876, 0x903df1a0, 0xe56a5d40, 0x28bd8653, 0xb819d2bd, 0x1aed8da0, 0xccef36a8, 0xc70d778b,
        0x7c5941da, 0x8d485751, 0x3fe02477, 0x374ad8b8, 0xf4b8436a, 0x1ca11815, 0x69b687c3, 0x8665eeb2,
        0xbee7079f, 0x7a385155, 0x7c97ba98, 0x0d082d73, 0xa0290fcb, 0x6965e348, 0x3e53c612, 0xed7aee32,
        0x7621b729, 0x434ee69c, 0xb03371d5, 0xd539d874, 0x281fed31, 0x45fb0a51, 0x1f0ae1ac, 0x6f4d794b,
    ];
    for mut rng in every_backend([0; 32]) {
        assert_eq!(words(&mut rng, 32), expected, "{rng:?}");
    }
}

#[test]
fn draft_nir_vector_3_key_ends_in_1_block_1() {
    let expected = [
        0x2452eb3a, 0x9249f8ec, 0x8d829d9b, 0xddd4ceb1, 0xe8252083, 0x60818b01, 0xf38422b8, 0x5aaa49c9,
        0xbb00ca8e, 0xda3ba7b4, 0xc4b592d1, 0xfdf2732f, 0x4436274e, 0x2561b3c8, 0xebdd4aa6, 0xa0136c00,
    ];
    for mut rng in every_backend(seed("0000000000000000000000000000000000000000000000000000000000000001")) {
        words(&mut rng, 16);
        assert_eq!(words(&mut rng, 16), expected, "{rng:?}");
    }
}

#[test]
fn draft_nir_vector_4_block_2_by_every_way_of_getting_there() {
    let key = seed("00ff000000000000000000000000000000000000000000000000000000000000");
    let expected = [
        0xfb4dd572, 0x4bc42ef1, 0xdf922636, 0x327f1394, 0xa78dea8f, 0x5e269039, 0xa1bebbc1, 0xcaf09aae,
        0xa25ab213, 0x48a6b46c, 0x1b9d9bcb, 0x092c5be6, 0x546ca624, 0x1bec45d5, 0x87f47473, 0x96f0992e,
    ];
    let bytes: Vec<u8> = expected.iter().flat_map(|w: &u32| w.to_le_bytes()).collect();
    for backend in Backend::available() {
        let make = || ChaChaRng::<R20>::with_backend(key, backend);
        let mut skip = make();
        words(&mut skip, 32);
        assert_eq!(words(&mut skip, 16), expected);
        let mut by_word = make();
        by_word.set_word_pos(32);
        assert_eq!(words(&mut by_word, 16), expected);
        assert_eq!(by_word.get_word_pos(), 48);
        let mut by_block = make();
        by_block.set_block_pos(2);
        let mut got = [0u8; 64];
        by_block.fill_bytes(&mut got);
        assert_eq!(got[..], bytes[..]);
        assert_eq!((by_block.get_word_pos(), by_block.get_block_pos()), (48, 3));
        // Mid-block: set_word_pos(37) then the rest of block 2 as u64s.
        let mut mid = make();
        mid.set_word_pos(37);
        let pairs: Vec<u64> = (0..5).map(|_| mid.next_u64()).collect();
        let want: Vec<u64> =
            expected[5..15].chunks(2).map(|p| u64::from(p[1]) << 32 | u64::from(p[0])).collect();
        assert_eq!(pairs, want);
        assert_eq!(mid.get_word_pos(), 47);
        // Position accounting across types: a fill of n bytes takes ⌈n/4⌉ words.
        let mut buf = [0u8; 32];
        mid.fill_bytes(&mut buf[..25]);
        assert_eq!(mid.get_word_pos(), 54);
        mid.fill_bytes(&mut buf[..1]);
        mid.next_u64();
        assert_eq!(mid.get_word_pos(), 57);
    }
}

#[test]
fn rfc8439_2_3_2_through_stream_and_block_pos() {
    // RFC 8439 §2.3.2: counter 1, nonce 00:00:00:09:00:00:00:4a:00:00:00:00. In the 64-bit
    // layout that is block counter 0x0900_0000_0000_0001 (words 12, 13) with stream
    // 0x4a00_0000 (words 14, 15).
    let key: [u8; 32] = core::array::from_fn(|i| i as u8);
    let expected = [
        0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3, 0xc7f4d1c7, 0x0368c033, 0x9aaa2204, 0x4e6cd4c3,
        0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9, 0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2,
    ];
    for mut rng in every_backend(key) {
        rng.set_stream(0x4a00_0000);
        rng.set_block_pos(0x0900_0000_0000_0001);
        assert_eq!(words(&mut rng, 16), expected, "{rng:?}");
        assert_eq!(rng.get_stream(), 0x4a00_0000);
    }
}

#[test]
fn pyca_counter_overflow_vector_9_wraps_after_block_2_pow_64_minus_1() {
    let expected = unhex(
        "d7918cd8620cf832532652c04c01a553092cfb32e7b3f2f5467ae9674a2e9eec17368e
         c8027a357c0c51e6ea747121fec45284be0f099d2b3328845607b1768976b8e0ada0f1
         3d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7da41597c5157488d77
         24e03fb8d84a376a43b8f41518a11cc387b669b2ee65869f07e7be5551387a98ba977c
         732d080dcb0f29a048e3656912c6533e32ee7aed29b721769ce64e43d57133b074d839
         d531ed1f28510afb45ace10a1f4b794d6f",
    );
    for mut rng in every_backend([0; 32]) {
        rng.set_block_pos(u64::MAX);
        let mut out = [0u8; 192];
        rng.fill_bytes(&mut out);
        assert_eq!(out[..], expected[..], "{rng:?}");
        assert_eq!((rng.get_block_pos(), rng.get_word_pos()), (2, 32), "no panic, positions wrapped");
    }
}

#[test]
fn pyca_counter_overflow_vector_8_carries_past_2_pow_32() {
    let before = unhex(
        "ace4cd09e294d1912d4ad205d06f95d9c2f2bfcf453e8753f128765b62215f4d92c74f
         2f626c6a640c0b1284d839ec81f1696281dafc3e684593937023b58b1d",
    );
    let after = unhex(
        "3db41d3aa0d329285de6f225e6e24bd59c9a17006943d5c9b680e3873bdc683a581946
         9899989690c281cd17c96159af0682b5b903468a61f50228cf09622b5a
         46f0f6efee15c8f1b198cb49d92b990867905159440cc723916dc0012826981039ce17
         66aa2542b05db3bd809ab142489d5dbfe1273e7399637b4b3213768aaa",
    );
    for mut rng in every_backend([0; 32]) {
        rng.set_block_pos(u64::from(u32::MAX));
        let mut out = [0u8; 192];
        rng.fill_bytes(&mut out);
        assert_eq!(out[..64], before[..], "{rng:?}");
        assert_eq!(out[64..], after[..], "{rng:?}");
        assert_eq!(rng.get_block_pos(), (1 << 32) + 2);
    }
}

#[test]
fn word_positions_wrap_at_2_pow_68_without_panicking() {
    for mut rng in every_backend([5; 32]) {
        let first = words(&mut rng.clone(), 40);
        for start in [(1u128 << 68) - 64, (1 << 68) - 16, (1 << 68) - 1] {
            rng.set_word_pos(start);
            assert_eq!(rng.get_word_pos(), start);
            let past_end = ((1 << 68) - start) as usize;
            let got = words(&mut rng, past_end + 40);
            assert_eq!(got[past_end..], first[..], "start {start}");
            assert_eq!(rng.get_word_pos(), 40);
        }
        rng.set_word_pos((1 << 68) + 3); // bits above 68 are dropped
        assert_eq!(rng.get_word_pos(), 3);
    }
}

#[test]
fn serialized_state_golden_bytes_and_round_trips() {
    let key = seed("0102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F20");
    let golden: [u8; 49] = unhex(
        "0102030405060708090A0B0C0D0E0F10 1112131415161718191A1B1C1D1E1F20
         F7F6F5F4F3F2F1F0 640000000000000000",
    )
    .try_into()
    .unwrap();
    let mut a = ChaCha8Rng::from_seed(key);
    a.set_stream(0xF0F1_F2F3_F4F5_F6F7);
    words(&mut a, 100);
    assert_eq!(a.serialize_state(), golden);
    let mut b = ChaCha12Rng::from_seed(key);
    b.set_stream(0xF0F1_F2F3_F4F5_F6F7);
    words(&mut b, 100);
    assert_eq!(b.serialize_state(), golden);
    for skip in [0, 1, 15, 16, 17, 255, 256, 257, 1000] {
        let mut x = ChaCha20Rng::from_seed(key);
        x.set_stream(77);
        words(&mut x, skip);
        let mut y = ChaCha20Rng::deserialize_state(&x.serialize_state());
        assert_eq!(x, y);
        assert_eq!(words(&mut x, 300), words(&mut y, 300), "skip {skip}");
    }
}

#[cfg(feature = "serde")]
#[test]
fn serde_keeps_rand_chachas_format() {
    let j = r#"{"seed":[4,8,15,16,23,42,4,8,15,16,23,42,4,8,15,16,23,42,4,8,15,16,23,42,4,8,15,16,23,42,4,8],"stream":27182818284,"word_pos":314159265359}"#;
    let r: ChaCha20Rng = serde_json::from_str(j).unwrap();
    assert_eq!(serde_json::to_string(&r).unwrap(), j);
    assert_eq!((r.get_stream(), r.get_word_pos()), (27182818284, 314159265359));
    let mut theirs: rand_chacha::ChaCha20Rng = serde_json::from_str(j).unwrap();
    let mut ours = r.clone();
    assert_eq!(words(&mut ours, 50), words(&mut theirs, 50));
}

#[test]
fn set_stream_resets_the_position_and_equality_is_on_the_abstract_state() {
    let mut a = ChaCha20Rng::from_seed([3; 32]);
    let mut b = ChaCha20Rng::from_seed([3; 32]);
    words(&mut a, 17);
    assert_ne!(a, b);
    b.set_word_pos(17);
    assert_eq!(a, b, "different buffers, same position");
    a.set_stream(51);
    assert_eq!((a.get_stream(), a.get_word_pos(), a.get_seed()), (51, 0, [3; 32]));
    assert_ne!(a, b);
    b.set_stream(51);
    assert_eq!(a, b);
    assert_eq!(words(&mut a, 20), words(&mut b, 20));
}

#[test]
fn debug_shows_no_seed_and_trait_objects_work() {
    let rng = ChaCha20Rng::from_seed([0xAB; 32]);
    let text = format!("{rng:?}");
    assert!(
        text.starts_with("ChaChaRng") && !text.contains("171") && !text.to_lowercase().contains("ab,"),
        "{text}"
    );
    let mut plain = ChaCha20Rng::from_seed([1; 32]);
    let mut boxed: Box<dyn CryptoRng> = Box::new(ChaCha20Rng::from_seed([1; 32]));
    for _ in 0..300 {
        assert_eq!(plain.next_u64(), boxed.next_u64());
    }
}
