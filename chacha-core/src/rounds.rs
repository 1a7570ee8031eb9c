//! Round counts as types, so `ChaCha<R8>` and `ChaCha<R20>` cannot be mixed up and every
//! kernel is monomorphised for its round count (the loop bound is a constant).

use core::fmt::Debug;

mod sealed {
    pub trait Sealed {}
}

/// The number of rounds of a ChaCha variant, as a type.
///
/// Sealed: only [`R8`], [`R12`] and [`R20`] exist.
pub trait Rounds: sealed::Sealed + Copy + Default + Debug + Send + Sync + 'static {
    /// Double rounds (one column round followed by one diagonal round): 20 rounds → 10.
    const DOUBLE_ROUNDS: usize;
    /// Rounds, as in the cipher's name: `ChaCha20` → 20.
    const ROUNDS: usize = 2 * Self::DOUBLE_ROUNDS;
    /// **Double rounds, as the published `chacha20` crate's `Rounds::COUNT`** (10 for
    /// [`R20`], *not* 20): the same value as [`DOUBLE_ROUNDS`](Self::DOUBLE_ROUNDS), under
    /// the published name, so code written against that crate keeps its meaning. New code
    /// should say `DOUBLE_ROUNDS` or [`ROUNDS`](Self::ROUNDS).
    ///
    /// ```
    /// use chacha_core::{R8, R20, Rounds};
    /// assert_eq!((R20::COUNT, R20::ROUNDS), (10, 20));
    /// assert_eq!(R8::COUNT, R8::DOUBLE_ROUNDS);
    /// ```
    const COUNT: usize = Self::DOUBLE_ROUNDS;
}

macro_rules! rounds {
    ($($name:ident = $double:literal, $doc:literal;)*) => {$(
        #[doc = $doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl Rounds for $name {
            const DOUBLE_ROUNDS: usize = $double;
        }
    )*};
}

rounds! {
    R8 = 4, "8 rounds (ChaCha8): 4 double rounds.";
    R12 = 6, "12 rounds (ChaCha12): 6 double rounds.";
    R20 = 10, "20 rounds (ChaCha20, RFC 8439): 10 double rounds.";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_counts_match_names() {
        assert_eq!((R8::ROUNDS, R12::ROUNDS, R20::ROUNDS), (8, 12, 20));
        assert_eq!((R8::DOUBLE_ROUNDS, R12::DOUBLE_ROUNDS, R20::DOUBLE_ROUNDS), (4, 6, 10));
        assert_eq!((R8::COUNT, R12::COUNT, R20::COUNT), (4, 6, 10));
    }
}
