//! `--worker`: this binary as a measuring process for a parent report. The parent starts
//! it for peers that cannot run in its own process — OpenSSL with `OPENSSL_ia32cap` set
//! (read once, when libcrypto loads), the published crate's `--cfg chacha20_avx512` build
//! (a compile-time switch, so a second binary), and the published `chacha20poly1305` over
//! our `chacha20` (the `benches/patched/` project's build of this binary, with a
//! `[patch.crates-io]`) — and drives it line by line on stdin/stdout, so its batches
//! interleave with the parent's own.
//!
//! Protocol (one request line, one reply line `ok …` or `err MESSAGE`):
//!
//! | request | reply |
//! |---|---|
//! | `hello` | `ok avx512_cfg=BOOL aead_on_ours=BOOL` (whether this binary was built with `--cfg chacha20_avx512`; whether its `chacha20poly1305` runs on our `chacha20`) |
//! | `implementations WORKLOAD` | `ok NAME…` (this worker's implementations of the workload, in order) |
//! | `check WORKLOAD` | `ok HEX…` (each implementation's transcript, see `chacha_bench::transcript`) |
//! | `prepare SLOT WORKLOAD INDEX POINT TARGET_NS` | `ok CALLS` (a new runner, calibrated) |
//! | `batch SLOT CALLS` | `ok NANOSECONDS TICKS` (`-` without a TSC) |
//! | `drop SLOT` | `ok` |
//!
//! End of input ends the worker.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{BufRead, Write};
use std::time::Duration;

use chacha_bench::{
    Implementation, Peer, Point, Runner, Workload, aead_on_ours, implementations, transcript,
};

struct WorkerState {
    peers: Vec<Peer>,
    implementations: HashMap<String, Vec<Implementation>>,
    slots: HashMap<u64, (String, usize, Runner)>,
}

fn workload(id: &str) -> Result<Workload, String> {
    Workload::by_id(id).ok_or_else(|| format!("unknown workload `{id}`"))
}

fn number(text: Option<&str>) -> Result<u64, String> {
    text.and_then(|t| t.parse().ok()).ok_or_else(|| "a number is missing".to_string())
}

impl WorkerState {
    fn implementations_of(&mut self, id: &str) -> Result<&mut Vec<Implementation>, String> {
        let w = workload(id)?;
        let peers = &self.peers;
        Ok(self.implementations.entry(id.to_string()).or_insert_with(|| implementations(w, &[], peers)))
    }

    fn handle(&mut self, line: &str) -> Result<String, String> {
        let mut words = line.split_whitespace();
        let command = words.next().unwrap_or("");
        match command {
            "hello" => Ok(format!("avx512_cfg={} aead_on_ours={}", cfg!(chacha20_avx512), aead_on_ours())),
            "implementations" => {
                let list = self.implementations_of(words.next().unwrap_or(""))?;
                Ok(list.iter().map(|e| e.name().to_string()).collect::<Vec<_>>().join(" "))
            }
            "check" => {
                let id = words.next().unwrap_or("");
                let w = workload(id)?;
                let list = self.implementations_of(id)?;
                let mut reply = String::new();
                for e in list.iter_mut() {
                    if !reply.is_empty() {
                        reply.push(' ');
                    }
                    for b in transcript(w, e) {
                        let _ = write!(reply, "{b:02x}");
                    }
                }
                Ok(reply)
            }
            "prepare" => {
                let slot = number(words.next())?;
                let id = words.next().unwrap_or("").to_string();
                let index = number(words.next())? as usize;
                let point = words.next().and_then(Point::from_token).ok_or("bad point")?;
                let target = Duration::from_nanos(number(words.next())?);
                let w = workload(&id)?;
                let list = self.implementations_of(&id)?;
                let implementation = list.get_mut(index).ok_or("no such implementation")?;
                let mut runner = implementation.runner(w, point);
                let calls = runner.calibrate(implementation, target);
                self.slots.insert(slot, (id, index, runner));
                Ok(calls.to_string())
            }
            "batch" => {
                let slot = number(words.next())?;
                let calls = number(words.next())?;
                let (id, index, runner) = self.slots.get_mut(&slot).ok_or("no such slot")?;
                let implementation = self
                    .implementations
                    .get_mut(id)
                    .and_then(|l| l.get_mut(*index))
                    .ok_or("no such implementation")?;
                let (dt, ticks) = runner.batch(implementation, calls);
                Ok(format!("{} {}", dt.as_nanos(), ticks.map_or("-".to_string(), |t| t.to_string())))
            }
            "drop" => {
                self.slots.remove(&number(words.next())?);
                Ok(String::new())
            }
            other => Err(format!("unknown request `{other}`")),
        }
    }
}

/// Serves requests until stdin ends.
pub fn serve(peers: &[Peer]) -> Result<(), String> {
    let mut worker =
        WorkerState { peers: peers.to_vec(), implementations: HashMap::new(), slots: HashMap::new() };
    let stdin = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    for line in stdin.lines() {
        let line = line.map_err(|e| format!("reading a request: {e}"))?;
        let reply = match worker.handle(&line) {
            Ok(text) if text.is_empty() => "ok".to_string(),
            Ok(text) => format!("ok {text}"),
            Err(e) => format!("err {e}"),
        };
        writeln!(out, "{reply}").and_then(|()| out.flush()).map_err(|e| format!("writing a reply: {e}"))?;
    }
    Ok(())
}
