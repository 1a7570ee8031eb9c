//! ChaCha20-Poly1305 through the public API on every backend of [`Backend::available`]
//! against a plain RFC 8439 §2.8 construction on `chacha_core::reference` (its keystream
//! and its Poly1305), at the lengths where the front and the kernels change paths: every
//! length from 0 to 1100 bytes (the short path up to 448, the key block and the one-pass
//! kernel after, the stitched sets from 512) and each side of every 512-byte set to
//! 4.5 KiB (the stitched loop's sets and the default 4 KiB pieces). Each message is sealed
//! and opened in place and buffer to buffer, with an AAD of 0 to 17 bytes; a tag, a ciphertext byte or an AAD
//! byte changed is refused and leaves the buffer as it was.

use chacha_core::{BLOCK_LEN, Ietf, R20, State, reference};
use chacha_testdata::filler;
use chacha20poly1305::aead::{AeadInOut, inout::InOutBuf};
use chacha20poly1305::{Backend, ChaCha20Poly1305, Key, Nonce, Tag};

fn backends() -> Vec<Backend> {
    let backends: Vec<Backend> = Backend::available().collect();
    assert!(!backends.is_empty(), "no backend available");
    backends
}

/// The lengths: 0 to 1100 every byte (every seventh under miri), then 511, 512, 513 and
/// so on for each set to 4.5 KiB.
fn lengths() -> Vec<usize> {
    let step = if cfg!(miri) { 7 } else { 1 };
    let sets = (2..=9).flat_map(|k| [512 * k - 1, 512 * k, 512 * k + 1]);
    (0..=1100).step_by(step).chain(sets).collect()
}

/// RFC 8439 §2.8 written out: block 0's first 32 bytes are the Poly1305 key, blocks 1…
/// the keystream; the MAC covers the AAD and the ciphertext, each padded to 16 bytes, and
/// their lengths.
fn reference_seal(key: &[u8; 32], nonce: &[u8; 12], aad: &[u8], plaintext: &[u8]) -> (Vec<u8>, [u8; 16]) {
    let state = State::<Ietf>::new(key, nonce);
    let mut blocks = vec![[0u8; BLOCK_LEN]; 1 + plaintext.len().div_ceil(BLOCK_LEN)];
    reference::keystream::<R20, Ietf>(&state, &mut blocks);
    let poly_key: [u8; 32] = blocks[0][..32].try_into().unwrap();
    let ciphertext: Vec<u8> = plaintext.iter().zip(blocks[1..].as_flattened()).map(|(p, k)| p ^ k).collect();
    let mut mac_data = aad.to_vec();
    mac_data.resize(aad.len().div_ceil(16) * 16, 0);
    mac_data.extend_from_slice(&ciphertext);
    mac_data.resize(mac_data.len().div_ceil(16) * 16, 0);
    mac_data.extend_from_slice(&(aad.len() as u64).to_le_bytes());
    mac_data.extend_from_slice(&(ciphertext.len() as u64).to_le_bytes());
    (ciphertext, reference::poly1305(&poly_key, &mac_data))
}

#[test]
fn every_path_matches_the_reference_and_refuses_forgeries() {
    for backend in backends() {
        for len in lengths() {
            let data = filler(len as u64 * 3 + 1, 32 + 12 + 17 + len);
            let key: [u8; 32] = data[..32].try_into().unwrap();
            let nonce: [u8; 12] = data[32..44].try_into().unwrap();
            let aad = &data[44..44 + len % 18];
            let plaintext = &data[61..];
            let at = format!("{backend:?}, {len} bytes, {} of aad", aad.len());
            let (want, want_tag) = reference_seal(&key, &nonce, aad, plaintext);
            let aead = ChaCha20Poly1305::with_backend(&Key::from(key), backend);
            let nonce = Nonce::from(nonce);

            let mut buf = plaintext.to_vec();
            let tag = aead.encrypt_inout_detached(&nonce, aad, buf.as_mut_slice().into()).unwrap();
            assert_eq!(buf, want, "{at}: ciphertext");
            assert_eq!(tag.as_slice(), want_tag, "{at}: tag");

            aead.decrypt_inout_detached(&nonce, aad, buf.as_mut_slice().into(), &tag).unwrap();
            assert_eq!(buf, plaintext, "{at}: opened");

            // Buffer to buffer, both ways.
            let mut out = vec![0u8; len];
            let inout = InOutBuf::new(plaintext, &mut out).unwrap();
            let tag = aead.encrypt_inout_detached(&nonce, aad, inout).unwrap();
            assert_eq!(
                (out.as_slice(), tag.as_slice()),
                (want.as_slice(), want_tag.as_slice()),
                "{at}: sealed to another buffer"
            );
            let mut opened = vec![0u8; len];
            let inout = InOutBuf::new(&want, &mut opened).unwrap();
            aead.decrypt_inout_detached(&nonce, aad, inout, &tag).unwrap();
            assert_eq!(opened, plaintext, "{at}: opened to another buffer");

            // Forgeries: a tag bit, a ciphertext byte (first, middle, last), an AAD byte.
            let mut bad_tag = tag;
            bad_tag[len % 16] ^= 1 << (len % 8);
            let refused = |ciphertext: &[u8], aad: &[u8], tag: &Tag, what: &str| {
                let mut buf = ciphertext.to_vec();
                let opened = aead.decrypt_inout_detached(&nonce, aad, buf.as_mut_slice().into(), tag);
                assert!(opened.is_err(), "{at}: {what} accepted");
                assert_eq!(buf, ciphertext, "{at}: {what}: the buffer changed");
            };
            refused(&want, aad, &bad_tag, "a changed tag");
            for i in [0, len / 2, len.saturating_sub(1)].into_iter().filter(|_| len > 0) {
                let mut ciphertext = want.clone();
                ciphertext[i] ^= 0x80;
                refused(&ciphertext, aad, &tag, &format!("ciphertext byte {i} changed"));
            }
            if let Some(last) = aad.len().checked_sub(1) {
                let mut changed = aad.to_vec();
                changed[last] ^= 1;
                refused(&want, &changed, &tag, "a changed aad byte");
            }
        }
    }
}
