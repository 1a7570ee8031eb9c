//! `chacha-ctgrind`: constant-time evidence under valgrind's memcheck (the "ctgrind" method:
//! secrets marked as undefined memory, so that memcheck reports every conditional jump,
//! conditional move and memory address that depends on them).
//!
//! It marks the key, the nonce (the RNG's seed and stream) and the input data undefined,
//! then runs every backend that `Backend::available()` returns under valgrind (which hides
//! AVX-512 from the CPUID it emulates, so that is soft, sse2 and avx2 here) through both
//! fronts: `chacha20`'s ChaCha20, ChaCha20Legacy and XChaCha20 (in place on a fresh and on a
//! warm instance, so the short-call batching runs too, and buffer to buffer), and
//! `chacha-rng`'s `ChaChaRng` (seeding, `set_stream`, `fill_bytes`, `next_u32`, `next_u64`)
//! and `ChaChaCore` under `BlockRng`, and `chacha20poly1305`'s ChaCha20-Poly1305 and
//! XChaCha20-Poly1305 sealing (in place and buffer to buffer, the data as associated data
//! too) and Poly1305 alone on each backend's MAC kernel, over lengths 0, 1, 63, 64, 65,
//! 256, 600, 1000, 1600 and 4096. Opening is its bulk step (`Aead::mac_then_xor`: the MAC of the
//! ciphertext and the XOR, which on `avx2` is a loop of its own) and then the tag
//! comparison, whose verdict is public by design and branched on (memcheck cannot be told
//! so inside the library): the bulk step runs here, through the kernel API; the comparison
//! does not, and `tags_equal`'s own test and its `black_box` keep it free of early exits.
//! Only then does it mark its outputs defined, and compares each backend's transcript with
//! the portable backend's (so valgrind really ran the code).
//!
//! `--control` instead branches on a key byte and indexes a table with one, which memcheck
//! must report: `scripts/ct-test.sh` runs that mode expecting the failure, so the test is
//! shown to be able to fail. What a pass proves and what not: the "Constant-time evidence"
//! section of the `chacha-backends` README.

#[cfg(target_arch = "x86_64")]
mod memcheck;

#[cfg(target_arch = "x86_64")]
fn main() -> std::process::ExitCode {
    use std::process::ExitCode;
    if !memcheck::running_on_valgrind() {
        eprintln!(
            "chacha-ctgrind must run under valgrind's memcheck (scripts/ct-test.sh): natively it proves nothing"
        );
        return ExitCode::FAILURE;
    }
    let mut secrets = Secrets::new();
    memcheck::make_undefined(&mut secrets.key);
    memcheck::make_undefined(&mut secrets.nonce);
    memcheck::make_undefined(&mut secrets.data);
    if std::env::args().any(|a| a == "--control") {
        control(&secrets);
        return ExitCode::SUCCESS;
    }
    match run(&secrets) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() -> std::process::ExitCode {
    eprintln!("chacha-ctgrind issues valgrind client requests for x86_64 only");
    std::process::ExitCode::FAILURE
}

use chacha_rng::rand_core::Rng;
use chacha_rng::rand_core::block::BlockRng;
use chacha_rng::{ChaChaCore, ChaChaRng, Legacy, R12, R20};
use chacha20::cipher::StreamCipher;
use chacha20::{Backend, ChaCha20, ChaCha20Legacy, XChaCha20};
use chacha20poly1305::aead::{AeadInOut, inout::InOutBuf};
use chacha20poly1305::{ChaCha20Poly1305, XChaCha20Poly1305};

/// Request lengths: empty, one byte, around one block, several blocks, a partial block
/// after whole ones, every AEAD path (the short seal of up to 8 blocks, its 9–12-block
/// form, the default pieces, the stitched loop with one Poly1305 chain below 2 KiB and two
/// from there on `avx2`), and the widest kernels' loops.
const LENGTHS: [usize; 10] = [0, 1, 63, 64, 65, 256, 600, 1000, 1600, 4096];

/// What memcheck is told is secret: key (and RNG seed), nonce (and RNG stream), data.
struct Secrets {
    key: [u8; 32],
    nonce: [u8; 24],
    data: Vec<u8>,
}

impl Secrets {
    /// Fixed values: the test is about which instructions depend on them, not their value.
    fn new() -> Self {
        Secrets {
            key: core::array::from_fn(|i| (i as u8).wrapping_mul(29).wrapping_add(3)),
            nonce: core::array::from_fn(|i| (i as u8).wrapping_mul(71).wrapping_add(5)),
            data: (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect(),
        }
    }
}

/// Every backend valgrind runs, through both fronts; then the outputs, marked defined,
/// must be equal across backends.
#[cfg(target_arch = "x86_64")]
fn run(s: &Secrets) -> Result<(), String> {
    let backends: Vec<Backend> = Backend::available().collect();
    let names: Vec<&str> = backends.iter().map(|b| b.name()).collect();
    println!("backends under valgrind: {}", names.join(", "));
    // The CI's list of backends this machine must exercise, less AVX-512 (which valgrind
    // cannot execute, and hides): a backend missing here would go unchecked silently.
    if let Ok(expected) = std::env::var("CHACHA_EXPECT_BACKENDS") {
        for name in expected.split(',').map(str::trim).filter(|n| !n.is_empty() && *n != "avx512") {
            if !names.contains(&name) {
                return Err(format!(
                    "CHACHA_EXPECT_BACKENDS lists {name}; available under valgrind: {names:?}"
                ));
            }
        }
    }
    if names.contains(&"avx512") {
        return Err("valgrind reports AVX-512: this valgrind would run instructions it cannot check".into());
    }
    let mut transcripts = Vec::new();
    for &backend in &backends {
        let mut t = transcript(s, backend);
        memcheck::make_defined(&mut t);
        transcripts.push(t);
    }
    let (last, others) = transcripts.split_last().ok_or("no backend available")?;
    for (name, t) in names.iter().zip(others) {
        if t != last {
            return Err(format!("{name} and {} differ under valgrind", names[names.len() - 1]));
        }
    }
    // The free function on the detected backend, once.
    let mut subkey =
        chacha20::hchacha::<R20>(&s.key.into(), &<[u8; 16]>::try_from(&s.nonce[..16]).expect("16").into());
    memcheck::make_defined(&mut subkey);
    println!(
        "{} backends x {} lengths through ChaCha20, ChaCha20Legacy, XChaCha20, ChaChaRng, ChaChaCore, (X)ChaCha20-Poly1305 sealing, opening's bulk step, Poly1305: {} output bytes, equal across backends",
        backends.len(),
        LENGTHS.len(),
        last.len()
    );
    Ok(())
}

/// Everything one backend computes from the secrets, concatenated (still undefined).
fn transcript(s: &Secrets, backend: Backend) -> Vec<u8> {
    let mut out = Vec::new();
    let nonce12: &[u8; 12] = s.nonce[..12].try_into().expect("12 bytes");
    let nonce8: &[u8; 8] = s.nonce[..8].try_into().expect("8 bytes");
    for len in LENGTHS {
        let data = &s.data[..len];
        stream(&mut out, data, ChaCha20::with_backend(&s.key, nonce12, backend));
        stream(&mut out, data, ChaCha20Legacy::with_backend(&s.key, nonce8, backend));
        stream(&mut out, data, XChaCha20::with_backend(&s.key, &s.nonce, backend));

        let mut b2b = vec![0u8; len];
        ChaCha20::with_backend(&s.key, nonce12, backend).apply_keystream_b2b(data, &mut b2b);
        out.extend_from_slice(&b2b);

        let mut rng = ChaChaRng::<R20>::with_backend(s.key, backend);
        rng.set_stream(u64::from_le_bytes(*nonce8));
        let mut bytes = vec![0u8; len];
        rng.fill_bytes(&mut bytes);
        out.extend_from_slice(&bytes);
        out.extend_from_slice(&rng.next_u32().to_le_bytes());
        out.extend_from_slice(&rng.next_u64().to_le_bytes());

        let mut core = BlockRng::new(ChaChaCore::<R12, Legacy>::with_kernel(s.key, backend));
        core.fill_bytes(&mut bytes);
        out.extend_from_slice(&bytes);
        out.extend_from_slice(&core.next_word().to_le_bytes());

        aead(&mut out, s, data, backend);
    }
    out
}

/// ChaCha20-Poly1305 and XChaCha20-Poly1305 sealing `data` (also as associated data) in
/// place and buffer to buffer, and Poly1305 alone, on `backend`.
fn aead(out: &mut Vec<u8>, s: &Secrets, data: &[u8], backend: Backend) {
    let chacha = ChaCha20Poly1305::with_backend(&s.key.into(), backend);
    let xchacha = XChaCha20Poly1305::with_backend(&s.key.into(), backend);
    let nonce12: [u8; 12] = s.nonce[..12].try_into().expect("12 bytes");
    let mut buf = data.to_vec();
    let tag =
        chacha.encrypt_inout_detached(&nonce12.into(), data, InOutBuf::from(&mut buf[..])).expect("fits");
    out.extend_from_slice(&buf);
    out.extend_from_slice(&tag);
    open_step(out, s, &buf, backend);
    let mut b2b = vec![0u8; data.len()];
    let buf = InOutBuf::new(data, &mut b2b).expect("same lengths");
    let tag =
        xchacha.encrypt_inout_detached(&s.nonce.into(), &data[..data.len().min(13)], buf).expect("fits");
    out.extend_from_slice(&b2b);
    out.extend_from_slice(&tag);
    let mut mac = chacha_core::poly1305::Poly1305::new(&s.key);
    mac.update_with(backend, data);
    out.extend_from_slice(&mac.tag());
}

/// Opening's bulk step on `backend`: the MAC of `ciphertext` (key half from the key, as
/// the AEAD's block 0 would give it, here the secret key's first half) and its XOR back
/// to the plaintext, from block 1 of the ChaCha20 stream, as the AEAD runs it.
fn open_step(out: &mut Vec<u8>, s: &Secrets, ciphertext: &[u8], backend: Backend) {
    use chacha_core::{Aead, Ietf, State, XorBuf};
    let nonce12: &[u8; 12] = s.nonce[..12].try_into().expect("12 bytes");
    let mut state = State::<Ietf>::new(&s.key, nonce12);
    state.advance(1).expect("block 1 exists");
    let r: &[u8; 16] = s.key[..16].try_into().expect("16 bytes");
    let mut acc = chacha_core::poly1305::Accumulator::new(r);
    let mut plain = ciphertext.to_vec();
    backend.mac_then_xor::<R20>(&state, &mut acc, XorBuf::in_place(&mut plain));
    out.extend_from_slice(&plain);
    out.extend_from_slice(&acc.tag(&[0; 16]));
}

/// `data` XORed on a fresh instance, then again on the now warm one (where calls shorter
/// than the kernel's batch blocks are served from the batching buffer).
fn stream(out: &mut Vec<u8>, data: &[u8], mut cipher: impl StreamCipher) {
    for _ in 0..2 {
        let mut buf = data.to_vec();
        cipher.apply_keystream(&mut buf);
        out.extend_from_slice(&buf);
    }
}

/// Deliberately not constant time: a branch on a key byte and a table index from one.
/// Memcheck must report both.
#[cfg(target_arch = "x86_64")]
fn control(s: &Secrets) {
    let key = std::hint::black_box(s.key);
    if key[0] == 0x42 {
        println!("control: key byte 0 is 0x42");
    }
    let table: [u8; 256] = core::array::from_fn(|i| i as u8);
    std::hint::black_box(std::hint::black_box(&table)[usize::from(key[1])]);
    println!("control: ran a branch and a table lookup on key bytes");
}
