//! The `chacha20` front on the [`Reference`] kernel: RFC 8439 vectors through the whole
//! `cipher` API, and the end of the stream (last block usable, the byte after it refused,
//! nothing reused), enforced by `chacha-core` for a kernel that knows nothing of it.

use chacha_reference_kernel::Reference;
use chacha_testdata::get;
use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use chacha20::{ChaCha, Ietf, Legacy, R20, XChaCha};

type Rfc = ChaCha<R20, Ietf, Reference>;

/// RFC 8439 §2.4.2 (vector `rfc8439-2.4.2` of testdata/vectors.txt): the "sunscreen"
/// encryption.
#[test]
fn rfc8439_2_4_2_through_every_call_shape() {
    let v = get("rfc8439-2.4.2");
    let (key, nonce): ([u8; 32], [u8; 12]) = (v.array("key"), v.array("nonce"));
    let plaintext: &[u8; 114] = &v.array("plaintext");
    let ciphertext = v.bytes("ciphertext");
    assert_eq!(v.number("counter"), 1, "the seeks below are to byte 64");
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

/// RFC 8439 A.1 test vector #1 (vector `rfc8439-a.1-1`): all-zero key and nonce, block 0.
#[test]
fn rfc8439_a_1_vector_1_keystream() {
    let v = get("rfc8439-a.1-1");
    assert_eq!(v.number("counter"), 0);
    let mut c = Rfc::new(&v.array::<32>("key").into(), &v.array::<12>("nonce").into());
    let mut ks = [0u8; 64];
    c.write_keystream(&mut ks);
    assert_eq!(ks, v.array::<64>("keystream"));
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
