//! Known-answer tests of [`chacha_core::reference`] against the published test vectors:
//! RFC 8439 §2.3.2 (block function), §2.4.2 (encryption), §2.6.2 (Poly1305 key
//! generation), Appendix A.1 (block function, vectors #1–#5) and Appendix A.2 (encryption,
//! vectors #1–#3), and draft-irtf-cfrg-xchacha-03 §2.2.1 (HChaCha20).
//!
//! Every vector is transcribed from the document as hex, byte for byte in the order the
//! document prints it (state matrices as the 32-bit word values the document shows), and
//! every test compares whole outputs.

use chacha_core::{Ietf, R20, State, reference};

/// Decodes hex, ignoring whitespace and `:` separators.
fn hex(s: &str) -> Vec<u8> {
    fn nibble(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => panic!("not a hex digit: {:?}", c as char),
        }
    }
    let digits: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b':').collect();
    assert!(digits.len().is_multiple_of(2), "odd number of hex digits in {s:?}");
    digits.chunks_exact(2).map(|pair| nibble(pair[0]) << 4 | nibble(pair[1])).collect()
}

/// Decodes hex into a fixed-size array, checking the length.
fn array<const N: usize>(s: &str) -> [u8; N] {
    let bytes = hex(s);
    let len = bytes.len();
    bytes.try_into().unwrap_or_else(|_| panic!("expected {N} bytes, got {len}"))
}

/// Decodes a state matrix written as sixteen 8-digit hex words, as the documents print it.
fn words(s: &str) -> [u32; 16] {
    let bytes: [u8; 64] = array(s);
    core::array::from_fn(|i| u32::from_be_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap()))
}

/// The 20 rounds (10 double rounds) of RFC 8439 §2.3, without the final addition.
fn twenty_rounds(input: &[u32; 16]) -> [u32; 16] {
    let mut state = *input;
    for _ in 0..10 {
        reference::inner_block(&mut state);
    }
    state
}

/// RFC 8439 §2.4.1 `chacha20_encrypt`: XORs `input` with the reference keystream of
/// blocks `counter, counter + 1, …`.
fn chacha20_xor(key: &[u8; 32], nonce: &[u8; 12], counter: u32, input: &[u8]) -> Vec<u8> {
    let state = State::<Ietf>::new(key, nonce);
    input
        .chunks(64)
        .zip(u64::from(counter)..)
        .flat_map(|(chunk, block_counter)| {
            let keystream = reference::block::<R20, Ietf>(&state, block_counter);
            chunk.iter().zip(keystream).map(|(byte, k)| byte ^ k).collect::<Vec<u8>>()
        })
        .collect()
}

/// Checks one RFC 8439 Appendix A.1 block: the final state words and the keystream.
fn check_block(key: &str, nonce: &str, counter: u64, end_state: &str, keystream: &str) {
    let state = State::<Ietf>::new(&array(key), &array(nonce));
    assert_eq!(reference::block_words::<R20>(&state.words_at(counter)), words(end_state));
    assert_eq!(reference::block::<R20, Ietf>(&state, counter), array::<64>(keystream));
}

/// Checks one RFC 8439 Appendix A.2 encryption: plaintext XOR keystream is the ciphertext.
fn check_encryption(key: &str, nonce: &str, counter: u32, plaintext: &str, ciphertext: &str) {
    let (plaintext, ciphertext) = (hex(plaintext), hex(ciphertext));
    assert_eq!(plaintext.len(), ciphertext.len(), "transcription: lengths differ");
    assert_eq!(chacha20_xor(&array(key), &array(nonce), counter, &plaintext), ciphertext);
}

/// RFC 8439 §2.3.2 "Test Vector for the ChaCha20 Block Function": key 00..1f, nonce
/// 00:00:00:09:00:00:00:4a:00:00:00:00, block count 1. Checks the state after key setup,
/// the state after 20 rounds, the state at the end of the operation and the serialized
/// block.
#[test]
fn rfc8439_2_3_2_block_function() {
    let key = array(
        "00:01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e:0f:10:11:12:13:
         14:15:16:17:18:19:1a:1b:1c:1d:1e:1f",
    );
    let nonce = array("00:00:00:09:00:00:00:4a:00:00:00:00");
    let state = State::<Ietf>::new(&key, &nonce);

    let setup = words(
        "61707865  3320646e  79622d32  6b206574
         03020100  07060504  0b0a0908  0f0e0d0c
         13121110  17161514  1b1a1918  1f1e1d1c
         00000001  09000000  4a000000  00000000",
    );
    let after_20_rounds = words(
        "837778ab  e238d763  a67ae21e  5950bb2f
         c4f2d0c7  fc62bb2f  8fa018fc  3f5ec7b7
         335271c2  f29489f3  eabda8fc  82e46ebd
         d19c12b4  b04e16de  9e83d0cb  4e3c50a2",
    );
    let end = words(
        "e4e7f110  15593bd1  1fdd0f50  c47120a3
         c7f4d1c7  0368c033  9aaa2204  4e6cd4c3
         466482d2  09aa9f07  05d7c214  a2028bd9
         d19c12b5  b94e16de  e883d0cb  4e3c50a2",
    );
    let serialized: [u8; 64] = array(
        "10 f1 e7 e4 d1 3b 59 15 50 0f dd 1f a3 20 71 c4
         c7 d1 f4 c7 33 c0 68 03 04 22 aa 9a c3 d4 6c 4e
         d2 82 64 46 07 9f aa 09 14 c2 d7 05 d9 8b 02 a2
         b5 12 9c d1 de 16 4e b9 cb d0 83 e8 a2 50 3c 4e",
    );

    assert_eq!(state.words_at(1), setup);
    assert_eq!(twenty_rounds(&setup), after_20_rounds);
    assert_eq!(reference::block_words::<R20>(&setup), end);
    assert_eq!(reference::block::<R20, Ietf>(&state, 1), serialized);
}

/// RFC 8439 §2.4.2 "Example and Test Vector for the ChaCha20 Cipher" ("Sunscreen"): key
/// 00..1f, nonce 00:00:00:00:00:00:00:4a:00:00:00:00, initial counter 1. Checks both
/// block setups, both blocks after the block operation (rounds and final addition, so
/// they serialise to the keystream), the 114-byte keystream and the ciphertext (plaintext
/// XOR the reference blocks with counters 1 and 2).
#[test]
fn rfc8439_2_4_2_sunscreen_encryption() {
    let key = array(
        "00:01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e:0f:10:11:12:13:
         14:15:16:17:18:19:1a:1b:1c:1d:1e:1f",
    );
    let nonce = array("00:00:00:00:00:00:00:4a:00:00:00:00");
    let state = State::<Ietf>::new(&key, &nonce);

    let plaintext = hex("
        4c 61 64 69 65 73 20 61 6e 64 20 47 65 6e 74 6c
        65 6d 65 6e 20 6f 66 20 74 68 65 20 63 6c 61 73
        73 20 6f 66 20 27 39 39 3a 20 49 66 20 49 20 63
        6f 75 6c 64 20 6f 66 66 65 72 20 79 6f 75 20 6f
        6e 6c 79 20 6f 6e 65 20 74 69 70 20 66 6f 72 20
        74 68 65 20 66 75 74 75 72 65 2c 20 73 75 6e 73
        63 72 65 65 6e 20 77 6f 75 6c 64 20 62 65 20 69
        74 2e
    ");
    let first_setup = words(
        "61707865  3320646e  79622d32  6b206574
         03020100  07060504  0b0a0908  0f0e0d0c
         13121110  17161514  1b1a1918  1f1e1d1c
         00000001  00000000  4a000000  00000000",
    );
    let second_setup = words(
        "61707865  3320646e  79622d32  6b206574
         03020100  07060504  0b0a0908  0f0e0d0c
         13121110  17161514  1b1a1918  1f1e1d1c
         00000002  00000000  4a000000  00000000",
    );
    let first_after = words(
        "f3514f22  e1d91b40  6f27de2f  ed1d63b8
         821f138c  e2062c3d  ecca4f7e  78cff39e
         a30a3b8a  920a6072  cd7479b5  34932bed
         40ba4c79  cd343ec6  4c2c21ea  b7417df0",
    );
    let second_after = words(
        "9f74a669  410f633f  28feca22  7ec44dec
         6d34d426  738cb970  3ac5e9f3  45590cc4
         da6e8b39  892c831a  cdea67c1  2b7e1d90
         037463f3  a11a2073  e8bcfb88  edc49139",
    );
    let keystream = hex("
        22:4f:51:f3:40:1b:d9:e1:2f:de:27:6f:b8:63:1d:ed:8c:13:1f:82:3d:2c:06
        e2:7e:4f:ca:ec:9e:f3:cf:78:8a:3b:0a:a3:72:60:0a:92:b5:79:74:cd:ed:2b
        93:34:79:4c:ba:40:c6:3e:34:cd:ea:21:2c:4c:f0:7d:41:b7:69:a6:74:9f:3f
        63:0f:41:22:ca:fe:28:ec:4d:c4:7e:26:d4:34:6d:70:b9:8c:73:f3:e9:c5:3a
        c4:0c:59:45:39:8b:6e:da:1a:83:2c:89:c1:67:ea:cd:90:1d:7e:2b:f3:63
    ");
    let ciphertext = hex("
        6e 2e 35 9a 25 68 f9 80 41 ba 07 28 dd 0d 69 81
        e9 7e 7a ec 1d 43 60 c2 0a 27 af cc fd 9f ae 0b
        f9 1b 65 c5 52 47 33 ab 8f 59 3d ab cd 62 b3 57
        16 39 d6 24 e6 51 52 ab 8f 53 0c 35 9f 08 61 d8
        07 ca 0d bf 50 0d 6a 61 56 a3 8e 08 8a 22 b6 5e
        52 bc 51 4d 16 cc f8 06 81 8c e9 1a b7 79 37 36
        5a f9 0b bf 74 a3 5b e6 b4 0b 8e ed f2 78 5e 42
        87 4d
    ");

    assert_eq!((plaintext.len(), keystream.len(), ciphertext.len()), (114, 114, 114));
    assert_eq!(state.words_at(1), first_setup);
    assert_eq!(state.words_at(2), second_setup);
    assert_eq!(reference::block_words::<R20>(&first_setup), first_after);
    assert_eq!(reference::block_words::<R20>(&second_setup), second_after);

    let mut blocks = [0u8; 128];
    blocks[..64].copy_from_slice(&reference::block::<R20, Ietf>(&state, 1));
    blocks[64..].copy_from_slice(&reference::block::<R20, Ietf>(&state, 2));
    assert_eq!(blocks[..114], keystream[..]);

    let encrypted: Vec<u8> = plaintext.iter().zip(blocks).map(|(p, k)| p ^ k).collect();
    assert_eq!(encrypted, ciphertext);
}

/// RFC 8439 §2.6.2 "Poly1305 Key Generation Test Vector": key 80..9f, nonce
/// 00 00 00 00 00 01 02 03 04 05 06 07, block counter 0. The one-time key is the first
/// 32 bytes of block 0; also checks the setup state and the matrix the RFC labels "state
/// after 20 rounds", which already includes the final addition (its words serialise to the
/// output bytes), so it is compared with `block_words`.
#[test]
fn rfc8439_2_6_2_poly1305_key_generation() {
    let key = array(
        "80 81 82 83 84 85 86 87 88 89 8a 8b 8c 8d 8e 8f
         90 91 92 93 94 95 96 97 98 99 9a 9b 9c 9d 9e 9f",
    );
    let nonce = array("00 00 00 00 00 01 02 03 04 05 06 07");
    let state = State::<Ietf>::new(&key, &nonce);

    let setup = words(
        "61707865  3320646e  79622d32  6b206574
         83828180  87868584  8b8a8988  8f8e8d8c
         93929190  97969594  9b9a9998  9f9e9d9c
         00000000  00000000  03020100  07060504",
    );
    let labelled_after_20_rounds = words(
        "8ba0d58a  cc815f90  27405081  7194b24a
         37b633a8  a50dfde3  e2b8db08  46a6d1fd
         7da03782  9183a233  148ad271  b46773d1
         3cc1875a  8607def1  ca5c3086  7085eb87",
    );
    let one_time_key: [u8; 32] = array(
        "8a d5 a0 8b 90 5f 81 cc 81 50 40 27 4a b2 94 71
         a8 33 b6 37 e3 fd 0d a5 08 db b8 e2 fd d1 a6 46",
    );

    assert_eq!(state.words_at(0), setup);
    assert_eq!(reference::block_words::<R20>(&setup), labelled_after_20_rounds);
    assert_eq!(reference::block::<R20, Ietf>(&state, 0)[..32], one_time_key);
}

const ZERO_KEY: &str = "
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";

const KEY_LAST_BYTE_01: &str = "
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01";

const ZERO_NONCE: &str = "00 00 00 00 00 00 00 00 00 00 00 00";

const NONCE_02: &str = "00 00 00 00 00 00 00 00 00 00 00 02";

/// RFC 8439 Appendix A.1 "The ChaCha20 Block Functions", Test Vector #1: zero key, zero
/// nonce, block counter 0.
#[test]
fn rfc8439_a_1_block_vector_1() {
    check_block(
        ZERO_KEY,
        ZERO_NONCE,
        0,
        "ade0b876  903df1a0  e56a5d40  28bd8653
         b819d2bd  1aed8da0  ccef36a8  c70d778b
         7c5941da  8d485751  3fe02477  374ad8b8
         f4b8436a  1ca11815  69b687c3  8665eeb2",
        "76 b8 e0 ad a0 f1 3d 90 40 5d 6a e5 53 86 bd 28
         bd d2 19 b8 a0 8d ed 1a a8 36 ef cc 8b 77 0d c7
         da 41 59 7c 51 57 48 8d 77 24 e0 3f b8 d8 4a 37
         6a 43 b8 f4 15 18 a1 1c c3 87 b6 69 b2 ee 65 86",
    );
}

/// RFC 8439 Appendix A.1 "The ChaCha20 Block Functions", Test Vector #2: zero key, zero
/// nonce, block counter 1.
#[test]
fn rfc8439_a_1_block_vector_2() {
    check_block(
        ZERO_KEY,
        ZERO_NONCE,
        1,
        "bee7079f  7a385155  7c97ba98  0d082d73
         a0290fcb  6965e348  3e53c612  ed7aee32
         7621b729  434ee69c  b03371d5  d539d874
         281fed31  45fb0a51  1f0ae1ac  6f4d794b",
        "9f 07 e7 be 55 51 38 7a 98 ba 97 7c 73 2d 08 0d
         cb 0f 29 a0 48 e3 65 69 12 c6 53 3e 32 ee 7a ed
         29 b7 21 76 9c e6 4e 43 d5 71 33 b0 74 d8 39 d5
         31 ed 1f 28 51 0a fb 45 ac e1 0a 1f 4b 79 4d 6f",
    );
}

/// RFC 8439 Appendix A.1 "The ChaCha20 Block Functions", Test Vector #3: key with last
/// byte 01, zero nonce, block counter 1.
#[test]
fn rfc8439_a_1_block_vector_3() {
    check_block(
        KEY_LAST_BYTE_01,
        ZERO_NONCE,
        1,
        "2452eb3a  9249f8ec  8d829d9b  ddd4ceb1
         e8252083  60818b01  f38422b8  5aaa49c9
         bb00ca8e  da3ba7b4  c4b592d1  fdf2732f
         4436274e  2561b3c8  ebdd4aa6  a0136c00",
        "3a eb 52 24 ec f8 49 92 9b 9d 82 8d b1 ce d4 dd
         83 20 25 e8 01 8b 81 60 b8 22 84 f3 c9 49 aa 5a
         8e ca 00 bb b4 a7 3b da d1 92 b5 c4 2f 73 f2 fd
         4e 27 36 44 c8 b3 61 25 a6 4a dd eb 00 6c 13 a0",
    );
}

/// RFC 8439 Appendix A.1 "The ChaCha20 Block Functions", Test Vector #4: key with second
/// byte ff, zero nonce, block counter 2.
#[test]
fn rfc8439_a_1_block_vector_4() {
    check_block(
        "00 ff 00 00 00 00 00 00 00 00 00 00 00 00 00 00
         00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
        ZERO_NONCE,
        2,
        "fb4dd572  4bc42ef1  df922636  327f1394
         a78dea8f  5e269039  a1bebbc1  caf09aae
         a25ab213  48a6b46c  1b9d9bcb  092c5be6
         546ca624  1bec45d5  87f47473  96f0992e",
        "72 d5 4d fb f1 2e c4 4b 36 26 92 df 94 13 7f 32
         8f ea 8d a7 39 90 26 5e c1 bb be a1 ae 9a f0 ca
         13 b2 5a a2 6c b4 a6 48 cb 9b 9d 1b e6 5b 2c 09
         24 a6 6c 54 d5 45 ec 1b 73 74 f4 87 2e 99 f0 96",
    );
}

/// RFC 8439 Appendix A.1 "The ChaCha20 Block Functions", Test Vector #5: zero key, nonce
/// with last byte 02, block counter 0.
#[test]
fn rfc8439_a_1_block_vector_5() {
    check_block(
        ZERO_KEY,
        NONCE_02,
        0,
        "374dc6c2  3736d58c  b904e24a  cd3f93ef
         88228b1a  96a4dfb3  5b76ab72  c727ee54
         0e0e978a  f3145c95  1b748ea8  f786c297
         99c28f5f  628314e8  398a19fa  6ded1b53",
        "c2 c6 4d 37 8c d5 36 37 4a e2 04 b9 ef 93 3f cd
         1a 8b 22 88 b3 df a4 96 72 ab 76 5b 54 ee 27 c7
         8a 97 0e 0e 95 5c 14 f3 a8 8e 74 1b 97 c2 86 f7
         5f 8f c2 99 e8 14 83 62 fa 19 8a 39 53 1b ed 6d",
    );
}

/// RFC 8439 Appendix A.2 "ChaCha20 Encryption", Test Vector #1: zero key, zero nonce,
/// initial block counter 0, 64 zero bytes of plaintext.
#[test]
fn rfc8439_a_2_encryption_vector_1() {
    check_encryption(
        ZERO_KEY,
        ZERO_NONCE,
        0,
        "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
         00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
         00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
         00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
        "76 b8 e0 ad a0 f1 3d 90 40 5d 6a e5 53 86 bd 28
         bd d2 19 b8 a0 8d ed 1a a8 36 ef cc 8b 77 0d c7
         da 41 59 7c 51 57 48 8d 77 24 e0 3f b8 d8 4a 37
         6a 43 b8 f4 15 18 a1 1c c3 87 b6 69 b2 ee 65 86",
    );
}

/// RFC 8439 Appendix A.2 "ChaCha20 Encryption", Test Vector #2: key with last byte 01,
/// nonce with last byte 02, initial block counter 1, 375 bytes of plaintext ("Any
/// submission to the IETF …").
#[test]
fn rfc8439_a_2_encryption_vector_2() {
    check_encryption(
        KEY_LAST_BYTE_01,
        NONCE_02,
        1,
        "41 6e 79 20 73 75 62 6d 69 73 73 69 6f 6e 20 74
         6f 20 74 68 65 20 49 45 54 46 20 69 6e 74 65 6e
         64 65 64 20 62 79 20 74 68 65 20 43 6f 6e 74 72
         69 62 75 74 6f 72 20 66 6f 72 20 70 75 62 6c 69
         63 61 74 69 6f 6e 20 61 73 20 61 6c 6c 20 6f 72
         20 70 61 72 74 20 6f 66 20 61 6e 20 49 45 54 46
         20 49 6e 74 65 72 6e 65 74 2d 44 72 61 66 74 20
         6f 72 20 52 46 43 20 61 6e 64 20 61 6e 79 20 73
         74 61 74 65 6d 65 6e 74 20 6d 61 64 65 20 77 69
         74 68 69 6e 20 74 68 65 20 63 6f 6e 74 65 78 74
         20 6f 66 20 61 6e 20 49 45 54 46 20 61 63 74 69
         76 69 74 79 20 69 73 20 63 6f 6e 73 69 64 65 72
         65 64 20 61 6e 20 22 49 45 54 46 20 43 6f 6e 74
         72 69 62 75 74 69 6f 6e 22 2e 20 53 75 63 68 20
         73 74 61 74 65 6d 65 6e 74 73 20 69 6e 63 6c 75
         64 65 20 6f 72 61 6c 20 73 74 61 74 65 6d 65 6e
         74 73 20 69 6e 20 49 45 54 46 20 73 65 73 73 69
         6f 6e 73 2c 20 61 73 20 77 65 6c 6c 20 61 73 20
         77 72 69 74 74 65 6e 20 61 6e 64 20 65 6c 65 63
         74 72 6f 6e 69 63 20 63 6f 6d 6d 75 6e 69 63 61
         74 69 6f 6e 73 20 6d 61 64 65 20 61 74 20 61 6e
         79 20 74 69 6d 65 20 6f 72 20 70 6c 61 63 65 2c
         20 77 68 69 63 68 20 61 72 65 20 61 64 64 72 65
         73 73 65 64 20 74 6f",
        "a3 fb f0 7d f3 fa 2f de 4f 37 6c a2 3e 82 73 70
         41 60 5d 9f 4f 4f 57 bd 8c ff 2c 1d 4b 79 55 ec
         2a 97 94 8b d3 72 29 15 c8 f3 d3 37 f7 d3 70 05
         0e 9e 96 d6 47 b7 c3 9f 56 e0 31 ca 5e b6 25 0d
         40 42 e0 27 85 ec ec fa 4b 4b b5 e8 ea d0 44 0e
         20 b6 e8 db 09 d8 81 a7 c6 13 2f 42 0e 52 79 50
         42 bd fa 77 73 d8 a9 05 14 47 b3 29 1c e1 41 1c
         68 04 65 55 2a a6 c4 05 b7 76 4d 5e 87 be a8 5a
         d0 0f 84 49 ed 8f 72 d0 d6 62 ab 05 26 91 ca 66
         42 4b c8 6d 2d f8 0e a4 1f 43 ab f9 37 d3 25 9d
         c4 b2 d0 df b4 8a 6c 91 39 dd d7 f7 69 66 e9 28
         e6 35 55 3b a7 6c 5c 87 9d 7b 35 d4 9e b2 e6 2b
         08 71 cd ac 63 89 39 e2 5e 8a 1e 0e f9 d5 28 0f
         a8 ca 32 8b 35 1c 3c 76 59 89 cb cf 3d aa 8b 6c
         cc 3a af 9f 39 79 c9 2b 37 20 fc 88 dc 95 ed 84
         a1 be 05 9c 64 99 b9 fd a2 36 e7 e8 18 b0 4b 0b
         c3 9c 1e 87 6b 19 3b fe 55 69 75 3f 88 12 8c c0
         8a aa 9b 63 d1 a1 6f 80 ef 25 54 d7 18 9c 41 1f
         58 69 ca 52 c5 b8 3f a3 6f f2 16 b9 c1 d3 00 62
         be bc fd 2d c5 bc e0 91 19 34 fd a7 9a 86 f6 e6
         98 ce d7 59 c3 ff 9b 64 77 33 8f 3d a4 f9 cd 85
         14 ea 99 82 cc af b3 41 b2 38 4d d9 02 f3 d1 ab
         7a c6 1d d2 9c 6f 21 ba 5b 86 2f 37 30 e3 7c fd
         c4 fd 80 6c 22 f2 21",
    );
}

/// RFC 8439 Appendix A.2 "ChaCha20 Encryption", Test Vector #3: key 1c 92 40 a5 …,
/// nonce with last byte 02, initial block counter 42, the 127-byte Jabberwocky text.
#[test]
fn rfc8439_a_2_encryption_vector_3() {
    check_encryption(
        "1c 92 40 a5 eb 55 d3 8a f3 33 88 86 04 f6 b5 f0
         47 39 17 c1 40 2b 80 09 9d ca 5c bc 20 70 75 c0",
        NONCE_02,
        42,
        "27 54 77 61 73 20 62 72 69 6c 6c 69 67 2c 20 61
         6e 64 20 74 68 65 20 73 6c 69 74 68 79 20 74 6f
         76 65 73 0a 44 69 64 20 67 79 72 65 20 61 6e 64
         20 67 69 6d 62 6c 65 20 69 6e 20 74 68 65 20 77
         61 62 65 3a 0a 41 6c 6c 20 6d 69 6d 73 79 20 77
         65 72 65 20 74 68 65 20 62 6f 72 6f 67 6f 76 65
         73 2c 0a 41 6e 64 20 74 68 65 20 6d 6f 6d 65 20
         72 61 74 68 73 20 6f 75 74 67 72 61 62 65 2e",
        "62 e6 34 7f 95 ed 87 a4 5f fa e7 42 6f 27 a1 df
         5f b6 91 10 04 4c 0d 73 11 8e ff a9 5b 01 e5 cf
         16 6d 3d f2 d7 21 ca f9 b2 1e 5f b1 4c 61 68 71
         fd 84 c5 4f 9d 65 b2 83 19 6c 7f e4 f6 05 53 eb
         f3 9c 64 02 c4 22 34 e3 2a 35 6b 3e 76 43 12 a6
         1a 55 32 05 57 16 ea d6 96 25 68 f8 7d 3f 3f 77
         04 c6 a8 d1 bc d1 bf 4d 50 d6 15 4b 6d a7 31 b1
         87 b5 8d fd 72 8a fa 36 75 7a 79 7a c1 88 d1",
    );
}

/// draft-irtf-cfrg-xchacha-03 §2.2.1 "Test Vector for the HChaCha20 Block Function": key
/// 00..1f, nonce 00:00:00:09:00:00:00:4a:00:00:00:00:31:41:59:27. Checks the state after
/// 20 rounds (from the draft's setup state) and the resultant subkey of
/// `reference::hchacha::<R20>`.
#[test]
fn xchacha_draft_03_2_2_1_hchacha20() {
    let key = array(
        "00:01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e:0f:10:11:12:13:
         14:15:16:17:18:19:1a:1b:1c:1d:1e:1f",
    );
    let input = array("00:00:00:09:00:00:00:4a:00:00:00:00:31:41:59:27");

    let setup = words(
        "61707865 3320646e 79622d32 6b206574
         03020100 07060504 0b0a0908 0f0e0d0c
         13121110 17161514 1b1a1918 1f1e1d1c
         09000000 4a000000 00000000 27594131",
    );
    let after_20_rounds = words(
        "423b4182 fe7bb227 50420ed3 737d878a
         0aa76448 7954cdf3 846acd37 7b3c58ad
         77e35583 83e77c12 e0076a2d bc6cd0e5
         d5e4f9a0 53a8748a 13c42ec1 dcecd326",
    );
    // The draft prints the subkey as bytes in groups of four ("in little endian").
    let subkey: [u8; 32] = array(
        "82413b42 27b27bfe d30e4250 8a877d73
         a0f9e4d5 8a74a853 c12ec413 26d3ecdc",
    );

    assert_eq!(twenty_rounds(&setup), after_20_rounds);
    assert_eq!(reference::hchacha::<R20>(&key, &input), subkey);
}
