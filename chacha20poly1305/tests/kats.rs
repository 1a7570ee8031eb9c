//! Known answers, through the public API on every backend of [`Backend::available`]
//! (`with_backend`), from `testdata/vectors.txt` (each vector's `source` names its
//! document):
//!
//! - RFC 8439 §2.8.2 and Appendix A.5 with [`ChaCha20Poly1305`]; draft-irtf-cfrg-xchacha-03
//!   Appendix A.3.1 with [`XChaCha20Poly1305`]: sealed and opened in place, buffer to
//!   buffer and through the allocating API;
//! - RFC 8439 §2.5.2 and Appendix A.3 #1–#11 (Poly1305, among them the reduction's edge
//!   cases) with [`Poly1305`] on each backend's kernel, fed whole and in every split,
//!   and with the plain reference.

use chacha_core::{poly1305::Poly1305, reference};
use chacha_testdata::{Vector, all, get};
use chacha20poly1305::aead::{self, Aead, AeadInOut, KeyInit, Payload, inout::InOutBuf};
use chacha20poly1305::{Backend, ChaCha20Poly1305, Key, Nonce, XChaCha20Poly1305, XNonce};

fn backends() -> Vec<Backend> {
    let backends: Vec<Backend> = Backend::available().collect();
    assert!(!backends.is_empty(), "no backend available");
    backends
}

/// Seals and opens `v` with `aead` every way the API offers; `what` names it in messages.
fn check_aead<A: AeadInOut + Aead>(aead: &A, nonce: &aead::Nonce<A>, v: &Vector, what: &str) {
    let (aad, plaintext, ciphertext, tag) =
        (v.bytes("aad"), v.bytes("plaintext"), v.bytes("ciphertext"), v.bytes("tag"));
    // In place, detached.
    let mut buf = plaintext.clone();
    let got_tag = aead.encrypt_inout_detached(nonce, &aad, buf.as_mut_slice().into()).unwrap();
    assert_eq!(buf, ciphertext, "{what}: ciphertext, in place");
    assert_eq!(got_tag.as_slice(), tag, "{what}: tag, in place");
    aead.decrypt_inout_detached(nonce, &aad, buf.as_mut_slice().into(), &got_tag).unwrap();
    assert_eq!(buf, plaintext, "{what}: opened in place");
    // Buffer to buffer.
    let mut out = vec![0u8; plaintext.len()];
    let got_tag =
        aead.encrypt_inout_detached(nonce, &aad, InOutBuf::new(&plaintext, &mut out).unwrap()).unwrap();
    assert_eq!(out, ciphertext, "{what}: ciphertext, buffer to buffer");
    assert_eq!(got_tag.as_slice(), tag, "{what}: tag, buffer to buffer");
    let mut opened = vec![0u8; plaintext.len()];
    aead.decrypt_inout_detached(nonce, &aad, InOutBuf::new(&ciphertext, &mut opened).unwrap(), &got_tag)
        .unwrap();
    assert_eq!(opened, plaintext, "{what}: opened buffer to buffer");
    // The allocating API: ciphertext || tag.
    let sealed = aead.encrypt(nonce, Payload { msg: &plaintext, aad: &aad }).unwrap();
    assert_eq!(sealed, [ciphertext.as_slice(), tag.as_slice()].concat(), "{what}: encrypt");
    assert_eq!(
        aead.decrypt(nonce, Payload { msg: &sealed, aad: &aad }).unwrap(),
        plaintext,
        "{what}: decrypt"
    );
}

#[test]
fn rfc8439_aead_vectors_on_every_backend() {
    for name in ["rfc8439-aead-2.8.2", "rfc8439-aead-a.5"] {
        let v = get(name);
        let key = Key::from(v.array::<32>("key"));
        let nonce = Nonce::from(v.array::<12>("nonce"));
        for backend in backends() {
            check_aead(
                &ChaCha20Poly1305::with_backend(&key, backend),
                &nonce,
                v,
                &format!("{name} on {backend:?}"),
            );
        }
        check_aead(&ChaCha20Poly1305::new(&key), &nonce, v, &format!("{name} with new()"));
    }
}

#[test]
fn xchacha_aead_vector_on_every_backend() {
    let v = get("xchacha-03-aead-a.3.1");
    let key = Key::from(v.array::<32>("key"));
    let nonce = XNonce::from(v.array::<24>("nonce"));
    for backend in backends() {
        check_aead(
            &XChaCha20Poly1305::with_backend(&key, backend),
            &nonce,
            v,
            &format!("A.3.1 on {backend:?}"),
        );
    }
    check_aead(&XChaCha20Poly1305::new(&key), &nonce, v, "A.3.1 with new()");
}

/// The draft's one-time key: block 0 of ChaCha20 under the HChaCha20 subkey.
#[test]
fn xchacha_one_time_key_is_the_drafts() {
    let v = get("xchacha-03-aead-a.3.1");
    let nonce = v.array::<24>("nonce");
    let subkey = reference::hchacha::<chacha_core::R20>(&v.array("key"), nonce[..16].try_into().unwrap());
    let mut ietf_nonce = [0u8; 12];
    ietf_nonce[4..].copy_from_slice(&nonce[16..]);
    let block0 = reference::block::<chacha_core::R20, chacha_core::Ietf>(
        &chacha_core::State::new(&subkey, &ietf_nonce),
        0,
    );
    assert_eq!(block0[..32], v.bytes("one-time-key"));
}

fn poly1305_vectors() -> impl Iterator<Item = &'static Vector> {
    let vectors: Vec<_> = all().iter().filter(|v| v.name.starts_with("rfc8439-poly1305-")).collect();
    assert_eq!(vectors.len(), 12, "§2.5.2 and A.3 #1–#11");
    vectors.into_iter()
}

#[test]
fn poly1305_vectors_with_the_reference() {
    for v in poly1305_vectors() {
        assert_eq!(reference::poly1305(&v.array("key"), &v.bytes("message")), v.array("tag"), "{}", v.name);
    }
}

#[test]
fn poly1305_vectors_on_every_backend_in_every_split() {
    for v in poly1305_vectors() {
        let (key, message, tag) = (v.array::<32>("key"), v.bytes("message"), v.array::<16>("tag"));
        for backend in backends() {
            for split in 0..=message.len() {
                let mut mac = Poly1305::new(&key);
                mac.update_with(backend, &message[..split]);
                mac.update_with(backend, &message[split..]);
                assert_eq!(mac.tag(), tag, "{} on {backend:?}, split at {split}", v.name);
            }
        }
        let mut mac = Poly1305::new(&key);
        for byte in &message {
            mac.update(core::slice::from_ref(byte));
        }
        assert_eq!(mac.tag(), tag, "{}: portable, a byte at a time", v.name);
    }
}
