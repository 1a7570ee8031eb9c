//! Every available backend against `chacha_core::reference`: see `chacha_fuzz::backends`.
#![no_main]

libfuzzer_sys::fuzz_target!(|case: chacha_fuzz::backends::Case| chacha_fuzz::backends::check(&case));
