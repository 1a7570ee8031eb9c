//! The `chacha20` front on the [`Reference`] kernel: RFC 8439 vectors through the whole
//! `cipher` API, and the end of the stream (last block usable, the byte after it refused,
//! nothing reused), enforced by `chacha-core` for a kernel that knows nothing of it.

use chacha_reference_kernel::Reference;
use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use chacha20::{ChaCha, Ietf, Legacy, R20, XChaCha};

fn unhex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(u8::is_ascii_hexdigit).collect();
    digits.chunks(2).map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap()).collect()
}

type Rfc = ChaCha<R20, Ietf, Reference>;

/// RFC 8439 §2.4.2: the "sunscreen" encryption, key 00..1f, nonce 00..4a..00, counter 1.
#[test]
fn rfc8439_2_4_2_through_every_call_shape() {
    let key: [u8; 32] = core::array::from_fn(|i| i as u8);
    let nonce = [0, 0, 0, 0, 0, 0, 0, 0x4a, 0, 0, 0, 0];
    let plaintext = b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.";
    let ciphertext = unhex(
        "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b
         f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8
         07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736
         5af90bbf74a35be6b40b8eedf2785e42874d",
    );
    // One call, in place.
    let mut c = Rfc::new(&key.into(), &nonce.into());
    c.seek(64u32);
    let mut buf = *plaintext;
    c.apply_keystream(&mut buf);
    assert_eq!(buf[..], ciphertext[..]);
    // Buffer to buffer, then decrypt after seeking back.
    let mut out = [0u8; 114];
    c.seek(64u32);
    c.apply_keystream_b2b(plaintext, &mut out);
    assert_eq!(out[..], ciphertext[..]);
    c.seek(64u32);
    c.apply_keystream(&mut out);
    assert_eq!(out, *plaintext);
    // Pieces of every size 1..=114 give the same bytes.
    for piece in 1..=plaintext.len() {
        let mut c = Rfc::with_kernel(&key, &nonce, Reference);
        c.seek(64u32);
        let mut buf = *plaintext;
        for chunk in buf.chunks_mut(piece) {
            c.apply_keystream(chunk);
        }
        assert_eq!(buf[..], ciphertext[..], "pieces of {piece}");
    }
}

/// RFC 8439 A.1 test vector #1: all-zero key and nonce, block 0.
#[test]
fn rfc8439_a_1_vector_1_keystream() {
    let mut c = Rfc::new(&[0; 32].into(), &[0; 12].into());
    let mut ks = [0u8; 64];
    c.write_keystream(&mut ks);
    let want = unhex(
        "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7
         da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586",
    );
    assert_eq!(ks[..], want[..]);
}

#[test]
fn last_block_is_usable_then_nothing_more() {
    let (key, nonce) = ([9; 32], [3; 12]);
    let reference_last = {
        let state = chacha_core::State::<Ietf>::new(&key, &nonce);
        chacha_core::reference::block::<R20, Ietf>(&state, u64::from(u32::MAX))
    };
    let mut c = Rfc::with_kernel(&key, &nonce, Reference);
    let end = (1u64 << 32) * 64;
    c.seek(end - 64);
    let mut last = [0u8; 64];
    c.apply_keystream(&mut last[..40]);
    c.apply_keystream(&mut last[40..]);
    assert_eq!(last, reference_last);
    assert_eq!(c.current_pos::<u64>(), end);
    let mut one = [0x5au8];
    assert!(c.try_apply_keystream(&mut one).is_err());
    assert_eq!(one, [0x5a], "refused request left the buffer alone");
    assert!(c.try_seek(end + 1).is_err());

    // The 64-bit layouts carry into word 13 and end after 2^64 blocks, the same way.
    let mut l = ChaCha::<R20, Legacy, Reference>::new(&key.into(), &[3; 8].into());
    l.seek(u128::from(u64::MAX) * 64 + 63);
    l.apply_keystream(&mut [0u8; 1]);
    assert!(l.try_apply_keystream(&mut [0u8; 1]).is_err());
    let mut x = XChaCha::<R20, Reference>::new(&key.into(), &[3; 24].into());
    x.seek(u128::from(u64::MAX) * 64);
    x.apply_keystream(&mut [0u8; 64]);
    assert!(x.try_apply_keystream(&mut [0u8; 1]).is_err());
}

#[test]
#[should_panic(expected = "end of keystream reached")]
fn unchecked_calls_refuse_past_the_end_too() {
    let mut c = Rfc::with_kernel(&[1; 32], &[2; 12], Reference);
    c.seek((1u64 << 32) * 64);
    c.unchecked_apply_keystream(&mut [0u8; 16]);
}
