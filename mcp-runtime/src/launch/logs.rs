//! A server binary's logs: `tracing` to stderr, the audit trail through an [`AuditSink`], and
//! (with the `otel` feature) OpenTelemetry export when the standard environment asks.

use super::{AuditSink, DEFAULT_LOG_FILTER};

/// Sends `tracing` output to stderr (stdout belongs to the protocol), filtered by
/// `RUST_LOG`, else by [`DEFAULT_LOG_FILTER`]: warnings, errors and the audit trail
/// (`RUST_LOG=warn` leaves the audit out). Does nothing if the program already set a global
/// subscriber, so a `main` with its own logging keeps it.
///
/// The audit trail goes through an [`AuditSink`]: formatted cheaply and written by a thread of
/// its own in batches, so a request does not wait for stderr. Keep the returned [`LogGuard`]
/// until `main` returns: dropping it writes the lines still pending. Other logs are written
/// by `tracing_subscriber::fmt` as they happen (so a warning may reach stderr before the
/// audit lines of requests that ended a moment earlier).
///
/// ```no_run
/// let _logs = mcp_runtime::launch::init_tracing();
/// tracing::warn!("this goes to stderr");
/// ```
pub fn init_tracing() -> LogGuard {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::{Layer, filter};

    let from_env = || {
        tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_LOG_FILTER))
    };
    let env = from_env();
    // The only consumer of the audit events in this subscriber: requests hand it their
    // records directly (`AuditSink::exclusive`).
    let sink = AuditSink::stderr().exclusive();
    let not_audit =
        filter::filter_fn(move |metadata| metadata.target() != crate::pipeline::AUDIT_TARGET);
    let others = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    #[cfg(feature = "otel")]
    {
        let service = std::env::current_exe()
            .ok()
            .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "mcp-server".to_owned());
        match crate::telemetry::from_env(&service) {
            Ok(Some(providers)) => {
                // The request spans stay on whatever `RUST_LOG` says about other logs: one
                // span per request by default; their children (`validate arguments`, `tool`,
                // `ask client`, `file operation`) and events when `RUST_LOG` names the target
                // at `debug`. Children are opt-in because they are much of what export
                // costs: three spans instead of one for every tool call (`OTEL=1
                // bench/compare.sh`, stdio: 13.5 µs of server CPU a call with them, 8.8 µs
                // without, 2.6 µs not exporting).
                let target = crate::telemetry::SPAN_TARGET;
                let named = std::env::var("RUST_LOG").is_ok_and(|v| v.contains(target));
                let env = if named {
                    env
                } else {
                    env.add_directive(format!("{target}=info").parse().expect("a valid directive"))
                };
                let spans = providers.tracer_provider().map(crate::telemetry::layer);
                // The log lines keep to `RUST_LOG` alone: without a filter of their own,
                // stderr would get the request spans' debug events, and every request would
                // pay for its span's fields formatted into text nobody prints.
                use tracing_subscriber::filter::FilterExt as _;
                let installed = tracing_subscriber::registry()
                    .with(env)
                    .with(others.with_filter(from_env().and(not_audit)))
                    .with(sink.clone())
                    .with(spans)
                    .try_init()
                    .is_ok();
                return LogGuard {
                    sink: installed.then_some(sink),
                    otel: Some(providers),
                };
            }
            Ok(None) => {}
            Err(e) => {
                // Telemetry is not worth failing a server for: say so, serve without it.
                #[allow(clippy::print_stderr)]
                {
                    eprintln!("OpenTelemetry export is off: {e}");
                }
            }
        }
    }
    #[cfg(not(feature = "otel"))]
    if let Some(variable) = otel_asked() {
        // Said once, on stderr: the server serves on, without telemetry.
        #[allow(clippy::print_stderr)]
        {
            eprintln!(
                "{variable} asks for OpenTelemetry export, but this server is built without \
                 mcp-runtime's `otel` feature: add \"otel\" to the features of the mcp-runtime \
                 dependency in Cargo.toml"
            );
        }
    }
    let installed = tracing_subscriber::registry()
        .with(env)
        .with(others.with_filter(not_audit))
        .with(sink.clone())
        .try_init()
        .is_ok();
    LogGuard {
        sink: installed.then_some(sink),
        #[cfg(feature = "otel")]
        otel: None,
    }
}

/// The standard variable that asks for OTLP export, if one does (`OTEL_SDK_DISABLED=true`
/// and `none` exporters ask for nothing): what a server built without `otel` cannot do.
#[cfg(not(feature = "otel"))]
fn otel_asked() -> Option<&'static str> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    if var("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return None;
    }
    [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    ]
    .into_iter()
    .find(|name| var(name).is_some())
    .or_else(|| {
        ["OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER"]
            .into_iter()
            .find(|name| var(name).is_some_and(|v| !v.trim().eq_ignore_ascii_case("none")))
    })
}

/// Keeps the audit trail's pending lines until it is dropped, then writes them (see
/// [`AuditSink::finish`]). Returned by [`init_tracing`]; keep it in `main`.
#[must_use = "dropping the guard ends the audit trail's batching at once: keep it until `main` returns"]
#[derive(Debug)]
pub struct LogGuard {
    /// `None` when another subscriber was already set.
    sink: Option<AuditSink>,
    /// The OpenTelemetry exporters, when the environment asked for them: flushed and shut
    /// down after the audit trail.
    #[cfg(feature = "otel")]
    otel: Option<crate::telemetry::Providers>,
}

impl LogGuard {
    /// The audit sink [`init_tracing`] installed, if it did.
    pub fn audit_sink(&self) -> Option<&AuditSink> {
        self.sink.as_ref()
    }
}

impl Drop for LogGuard {
    fn drop(&mut self) {
        if let Some(sink) = &self.sink {
            sink.finish();
        }
        #[cfg(feature = "otel")]
        drop(self.otel.take());
    }
}
