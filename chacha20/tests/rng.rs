//! The `rng` feature: the published crate's RNG names, the same words.

use chacha20::rand_core::{Rng, SeedableRng};
use chacha20::{ChaCha8Rng, ChaCha12Rng, ChaCha20Rng};

#[test]
fn rng_feature_gives_the_published_crates_generators() {
    let mut a = ChaCha12Rng::seed_from_u64(7);
    let mut b = chacha20_published::ChaCha12Rng::seed_from_u64(7);
    let (mut x, mut y) = ([0u8; 1000], [0u8; 1000]);
    a.fill_bytes(&mut x);
    b.fill_bytes(&mut y);
    assert_eq!(x, y);
    assert_eq!(a.get_word_pos(), b.get_word_pos());
    let mut c = ChaCha8Rng::from_seed([9; 32]);
    let mut d = chacha20_published::ChaCha8Rng::from_seed([9; 32]);
    assert_eq!(c.next_u64(), d.next_u64());
    let mut e = ChaCha20Rng::from_seed([9; 32]);
    let mut f = chacha20_published::ChaCha20Rng::from_seed([9; 32]);
    assert_eq!(e.next_u32(), f.next_u32());
}
