//! The workspace's known-answer vectors (and [`filler`], the deterministic test data,
//! [`Guarded`], a buffer between guard bytes, and with the feature `rayon` the `pools` the
//! parallel calls' tests run on), read from `vectors.txt` (next to this crate's
//! `Cargo.toml`; its header describes the format), each once with its source.
//!
//! Every crate's tests and the fuzz seed corpus generator get their vectors here, so a
//! vector is transcribed once and checked everywhere it matters. The parser is strict: an
//! unknown line, a repeated name or field, or a vector without `source` panics on first
//! use, so a damaged file fails every test that reads it rather than skipping vectors.
//!
//! ```
//! let v = chacha_testdata::get("rfc8439-a.1-1");
//! assert_eq!(v.array::<32>("key"), [0; 32]);
//! assert_eq!(v.number("counter"), 0);
//! assert_eq!(v.bytes("keystream")[..2], [0x76, 0xb8]);
//! ```

#[cfg(feature = "rayon")]
pub mod pools;

use std::sync::OnceLock;

/// The vector file, as compiled in.
pub const VECTORS_TXT: &str = include_str!("../vectors.txt");

/// One vector: a name and its fields, in file order.
#[derive(Debug)]
pub struct Vector {
    /// The name in `[...]`.
    pub name: &'static str,
    fields: Vec<(&'static str, String)>,
}

impl Vector {
    /// The field's text (continuation lines joined with one space); panics if it is missing.
    pub fn text(&self, field: &str) -> &str {
        self.get(field).unwrap_or_else(|| panic!("vector {}: no field {field:?}", self.name))
    }

    /// The field's text, if the vector has it.
    pub fn get(&self, field: &str) -> Option<&str> {
        self.fields.iter().find(|(name, _)| *name == field).map(|(_, value)| value.as_str())
    }

    /// Where the vector comes from.
    pub fn source(&self) -> &str {
        self.text("source")
    }

    /// A hex field as bytes (whitespace and `:` ignored).
    pub fn bytes(&self, field: &str) -> Vec<u8> {
        hex(self.text(field)).unwrap_or_else(|e| panic!("vector {}, field {field}: {e}", self.name))
    }

    /// A hex field of exactly `N` bytes.
    pub fn array<const N: usize>(&self, field: &str) -> [u8; N] {
        let bytes = self.bytes(field);
        let len = bytes.len();
        bytes
            .try_into()
            .unwrap_or_else(|_| panic!("vector {}, field {field}: {len} bytes, not {N}", self.name))
    }

    /// A state matrix: sixteen 32-bit words written as the source prints them (most
    /// significant digit first).
    pub fn words(&self, field: &str) -> [u32; 16] {
        let bytes: [u8; 64] = self.array(field);
        core::array::from_fn(|i| {
            u32::from_be_bytes([bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2], bytes[4 * i + 3]])
        })
    }

    /// A number field: decimal, or hex after `0x`.
    pub fn number(&self, field: &str) -> u64 {
        let text = self.text(field);
        let parsed = match text.strip_prefix("0x") {
            Some(digits) => u64::from_str_radix(digits, 16),
            None => text.parse(),
        };
        parsed.unwrap_or_else(|e| panic!("vector {}, field {field}: {text:?}: {e}", self.name))
    }
}

/// Every vector of the file, in file order.
pub fn all() -> &'static [Vector] {
    static VECTORS: OnceLock<Vec<Vector>> = OnceLock::new();
    VECTORS.get_or_init(|| parse(VECTORS_TXT).unwrap_or_else(|e| panic!("vectors.txt: {e}")))
}

/// The vector called `name`; panics if there is none.
pub fn get(name: &str) -> &'static Vector {
    all().iter().find(|v| v.name == name).unwrap_or_else(|| panic!("vectors.txt has no vector {name:?}"))
}

/// Runs an API probe's two instantiations — `published()` against the published crate,
/// `ours()` against this workspace's — and asserts they wrote the same transcript, naming
/// the first byte that differs. `min_len` guards against a probe that wrote almost nothing.
pub fn assert_same_transcript(published: fn() -> Vec<u8>, ours: fn() -> Vec<u8>, min_len: usize) {
    let (want, got) = (published(), ours());
    assert!(want.len() >= min_len, "the probe wrote {} bytes, fewer than {min_len}", want.len());
    let first = got.iter().zip(&want).position(|(a, b)| a != b);
    assert_eq!(got, want, "first difference at byte {first:?} of {}", want.len());
}

/// The part of an API probe both RNG APIs share (the published `chacha20`'s `rng` and
/// `rand_chacha`): writes to `$out` what `$rng` (a fresh `ChaCha20Rng` of crate `$c` seeded
/// with `[7; 32]`) gives through `next_u32`, `next_u64`, `fill_bytes`, `get_word_pos`,
/// `set_word_pos`, `set_stream` (then `set_word_pos`: `rand_chacha` keeps the position
/// across `set_stream`, the published `chacha20` resets it), `get_stream`, `get_seed`,
/// `Debug`, and `seed_from_u64` of `ChaCha12Rng` and `ChaCha8Rng`. The caller has
/// `rand_core`'s `Rng` and `SeedableRng` in scope.
#[macro_export]
macro_rules! probe_rng_methods {
    ($c:ident, $rng:ident, $out:ident) => {
        $out.extend_from_slice(&$rng.next_u32().to_le_bytes());
        $out.extend_from_slice(&$rng.next_u64().to_le_bytes());
        let mut bytes = [0u8; 77];
        $rng.fill_bytes(&mut bytes);
        $out.extend_from_slice(&bytes);
        $out.extend_from_slice(&$rng.get_word_pos().to_le_bytes());
        $rng.set_word_pos((1 << 40) + 3);
        $out.extend_from_slice(&$rng.next_u32().to_le_bytes());
        $rng.set_stream(99);
        $rng.set_word_pos((1 << 40) + 4);
        $out.extend_from_slice(&$rng.get_stream().to_le_bytes());
        $out.extend_from_slice(&$rng.get_seed());
        let _ = format!("{:?}", $rng);
        $out.extend_from_slice(&$c::ChaCha12Rng::seed_from_u64(1).next_u64().to_le_bytes());
        $out.extend_from_slice(&$c::ChaCha8Rng::seed_from_u64(1).next_u64().to_le_bytes());
    };
}

/// Deterministic filler bytes (xorshift) for test and fuzz inputs, so data differs from
/// byte to byte, block to block and seed to seed.
pub fn filler(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Guard bytes on each side of a [`Guarded`] buffer: a block, more than any one store a
/// kernel makes (64 bytes, a `zmm`), so a store that starts inside the buffer and ends
/// past it changes a guard byte whatever its width.
pub const GUARD_LEN: usize = 64;

/// The guard bytes' value.
const GUARD_BYTE: u8 = 0xC5;

/// A test buffer between guard bytes: hand [`get_mut`](Self::get_mut) to the code under
/// test, then [`check`](Self::check) fails if it wrote before or after its slice, which no
/// comparison of the slice itself can see (an overrun of a `Vec` is noticed only by the
/// allocator, if at all).
#[derive(Clone, Debug)]
pub struct Guarded {
    bytes: Vec<u8>,
    start: usize,
    len: usize,
}

impl Guarded {
    /// `contents` between guard bytes, starting `shift` bytes past the allocation's
    /// alignment (0 keeps it, 1 makes the slice unaligned).
    pub fn new(contents: &[u8], shift: usize) -> Self {
        let start = GUARD_LEN + shift;
        let mut bytes = vec![GUARD_BYTE; start + contents.len() + GUARD_LEN];
        bytes[start..start + contents.len()].copy_from_slice(contents);
        Guarded { bytes, start, len: contents.len() }
    }

    /// `blocks` 64-byte blocks of `fill` between guard bytes.
    pub fn blocks(blocks: usize, fill: u8) -> Self {
        Self::new(&vec![fill; 64 * blocks], 0)
    }

    /// The buffer's contents.
    pub fn get(&self) -> &[u8] {
        &self.bytes[self.start..self.start + self.len]
    }

    /// The buffer, to write.
    pub fn get_mut(&mut self) -> &mut [u8] {
        &mut self.bytes[self.start..self.start + self.len]
    }

    /// The buffer as 64-byte blocks (its length a multiple of 64).
    pub fn blocks_mut(&mut self) -> &mut [[u8; 64]] {
        let (blocks, rest) = self.get_mut().as_chunks_mut::<64>();
        assert!(rest.is_empty(), "a buffer of whole blocks");
        blocks
    }

    /// The buffer as one block (its length 64).
    pub fn block_mut(&mut self) -> &mut [u8; 64] {
        self.get_mut().try_into().expect("a 64-byte buffer")
    }

    /// Panics, naming `what` and where, if any guard byte changed.
    #[track_caller]
    pub fn check(&self, what: impl std::fmt::Display) {
        let changed = |guard: &[u8]| guard.iter().position(|&b| b != GUARD_BYTE);
        let before = &self.bytes[..self.start];
        if let Some(i) = changed(before).map(|i| before.len() - i) {
            panic!("{what}: wrote before its {}-byte buffer, from {i} byte(s) before it", self.len);
        }
        let after = &self.bytes[self.start + self.len..];
        if let Some(last) = after.iter().rposition(|&b| b != GUARD_BYTE) {
            panic!(
                "{what}: wrote past the end of its {}-byte buffer, {} byte(s) after it",
                self.len,
                last + 1
            );
        }
    }
}

/// Decodes hex, ignoring whitespace and `:` separators.
pub fn hex(s: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b':').collect();
    if !digits.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits in {s:?}"));
    }
    let nibble = |c: u8| (c as char).to_digit(16).ok_or_else(|| format!("not a hex digit: {:?}", c as char));
    digits.chunks_exact(2).map(|pair| Ok((nibble(pair[0])? << 4 | nibble(pair[1])?) as u8)).collect()
}

/// Parses the format `vectors.txt`'s header describes.
pub fn parse(text: &'static str) -> Result<Vec<Vector>, String> {
    let mut vectors: Vec<Vector> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let at = || format!("line {}", number + 1);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|rest| rest.strip_suffix(']')) {
            if vectors.iter().any(|v| v.name == name) {
                return Err(format!("{}: vector {name:?} again", at()));
            }
            vectors.push(Vector { name, fields: Vec::new() });
            continue;
        }
        let vector =
            vectors.last_mut().ok_or_else(|| format!("{}: a field before the first [name]", at()))?;
        if line.starts_with(char::is_whitespace) {
            let (_, value) = vector
                .fields
                .last_mut()
                .ok_or_else(|| format!("{}: a continuation with no field before it", at()))?;
            value.push(' ');
            value.push_str(line.trim());
            continue;
        }
        let (field, value) =
            line.split_once(" = ").ok_or_else(|| format!("{}: not `field = value`: {line:?}", at()))?;
        if vector.get(field).is_some() {
            return Err(format!("{}: field {field:?} again in {}", at(), vector.name));
        }
        vector.fields.push((field, value.trim().to_owned()));
    }
    match vectors.iter().find(|v| v.get("source").is_none()) {
        Some(v) => Err(format!("vector {} has no source", v.name)),
        None => Ok(vectors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_parses_and_every_hex_and_number_field_decodes() {
        // A vector lost from the file (a bad merge, a deleted record) fails here; adding
        // one means raising the count.
        assert_eq!(all().len(), 44, "vectors in vectors.txt");
        for v in all() {
            for (field, _) in &v.fields {
                match *field {
                    "source" => {}
                    "counter" | "rounds" | "stream" | "word-pos" => drop(v.number(field)),
                    _ => drop(v.bytes(field)),
                }
            }
        }
    }

    #[test]
    fn damaged_files_are_refused() {
        assert!(parse("[a]\nsource = x\n[a]\nsource = y\n").unwrap_err().contains("again"));
        assert!(parse("[a]\nkey = 00\n").unwrap_err().contains("no source"));
        assert!(parse("[a]\nsource = x\nkey: 00\n").unwrap_err().contains("not `field = value`"));
        assert!(parse("[a]\nsource = x\nsource = y\n").unwrap_err().contains("again"));
        assert!(parse("  00\n").unwrap_err().contains("before the first"));
        assert_eq!(hex("0g"), Err("not a hex digit: 'g'".into()));
        assert!(hex("abc").is_err());
        let v = &parse("[a]\nsource = x\n  y\nkey = 01:02\n  03\n").unwrap()[0];
        assert_eq!((v.source(), v.bytes("key")), ("x y", vec![1, 2, 3]));
    }
}
