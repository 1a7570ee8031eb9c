//! What every bench file shares: the measurement (TSC ticks on x86/x86_64, wall time
//! elsewhere) and short default times, so a full `cargo bench -p chacha-bench` stays in
//! minutes and CI only builds the benches (`cargo bench --no-run`).

use std::time::Duration;

use criterion::Criterion;

/// `criterion-cycles-per-byte`: `rdtsc`, so "cycles" are TSC ticks, not core cycles
/// (see the report's header for this machine's TSC rate).
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub type Meter = criterion_cycles_per_byte::CyclesPerByte;
/// Wall time where the cycle counter crate does not build.
#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
pub type Meter = criterion::measurement::WallTime;

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
fn meter() -> Meter {
    criterion_cycles_per_byte::CyclesPerByte
}
#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
fn meter() -> Meter {
    criterion::measurement::WallTime
}

/// Criterion with [`Meter`] and short warm-up and measuring times.
pub fn config() -> Criterion<Meter> {
    Criterion::default()
        .with_measurement(meter())
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(30)
}
