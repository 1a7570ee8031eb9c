//! Every peer gives the same bytes as ours, through `new()` and on every available backend,
//! for every variant and every RNG, and every ChaCha20-Poly1305 the same ciphertext and tag:
//! the check the report makes before measuring. No timing here: speed lives in the benches
//! and the report.
//!
//! OpenSSL and libsodium are loaded at run time; where one is missing its peer is absent
//! (the report says so) and these tests cover the others.
#![forbid(unsafe_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use chacha_bench::{
    AAD, AEAD_CHECK_LEN, Algorithm, Backend, CHECK_LEN, OPENSSL_AVX2_CAP, OURS, PAR_CHECK_LEN, Peer,
    RNG_CHECK_LEN, RNG_SETUP_CHECK_LEN, RngVariant, Workload, aead_implementations, aead_on_ours,
    check_agreement, compare, entrants, implementations, seal_nonce, transcript,
};

fn peers() -> Vec<Peer> {
    Peer::in_process_available()
}

#[test]
fn every_peer_and_backend_gives_our_bytes() {
    let backends: Vec<Backend> = Backend::available().collect();
    assert!(!backends.is_empty());
    for variant in Algorithm::ALL {
        let mut impls = implementations(variant, &backends, &peers());
        assert_eq!(impls[0].name, OURS);
        assert!(impls.len() > backends.len() + 1, "{variant:?}: no peer offers it");
        assert_eq!(check_agreement(&mut impls), Ok(CHECK_LEN), "{variant:?}");
    }
}

#[test]
fn every_workload_agrees_through_transcripts() {
    let backends: Vec<Backend> = Backend::available().collect();
    for w in Workload::all() {
        let list: Vec<(String, Vec<u8>)> = entrants(w, &backends, &peers())
            .iter_mut()
            .map(|e| (e.name().to_string(), transcript(w, e)))
            .collect();
        // Ours (`new()` and each backend) and a peer, or for the AEAD two peers at least
        // (the published crate and ring, which need no system library); for a parallel
        // workload, the parallel call and the sequential one at least.
        let ours = match w {
            Workload::Aead => 0,
            Workload::ParCipher(_) | Workload::ParRng(_) => 1,
            _ => backends.len() + 1,
        };
        assert!(list.len() > ours.max(1), "{w:?}: no peer");
        let expected = match w {
            Workload::Cipher { .. } => 2 * CHECK_LEN,
            Workload::Rng(_) => RNG_CHECK_LEN,
            Workload::RngSetup(_) => RNG_SETUP_CHECK_LEN,
            Workload::Aead => AEAD_CHECK_LEN,
            Workload::ParCipher(_) => 2 * CHECK_LEN + PAR_CHECK_LEN,
            Workload::ParRng(_) => RNG_CHECK_LEN + PAR_CHECK_LEN,
        };
        assert_eq!(compare(w, &list), Ok(expected), "{w:?}");
    }
}

#[test]
fn each_peer_offers_what_it_claims() {
    let backends: Vec<Backend> = Backend::available().collect();
    for w in Workload::all() {
        let list = entrants(w, &backends, &peers());
        for peer in peers() {
            let present = list.iter().any(|e| e.name() == peer.label());
            assert_eq!(present, w.offered_by(peer), "{peer:?} {w:?}");
        }
    }
    // The worker peers never run in process.
    assert!(
        entrants(Workload::Rng(RngVariant::ChaCha8), &[], &[Peer::PublishedAvx512, Peer::OpenSslAvx2])
            .is_empty()
    );
}

#[test]
fn a_disagreement_is_reported() {
    // ChaCha12 where ChaCha20 is expected: same nonce size, different bytes.
    let backends: Vec<Backend> = Backend::available().collect();
    let mut mixed = implementations(Algorithm::ChaCha20, &backends[..1], &[]);
    mixed.extend(implementations(Algorithm::ChaCha12, &backends[..1], &[]));
    let err = check_agreement(&mut mixed).expect_err("ChaCha12 is not ChaCha20");
    assert!(err.contains("differs from"), "{err}");

    let w = Workload::Rng(RngVariant::ChaCha20);
    let mut a = entrants(w, &backends[..1], &[]);
    let mut b = entrants(Workload::Rng(RngVariant::ChaCha8), &backends[..1], &[]);
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
    let mut impls = aead_implementations(&backends, &peers());
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
    assert_eq!(ask("entrants chacha20"), format!("ok {}", peer.label()));
    let hex = ask("check chacha20");
    let mut ours = entrants(w, &Backend::available().collect::<Vec<_>>()[..1], &[]);
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
