#![doc = include_str!("../README.md")]
#![no_std]

#[cfg(chacha_enabled = "avx2")]
pub mod avx2;
#[cfg(chacha_enabled = "avx512")]
pub mod avx512;
mod backend;
#[cfg(chacha_enabled = "neon")]
pub mod neon;
#[cfg(chacha_enabled = "soft")]
pub mod soft;
#[cfg(chacha_enabled = "sse2")]
pub mod sse2;

pub use backend::{Backend, WithKernel};
pub use chacha_core;
