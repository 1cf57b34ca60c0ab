//! The tokio runtime a [`Launcher`](super::Launcher) serves on.

use super::Transport;

/// Which tokio runtime [`Launcher::run`](super::Launcher::run) builds; set with
/// [`Launcher::runtime`](super::Launcher::runtime).
///
/// The default, [`ByTransport`](Self::ByTransport), gives stdio one thread and HTTP a pool.
/// A stdio server answers one client: with stdin read, requests dispatched and stdout
/// written on one thread's event loop (when stdin and stdout are pipes or sockets), no
/// request waits for a worker to wake up or a task to move between threads. Measured with
/// `bench/compare.sh`'s load client (64 calls in flight, 2 cores): the same server answered
/// 0.99 × the stdio floor's calls per second on one thread and 0.50 × on the multi-threaded
/// runtime, which spent 2.5 × the floor's CPU per call (1.07 × on one thread). HTTP serves
/// many clients at once and gets a thread per core.
///
/// On one thread, a handler that computes or blocks for a long stretch holds up every other
/// request: such a handler belongs in `tokio::task::spawn_blocking`, or the server can choose
/// [`MultiThread`](Self::MultiThread) (which `tokio::task::block_in_place` also needs: it
/// panics on a current-thread runtime).
///
/// ```no_run
/// use mcp_runtime::launch::RuntimeFlavor;
///
/// # fn server() -> Result<mcp_runtime::Server, mcp_runtime::server::BuildError> {
/// #     mcp_runtime::Server::builder("demo", "0.1.0").build()
/// # }
/// fn main() -> std::process::ExitCode {
///     mcp_runtime::launcher!()
///         .runtime(RuntimeFlavor::MultiThread)
///         .run(server)
/// }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuntimeFlavor {
    /// One thread for stdio, a pool for HTTP.
    #[default]
    ByTransport,
    /// tokio's current-thread runtime, whatever the transport.
    CurrentThread,
    /// tokio's multi-threaded runtime: a worker per core, or `TOKIO_WORKER_THREADS`.
    MultiThread,
}

impl RuntimeFlavor {
    /// Whether `transport` is served on one thread.
    fn one_thread(self, transport: Transport) -> bool {
        match self {
            Self::ByTransport => transport == Transport::Stdio,
            Self::CurrentThread => true,
            Self::MultiThread => false,
        }
    }

    /// The runtime for `transport`, every driver (I/O, time) enabled.
    pub(super) fn build(self, transport: Transport) -> std::io::Result<tokio::runtime::Runtime> {
        let mut builder = if self.one_thread(transport) {
            tokio::runtime::Builder::new_current_thread()
        } else {
            tokio::runtime::Builder::new_multi_thread()
        };
        builder.enable_all().build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::runtime::RuntimeFlavor as Tokio;

    fn flavor(choice: RuntimeFlavor, transport: Transport) -> Tokio {
        choice.build(transport).unwrap().handle().runtime_flavor()
    }

    #[test]
    fn stdio_runs_on_one_thread_unless_told_otherwise() {
        assert_eq!(
            flavor(RuntimeFlavor::default(), Transport::Stdio),
            Tokio::CurrentThread
        );
        assert_eq!(
            flavor(RuntimeFlavor::MultiThread, Transport::Stdio),
            Tokio::MultiThread
        );
    }

    #[cfg(feature = "http")]
    #[test]
    fn http_gets_a_pool_unless_told_otherwise() {
        assert_eq!(
            flavor(RuntimeFlavor::default(), Transport::Http),
            Tokio::MultiThread
        );
        assert_eq!(
            flavor(RuntimeFlavor::CurrentThread, Transport::Http),
            Tokio::CurrentThread
        );
    }
}
