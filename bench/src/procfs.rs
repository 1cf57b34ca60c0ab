//! What `/proc` says about a server process: CPU time of all its threads, peak RSS.

use std::fs;
use std::time::Duration;

/// CPU time consumed so far by every thread of `pid` (sum of `/proc/PID/task/*/schedstat`,
/// nanosecond resolution). `None` when the process is gone or this is not Linux.
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let mut total = 0u64;
    for task in fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let path = task.ok()?.path().join("schedstat");
        // Threads may exit between the listing and the read.
        if let Ok(s) = fs::read_to_string(path) {
            total += s.split_whitespace().next()?.parse::<u64>().ok()?;
        }
    }
    Some(Duration::from_nanos(total))
}

/// Peak resident set size (`VmHWM`) of `pid`, in KiB.
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}
