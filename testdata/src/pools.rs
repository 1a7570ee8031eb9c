//! The thread pools the parallel calls' tests run on (feature `rayon`): pools of 1 (the
//! sequential path), 2, 3 and 5 threads, each splitting a request differently.

use std::sync::OnceLock;

use rayon::{ThreadPool, ThreadPoolBuilder};

/// Pools of 1, 2, 3 and 5 threads (2 only under miri), made once; `None` is rayon's global
/// pool, the only one where threads cannot be spawned (wasm32-wasip1: rayon runs it on the
/// calling thread alone, so the calls take the sequential path).
pub fn pools() -> Vec<Option<&'static ThreadPool>> {
    static POOLS: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    let threads: &[usize] = if cfg!(miri) { &[2] } else { &[1, 2, 3, 5] };
    let pools = POOLS.get_or_init(|| {
        let built: Result<Vec<ThreadPool>, _> =
            threads.iter().map(|&n| ThreadPoolBuilder::new().num_threads(n).build()).collect();
        match built {
            Ok(pools) => pools,
            Err(_) if cfg!(target_family = "wasm") => Vec::new(),
            Err(e) => panic!("a pool: {e}"),
        }
    });
    if pools.is_empty() { vec![None] } else { pools.iter().map(Some).collect() }
}

/// Runs `f` in `pool` (`None`: rayon's global pool).
pub fn install<T: Send>(pool: Option<&ThreadPool>, f: impl FnOnce() -> T + Send) -> T {
    match pool {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// The threads of `pool` (`None`: rayon's global pool).
pub fn threads(pool: Option<&ThreadPool>) -> usize {
    pool.map_or_else(rayon::current_num_threads, ThreadPool::current_num_threads)
}
