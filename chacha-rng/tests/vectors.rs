//! Known answers and the inherent API's edges, on every available backend.
//!
//! The vectors come from `testdata/vectors.txt` (through `chacha-testdata`; each names its
//! source): RFC 8439 §2.3.2 and §A.1 #1–#4 (the ChaCha20 block function; §A.1 #1–#4 are
//! also draft-nir-cfrg-chacha20-poly1305-04 §A.1 test vectors 1–4, which the published
//! `chacha20` crate's RNG tests use), the pyca/cryptography counter-overflow vectors 8 and
//! 9, and the published crate's golden serialized state. The JSON is `rand_chacha` 0.10's
//! format-stability string.

use chacha_rng::rand_core::{CryptoRng, Rng, SeedableRng};
use chacha_rng::{Backend, ChaCha8Rng, ChaCha12Rng, ChaCha20Rng, ChaChaRng, R20};
use chacha_testdata::{Vector, get};

fn every_backend(seed: [u8; 32]) -> impl Iterator<Item = ChaChaRng<R20>> {
    Backend::available().map(move |b| ChaChaRng::<R20>::with_backend(seed, b))
}

fn words(rng: &mut impl Rng, n: usize) -> Vec<u32> {
    (0..n).map(|_| rng.next_u32()).collect()
}

/// An RFC 8439 vector with a zero nonce is block `counter` of the RNG's stream 0 (the
/// RNG's layout has the 64-bit counter in words 12–13, the stream in 14–15).
fn zero_nonce_block(name: &str) -> (&'static Vector, [u32; 16]) {
    let v = get(name);
    assert_eq!(v.number("rounds"), 20, "{name}: ChaChaRng<R20>");
    assert_eq!(v.array::<12>("nonce"), [0; 12], "{name}: the RNG's stream 0 needs a zero nonce");
    (v, v.words("end-state"))
}

#[test]
fn rfc8439_a_1_vectors_1_and_2_zero_key_blocks_0_and_1() {
    let (v1, first) = zero_nonce_block("rfc8439-a.1-1");
    let (v2, second) = zero_nonce_block("rfc8439-a.1-2");
    assert_eq!((v1.number("counter"), v2.number("counter")), (0, 1));
    assert_eq!(v1.array::<32>("key"), v2.array::<32>("key"));
    let expected = [first, second].concat();
    for mut rng in every_backend(v1.array("key")) {
        assert_eq!(words(&mut rng, 32), expected, "{rng:?}");
    }
}

#[test]
fn rfc8439_a_1_vector_3_key_ends_in_1_block_1() {
    let (v, expected) = zero_nonce_block("rfc8439-a.1-3");
    let skip = 16 * v.number("counter") as usize;
    for mut rng in every_backend(v.array("key")) {
        words(&mut rng, skip);
        assert_eq!(words(&mut rng, 16), expected, "{rng:?}");
    }
}

#[test]
fn rfc8439_a_1_vector_4_block_2_by_every_way_of_getting_there() {
    let (v, expected) = zero_nonce_block("rfc8439-a.1-4");
    let key = v.array("key");
    let block = v.number("counter");
    assert_eq!(block, 2);
    let bytes = v.bytes("keystream");
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
        by_block.set_block_pos(block);
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
    // In the RNG's 64-bit layout the RFC's state words 12, 13 (counter, first nonce word)
    // are the block counter and words 14, 15 (the other nonce words) the stream.
    let v = get("rfc8439-2.3.2");
    assert_eq!(v.number("rounds"), 20);
    let nonce: [u8; 12] = v.array("nonce");
    let counter = v.number("counter") | u64::from(u32::from_le_bytes(nonce[..4].try_into().unwrap())) << 32;
    let stream = u64::from_le_bytes(nonce[4..].try_into().unwrap());
    assert_eq!((counter, stream), (0x0900_0000_0000_0001, 0x4a00_0000));
    for mut rng in every_backend(v.array("key")) {
        rng.set_stream(stream);
        rng.set_block_pos(counter);
        assert_eq!(words(&mut rng, 16), v.words("end-state"), "{rng:?}");
        assert_eq!(rng.get_stream(), stream);
    }
}

/// The RNG reads a pyca counter-overflow vector: the zero 64-bit nonce is stream 0.
fn pyca(name: &str) -> (&'static Vector, [u8; 192]) {
    let v = get(name);
    assert_eq!(v.number("rounds"), 20, "{name}: ChaChaRng<R20>");
    assert_eq!(v.array::<8>("nonce"), [0; 8], "{name}: stream 0");
    (v, v.array("keystream"))
}

#[test]
fn pyca_counter_overflow_vector_9_wraps_after_block_2_pow_64_minus_1() {
    let (v, expected) = pyca("pyca-counter-overflow-9");
    assert_eq!(v.number("counter"), u64::MAX);
    for mut rng in every_backend(v.array("key")) {
        rng.set_block_pos(v.number("counter"));
        let mut out = [0u8; 192];
        rng.fill_bytes(&mut out);
        assert_eq!(out, expected, "{rng:?}");
        assert_eq!((rng.get_block_pos(), rng.get_word_pos()), (2, 32), "no panic, positions wrapped");
    }
}

#[test]
fn pyca_counter_overflow_vector_8_carries_past_2_pow_32() {
    let (v, expected) = pyca("pyca-counter-overflow-8");
    assert_eq!(v.number("counter"), u64::from(u32::MAX));
    for mut rng in every_backend(v.array("key")) {
        rng.set_block_pos(v.number("counter"));
        let mut out = [0u8; 192];
        rng.fill_bytes(&mut out);
        assert_eq!(out, expected, "{rng:?}");
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
    let v = get("published-rng-serialized-state");
    let (key, stream, drawn) = (v.array("key"), v.number("stream"), v.number("word-pos") as usize);
    let golden: [u8; 49] = v.array("serialized");
    let mut a = ChaCha8Rng::from_seed(key);
    a.set_stream(stream);
    words(&mut a, drawn);
    assert_eq!(a.serialize_state(), golden);
    let mut b = ChaCha12Rng::from_seed(key);
    b.set_stream(stream);
    words(&mut b, drawn);
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
    // The block generator under it says what it runs, and no more.
    let core = chacha_rng::ChaChaCore::<chacha_rng::R12, chacha_rng::Legacy>::from_seed([0xAB; 32]);
    let text = format!("{core:?}");
    assert!(text.starts_with("ChaChaCore") && text.contains("rounds: 12") && !text.contains("171"), "{text}");
    let mut plain = ChaCha20Rng::from_seed([1; 32]);
    let mut boxed: Box<dyn CryptoRng> = Box::new(ChaCha20Rng::from_seed([1; 32]));
    for _ in 0..300 {
        assert_eq!(plain.next_u64(), boxed.next_u64());
    }
}
