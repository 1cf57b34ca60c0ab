//! The heap 10,000 live tasks hold in the in-memory store (each completed with a small
//! result, as a finished `echo` task is; target: under 32 MiB), and what is left once they
//! expired and were swept. Counted with `dhat`'s heap statistics (its allocator is this
//! binary's global allocator, which is why this is not part of `tasks`).

use mcp_runtime::task::{
    MemoryTaskStore, TaskLimits, TaskOptions, TaskRecord, TaskStatus, TaskStore,
};
use serde_json::json;
use std::time::Duration;

#[global_allocator]
static ALLOCATOR: dhat::Alloc = dhat::Alloc;

const TEXT: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn live() -> u64 {
    dhat::HeapStats::get().curr_bytes as u64
}

fn main() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let store = MemoryTaskStore::new(TaskLimits::default());
        let options = TaskOptions::new().ttl(Duration::from_millis(500));
        let result = serde_json::value::to_raw_value(&json!({"content": [{"type": "text", "text": TEXT}]}))
            .expect("JSON");
        let before = live();
        for i in 0..10_000u32 {
            let mut task = TaskRecord::new(
                format!("{i:032x}"),
                // Twenty callers (an identity keeps at most 1,000 tasks by default).
                Some(format!("caller-{}", i % 20)),
                "echo".into(),
                &options,
            );
            task.status = TaskStatus::Completed;
            task.result = Some(result.clone());
            store.create(task).await.expect("room for 10,000");
        }
        let held = live() - before;
        let counted = store.bytes();
        tokio::time::sleep(Duration::from_millis(600)).await;
        let swept = store.sweep().await.expect("sweep");
        let left = live().saturating_sub(before);
        println!(
            "task_memory: 10,000 completed tasks hold {:.1} MiB ({} bytes each; the store's own estimate {counted} bytes); {swept} expired and swept leave {left} bytes",
            held as f64 / 1_048_576.0,
            held / 10_000,
        );
        assert_eq!(store.len(), 0);
    });
}
