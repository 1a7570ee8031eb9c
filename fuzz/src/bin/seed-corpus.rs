//! Writes the committed seed corpus, `corpus/<target>/`, from `testdata/vectors.txt` and the
//! boundary cases below: `cargo run --bin seed-corpus` in `fuzz/` (stable is enough).
//!
//! Each seed is a case encoded with its `encode` (the layout the target reads back with
//! `arbitrary`), checked to decode to the same case, and named for what it is. The corpus
//! directories are rewritten whole, so a seed dropped here disappears there too.
//!
//! `cargo run --bin seed-corpus -- --check` writes nothing: it exits non-zero, naming each
//! difference, if the committed corpus is not exactly what this program writes (`.ci/run`'s
//! fuzz stage runs it, so a change to a target's input layout cannot leave stale seeds).

use std::{fs, path::Path};

use arbitrary::{Arbitrary, Unstructured};
use chacha_fuzz::{aead, backends, cipher_api, rng, secretstream};

/// The request lengths every boundary seed is tried with: around one block, four blocks
/// (the batch), eight and sixteen (the widest kernels).
const LENGTHS: [usize; 14] = [0, 1, 63, 64, 65, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025];

struct Corpus {
    target: &'static str,
    seeds: Vec<(String, Vec<u8>)>,
}

impl Corpus {
    fn add<T: for<'a> Arbitrary<'a> + PartialEq + std::fmt::Debug>(
        &mut self,
        name: String,
        case: &T,
        bytes: Vec<u8>,
    ) {
        let decoded = T::arbitrary(&mut Unstructured::new(&bytes)).expect("decodes");
        assert_eq!(&decoded, case, "{}/{name}: encode and the target's decoding disagree", self.target);
        assert!(!self.seeds.iter().any(|(n, _)| *n == name), "{}/{name} twice", self.target);
        self.seeds.push((name, bytes));
    }

    fn write(self, root: &Path) {
        let dir = root.join(self.target);
        if dir.exists() {
            fs::remove_dir_all(&dir).expect("remove the old corpus");
        }
        fs::create_dir_all(&dir).expect("create the corpus directory");
        for (name, bytes) in &self.seeds {
            fs::write(dir.join(name), bytes).expect("write a seed");
        }
        println!("{}: {} seeds", self.target, self.seeds.len());
    }

    /// The differences between these seeds and the directory `root/<target>`: missing,
    /// different and extra files.
    fn differences(&self, root: &Path) -> Vec<String> {
        let dir = root.join(self.target);
        let mut out = Vec::new();
        for (name, bytes) in &self.seeds {
            match fs::read(dir.join(name)) {
                Ok(on_disk) if on_disk == *bytes => {}
                Ok(_) => out.push(format!("{}/{name}: different bytes", self.target)),
                Err(_) => out.push(format!("{}/{name}: missing", self.target)),
            }
        }
        for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !self.seeds.iter().any(|(n, _)| *n == name) {
                out.push(format!("{}/{name}: not written by seed-corpus", self.target));
            }
        }
        out
    }
}

/// A vector's length in bytes: its keystream, plaintext or (XChaCha) first keystream.
fn vector_len(v: &chacha_testdata::Vector) -> Option<usize> {
    if v.get("tag").is_some() {
        return None; // a Poly1305 or AEAD vector: no keystream of its own
    }
    ["keystream", "plaintext", "keystream-0"]
        .into_iter()
        .find(|f| v.get(f).is_some())
        .map(|f| v.bytes(f).len())
}

fn backends_corpus() -> Corpus {
    use backends::{Case, Counter, Op};
    let mut corpus = Corpus { target: "backends", seeds: Vec::new() };
    let ops = [Op::XorInPlace, Op::XorB2b, Op::Fill];
    for (i, v) in chacha_testdata::all().iter().enumerate() {
        let (Some(_), Some(nonce), Some(len)) = (v.get("key"), v.get("nonce"), vector_len(v)) else {
            continue;
        };
        let nonce = chacha_testdata::hex(nonce).expect("hex");
        if nonce.len() == 24 {
            continue; // XChaCha: the cipher_api target's
        }
        let mut padded = [0u8; 12];
        padded[..nonce.len()].copy_from_slice(&nonce);
        let case = Case {
            key: v.array("key"),
            nonce: padded,
            rounds: v.number("rounds") as u32,
            legacy: nonce.len() == 8,
            counter: Counter::Raw(v.number("counter")),
            len,
            op: ops[i % 3],
            align: i % 64,
            hinput: v.array::<32>("key")[..16].try_into().expect("16"),
        };
        corpus.add(format!("vector-{}", v.name), &case, case.encode());
    }
    let key = chacha_testdata::get("rfc8439-2.3.2").array("key");
    let counters = [
        (false, "ietf-counter-0", Counter::Raw(0)),
        (false, "ietf-counter-2^32-1", Counter::FromEnd(0)),
        (false, "ietf-counter-2^32-2", Counter::FromEnd(1)),
        (true, "legacy-counter-0", Counter::Raw(0)),
        (true, "legacy-counter-2^32-1", Counter::Around32(127)),
        (true, "legacy-counter-2^64-1", Counter::FromEnd(0)),
        (true, "legacy-counter-2^64-2", Counter::FromEnd(1)),
    ];
    for (c, (legacy, name, counter)) in counters.into_iter().enumerate() {
        for (l, len) in LENGTHS.into_iter().enumerate() {
            let case = Case {
                key,
                nonce: [0xfe; 12],
                rounds: [20, 12, 8][(c + l) % 3],
                legacy,
                counter,
                len,
                op: ops[(c + l) % 3],
                align: (c * 7 + l) % 64,
                hinput: [0x5a; 16],
            };
            corpus.add(format!("{name}-len-{len}"), &case, case.encode());
        }
    }
    corpus
}

fn cipher_api_corpus() -> Corpus {
    use cipher_api::{Case, Kind, Op, Pos};
    let mut corpus = Corpus { target: "cipher_api", seeds: Vec::new() };
    for v in chacha_testdata::all() {
        let (Some(_), Some(nonce), Some(len)) = (v.get("key"), v.get("nonce"), vector_len(v)) else {
            continue;
        };
        let nonce = chacha_testdata::hex(nonce).expect("hex");
        let kind = match (nonce.len(), v.number("rounds")) {
            (12, 20) => Kind::ChaCha20,
            (12, 12) => Kind::ChaCha12,
            (12, _) => Kind::ChaCha8,
            (8, 20) => Kind::ChaCha20Legacy,
            (8, 12) => Kind::ChaCha12Legacy,
            (24, 20) => Kind::XChaCha20,
            _ => continue, // 8-round legacy vectors: ChaCha8Legacy is not a target kind
        };
        let mut padded = [0u8; 24];
        padded[..nonce.len()].copy_from_slice(&nonce);
        let counter = v.get("counter").map_or(0, |_| v.number("counter"));
        // pyca vector 9 starts in the last block of the 64-bit counter: from the end.
        let start = counter.checked_mul(64).map_or(Pos::BeforeEnd(64), Pos::Start);
        let case = Case {
            kind,
            key: v.array("key"),
            nonce: padded,
            ops: vec![
                Op::Seek(start),
                Op::Apply(len),
                Op::Seek(start),
                Op::Write(len / 3),
                Op::ApplyB2b(len - len / 3),
            ],
        };
        corpus.add(format!("vector-{}", v.name), &case, case.encode());
    }
    let kinds = [
        ("chacha20", Kind::ChaCha20),
        ("chacha12", Kind::ChaCha12),
        ("chacha8", Kind::ChaCha8),
        ("chacha20legacy", Kind::ChaCha20Legacy),
        ("chacha12legacy", Kind::ChaCha12Legacy),
        ("xchacha20", Kind::XChaCha20),
        ("xchacha8", Kind::XChaCha8),
    ];
    for (k, (name, kind)) in kinds.into_iter().enumerate() {
        let (key, nonce) = ([k as u8; 32], [0xa0 + k as u8; 24]);
        // The last `len` bytes, then one byte more every way, then the seeks at the edges.
        for len in LENGTHS {
            let ops = vec![
                Op::Seek(Pos::BeforeEnd(len as u64)),
                Op::Apply(len),
                Op::Apply(1),
                Op::ApplyOrPanic(1),
                Op::Write(1),
                Op::ApplyB2b(1),
                Op::Seek(Pos::AfterEnd(1)),
                Op::Seek(Pos::BeforeEnd(0)),
                Op::Apply(0),
                Op::Seek(Pos::NearMax(0)),
                Op::Seek64(Pos::NearMax(0)),
                Op::Seek(Pos::BeforeEnd(len as u64 + 1)),
                Op::ApplyOrPanic(len + 1),
                Op::MismatchedB2b(len),
            ];
            corpus.add(
                format!("{name}-last-{len}-bytes"),
                &Case { kind, key, nonce, ops: ops.clone() },
                Case { kind, key, nonce, ops }.encode(),
            );
        }
        // Short calls on a warm instance (the front's batches) up to the end, with clones.
        let mut ops = vec![Op::Seek(Pos::BeforeEnd(5 * 64 + 7)), Op::Apply(7)];
        for i in 0..20 {
            ops.push(if i % 7 == 6 { Op::Clone } else { Op::Apply(16) });
        }
        ops.extend([
            Op::Apply(64),
            Op::Seek(Pos::Around32(1 << 31)),
            Op::Apply(200),
            Op::Seek64(Pos::Start(u64::MAX)),
        ]);
        let case = Case { kind, key, nonce, ops };
        corpus.add(format!("{name}-short-calls-to-the-end"), &case, case.encode());
    }
    corpus
}

fn rng_corpus() -> Corpus {
    use rng::{Case, Op};
    let mut corpus = Corpus { target: "rng", seeds: Vec::new() };
    for v in chacha_testdata::all() {
        // The RNG's stream is the original layout's nonce: 8-byte-nonce vectors, and the
        // RFC 8439 ones with a zero nonce.
        let (Some(_), Some(nonce), Some(len)) = (v.get("key"), v.get("nonce"), vector_len(v)) else {
            continue;
        };
        let nonce = chacha_testdata::hex(nonce).expect("hex");
        let stream = match nonce.len() {
            8 => u64::from_le_bytes(nonce.try_into().expect("8")),
            12 if nonce == [0; 12] => 0,
            _ => continue,
        };
        let ops = vec![
            Op::SetStream(stream),
            Op::SetBlockPos(v.number("counter")),
            Op::Fill(len),
            Op::U64,
            Op::SerializeRestore,
            Op::U32,
            Op::Serde,
        ];
        let case = Case { rounds: v.number("rounds") as u32, seed: v.array("key"), ops };
        corpus.add(format!("vector-{}", v.name), &case, case.encode());
    }
    let v = chacha_testdata::get("published-rng-serialized-state");
    let mut ops = vec![Op::SetStream(v.number("stream"))];
    ops.extend((0..v.number("word-pos")).map(|_| Op::U32));
    ops.extend([Op::SerializeRestore, Op::Serde, Op::Clone, Op::U64]);
    let case = Case { rounds: 8, seed: v.array("key"), ops };
    corpus.add(format!("vector-{}", v.name), &case, case.encode());

    let words = 1u128 << 68;
    for (l, len) in LENGTHS.into_iter().enumerate() {
        let before = (len as u128).div_ceil(4);
        let ops = vec![
            Op::SetWordPos(words - before),
            Op::Fill(len),
            Op::U32,
            Op::SetWordPos(words - 1),
            Op::U64,
            Op::SetBlockPos(u64::MAX),
            Op::Fill(len + 64),
            Op::SetBlockPos(u64::from(u32::MAX)),
            Op::Fill(len),
            Op::SetWordPos(u128::MAX),
            Op::SerializeRestore,
            Op::U64,
            Op::SetStream(u64::MAX),
            Op::Serde,
            Op::SetWordPos((1 << 36) - 1),
            Op::U64,
            Op::Clone,
            Op::Fill(len),
        ];
        let case = Case { rounds: [20, 12, 8][l % 3], seed: [l as u8; 32], ops };
        corpus.add(format!("positions-at-every-edge-len-{len}"), &case, case.encode());
    }
    corpus
}

fn aead_corpus() -> Corpus {
    use aead::Case;
    let mut corpus = Corpus { target: "aead", seeds: Vec::new() };
    // The AEAD vectors (RFC 8439 §2.8.2 and A.5, draft-irtf-cfrg-xchacha-03 A.3.1): the
    // target checks them against its model, so a seed that passes also checks the model.
    for v in chacha_testdata::all().iter().filter(|v| v.get("aad").is_some()) {
        let nonce = v.bytes("nonce");
        let mut padded = [0u8; 24];
        padded[..nonce.len()].copy_from_slice(&nonce);
        let case = Case {
            xchacha: nonce.len() == 24,
            rounds: 20,
            key: v.array("key"),
            nonce: padded,
            aad: v.bytes("aad"),
            message: v.bytes("plaintext"),
            flip: 0,
        };
        let (ciphertext, tag) = aead::reference_seal::<chacha_core::R20>(
            case.xchacha,
            &case.key,
            &case.nonce,
            &case.aad,
            &case.message,
        );
        assert_eq!(
            (ciphertext, tag.to_vec()),
            (v.bytes("ciphertext"), v.bytes("tag")),
            "{}: the model",
            v.name
        );
        corpus.add(format!("vector-{}", v.name), &case, case.encode());
    }
    // Messages around one block, the four-block batch and the widest kernels, with no, a
    // short and an unpadded associated data, on both nonce sizes and every round count.
    for (l, len) in LENGTHS.into_iter().enumerate() {
        let xchacha = l % 2 == 1;
        let rounds = [20, 12, 8][l % 3];
        let aad_len = [0, 12, 17][l % 3];
        let case = Case {
            xchacha,
            rounds,
            key: [l as u8 ^ 0x3c; 32],
            nonce: [0xc0 ^ l as u8; 24],
            aad: chacha_fuzz::filler(l as u64, aad_len),
            message: chacha_fuzz::filler(100 + l as u64, len),
            flip: (l * 37) as u16,
        };
        let name =
            format!("{}-r{rounds}-aad-{aad_len}-len-{len}", if xchacha { "xchacha" } else { "chacha" });
        corpus.add(name, &case, case.encode());
    }
    // ChaCha20 past the stitched one-pass thresholds of `avx2` with BMI2 (sealing from 3
    // sets of 512 bytes, opening from 1) and `neon`: whole sets, a partial last set, and
    // the longest message an input of `fuzz/run.sh`'s `-max_len=4096` holds.
    for (l, len) in [1536, 2047, 2560, 4000].into_iter().enumerate() {
        let xchacha = l % 2 == 1;
        let aad_len = [0, 13][l % 2];
        let case = Case {
            xchacha,
            rounds: 20,
            key: [l as u8 ^ 0x5a; 32],
            nonce: [0x0c ^ l as u8; 24],
            aad: chacha_fuzz::filler(200 + l as u64, aad_len),
            message: chacha_fuzz::filler(300 + l as u64, len),
            flip: (l * 53) as u16,
        };
        let name =
            format!("stitched-{}-r20-aad-{aad_len}-len-{len}", if xchacha { "xchacha" } else { "chacha" });
        corpus.add(name, &case, case.encode());
    }
    corpus
}

fn secretstream_corpus() -> Corpus {
    use secretstream::{Case, Chunk};
    let mut corpus = Corpus { target: "secretstream", seeds: Vec::new() };
    // Each tag alone, ending the stream or not; then streams of several chunks whose
    // messages sit around the Poly1305 block, the ChaCha block and the one-pass pieces,
    // with associated data of every padding class and explicit rekeys.
    for tag in 0..4u8 {
        let case = Case {
            key: [tag; 32],
            header: [0x40 | tag; 24],
            flip: u16::from(tag) * 97,
            chunks: vec![Chunk {
                tag,
                rekey_after: false,
                aad: Vec::new(),
                message: b"secretstream".to_vec(),
            }],
        };
        corpus.add(format!("one-chunk-tag-{tag}"), &case, case.encode());
    }
    for (l, len) in
        [0usize, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 4095, 4096, 4097].into_iter().enumerate()
    {
        let chunks = (0..3u8)
            .map(|i| Chunk {
                tag: if i == 2 { 3 } else { i },
                rekey_after: (l + usize::from(i)) % 4 == 0,
                aad: chacha_fuzz::filler(l as u64 + u64::from(i), [0, 1, 16, 17][(l + usize::from(i)) % 4]),
                message: chacha_fuzz::filler(200 + l as u64, len + usize::from(i)),
            })
            .collect();
        let case =
            Case { key: [l as u8 ^ 0x5a; 32], header: [0xa5 ^ l as u8; 24], flip: (l * 1031) as u16, chunks };
        corpus.add(format!("three-chunks-len-{len}"), &case, case.encode());
    }
    corpus
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let corpora =
        [backends_corpus(), cipher_api_corpus(), rng_corpus(), aead_corpus(), secretstream_corpus()];
    if std::env::args().any(|a| a == "--check") {
        let differences: Vec<String> = corpora.iter().flat_map(|c| c.differences(&root)).collect();
        if !differences.is_empty() {
            for d in &differences {
                eprintln!("{d}");
            }
            eprintln!("the committed corpus is stale: run `cargo run --bin seed-corpus` in fuzz/");
            std::process::exit(1);
        }
        let seeds: usize = corpora.iter().map(|c| c.seeds.len()).sum();
        println!("corpus up to date: {seeds} seeds");
        return;
    }
    for corpus in corpora {
        corpus.write(&root);
    }
}
