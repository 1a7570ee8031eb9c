//! Hostile inputs to the generators: positions at and past every edge (the 2^68-word wrap,
//! `u128::MAX`, block `u64::MAX`, a 32-bit core counter at `u32::MAX`), zero-length fills,
//! serialized states and serde input with out-of-range or malformed fields. Nothing panics;
//! positions wrap modulo 2^68 as documented; malformed serde input is a serde error. The
//! wrap itself from several starts, and the pyca vector across block 2^64 - 1, are in
//! `tests/vectors.rs`; the table in the `chacha20` crate docs lists every case.

use chacha_rng::rand_core::block::Generator;
use chacha_rng::rand_core::{Rng, SeedableRng};
use chacha_rng::{Backend, ChaCha20Rng, ChaChaCore, ChaChaRng, GENERATE_BLOCKS, Ietf, Legacy, R12, R20};

const WORDS: u128 = 1 << 68;

fn every_backend(seed: [u8; 32]) -> impl Iterator<Item = ChaChaRng<R20>> {
    Backend::available().map(move |b| ChaChaRng::<R20>::with_backend(seed, b))
}

#[test]
fn word_positions_past_2_pow_68_are_taken_modulo_2_pow_68() {
    for mut rng in every_backend([9; 32]) {
        let fresh = rng.clone();
        let first = rng.clone().next_u32();
        rng.set_word_pos(u128::MAX);
        assert_eq!(rng.get_word_pos(), WORDS - 1);
        assert_eq!(rng.get_block_pos(), u64::MAX);
        // A u64 across the wrap: the last word of the stream, then word 0.
        let pair = rng.next_u64();
        assert_eq!(pair >> 32, u64::from(first), "{rng:?}");
        assert_eq!(rng.get_word_pos(), 1);
        rng.set_word_pos(WORDS);
        assert_eq!(rng, fresh);
        rng.set_word_pos(WORDS + 17);
        assert_eq!(rng.get_word_pos(), 17);
    }
}

#[test]
fn zero_length_fills_never_move_the_position() {
    for mut rng in every_backend([1; 32]) {
        for pos in [0, 1, 15, 16, 255, 256, WORDS - 1] {
            rng.set_word_pos(pos);
            rng.fill_bytes(&mut []);
            assert_eq!(rng.get_word_pos(), pos);
            rng.next_u32();
            rng.fill_bytes(&mut []);
            assert_eq!(rng.get_word_pos(), (pos + 1) % WORDS);
        }
    }
}

#[test]
fn short_fills_across_the_wrap() {
    for rng in every_backend([2; 32]) {
        let mut start = rng.clone();
        let mut head = [0u8; 8];
        start.fill_bytes(&mut head);
        for len in 1..=8usize {
            let mut r = rng.clone();
            r.set_word_pos(WORDS - 1);
            let last = r.clone().next_u32().to_le_bytes();
            let mut buf = vec![0u8; len];
            r.fill_bytes(&mut buf);
            let want: Vec<u8> = last.iter().chain(&head).copied().take(len).collect();
            assert_eq!(buf, want, "{len} bytes from the last word");
            assert_eq!(r.get_word_pos(), (len as u128).div_ceil(4) - 1);
        }
    }
}

#[test]
fn block_positions_at_u64_max_and_the_32_bit_carry() {
    for mut rng in every_backend([3; 32]) {
        rng.set_block_pos(u64::MAX);
        assert_eq!((rng.get_block_pos(), rng.get_word_pos()), (u64::MAX, WORDS - 16));
        rng.set_block_pos(u64::from(u32::MAX));
        assert_eq!(rng.get_word_pos(), u128::from(u32::MAX) * 16);
        let mut buf = [0u8; 128];
        rng.fill_bytes(&mut buf);
        assert_eq!(rng.get_block_pos(), 1 << 32 | 1);
    }
}

#[test]
fn set_stream_at_the_extremes_resets_the_position() {
    for mut rng in every_backend([4; 32]) {
        rng.set_word_pos(WORDS - 3);
        rng.set_stream(u64::MAX);
        assert_eq!((rng.get_stream(), rng.get_word_pos(), rng.get_seed()), (u64::MAX, 0, [4; 32]));
        rng.next_u64();
        rng.set_stream(0);
        assert_eq!(rng.get_word_pos(), 0);
    }
}

#[test]
fn any_serialized_state_deserializes_and_high_position_bits_are_dropped() {
    let all_ones = ChaCha20Rng::deserialize_state(&[0xff; 49]);
    assert_eq!(
        (all_ones.get_seed(), all_ones.get_stream(), all_ones.get_word_pos()),
        ([0xff; 32], u64::MAX, WORDS - 1)
    );
    let mut serialized = [0xff; 49];
    serialized[40..].copy_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f]);
    assert_eq!(all_ones.serialize_state(), serialized, "the 4 bits above 2^68 are not kept");
    for pattern in [0x00u8, 0x01, 0x80, 0xa5] {
        let state: [u8; 49] = core::array::from_fn(|i| pattern.rotate_left(i as u32));
        for backend in Backend::available() {
            let mut rng = ChaChaRng::<R12>::deserialize_state_with_kernel(&state, backend);
            rng.next_u64();
            let mut buf = [0u8; 100];
            rng.fill_bytes(&mut buf);
        }
    }
}

#[cfg(feature = "serde")]
#[test]
fn serde_masks_out_of_range_positions_and_rejects_malformed_input() {
    let seed = "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32]";
    let max = format!(r#"{{"seed":{seed},"stream":18446744073709551615,"word_pos":{}}}"#, u128::MAX);
    let rng: chacha_rng::ChaCha8Rng = serde_json::from_str(&max).expect("any u128 position");
    assert_eq!((rng.get_stream(), rng.get_word_pos()), (u64::MAX, WORDS - 1));
    for bad in [
        r#"{"seed":[1,2,3],"stream":0,"word_pos":0}"#.to_string(),
        format!(r#"{{"seed":{seed},"stream":-1,"word_pos":0}}"#),
        format!(r#"{{"seed":{seed},"stream":0,"word_pos":-1}}"#),
        format!(r#"{{"seed":{seed},"stream":0}}"#),
        "{}".to_string(),
        "[]".to_string(),
        String::new(),
    ] {
        assert!(serde_json::from_str::<ChaCha20Rng>(&bad).is_err(), "{bad}");
    }
}

#[test]
fn cores_wrap_at_the_end_of_their_counter_without_panicking() {
    // The published crate's core once panicked here (a counter getter at the wrap).
    let mut output = [0u32; GENERATE_BLOCKS * 16];
    let mut ietf = ChaChaCore::<R20, Ietf>::from_seed([5; 32]);
    ietf.set_block_pos(u32::MAX);
    ietf.generate(&mut output);
    assert_eq!(ietf.get_block_pos(), GENERATE_BLOCKS as u32 - 1);
    let mut from_zero = ChaChaCore::<R20, Ietf>::from_seed([5; 32]);
    let mut again = [0u32; GENERATE_BLOCKS * 16];
    from_zero.generate(&mut again);
    assert_eq!(output[16..], again[..(GENERATE_BLOCKS - 1) * 16], "block 0 follows block 2^32 - 1");

    let mut legacy = ChaChaCore::<R20, Legacy>::from_seed([5; 32]);
    legacy.set_block_pos(u64::MAX - 1);
    legacy.generate(&mut output);
    assert_eq!(legacy.get_block_pos(), GENERATE_BLOCKS as u64 - 2);
}

#[test]
fn every_seed_and_seed_from_u64_value_works() {
    for value in [0, 1, u64::MAX] {
        let mut rng = ChaCha20Rng::seed_from_u64(value);
        rng.next_u64();
    }
    for byte in [0x00, 0xff] {
        for mut rng in every_backend([byte; 32]) {
            let mut buf = [0u8; 65];
            rng.fill_bytes(&mut buf);
        }
    }
}
