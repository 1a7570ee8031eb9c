//! A program written for the published `chacha20` 0.10 crate, unchanged.
//!
//! It builds against this crate with the same Cargo.toml line, only pointing elsewhere:
//! `chacha20 = { version = "0.10", features = ["legacy", "xchacha"] }` becomes
//! `chacha20 = { path = "…/chacha20", features = ["legacy", "xchacha"] }`. `.ci/run`
//! builds and runs this file against both crates and checks that they print the same.

use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use chacha20::{ChaCha20, ChaCha20Legacy, Key, LegacyNonce, Nonce, XChaCha20, XNonce};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn main() {
    let key = Key::from([0x42; 32]);
    let nonce = Nonce::from([0x24; 12]);
    let message = b"Attack at dawn, and bring the ChaCha: 64-byte blocks, any length, any split.";

    // Encrypt in place, decrypt after seeking back.
    let mut cipher = ChaCha20::new(&key, &nonce);
    let mut buffer = *message;
    cipher.apply_keystream(&mut buffer);
    println!("chacha20    {}", hex(&buffer));
    cipher.seek(0u32);
    cipher.apply_keystream(&mut buffer);
    assert_eq!(&buffer, message);

    // Chunked and from a position; buffer-to-buffer.
    let mut cipher = ChaCha20::new_from_slices(&[7; 32], &[9; 12]).expect("sizes are right");
    cipher.seek(1000u64);
    let mut out = [0u8; 150];
    cipher.apply_keystream_b2b(&[0x11; 150], &mut out);
    println!("seek+b2b    {} pos {}", hex(&out), cipher.current_pos::<u64>());
    let mut parts = [0u8; 200];
    for chunk in parts.chunks_mut(33) {
        cipher.apply_keystream(chunk);
    }
    println!("chunks      {}", hex(&parts));

    // Asking for more than the stream holds is an error, not wrapped keystream.
    let cipher = ChaCha20::new(&key, &nonce);
    println!("too long    {:?}", cipher.check_remaining(usize::MAX).is_err());

    // XChaCha20 with a 24-byte nonce; ChaCha20 with the original 8-byte nonce.
    let mut x = XChaCha20::new(&key, &XNonce::from([0x5a; 24]));
    let mut xbuf = [0u8; 100];
    x.apply_keystream(&mut xbuf);
    println!("xchacha20   {}", hex(&xbuf));
    let mut legacy = ChaCha20Legacy::new(&key, &LegacyNonce::from([0x33; 8]));
    let mut lbuf = [0u8; 100];
    legacy.write_keystream(&mut lbuf);
    println!("legacy      {}", hex(&lbuf));
}
