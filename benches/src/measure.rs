//! Interleaved measurement: at each point (message size, or `next_u32` / `next_u64`),
//! every entrant runs one short batch in turn, round after round (the starting entrant
//! rotates), so a noisy neighbour or a clock change hits all of them alike. An entrant runs
//! in this process ([`Local`]) or in a worker process ([`crate::remote::Remote`]); the
//! rounds interleave across processes the same way. Each round gives one throughput per
//! entrant; the report shows their median and min–max.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use chacha_bench::{Implementation, Point, Runner, Workload};

/// Something to time: ours or a peer, here or in a worker process.
pub trait Entrant {
    /// The name in tables, CSV and plots.
    fn name(&self) -> &str;
    /// Whether it is one of ours.
    fn ours(&self) -> bool;
    /// Sets up `point` of `workload` (a new instance at position 0) and returns the calls
    /// per batch that take about `target`.
    fn prepare(&mut self, workload: Workload, point: Point, target: Duration) -> Result<u64, String>;
    /// One batch of `calls` calls at the prepared point: wall time and TSC ticks.
    fn batch(&mut self, calls: u64) -> Result<(Duration, Option<u64>), String>;
    /// Drops what `prepare` set up.
    fn finish_point(&mut self) -> Result<(), String>;
}

/// An entrant in this process.
pub struct Local {
    implementation: Implementation,
    runner: Option<Runner>,
}

impl Local {
    pub fn new(implementation: Implementation) -> Local {
        Local { implementation, runner: None }
    }
}

impl Entrant for Local {
    fn name(&self) -> &str {
        self.implementation.name()
    }

    fn ours(&self) -> bool {
        self.implementation.origin().is_ours()
    }

    fn prepare(&mut self, workload: Workload, point: Point, target: Duration) -> Result<u64, String> {
        let mut runner = self.implementation.runner(workload, point);
        let calls = runner.calibrate(&mut self.implementation, target);
        self.runner = Some(runner);
        Ok(calls)
    }

    fn batch(&mut self, calls: u64) -> Result<(Duration, Option<u64>), String> {
        let runner = self.runner.as_mut().ok_or("batch before prepare")?;
        Ok(runner.batch(&mut self.implementation, calls))
    }

    fn finish_point(&mut self) -> Result<(), String> {
        self.runner = None;
        Ok(())
    }
}

/// One entrant at one point: a figure per round.
#[derive(Debug)]
pub struct Cell {
    pub workload: Workload,
    pub name: String,
    pub ours: bool,
    pub point: Point,
    /// Calls per batch.
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

/// Measures every entrant at every point of `points`, interleaved.
pub fn measure(
    workload: Workload,
    entrants: &mut [Box<dyn Entrant>],
    points: &[Point],
    rounds: usize,
    target: Duration,
    progress: &mut Progress,
) -> Result<Vec<Cell>, String> {
    let mut cells = Vec::new();
    for (pi, &point) in points.iter().enumerate() {
        let messages: Vec<u64> =
            entrants.iter_mut().map(|r| r.prepare(workload, point, target)).collect::<Result<_, _>>()?;
        let k = entrants.len();
        let mut gbps = vec![Vec::with_capacity(rounds); k];
        let mut ticks = vec![Vec::with_capacity(rounds); k];
        for round in 0..rounds {
            for j in 0..k {
                let i = (j + round) % k;
                let (dt, t) = entrants[i].batch(messages[i])?;
                let bytes = messages[i] as f64 * point.bytes() as f64;
                gbps[i].push(bytes / dt.as_nanos().max(1) as f64);
                if let Some(t) = t {
                    ticks[i].push(t as f64 / bytes);
                }
            }
        }
        for (i, entrant) in entrants.iter_mut().enumerate() {
            entrant.finish_point()?;
            cells.push(Cell {
                workload,
                name: entrant.name().to_string(),
                ours: entrant.ours(),
                point,
                messages: messages[i],
                gbps: std::mem::take(&mut gbps[i]),
                ticks_per_byte: std::mem::take(&mut ticks[i]),
            });
            let what = format!("{} {}: {}", workload.id(), point.label(), entrant.name());
            progress.step(&what, pi + 1 == points.len() && i + 1 == k);
        }
    }
    Ok(cells)
}
