//! Interleaved measurement: at each size, every implementation runs one short batch in
//! turn, round after round (the starting implementation rotates), so a noisy neighbour or
//! a clock change hits all of them alike. Each round gives one throughput per
//! implementation; the report shows their median and min–max.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use chacha_bench::{Implementation, KEY, Stream, cpu, format_size, nonce};

use crate::args::Workload;

/// One implementation at one size: a figure per round.
#[derive(Debug)]
pub struct Cell {
    pub workload: Workload,
    pub name: String,
    pub ours: bool,
    pub size: usize,
    /// Messages per batch.
    pub messages: u64,
    /// GB/s (10^9 bytes per second), one per round.
    pub gbps: Vec<f64>,
    /// TSC ticks per byte, one per round (empty where the TSC cannot be read).
    pub ticks_per_byte: Vec<f64>,
}

/// Median, min and max of a sample.
#[derive(Clone, Copy, Debug)]
pub struct Stats {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Stats {
    pub fn of(values: &[f64]) -> Option<Stats> {
        if values.is_empty() {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
        Some(Stats { median, min: v[0], max: v[n - 1] })
    }
}

/// Progress on stderr: one rewritten line on a terminal, a line per workload otherwise.
pub struct Progress {
    total: usize,
    done: usize,
    start: Instant,
    tty: bool,
}

impl Progress {
    pub fn new(total: usize) -> Progress {
        Progress { total, done: 0, start: Instant::now(), tty: std::io::stderr().is_terminal() }
    }

    fn show(&self, what: &str) {
        let elapsed = self.start.elapsed().as_secs_f64();
        let left =
            if self.done > 0 { elapsed / self.done as f64 * (self.total - self.done) as f64 } else { 0.0 };
        let line =
            format!("[{:>3}/{}] {what}  ({elapsed:.0} s elapsed, ~{left:.0} s left)", self.done, self.total);
        let mut err = std::io::stderr().lock();
        if self.tty {
            let _ = write!(err, "\r\x1b[2K{line}");
        } else {
            let _ = writeln!(err, "{line}");
        }
        let _ = err.flush();
    }

    fn step(&mut self, what: &str, last_of_workload: bool) {
        self.done += 1;
        if self.tty || last_of_workload {
            self.show(what);
        }
    }

    pub fn finish(&self) {
        if self.tty {
            eprintln!();
        }
        eprintln!("measured in {:.1} s", self.start.elapsed().as_secs_f64());
    }
}

enum Runner {
    Stream(Box<dyn Stream>),
    Fresh,
}

/// Runs one batch of `messages` messages; wall time and TSC ticks.
fn batch(
    imp: &mut Implementation,
    runner: &mut Runner,
    nonce: &[u8],
    buf: &mut [u8],
    messages: u64,
) -> (Duration, Option<u64>) {
    let t0 = Instant::now();
    let c0 = cpu::tsc();
    match runner {
        Runner::Stream(s) => s.run(buf, messages),
        Runner::Fresh => imp.run_fresh(&KEY, nonce, buf, messages),
    }
    let c1 = cpu::tsc();
    let dt = t0.elapsed();
    (dt, c0.zip(c1).map(|(a, b)| b.wrapping_sub(a)))
}

/// How many messages make a batch of about `target` (the calibration runs double as
/// warm-up).
fn calibrate(
    imp: &mut Implementation,
    runner: &mut Runner,
    nonce: &[u8],
    buf: &mut [u8],
    target: Duration,
) -> u64 {
    let mut n = 1u64;
    loop {
        let (dt, _) = batch(imp, runner, nonce, buf, n);
        if dt >= target / 4 || n >= 1 << 40 {
            let scaled = n as f64 * target.as_secs_f64() / dt.as_secs_f64().max(1e-9);
            return (scaled.round() as u64).max(1);
        }
        n *= 2;
    }
}

/// Measures every implementation of `impls` at every size of `sizes`, interleaved.
pub fn measure(
    workload: Workload,
    impls: &mut [Implementation],
    sizes: &[usize],
    rounds: usize,
    target: Duration,
    progress: &mut Progress,
) -> Vec<Cell> {
    let nonce = nonce(workload.variant.nonce_len());
    let mut cells = Vec::new();
    for (si, &size) in sizes.iter().enumerate() {
        let mut buf = vec![0u8; size];
        let mut runners: Vec<Runner> = impls
            .iter()
            .map(|imp| if workload.fresh { Runner::Fresh } else { Runner::Stream(imp.stream(&KEY, &nonce)) })
            .collect();
        let messages: Vec<u64> = impls
            .iter_mut()
            .zip(&mut runners)
            .map(|(imp, runner)| calibrate(imp, runner, &nonce, &mut buf, target))
            .collect();
        let k = impls.len();
        let mut gbps = vec![Vec::with_capacity(rounds); k];
        let mut ticks = vec![Vec::with_capacity(rounds); k];
        for round in 0..rounds {
            for j in 0..k {
                let i = (j + round) % k;
                let (dt, t) = batch(&mut impls[i], &mut runners[i], &nonce, &mut buf, messages[i]);
                let bytes = messages[i] as f64 * size as f64;
                gbps[i].push(bytes / dt.as_nanos().max(1) as f64);
                if let Some(t) = t {
                    ticks[i].push(t as f64 / bytes);
                }
            }
        }
        for (i, imp) in impls.iter().enumerate() {
            cells.push(Cell {
                workload,
                name: imp.name.clone(),
                ours: imp.is_ours(),
                size,
                messages: messages[i],
                gbps: std::mem::take(&mut gbps[i]),
                ticks_per_byte: std::mem::take(&mut ticks[i]),
            });
            let what = format!("{} {}: {}", workload.id(), format_size(size), imp.name);
            progress.step(&what, si + 1 == sizes.len() && i + 1 == impls.len());
        }
    }
    cells
}
