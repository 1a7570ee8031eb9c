//! Every peer gives the same bytes as ours, through `new()` and on every available backend,
//! for every variant and every RNG; every ChaCha20-Poly1305 and XChaCha20-Poly1305 the same
//! ciphertext and tag, opens what every other one sealed and refuses every forgery; every
//! Poly1305 the same tags: the check the report makes before measuring. No timing here: speed lives in the benches
//! and the report.
//!
//! OpenSSL and libsodium are loaded at run time; where one is missing its peer is absent
//! (the report says so) and these tests cover the others.
#![forbid(unsafe_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use chacha_bench::{
    AAD, AEAD_CHECK_LEN, AEAD_OPEN_CHECK_LEN, AeadAlgorithm, Algorithm, Backend, CHECK_LEN, ChunkedOp,
    MAC_CHECK_LEN, OPENSSL_AVX2_CAP, OURS, PAR_CHECK_LEN, Peer, RNG_CHECK_LEN, RNG_SETUP_CHECK_LEN,
    RngVariant, Workload, aead_implementations, aead_on_ours, check_agreement, chunked_check_len,
    cipher_implementations, compare, implementations, mac_implementations, seal_nonce, sodium, transcript,
    xseal_nonce,
};

fn peers() -> Vec<Peer> {
    Peer::in_process_available()
}

#[test]
fn every_peer_and_backend_gives_our_bytes() {
    let backends: Vec<Backend> = Backend::available().collect();
    assert!(!backends.is_empty());
    for variant in Algorithm::ALL {
        let mut impls = cipher_implementations(variant, &backends, &peers());
        assert_eq!(impls[0].name, OURS);
        assert!(impls.len() > backends.len() + 1, "{variant:?}: no peer offers it");
        assert_eq!(check_agreement(&mut impls), Ok(CHECK_LEN), "{variant:?}");
    }
}

#[test]
fn every_workload_agrees_through_transcripts() {
    let backends: Vec<Backend> = Backend::available().collect();
    for w in Workload::all() {
        let list: Vec<(String, Vec<u8>)> = implementations(w, &backends, &peers())
            .iter_mut()
            .map(|e| (e.name().to_string(), transcript(w, e)))
            .collect();
        // Ours (`new()` and each backend) and a peer (for the AEADs and STREAM the published
        // crate, for Poly1305 the published poly1305: they need no system library; for
        // secretstream libsodium, the only one, when it loads); for a parallel workload, the
        // parallel call and the sequential one at least.
        let ours = match w {
            Workload::ParCipher(_) | Workload::ParRng(_) => 1,
            _ => {
                assert_eq!(list[0].0, OURS, "{w:?}");
                backends.len() + 1
            }
        };
        let only_libsodium = matches!(w, Workload::Chunked(op) if op != ChunkedOp::StreamSeal);
        assert!(list.len() > ours || (only_libsodium && sodium().is_err()), "{w:?}: no peer");
        let expected = match w {
            Workload::Cipher { .. } => 2 * CHECK_LEN,
            Workload::Rng(_) => RNG_CHECK_LEN,
            Workload::RngSetup(_) => RNG_SETUP_CHECK_LEN,
            Workload::Aead { open: false, .. } => AEAD_CHECK_LEN,
            Workload::Aead { open: true, .. } => AEAD_OPEN_CHECK_LEN,
            Workload::Poly1305 => MAC_CHECK_LEN,
            Workload::ParCipher(_) => 2 * CHECK_LEN + PAR_CHECK_LEN,
            Workload::ParRng(_) => RNG_CHECK_LEN + PAR_CHECK_LEN,
            Workload::Chunked(op) => chunked_check_len(op),
        };
        assert_eq!(compare(w, &list), Ok(expected), "{w:?}");
    }
}

#[test]
fn each_peer_offers_what_it_claims() {
    let backends: Vec<Backend> = Backend::available().collect();
    for w in Workload::all() {
        let list = implementations(w, &backends, &peers());
        for peer in peers() {
            let present = list.iter().any(|e| e.name() == peer.label());
            assert_eq!(present, w.offered_by(peer), "{peer:?} {w:?}");
        }
    }
    // The worker peers never run in process.
    assert!(
        implementations(Workload::Rng(RngVariant::ChaCha8), &[], &[Peer::PublishedAvx512, Peer::OpenSslAvx2])
            .is_empty()
    );
}

#[test]
fn a_disagreement_is_reported() {
    // ChaCha12 where ChaCha20 is expected: same nonce size, different bytes.
    let backends: Vec<Backend> = Backend::available().collect();
    let mut mixed = cipher_implementations(Algorithm::ChaCha20, &backends[..1], &[]);
    mixed.extend(cipher_implementations(Algorithm::ChaCha12, &backends[..1], &[]));
    let err = check_agreement(&mut mixed).expect_err("ChaCha12 is not ChaCha20");
    assert!(err.contains("differs from"), "{err}");

    let w = Workload::Rng(RngVariant::ChaCha20);
    let mut a = implementations(w, &backends[..1], &[]);
    let mut b = implementations(Workload::Rng(RngVariant::ChaCha8), &backends[..1], &[]);
    let list = vec![
        ("ours-20".to_string(), transcript(w, &mut a[0])),
        ("ours-8".to_string(), transcript(w, &mut b[0])),
    ];
    let err = compare(w, &list).expect_err("ChaCha8Rng is not ChaCha20Rng");
    assert!(err.contains("ours-8 differs from ours-20"), "{err}");
}

/// Every in-process AEAD (ours on every backend, the peers) seals a message the same way,
/// and the published AEAD over our ChaCha20 (its type parameter: what the patched build's
/// `ChaCha20Poly1305` is) agrees with them; this package's published `ChaCha20Poly1305`
/// runs on the published chacha20.
#[test]
fn our_chacha20_under_the_aead_gives_the_peers_bytes() {
    use chacha20poly1305::aead::{AeadInOut, KeyInit};
    assert!(!aead_on_ours(), "this package's chacha20poly1305 must run on the published chacha20");
    let backends: Vec<_> = Backend::available().collect();
    let mut impls = aead_implementations(AeadAlgorithm::ChaCha20Poly1305, &backends, &peers());
    assert!(impls.len() >= 3 + backends.len(), "ours, the published AEAD and ring need no system library");
    let ours = chacha20poly1305::ChaChaPoly1305::<chacha20::ChaCha20>::new(&chacha_bench::KEY.into());
    for len in [0, 1, 64, 65, 1000, 4103] {
        let message: Vec<u8> = (0..len).map(|i| i as u8).collect();
        let nonce = seal_nonce(len as u64);
        let mut expected = message.clone();
        let tag = ours.encrypt_inout_detached(&nonce.into(), AAD, expected.as_mut_slice().into()).unwrap();
        for imp in &mut impls {
            let mut buf = message.clone();
            assert_eq!(imp.seal(&nonce, &mut buf), tag.as_slice(), "{} tag, {len} B", imp.name);
            assert_eq!(buf, expected, "{} ciphertext, {len} B", imp.name);
        }
    }
}

/// The bench binary as a command. `CHACHA_TEST_RUNNER`, if set, is the command line that
/// runs the target's binaries (as Cargo's runner runs the test binaries):
/// `scripts/cross-test.sh i686` runs them through the 32-bit C library's loader, which a
/// machine without Debian's `libc6-i386` has only there, so a direct start of the binary
/// fails with "No such file or directory".
fn worker_command() -> Command {
    let exe = env!("CARGO_BIN_EXE_chacha-bench");
    let runner = std::env::var("CHACHA_TEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut command = Command::new(program);
            command.args(words).arg(exe);
            command
        }
        None => Command::new(exe),
    }
}

/// The report's worker process answers the protocol and gives the same bytes as this
/// process: OpenSSL with its AVX-512 code masked (as the report runs it), or, without
/// libcrypto, the published crate.
#[test]
fn a_worker_process_gives_the_same_bytes() {
    let peer = if Peer::OpenSsl.unavailable().is_none() { Peer::OpenSsl } else { Peer::Published };
    let mut child = worker_command()
        .args(["--worker", "--peers", peer.id()])
        .env("OPENSSL_ia32cap", OPENSSL_AVX2_CAP)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the worker");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |line: &str| {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let mut reply = String::new();
        stdout.read_line(&mut reply).unwrap();
        reply.trim_end().to_string()
    };
    assert!(ask("hello").starts_with("ok avx512_cfg="));
    let w = Workload::Cipher { variant: Algorithm::ChaCha20, fresh: false };
    assert_eq!(ask("implementations chacha20"), format!("ok {}", peer.label()));
    let hex = ask("check chacha20");
    let mut ours = implementations(w, &Backend::available().collect::<Vec<_>>()[..1], &[]);
    let expected: String = transcript(w, &mut ours[0]).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, format!("ok {expected}"));
    let calls = ask("prepare 1 chacha20 0 64 100000");
    assert!(calls.starts_with("ok "), "{calls}");
    assert!(ask("batch 1 3").starts_with("ok "));
    assert_eq!(ask("drop 1"), "ok");
    assert!(ask("frobnicate").starts_with("err "));
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// Each AEAD implementation opens what every other one sealed (in place, tag apart) and
/// gives the message back, and refuses the message with one bit of the ciphertext, the tag
/// or the nonce changed. What a refusal leaves in the buffer differs, and each is held to
/// its own: ours and the published crate leave the ciphertext; libsodium and ring zero the
/// buffer (ring decrypts, then zeroes what it wrote); OpenSSL's EVP leaves the plaintext
/// it wrote before it checked the tag, so only its verdict is checked.
#[test]
fn every_aead_opens_what_every_other_sealed() {
    let backends: Vec<Backend> = Backend::available().collect();
    let openssl = Peer::OpenSsl.label();
    let zeroes = [Peer::Sodium.label(), Peer::Ring.label()];
    for algorithm in AeadAlgorithm::ALL {
        let mut impls = aead_implementations(algorithm, &backends, &peers());
        assert!(impls.len() >= backends.len() + 2, "{algorithm:?}: ours and the published crate");
        let n = algorithm.nonce_len();
        for len in [0, 1, 64, 65, 1000, 4103] {
            let message: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
            let nonce = xseal_nonce(len as u64);
            let other = xseal_nonce(len as u64 + 1);
            for s in 0..impls.len() {
                let mut sealed = message.clone();
                let tag = impls[s].seal(&nonce[..n], &mut sealed);
                for o in 0..impls.len() {
                    let who = format!(
                        "{algorithm:?} {len} B sealed by {}, opened by {}",
                        impls[s].name, impls[o].name
                    );
                    let mut buf = sealed.clone();
                    assert!(impls[o].open(&nonce[..n], &mut buf, &tag), "{who}");
                    assert_eq!(buf, message, "{who}");
                    let mut forged_tag = tag;
                    forged_tag[len % 16] ^= 1;
                    let mut forged_text = sealed.clone();
                    if let Some(b) = forged_text.get_mut(len / 2) {
                        *b ^= 0x40;
                    }
                    let cases = [
                        ("tag", &nonce, sealed.clone(), forged_tag),
                        ("ciphertext", &nonce, forged_text.clone(), tag),
                        ("nonce", &other, sealed.clone(), tag),
                    ];
                    for (what, nonce, text, tag) in cases {
                        if what == "ciphertext" && len == 0 {
                            continue;
                        }
                        let mut buf = text.clone();
                        assert!(
                            !impls[o].open(&nonce[..n], &mut buf, &tag),
                            "{who}: a changed {what} opened"
                        );
                        if zeroes.contains(&impls[o].name) {
                            assert!(buf.iter().all(|&b| b == 0), "{who}: a refused {what} is zeroed");
                        } else if impls[o].name != openssl {
                            assert_eq!(buf, text, "{who}: a refused {what} changed the buffer");
                        }
                    }
                }
            }
        }
    }
}

/// Every Poly1305 (ours on every backend and through `detect`, the published crate,
/// OpenSSL's and libsodium's where they load) gives RFC 8439 §2.5.2's tag, and the same tag
/// as the others for messages of every length up to a few blocks past each kernel's stride.
#[test]
fn every_poly1305_gives_the_same_tags() {
    let backends: Vec<Backend> = Backend::available().collect();
    let mut macs = mac_implementations(&backends, &peers());
    assert!(macs.len() >= backends.len() + 2, "ours and the published poly1305");
    // RFC 8439 §2.5.2.
    let key: [u8; 32] = *b"\x85\xd6\xbe\x78\x57\x55\x6d\x33\x7f\x44\x52\xfe\x42\xd5\x06\xa8\
                           \x01\x03\x80\x8a\xfb\x0d\xb2\xfd\x4a\xbf\xf6\xaf\x41\x49\xf5\x1b";
    let tag = *b"\xa8\x06\x1d\xc1\x30\x51\x36\xc6\xc2\x2b\x8b\xaf\x0c\x01\x27\xa9";
    for m in &mut macs {
        assert_eq!(m.mac(&key, b"Cryptographic Forum Research Group"), tag, "{}", m.name);
    }
    for len in 0..300 {
        let msg: Vec<u8> = (0..len).map(|i| (i * 13 + len) as u8).collect();
        let mut key = [0xffu8; 32];
        key[len % 32] = len as u8;
        let expected = macs[0].mac(&key, &msg);
        for m in &mut macs[1..] {
            assert_eq!(m.mac(&key, &msg), expected, "{} at {len} B", m.name);
        }
    }
}
