//! Encrypts a file in 64 KiB chunks with libsodium's secretstream (this crate's
//! `secretstream` feature), then decrypts it back and checks it against the original, with
//! a progress bar for each pass.
//!
//! ```sh
//! cargo run --release -p chacha20poly1305@0.11.100 --features secretstream \
//!     --example encrypt_file -- FILE        # writes FILE.secretstream
//! cargo run --release -p chacha20poly1305@0.11.100 --features secretstream \
//!     --example encrypt_file                # a 64 MiB file of its own, in the temp dir
//! ```
//!
//! The encrypted file is the 24-byte header, then the chunks, each 17 bytes longer than
//! its message (libsodium's layout, so libsodium and its bindings read it with the same
//! key); the last chunk has the `Final` tag, so a file cut short fails to decrypt. The key
//! is random and lives only while the program runs: a real tool derives it from a
//! password (Argon2, as libsodium's `crypto_pwhash`) or takes it from a key file.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use chacha20poly1305::Key;
use chacha20poly1305::aead::Generate;
use chacha20poly1305::secretstream::{ABYTES, Decryptor, Encryptor, HEADER_LEN, Header, Tag};
use indicatif::{ProgressBar, ProgressStyle};

/// Bytes of plaintext per chunk.
const CHUNK: usize = 64 * 1024;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let input = match std::env::args_os().nth(1) {
        Some(path) => PathBuf::from(path),
        None => sample_file()?,
    };
    let mut sealed = input.clone().into_os_string();
    sealed.push(".secretstream");
    let sealed = PathBuf::from(sealed);

    let key = Key::generate();
    encrypt(&key, &input, &sealed)?;
    decrypt_and_compare(&key, &sealed, &input)?;
    println!("{} → {}: decrypted back and equal to the original", input.display(), sealed.display());
    Ok(())
}

/// A progress bar over `len` bytes.
fn bar(len: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg:>10} [{bar:40}] {bytes}/{total_bytes} {binary_bytes_per_sec} {eta}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// Reads up to `buf.len()` bytes, as many as there are: a short read only at the end.
fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// Writes the header, then each 64 KiB of `input` as a chunk, the last one `Final` (an
/// empty one if the file is a whole number of chunks).
fn encrypt(key: &Key, input: &Path, output: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let len = std::fs::metadata(input)?.len();
    let mut reader = BufReader::new(File::open(input)?);
    let mut writer = BufWriter::new(File::create(output)?);
    let (mut tx, header) = Encryptor::new(key);
    writer.write_all(&header)?;
    // One buffer for every chunk: one byte of room, the message, 16 bytes of room.
    let mut chunk = vec![0u8; CHUNK + ABYTES];
    let progress = bar(len, "encrypting");
    loop {
        let n = read_full(&mut reader, &mut chunk[1..=CHUNK])?;
        let tag = if n < CHUNK { Tag::Final } else { Tag::Message };
        let chunk = &mut chunk[..n + ABYTES];
        tx.push_in_place(chunk, &[], tag)?;
        writer.write_all(chunk)?;
        progress.inc(n as u64);
        if tag == Tag::Final {
            break;
        }
    }
    writer.flush()?;
    progress.finish();
    Ok(())
}

/// Reads the header, then pulls chunk after chunk and compares each with the original;
/// fails on a forged chunk or a stream without its `Final` chunk.
fn decrypt_and_compare(key: &Key, sealed: &Path, original: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let mut reader = BufReader::new(File::open(sealed)?);
    let mut original = BufReader::new(File::open(original)?);
    let mut header = Header::default();
    reader.read_exact(&mut header[..HEADER_LEN])?;
    let mut rx = Decryptor::new(key, &header);
    let mut chunk = vec![0u8; CHUNK + ABYTES];
    let mut expected = vec![0u8; CHUNK];
    let progress = bar(std::fs::metadata(sealed)?.len(), "decrypting");
    while !rx.is_finished() {
        let n = read_full(&mut reader, &mut chunk)?;
        if n == 0 {
            break; // the file ended before the Final chunk: `finish` says so below
        }
        let (msg, _tag) = rx.pull_in_place(&mut chunk[..n], &[])?;
        let m = read_full(&mut original, &mut expected[..msg.len()])?;
        if m != msg.len() || msg != &expected[..m] {
            return Err("the decrypted file differs from the original".into());
        }
        progress.inc(n as u64);
    }
    rx.finish()?;
    if read_full(&mut reader, &mut chunk[..1])? != 0 {
        return Err("bytes after the Final chunk".into());
    }
    progress.finish();
    Ok(())
}

/// A 64 MiB file of pseudo-random bytes in the temp dir (made once).
fn sample_file() -> io::Result<PathBuf> {
    let path = std::env::temp_dir().join("chacha-secretstream-example.bin");
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == 64 << 20) {
        return Ok(path);
    }
    let mut writer = BufWriter::new(File::create(&path)?);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..(64 << 20) / 8 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        writer.write_all(&state.to_le_bytes())?;
    }
    writer.flush()?;
    Ok(path)
}
