//! Known-answer tests of [`chacha_core::reference`] against the published test vectors of
//! `testdata/vectors.txt` (read through `chacha-testdata`; each vector's `source` field
//! names the document): RFC 8439 §2.3.2 (block function), §2.4.2 (encryption), §2.6.2
//! (Poly1305 key generation), Appendix A.1 (block function, vectors #1–#5) and Appendix
//! A.2 (encryption, vectors #1–#3), and draft-irtf-cfrg-xchacha-03 §2.2.1 (HChaCha20).
//!
//! Where a document prints the intermediate states (setup, after the rounds, after the
//! final addition), each is checked; every test compares whole outputs.

use chacha_core::{Ietf, R20, State, reference};
use chacha_testdata::{Vector, get};

/// The 20 rounds (10 double rounds) of RFC 8439 §2.3, without the final addition.
fn twenty_rounds(input: &[u32; 16]) -> [u32; 16] {
    let mut state = *input;
    for _ in 0..10 {
        reference::inner_block(&mut state);
    }
    state
}

/// The vector's state; every vector here is for 20 rounds.
fn state(v: &Vector) -> State<Ietf> {
    assert_eq!(v.number("rounds"), 20, "{}", v.name);
    State::new(&v.array("key"), &v.array("nonce"))
}

/// RFC 8439 §2.4.1 `chacha20_encrypt`: XORs `input` with the reference keystream of
/// blocks `counter, counter + 1, …`.
fn chacha20_xor(state: &State<Ietf>, counter: u64, input: &[u8]) -> Vec<u8> {
    input
        .chunks(64)
        .zip(counter..)
        .flat_map(|(chunk, block_counter)| {
            let keystream = reference::block::<R20, Ietf>(state, block_counter);
            chunk.iter().zip(keystream).map(|(byte, k)| byte ^ k).collect::<Vec<u8>>()
        })
        .collect()
}

/// Checks one RFC 8439 Appendix A.1 block: the final state words and the keystream.
fn check_block(name: &str) {
    let v = get(name);
    let counter = v.number("counter");
    let state = state(v);
    assert_eq!(reference::block_words::<R20>(&state.words_at(counter)), v.words("end-state"), "{name}");
    assert_eq!(reference::block::<R20, Ietf>(&state, counter), v.array::<64>("keystream"), "{name}");
}

/// Checks one RFC 8439 Appendix A.2 encryption: plaintext XOR keystream is the ciphertext.
fn check_encryption(name: &str) {
    let v = get(name);
    let (plaintext, ciphertext) = (v.bytes("plaintext"), v.bytes("ciphertext"));
    assert_eq!(plaintext.len(), ciphertext.len(), "{name}: transcription: lengths differ");
    assert_eq!(chacha20_xor(&state(v), v.number("counter"), &plaintext), ciphertext, "{name}");
}

/// RFC 8439 §2.3.2: the state after key setup, after 20 rounds, at the end of the
/// operation and the serialized block.
#[test]
fn rfc8439_2_3_2_block_function() {
    let v = get("rfc8439-2.3.2");
    let (state, counter, setup) = (state(v), v.number("counter"), v.words("setup"));
    assert_eq!(state.words_at(counter), setup);
    assert_eq!(twenty_rounds(&setup), v.words("after-rounds"));
    assert_eq!(reference::block_words::<R20>(&setup), v.words("end-state"));
    assert_eq!(reference::block::<R20, Ietf>(&state, counter), v.array::<64>("keystream"));
}

/// RFC 8439 §2.4.2 ("Sunscreen"): both block setups, both blocks after the block
/// operation, the 114-byte keystream and the ciphertext.
#[test]
fn rfc8439_2_4_2_sunscreen_encryption() {
    let v = get("rfc8439-2.4.2");
    let (state, counter) = (state(v), v.number("counter"));
    let (plaintext, keystream, ciphertext) =
        (v.bytes("plaintext"), v.bytes("keystream"), v.bytes("ciphertext"));
    assert_eq!((plaintext.len(), keystream.len(), ciphertext.len()), (114, 114, 114));
    for (i, block) in [(0, "1"), (1, "2")] {
        let setup = v.words(&format!("setup-{block}"));
        assert_eq!(state.words_at(counter + i), setup, "block {block}");
        assert_eq!(
            reference::block_words::<R20>(&setup),
            v.words(&format!("end-state-{block}")),
            "block {block}"
        );
    }
    let blocks: Vec<u8> =
        (counter..counter + 2).flat_map(|c| reference::block::<R20, Ietf>(&state, c)).collect();
    assert_eq!(blocks[..114], keystream[..]);
    assert_eq!(chacha20_xor(&state, counter, &plaintext), ciphertext);
}

/// RFC 8439 §2.6.2: the setup state, the state after the block operation and the
/// one-time key (the first 32 bytes of block 0).
#[test]
fn rfc8439_2_6_2_poly1305_key_generation() {
    let v = get("rfc8439-2.6.2");
    let (state, counter, setup) = (state(v), v.number("counter"), v.words("setup"));
    assert_eq!(state.words_at(counter), setup);
    assert_eq!(reference::block_words::<R20>(&setup), v.words("end-state"));
    assert_eq!(reference::block::<R20, Ietf>(&state, counter)[..32], v.array::<32>("one-time-key"));
}

#[test]
fn rfc8439_a_1_block_vectors_1_to_5() {
    for n in 1..=5 {
        check_block(&format!("rfc8439-a.1-{n}"));
    }
}

#[test]
fn rfc8439_a_2_encryption_vectors_1_to_3() {
    for n in 1..=3 {
        check_encryption(&format!("rfc8439-a.2-{n}"));
    }
}

/// draft-irtf-cfrg-xchacha-03 §2.2.1: the state after 20 rounds (from the draft's setup
/// state) and the subkey of `reference::hchacha::<R20>`.
#[test]
fn xchacha_draft_03_2_2_1_hchacha20() {
    let v = get("xchacha-03-2.2.1");
    assert_eq!(v.number("rounds"), 20);
    assert_eq!(twenty_rounds(&v.words("setup")), v.words("after-rounds"));
    assert_eq!(reference::hchacha::<R20>(&v.array("key"), &v.array("input")), v.array::<32>("subkey"));
}
