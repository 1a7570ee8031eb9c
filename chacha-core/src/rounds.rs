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
    }
}
