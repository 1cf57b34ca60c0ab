//! The OTLP/HTTP protobuf span exporter (`http/protobuf`, the specification's default
//! protocol): batches encoded by [`otlp_proto`](super::otlp_proto) and posted with the
//! crate's HTTP client ([`otlp_http`](super::otlp_http)).
//!
//! It reads the standard environment as opentelemetry-otlp's exporter does: the endpoint
//! (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it is, else `OTEL_EXPORTER_OTLP_ENDPOINT` with
//! `/v1/traces`, else `http://localhost:4318/v1/traces`), the headers
//! (`OTEL_EXPORTER_OTLP_HEADERS`, then `..._TRACES_HEADERS`, `key=value` pairs separated by
//! commas, values percent-decoded) and the timeout (the client's). A batch the collector
//! refuses for now (429, 502, 503, 504, or no connection) is sent again, up to three times,
//! 100 ms, 200 ms and 400 ms later, or after the `Retry-After` it names (up to 5 s); a batch
//! it refuses for good is dropped, as opentelemetry-otlp drops it, and the error reported to
//! the SDK. Compression (`OTEL_EXPORTER_OTLP_COMPRESSION`) is not done here:
//! when it is asked for, opentelemetry-otlp's exporter is used instead (see
//! [`wanted`]).

use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::{OTelSdkError, OTelSdkResult};
use opentelemetry_sdk::trace::{SpanData, SpanExporter};
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, RETRY_AFTER};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Whether this exporter serves the environment's traces: no compression is asked for (the
/// protocol is the caller's to check).
pub(super) fn wanted() -> bool {
    let set = |var: &str| {
        std::env::var(var)
            .ok()
            .is_some_and(|v| !v.trim().is_empty() && !v.trim().eq_ignore_ascii_case("none"))
    };
    !set("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION") && !set("OTEL_EXPORTER_OTLP_COMPRESSION")
}

/// Spans to an OTLP/HTTP collector in protobuf.
#[derive(Debug)]
pub(super) struct ProtoSpans {
    client: reqwest::blocking::Client,
    endpoint: String,
    headers: HeaderMap,
    resource: Resource,
    /// The last batch's size, to size the next one's buffer at once.
    last_len: AtomicUsize,
}

impl ProtoSpans {
    /// The exporter the environment describes, posting with `client`.
    ///
    /// # Errors
    ///
    /// A header that is not a valid HTTP header.
    pub(super) fn from_env(client: reqwest::blocking::Client) -> Result<Self, String> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let endpoint = match (
            var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
            var("OTEL_EXPORTER_OTLP_ENDPOINT"),
        ) {
            (Some(endpoint), _) => endpoint.trim().to_owned(),
            (None, Some(base)) => with_path(base.trim(), "/v1/traces"),
            (None, None) => "http://localhost:4318/v1/traces".to_owned(),
        };
        let mut headers = HeaderMap::new();
        for list in [
            var("OTEL_EXPORTER_OTLP_HEADERS"),
            var("OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
        ]
        .into_iter()
        .flatten()
        {
            for (key, value) in parse_headers(&list) {
                let name =
                    HeaderName::try_from(key).map_err(|e| format!("OTLP header {key:?}: {e}"))?;
                let value = HeaderValue::try_from(value)
                    .map_err(|e| format!("OTLP header {key:?}: {e}"))?;
                headers.insert(name, value);
            }
        }
        headers.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("application/x-protobuf"),
        );
        Ok(Self {
            client,
            endpoint,
            headers,
            resource: Resource::builder_empty().build(),
            last_len: AtomicUsize::new(0),
        })
    }

    /// Posts `body`, again while the collector says to retry; the error says why it failed.
    pub(super) fn post(&self, body: bytes::Bytes) -> Result<(), String> {
        let mut delay = Duration::from_millis(100);
        for attempt in 0..=3 {
            let sent = self
                .client
                .post(&self.endpoint)
                .headers(self.headers.clone())
                .body(body.clone())
                .send();
            let wait = match sent {
                Ok(response) if response.status().is_success() => return Ok(()),
                Ok(response) => {
                    let status = response.status().as_u16();
                    if !matches!(status, 429 | 502 | 503 | 504) || attempt == 3 {
                        return Err(format!(
                            "the OTLP collector at {} answered {status}",
                            self.endpoint
                        ));
                    }
                    response
                        .headers()
                        .get(RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .map_or(delay, |s| Duration::from_secs(s.min(5)))
                }
                Err(e) if attempt < 3 && (e.is_connect() || e.is_timeout()) => delay,
                Err(e) => return Err(format!("posting spans to {}: {e}", self.endpoint)),
            };
            std::thread::sleep(wait);
            delay *= 2;
        }
        unreachable!("the last attempt returns")
    }
}

impl SpanExporter for ProtoSpans {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let mut body = Vec::with_capacity(self.last_len.load(Ordering::Relaxed));
        super::otlp_proto::encode_spans(&self.resource, &batch, &mut body);
        drop(batch);
        self.last_len.store(body.len(), Ordering::Relaxed);
        // Blocking: the batch processor runs its exporter on a thread of its own, as
        // opentelemetry-otlp's blocking reqwest client does.
        self.post(body.into())
            .map_err(OTelSdkError::InternalFailure)
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.resource = resource.clone();
    }
}

/// `base` with `path` after it, one `/` between them.
fn with_path(base: &str, path: &str) -> String {
    format!("{}{path}", base.strip_suffix('/').unwrap_or(base))
}

/// The `key=value` pairs of an `OTEL_EXPORTER_OTLP_HEADERS` list; values percent-decoded,
/// pairs that do not parse left out (as opentelemetry-otlp leaves them).
fn parse_headers(list: &str) -> impl Iterator<Item = (&str, String)> {
    list.split(',').filter_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        let key = key.trim();
        let value = percent_decode(value.trim())?;
        (!key.is_empty()).then_some((key, value))
    })
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_take_the_signal_path_only_from_the_common_variable() {
        assert_eq!(
            with_path("http://127.0.0.1:4318", "/v1/traces"),
            "http://127.0.0.1:4318/v1/traces"
        );
        assert_eq!(
            with_path("https://collector.example/otlp/", "/v1/traces"),
            "https://collector.example/otlp/v1/traces"
        );
    }

    #[test]
    fn header_lists_parse_as_the_specification_writes_them() {
        let parsed: Vec<_> =
            parse_headers("api-key=abc%3D%3D, x-team = one two ,broken, =nokey,x=%zz").collect();
        assert_eq!(
            parsed,
            [
                ("api-key", "abc==".to_owned()),
                ("x-team", "one two".to_owned())
            ]
        );
    }
}
