//! Known-answer tests of the public cipher API (`with_backend`, [`KeyIvInit::new`],
//! [`StreamCipher`], [`StreamCipherSeek`]) against the vectors of `testdata/vectors.txt`
//! (read through `chacha-testdata`; each vector's `source` names the document):
//!
//! - RFC 8439 §2.4.2 (the "Sunscreen" encryption) and Appendix A.2 encryption vectors
//!   #1–#3, with [`ChaCha20`];
//! - draft-irtf-cfrg-xchacha-03 §2.2.1 (HChaCha20) and Appendix A.3.2 (XChaCha20, block
//!   counters 0 and 1), with [`hchacha`] and [`XChaCha20`];
//! - draft-strombergson-chacha-test-vectors TC1–TC4 with 256-bit keys, 8, 12 and 20
//!   rounds, with the original-layout types ([`ChaCha8Legacy`], [`ChaCha12Legacy`],
//!   [`ChaCha20Legacy`]) and the RFC 8439 types ([`ChaCha8`], [`ChaCha12`], [`ChaCha20`]);
//! - a [`ChaCha20Legacy`] vector across the 32-bit block counter carry, generated with
//!   OpenSSL 3.
//!
//! Every test runs on every backend of [`Backend::available`] through `with_backend`, and
//! every test compares whole outputs.

use chacha_testdata::get;
use chacha20::Kernel;
use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use chacha20::{
    Backend, ChaCha8, ChaCha8Legacy, ChaCha12, ChaCha12Legacy, ChaCha20, ChaCha20Legacy, R20, XChaCha20,
    hchacha,
};

/// Every backend this CPU runs; there is always at least one.
fn backends() -> Vec<Backend> {
    let backends: Vec<Backend> = Backend::available().collect();
    assert!(!backends.is_empty(), "no backend available");
    backends
}

/// Piece sizes the tests feed data in: all at once (through `apply_keystream_b2b`), then
/// through `apply_keystream` one byte at a time, in pieces that straddle blocks, and in
/// whole blocks.
const PIECES: [usize; 4] = [usize::MAX, 1, 17, 64];

/// How [`xor_in_pieces`] fed the data, for assertion messages.
fn fed(piece: usize) -> String {
    if piece == usize::MAX {
        "in one apply_keystream_b2b call".into()
    } else {
        format!("in pieces of {piece}")
    }
}

/// XORs `input` with `cipher`'s keystream from its current position, in pieces of `piece`
/// bytes (`usize::MAX`: one `apply_keystream_b2b` call).
fn xor_in_pieces<C: StreamCipher>(cipher: &mut C, input: &[u8], piece: usize) -> Vec<u8> {
    if piece == usize::MAX {
        let mut output = vec![0u8; input.len()];
        cipher.apply_keystream_b2b(input, &mut output);
        return output;
    }
    let mut output = input.to_vec();
    for chunk in output.chunks_mut(piece) {
        cipher.apply_keystream(chunk);
    }
    output
}

/// Checks an RFC 8439 encryption vector with [`ChaCha20`] on every backend and in every
/// piece size: seeks to `counter * 64`, encrypts the plaintext to the ciphertext, checks the
/// position after it, then seeks back and decrypts.
fn check_chacha20_encryption(name: &str) {
    let v = get(name);
    assert_eq!(v.number("rounds"), 20, "{}: these types have 20 rounds", v.name);
    let (key, nonce) = (v.array::<32>("key"), v.array::<12>("nonce"));
    let (plaintext, ciphertext) = (v.bytes("plaintext"), v.bytes("ciphertext"));
    assert_eq!(plaintext.len(), ciphertext.len(), "{name}: transcription: lengths differ");
    let start = v.number("counter") * 64;
    for backend in backends() {
        for piece in PIECES {
            let mut cipher = ChaCha20::with_backend(&key, &nonce, backend);
            cipher.seek(start);
            let encrypted = xor_in_pieces(&mut cipher, &plaintext, piece);
            assert_eq!(encrypted, ciphertext, "{name} encrypt: backend {}, {}", backend.name(), fed(piece));
            assert_eq!(cipher.current_pos::<u64>(), start + plaintext.len() as u64);

            cipher.seek(start);
            let decrypted = xor_in_pieces(&mut cipher, &ciphertext, piece);
            assert_eq!(decrypted, plaintext, "{name} decrypt: backend {}, {}", backend.name(), fed(piece));
        }
    }
}

/// RFC 8439 §2.4.2 (the "Sunscreen" plaintext): the keystream and the ciphertext the RFC
/// prints, on every backend through `with_backend` and once through [`KeyIvInit::new`]
/// (construct, then seek to the vector's block).
#[test]
fn rfc8439_2_4_2_sunscreen() {
    let v = get("rfc8439-2.4.2");
    assert_eq!(v.number("rounds"), 20, "{}: these types have 20 rounds", v.name);
    let (key, nonce, start) = (v.array::<32>("key"), v.array::<12>("nonce"), v.number("counter") * 64);
    let (plaintext, keystream) = (v.bytes("plaintext"), v.bytes("keystream"));
    assert_eq!(keystream.len(), plaintext.len(), "transcription: lengths differ");

    check_chacha20_encryption("rfc8439-2.4.2");

    for backend in backends() {
        let mut cipher = ChaCha20::with_backend(&key, &nonce, backend);
        cipher.seek(start);
        let mut written = vec![0u8; keystream.len()];
        cipher.write_keystream(&mut written);
        assert_eq!(written, keystream, "keystream: backend {}", backend.name());
    }

    let mut cipher = ChaCha20::new(&key.into(), &nonce.into());
    cipher.seek(start);
    let mut buffer = plaintext;
    cipher.apply_keystream(&mut buffer);
    assert_eq!(buffer, v.bytes("ciphertext"), "through KeyIvInit::new");
}

/// RFC 8439 Appendix A.2 "ChaCha20 Encryption", Test Vectors #1–#3.
#[test]
fn rfc8439_a_2_encryption_vectors_1_to_3() {
    for n in 1..=3 {
        check_chacha20_encryption(&format!("rfc8439-a.2-{n}"));
    }
}

/// draft-irtf-cfrg-xchacha-03 §2.2.1 (HChaCha20): [`hchacha`] and every backend's
/// `hchacha`.
#[test]
fn xchacha_draft_03_2_2_1_hchacha20() {
    let v = get("xchacha-03-2.2.1");
    assert_eq!(v.number("rounds"), 20, "{}: these types have 20 rounds", v.name);
    let (key, input, subkey) = (v.array::<32>("key"), v.array::<16>("input"), v.array::<32>("subkey"));
    for backend in backends() {
        assert_eq!(backend.hchacha::<R20>(&key, &input), subkey, "backend {}", backend.name());
    }
    assert_eq!(hchacha::<R20>(&key.into(), &input.into()).as_slice(), subkey.as_slice());
}

/// draft-irtf-cfrg-xchacha-03 Appendix A.3.2.1 and A.3.2.2 (XChaCha20 at block counters
/// 0 and 1) on every backend: at byte `counter * 64`, the keystream, and the plaintext
/// encrypted to the ciphertext in every piece size.
#[test]
fn xchacha_draft_03_a_3_2_counters_0_and_1() {
    let v = get("xchacha-03-a.3.2");
    assert_eq!(v.number("rounds"), 20, "{}: these types have 20 rounds", v.name);
    let (key, iv, plaintext) = (v.array::<32>("key"), v.array::<24>("nonce"), v.bytes("plaintext"));
    for counter in [0u64, 1] {
        let (keystream, ciphertext) =
            (v.bytes(&format!("keystream-{counter}")), v.bytes(&format!("ciphertext-{counter}")));
        assert_eq!(plaintext.len(), keystream.len(), "transcription: lengths differ");
        assert_eq!(plaintext.len(), ciphertext.len(), "transcription: lengths differ");
        let start = counter * 64;
        for backend in backends() {
            let mut cipher = XChaCha20::with_backend(&key, &iv, backend);
            cipher.seek(start);
            let mut written = vec![0u8; keystream.len()];
            cipher.write_keystream(&mut written);
            assert_eq!(written, keystream, "counter {counter} keystream: backend {}", backend.name());
            for piece in PIECES {
                let mut cipher = XChaCha20::with_backend(&key, &iv, backend);
                cipher.seek(start);
                let encrypted = xor_in_pieces(&mut cipher, &plaintext, piece);
                assert_eq!(
                    encrypted,
                    ciphertext,
                    "counter {counter}: backend {}, {}",
                    backend.name(),
                    fed(piece)
                );
                assert_eq!(cipher.current_pos::<u64>(), start + plaintext.len() as u64);
            }
        }
    }
}

/// Checks one draft-strombergson-chacha-test-vectors case (the first 128 bytes of keystream,
/// keystream blocks 1 and 2 of the draft) on every backend, through `write_keystream` and
/// by XORing zeros in every piece size:
///
/// - with an original-layout type (`new_legacy`: [`ChaCha8Legacy`], [`ChaCha12Legacy`] or
///   [`ChaCha20Legacy`]) and the draft's 8-byte IV as the nonce;
/// - with the RFC 8439 type of the same round count (`new_ietf`: [`ChaCha8`], [`ChaCha12`]
///   or [`ChaCha20`]) and the 12-byte nonce `00 00 00 00 ++ IV`: for block counters below
///   2^32 the original layout's 64-bit counter has a zero high word, so its state words
///   12–15 (counter low, counter high, IV) are the RFC 8439 state's (counter, nonce), and
///   the streams are the same bytes.
fn check_strombergson<L: StreamCipher, I: StreamCipher>(
    new_legacy: fn(&[u8; 32], &[u8; 8], Backend) -> L,
    new_ietf: fn(&[u8; 32], &[u8; 12], Backend) -> I,
    rounds: u64,
) {
    for tc in 1..=4 {
        let v = get(&format!("strombergson-tc{tc}-256-r{rounds}"));
        assert_eq!(v.number("rounds"), rounds);
        assert_eq!(v.number("counter"), 0);
        let (key, iv) = (v.array::<32>("key"), v.array::<8>("nonce"));
        let expected: [u8; 128] = v.array("keystream");
        let mut ietf_nonce = [0u8; 12];
        ietf_nonce[4..].copy_from_slice(&iv);
        for backend in backends() {
            let ctx = format!("{}: backend {}", v.name, backend.name());
            let mut written = [0u8; 128];
            new_legacy(&key, &iv, backend).write_keystream(&mut written);
            assert_eq!(written, expected, "{ctx}, legacy layout, write_keystream");
            for piece in PIECES {
                let xored = xor_in_pieces(&mut new_legacy(&key, &iv, backend), &[0; 128], piece);
                assert_eq!(xored, expected, "{ctx}, legacy layout, {}", fed(piece));
            }

            let mut written = [0u8; 128];
            new_ietf(&key, &ietf_nonce, backend).write_keystream(&mut written);
            assert_eq!(written, expected, "{ctx}, RFC 8439 layout, write_keystream");
            for piece in PIECES {
                let xored = xor_in_pieces(&mut new_ietf(&key, &ietf_nonce, backend), &[0; 128], piece);
                assert_eq!(xored, expected, "{ctx}, RFC 8439 layout, {}", fed(piece));
            }
        }
    }
}

/// draft-strombergson-chacha-test-vectors-00 §3, TC1–TC4 with 256-bit keys, 8 rounds.
#[test]
fn strombergson_tc1_to_tc4_256_chacha8() {
    check_strombergson(ChaCha8Legacy::with_backend, ChaCha8::with_backend, 8);
}

/// draft-strombergson-chacha-test-vectors-00 §3, TC1–TC4 with 256-bit keys, 12 rounds.
#[test]
fn strombergson_tc1_to_tc4_256_chacha12() {
    check_strombergson(ChaCha12Legacy::with_backend, ChaCha12::with_backend, 12);
}

/// draft-strombergson-chacha-test-vectors-00 §3, TC1–TC4 with 256-bit keys, 20 rounds
/// (TC1's block 1 is also RFC 8439 A.1 #1).
#[test]
fn strombergson_tc1_to_tc4_256_chacha20() {
    check_strombergson(ChaCha20Legacy::with_backend, ChaCha20::with_backend, 20);
}

/// [`ChaCha20Legacy`] across the carry of the 64-bit block counter's low word (vector
/// `openssl-legacy-counter-carry`: 128 bytes from block 2^32 - 1, generated with OpenSSL).
/// The first block is also RFC 8439 [`ChaCha20`]'s last block (counter ffffffff) for
/// nonce `00 00 00 00 ++ nonce`, after which that stream ends.
#[test]
fn chacha20_legacy_32_bit_counter_carry() {
    let v = get("openssl-legacy-counter-carry");
    assert_eq!(v.number("rounds"), 20, "{}: these types have 20 rounds", v.name);
    let (key, nonce) = (v.array::<32>("key"), v.array::<8>("nonce"));
    let expected: [u8; 128] = v.array("keystream");
    let start: u64 = v.number("counter") * 64;
    assert_eq!(start, ((1 << 32) - 1) * 64);
    let mut ietf_nonce = [0u8; 12];
    ietf_nonce[4..].copy_from_slice(&nonce);

    for backend in backends() {
        let name = backend.name();
        let mut cipher = ChaCha20Legacy::with_backend(&key, &nonce, backend);
        cipher.seek(start);
        let mut written = [0u8; 128];
        cipher.write_keystream(&mut written);
        assert_eq!(written, expected, "write_keystream: backend {name}");
        assert_eq!(cipher.current_pos::<u64>(), start + 128);

        for piece in PIECES {
            let mut cipher = ChaCha20Legacy::with_backend(&key, &nonce, backend);
            cipher.seek(start);
            let xored = xor_in_pieces(&mut cipher, &[0; 128], piece);
            assert_eq!(xored, expected, "backend {name}, {}", fed(piece));
        }

        // Starting inside block 2^32 - 1.
        let mut cipher = ChaCha20Legacy::with_backend(&key, &nonce, backend);
        cipher.seek(start + 13);
        let mut written = [0u8; 115];
        cipher.write_keystream(&mut written);
        assert_eq!(written[..], expected[13..], "seek into the block: backend {name}");

        // RFC 8439 layout: the same block is the last one of the stream.
        let mut cipher = ChaCha20::with_backend(&key, &ietf_nonce, backend);
        cipher.seek(start);
        let mut last = [0u8; 64];
        cipher.write_keystream(&mut last);
        assert_eq!(last[..], expected[..64], "ChaCha20 last block: backend {name}");
        assert!(cipher.try_apply_keystream(&mut [0u8; 1]).is_err(), "ChaCha20 past its end: backend {name}");
    }
}
