//! Target `rng`: arbitrary sequences of `next_u32`, `next_u64`, `fill_bytes`,
//! `set_word_pos`, `set_block_pos`, `set_stream`, `serialize_state` /
//! `deserialize_state_with_kernel`, serde (JSON) restore and clones on `ChaChaRng` with 8,
//! 12 or 20 rounds, on every backend (`with_backend` and `with_kernel`), against a model
//! built on `chacha_core::reference`: seed, stream and a word position modulo 2^68, the
//! words being the reference keystream of the original layout read as little-endian
//! `u32`s. Every getter must agree with the model after every call, and nothing may panic.
//!
//! The same case also drives `ChaChaCore` (the block generator under `rand`'s `ThreadRng`),
//! in one counter layout (`Legacy` for an even first seed byte, else `Ietf`), as each
//! backend's own kernel type: every output op is one `generate` (16 blocks from the block
//! position, starting again from block 0 past the end of the layout's stream),
//! `SetBlockPos` is `set_block_pos` (the value cut to the layout's counter), and
//! `get_block_pos` must follow the model after every call.
//!
//! Input layout: `rounds:u8 seed[32]`, then operations until the input ends, each
//! `op:u8 mode:u8 value:u64 high:u64` (18 bytes).

use arbitrary::{Arbitrary, Unstructured};
use chacha_backends::{Backend, WithKernel};
use chacha_core::{Ietf, Kernel, Legacy, Rounds, State, Variant, reference};
use chacha_rng::rand_core::Rng;
use chacha_rng::rand_core::block::Generator;
use chacha_rng::{GENERATE_BLOCKS, ChaChaCore, ChaChaRng};

use crate::{rounds_of, take, u64_of, with_rounds};

/// Longest `fill_bytes`: 40 blocks and 3 bytes, past the generator's 16-block buffer twice.
pub const MAX_FILL: usize = 40 * 64 + 3;

const WORDS: u128 = 1 << 68;

/// One case of the `rng` target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// 8, 12 or 20.
    pub rounds: u32,
    pub seed: [u8; 32],
    pub ops: Vec<Op>,
}

/// One call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    U32,
    U64,
    Fill(usize),
    /// `set_word_pos` (any `u128`; the generator keeps it modulo 2^68).
    SetWordPos(u128),
    SetBlockPos(u64),
    SetStream(u64),
    /// `serialize_state`, then go on with `deserialize_state_with_kernel` of it.
    SerializeRestore,
    /// Serialise with serde (JSON), restore on the default backend, compare with the model.
    Serde,
    Clone,
}

impl Op {
    /// `SetWordPos` targets next to the edges: the 2^68-word wrap, the 32-bit block counter
    /// carry (word 2^36), the start.
    fn word_pos(mode: u8, value: u64, high: u64) -> u128 {
        let near = u128::from(value % 2048);
        match mode % 5 {
            0 => u128::from(high) << 64 | u128::from(value),
            1 => WORDS - 1 - near,
            2 => (1u128 << 36) + near - 1024,
            3 => near,
            _ => u128::MAX - near,
        }
    }
}

impl<'a> Arbitrary<'a> for Case {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let [rounds] = take(u);
        let seed = take(u);
        let mut ops = Vec::new();
        while !u.is_empty() {
            let [op, mode] = take(u);
            let (value, high) = (u64_of(u), u64_of(u));
            ops.push(match op % 9 {
                0 => Op::U32,
                1 => Op::U64,
                2 => Op::Fill(value as usize % (MAX_FILL + 1)),
                3 => Op::SetWordPos(Op::word_pos(mode, value, high)),
                4 => Op::SetBlockPos(match mode % 3 {
                    0 => value,
                    1 => u64::MAX - value % 64,
                    _ => (1 << 32) + value % 64 - 32,
                }),
                5 => Op::SetStream(value),
                6 => Op::SerializeRestore,
                7 => Op::Serde,
                _ => Op::Clone,
            });
        }
        Ok(Case { rounds: rounds_of(rounds), seed, ops })
    }
}

impl Case {
    /// The input bytes `arbitrary` reads back as this case (positions as raw values, mode 0).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![match self.rounds {
            8 => 0,
            12 => 1,
            _ => 2,
        }];
        out.extend_from_slice(&self.seed);
        for op in &self.ops {
            let (code, value, high): (u8, u64, u64) = match *op {
                Op::U32 => (0, 0, 0),
                Op::U64 => (1, 0, 0),
                Op::Fill(len) => (2, len as u64, 0),
                Op::SetWordPos(pos) => (3, pos as u64, (pos >> 64) as u64),
                Op::SetBlockPos(block) => (4, block, 0),
                Op::SetStream(stream) => (5, stream, 0),
                Op::SerializeRestore => (6, 0, 0),
                Op::Serde => (7, 0, 0),
                Op::Clone => (8, 0, 0),
            };
            out.extend_from_slice(&[code, 0]);
            out.extend_from_slice(&value.to_le_bytes());
            out.extend_from_slice(&high.to_le_bytes());
        }
        out
    }
}

/// The abstract generator: seed, stream, word position modulo 2^68.
struct Model<R: Rounds> {
    seed: [u8; 32],
    stream: u64,
    pos: u128,
    /// The last reference block computed: (block number, its words).
    cached: Option<(u64, [u32; 16])>,
    _rounds: R,
}

impl<R: Rounds> Model<R> {
    fn word(&mut self) -> u32 {
        let block = (self.pos / 16) as u64;
        let words = match self.cached {
            Some((b, words)) if b == block => words,
            _ => {
                let state = State::<Legacy>::new(&self.seed, &self.stream.to_le_bytes());
                let bytes = reference::block::<R, Legacy>(&state, block);
                let words = core::array::from_fn(|i| {
                    u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4"))
                });
                self.cached = Some((block, words));
                words
            }
        };
        let word = words[(self.pos % 16) as usize];
        self.pos = (self.pos + 1) % WORDS;
        word
    }
}

/// What one call must give: its output (as bytes) and the position, stream after it.
#[derive(Debug)]
struct Expect {
    output: Vec<u8>,
    pos: u128,
    stream: u64,
}

fn expectations<R: Rounds>(case: &Case) -> Vec<Expect> {
    let mut m = Model::<R> { seed: case.seed, stream: 0, pos: 0, cached: None, _rounds: R::default() };
    case.ops
        .iter()
        .map(|op| {
            let output = match *op {
                Op::U32 => m.word().to_le_bytes().to_vec(),
                Op::U64 => {
                    let lo = m.word();
                    (u64::from(m.word()) << 32 | u64::from(lo)).to_le_bytes().to_vec()
                }
                Op::Fill(len) => {
                    let words: Vec<u8> = (0..len.div_ceil(4)).flat_map(|_| m.word().to_le_bytes()).collect();
                    words[..len].to_vec()
                }
                Op::SetWordPos(pos) => {
                    m.pos = pos % WORDS;
                    Vec::new()
                }
                Op::SetBlockPos(block) => {
                    m.pos = u128::from(block) * 16;
                    Vec::new()
                }
                Op::SetStream(stream) => {
                    (m.stream, m.pos, m.cached) = (stream, 0, None);
                    Vec::new()
                }
                // Three words the restored generator must give next (the model does not move).
                Op::Serde => {
                    let (pos, cached) = (m.pos, m.cached);
                    let words = (0..3).flat_map(|_| m.word().to_le_bytes()).collect();
                    (m.pos, m.cached) = (pos, cached);
                    words
                }
                Op::SerializeRestore | Op::Clone => Vec::new(),
            };
            Expect { output, pos: m.pos, stream: m.stream }
        })
        .collect()
}

fn run<R: Rounds, K: Kernel>(mut rng: ChaChaRng<R, K>, case: &Case, expected: &[Expect]) {
    let kernel = rng.kernel();
    for (i, (op, want)) in case.ops.iter().zip(expected).enumerate() {
        let ctx = format!("{rng:?} op {i} {op:?}");
        let output = match *op {
            Op::U32 => rng.next_u32().to_le_bytes().to_vec(),
            Op::U64 => rng.next_u64().to_le_bytes().to_vec(),
            Op::Fill(len) => {
                let mut buf = vec![0u8; len];
                rng.fill_bytes(&mut buf);
                buf
            }
            Op::SetWordPos(pos) => {
                rng.set_word_pos(pos);
                Vec::new()
            }
            Op::SetBlockPos(block) => {
                rng.set_block_pos(block);
                Vec::new()
            }
            Op::SetStream(stream) => {
                rng.set_stream(stream);
                Vec::new()
            }
            Op::SerializeRestore => {
                let restored =
                    ChaChaRng::<R, K>::deserialize_state_with_kernel(&rng.serialize_state(), kernel);
                assert_eq!(restored, rng, "{ctx}");
                rng = restored;
                Vec::new()
            }
            Op::Serde => {
                let json = serde_json::to_string(&rng).expect("serialises");
                let mut restored: ChaChaRng<R, Backend> = serde_json::from_str(&json).expect("deserialises");
                assert_eq!(
                    (restored.get_seed(), restored.get_stream(), restored.get_word_pos()),
                    (rng.get_seed(), rng.get_stream(), rng.get_word_pos()),
                    "{ctx}"
                );
                (0..3).flat_map(|_| restored.next_u32().to_le_bytes()).collect()
            }
            Op::Clone => {
                let clone = rng.clone();
                assert_eq!(clone, rng, "{ctx}");
                rng = clone;
                Vec::new()
            }
        };
        assert_eq!(output, want.output, "{ctx}: output");
        assert_eq!(rng.get_word_pos(), want.pos, "{ctx}: word position");
        assert_eq!(rng.get_block_pos(), (want.pos / 16) as u64, "{ctx}: block position");
        assert_eq!(rng.get_stream(), want.stream, "{ctx}: stream");
        assert_eq!(rng.get_seed(), case.seed, "{ctx}: seed");
    }
}

/// What `ChaChaCore<R, V>` must give for each op: the words of one `generate` (for the
/// output ops) and the block position after it. `last` is the layout's last block
/// (2^32 - 1 or 2^64 - 1); the reference blocks are the key's with a zero nonce.
fn core_expectations<R: Rounds, V: Variant>(case: &Case, last: u64) -> Vec<(Option<Vec<u32>>, u64)> {
    let state = State::<V>::new(&case.seed, &V::Nonce::default());
    let mut pos: u64 = 0;
    case.ops
        .iter()
        .map(|op| {
            let words = match *op {
                Op::U32 | Op::U64 | Op::Fill(_) | Op::Serde => {
                    let mut words = Vec::with_capacity(GENERATE_BLOCKS * 16);
                    for _ in 0..GENERATE_BLOCKS {
                        let block = reference::block::<R, V>(&state, pos);
                        words.extend(
                            block.chunks_exact(4).map(|w| u32::from_le_bytes(w.try_into().expect("4"))),
                        );
                        pos = if pos == last { 0 } else { pos + 1 };
                    }
                    Some(words)
                }
                Op::SetBlockPos(block) => {
                    pos = block & last;
                    None
                }
                Op::Clone | Op::SetWordPos(_) | Op::SetStream(_) | Op::SerializeRestore => None,
            };
            (words, pos)
        })
        .collect()
}

/// `ChaChaCore<R, V, K>` through the case's ops against [`core_expectations`].
fn run_core<R: Rounds, V: Variant, K: Kernel>(case: &Case, kernel: K, expected: &[(Option<Vec<u32>>, u64)]) {
    let mut core = ChaChaCore::<R, V, K>::with_kernel(case.seed, kernel);
    let mut out = [0u32; GENERATE_BLOCKS * 16];
    for (i, (op, (words, pos))) in case.ops.iter().zip(expected).enumerate() {
        let ctx = format!("{core:?} op {i} {op:?}");
        match *op {
            Op::SetBlockPos(_) => {
                let Ok(counter) = V::Counter::try_from(*pos) else {
                    panic!("{ctx}: {pos} is past the layout")
                };
                core.set_block_pos(counter);
            }
            Op::Clone => core = core.clone(),
            _ => {}
        }
        if let Some(words) = words {
            core.generate(&mut out);
            assert_eq!(&out[..], &words[..], "{ctx}: output");
        }
        assert_eq!(core.get_block_pos().into(), *pos, "{ctx}: block position");
    }
}

struct OnEveryKernel<'a, R> {
    case: &'a Case,
    expected: &'a [Expect],
    /// `ChaChaCore`'s, in the layout the case picks (`Legacy` if the seed's first byte is
    /// even): both layouts on every case made the target five times slower.
    core: &'a [(Option<Vec<u32>>, u64)],
    _rounds: R,
}

impl<R: Rounds> WithKernel for &OnEveryKernel<'_, R> {
    type Output = ();

    fn call<K: Kernel>(self, kernel: K) {
        run(ChaChaRng::<R, K>::with_kernel(self.case.seed, kernel), self.case, self.expected);
        if core_is_legacy(self.case) {
            run_core::<R, Legacy, K>(self.case, kernel, self.core);
        } else {
            run_core::<R, Ietf, K>(self.case, kernel, self.core);
        }
    }
}

/// The counter layout of the case's `ChaChaCore` run.
fn core_is_legacy(case: &Case) -> bool {
    case.seed[0] % 2 == 0
}

/// Checks the case on every backend, as `Backend` and as its own kernel type.
pub fn check(case: &Case) {
    with_rounds!(case.rounds, R => {
        let expected = expectations::<R>(case);
        let core = if core_is_legacy(case) {
            core_expectations::<R, Legacy>(case, u64::MAX)
        } else {
            core_expectations::<R, Ietf>(case, u64::from(u32::MAX))
        };
        let each = OnEveryKernel { case, expected: &expected, core: &core, _rounds: R::default() };
        for backend in Backend::available() {
            run(ChaChaRng::<R>::with_backend(case.seed, backend), case, &expected);
            backend.with_kernel(&each);
        }
    });
}
