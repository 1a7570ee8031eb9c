//! Checks that one `[patch.crates-io]` line put `rand` and `chacha20poly1305` on this
//! workspace's `chacha20`, and that they still give the right answers:
//! - the lock file resolves `chacha20` to the path, not to crates.io;
//! - RFC 8439 §2.8.2's AEAD test vector through `ChaCha20Poly1305`;
//! - an `XChaCha20Poly1305` round trip, and a forged tag refused;
//! - `StdRng::from_seed(s)` gives our `ChaCha12Rng::from_seed(s)`'s output;
//! - `rand::rng()` (ThreadRng, on our `ChaChaCore`) produces values.
//!
//! Exits non-zero, saying what failed, otherwise.

use chacha20poly1305::aead::{Aead, AeadInOut, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, XChaCha20Poly1305};
use rand::rngs::StdRng;
use rand::{Rng, RngExt, SeedableRng};

fn unhex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(u8::is_ascii_hexdigit).collect();
    digits.chunks(2).map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap()).collect()
}

fn check(what: &str, ok: bool) -> bool {
    println!("{} {what}", if ok { "ok  " } else { "FAIL" });
    ok
}

/// The `[[package]]` entry of `chacha20` 0.10.x in this project's lock file has no
/// `source`: it is the path dependency of the patch, not the registry crate.
fn lock_file_uses_the_path() -> bool {
    let lock = include_str!("../Cargo.lock");
    let entries: Vec<&str> = lock.split("[[package]]").filter(|e| e.contains("name = \"chacha20\"\n")).collect();
    entries.len() == 1 && entries[0].contains("version = \"0.10.") && !entries[0].contains("source =")
}

/// RFC 8439 §2.8.2.
fn rfc8439_2_8_2() -> bool {
    let key = unhex("80818283848586878889 8a8b8c8d8e8f90919293949596979899 9a9b9c9d9e9f");
    let nonce = unhex("070000004041424344454647");
    let aad = unhex("50515253c0c1c2c3c4c5c6c7");
    let plaintext = b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.";
    let ciphertext = unhex(
        "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6
         3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36
         92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc
         3ff4def08e4b7a9de576d26586cec64b6116",
    );
    let tag = unhex("1ae10b594f09e26a7e902ecbd0600691");
    let aead = ChaCha20Poly1305::new_from_slice(&key).unwrap();
    let sealed = aead.encrypt(nonce.as_slice().try_into().unwrap(), Payload { msg: plaintext, aad: &aad }).unwrap();
    let opened = aead.decrypt(nonce.as_slice().try_into().unwrap(), Payload { msg: &sealed, aad: &aad });
    sealed[..plaintext.len()] == ciphertext[..] && sealed[plaintext.len()..] == tag[..] && opened.as_deref() == Ok(&plaintext[..])
}

fn xchacha_round_trip() -> bool {
    let aead = XChaCha20Poly1305::new(&[0x42; 32].into());
    let nonce = [0x24; 24].into();
    let mut buf = b"the same bytes back, or an error".to_vec();
    let tag = aead.encrypt_inout_detached(&nonce, b"header", buf.as_mut_slice().into()).unwrap();
    let sealed = buf.clone();
    let back = aead.decrypt_inout_detached(&nonce, b"header", buf.as_mut_slice().into(), &tag).is_ok()
        && buf == b"the same bytes back, or an error";
    let mut forged = tag;
    forged[0] ^= 1;
    let mut again = sealed;
    let refused = aead.decrypt_inout_detached(&nonce, b"header", again.as_mut_slice().into(), &forged).is_err();
    back && refused
}

fn std_rng_is_our_chacha12() -> bool {
    let seed = [7u8; 32];
    let mut theirs = StdRng::from_seed(seed);
    let mut ours = chacha20::ChaCha12Rng::from_seed(seed);
    let (mut a, mut b) = ([0u8; 3000], [0u8; 3000]);
    theirs.fill_bytes(&mut a);
    ours.fill_bytes(&mut b);
    a == b && theirs.next_u64() == ours.next_u64()
}

fn thread_rng_draws() -> bool {
    let mut rng = rand::rng();
    let draws: Vec<u64> = (0..100_000).map(|_| rng.random()).collect();
    let distinct = draws.iter().collect::<std::collections::HashSet<_>>().len();
    distinct > 99_990
}

fn main() -> std::process::ExitCode {
    println!("chacha20 under rand and chacha20poly1305: ours, on the {} backend", chacha20::Backend::detect().name());
    let all = [
        check("Cargo.lock resolves chacha20 to the patched path", lock_file_uses_the_path()),
        check("ChaCha20Poly1305: RFC 8439 §2.8.2 test vector", rfc8439_2_8_2()),
        check("XChaCha20Poly1305: round trip, forged tag refused", xchacha_round_trip()),
        check("StdRng::from_seed == chacha20::ChaCha12Rng::from_seed", std_rng_is_our_chacha12()),
        check("rand::rng() draws 100000 distinct-looking u64s", thread_rng_draws()),
    ];
    if all.iter().all(|&ok| ok) { std::process::ExitCode::SUCCESS } else { std::process::ExitCode::FAILURE }
}
