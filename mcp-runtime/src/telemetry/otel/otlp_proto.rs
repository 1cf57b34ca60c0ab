//! OTLP protobuf for spans, written straight from the SDK's [`SpanData`] into one buffer: the
//! body of an OTLP/HTTP `ExportTraceServiceRequest`.
//!
//! Why not opentelemetry-otlp's own encoding: it first converts every span into
//! opentelemetry-proto's message structs (each attribute's text copied into a new `String`,
//! the trace state rendered, a `Vec` per id), and prost then computes each nested message's
//! length again at every level of the tree: about 18,000 instructions a span on the
//! exporter's thread (`bench/callgrind.sh`), more than a whole `tools/call` costs the
//! server. Here a span is written once: a nested message's length is written in front of it
//! once it is known (one byte kept for it, the body moved when the length needs more).
//!
//! The bytes are what prost writes for the same messages: proto3 scalars at their default are
//! left out, a set message (resource, scope, status) is written even when empty, and a oneof
//! value always; the unit tests decode the output with opentelemetry-proto's types and
//! compare it with opentelemetry-otlp's conversion.

use super::otlp_wire::{
    FIXED64, LEN, VARINT, bytes, fixed32, fixed64, len_bytes, message, string, tag, varint,
    varint_field, varint_len,
};
use opentelemetry::trace::{SpanId, SpanKind, Status};
use opentelemetry::{Array, InstrumentationScope, Value};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SpanData;
use std::time::{SystemTime, UNIX_EPOCH};

/// `SpanFlags`: the flags say whether the parent is remote.
const HAS_IS_REMOTE: u32 = 0x100;
const IS_REMOTE: u32 = 0x200;

/// Appends the `ExportTraceServiceRequest` of `spans`, from `resource`, to `out`.
pub(crate) fn encode_spans(resource: &Resource, spans: &[SpanData], out: &mut Vec<u8>) {
    // ExportTraceServiceRequest.resource_spans = 1
    message(out, 1, |out| {
        // ResourceSpans.resource = 1
        message(out, 1, |out| {
            for (key, value) in resource.iter() {
                // Resource.attributes = 1
                key_value(out, 1, key.as_str(), value);
            }
        });
        // ResourceSpans.scope_spans = 2, one per instrumentation scope, in order of
        // appearance.
        let mut scopes: Vec<&InstrumentationScope> = Vec::new();
        for span in spans {
            if !scopes
                .iter()
                .any(|scope| same_scope(scope, &span.instrumentation_scope))
            {
                scopes.push(&span.instrumentation_scope);
            }
        }
        for scope in scopes {
            message(out, 2, |out| {
                // ScopeSpans.scope = 1
                message(out, 1, |out| {
                    string(out, 1, scope.name());
                    string(out, 2, scope.version().unwrap_or_default());
                    for kv in scope.attributes() {
                        key_value(out, 3, kv.key.as_str(), &kv.value);
                    }
                });
                for span in spans
                    .iter()
                    .filter(|s| same_scope(&s.instrumentation_scope, scope))
                {
                    // ScopeSpans.spans = 2
                    message(out, 2, |out| encode_span(span, out));
                }
                string(out, 3, scope.schema_url().unwrap_or_default());
            });
        }
        string(out, 3, resource.schema_url().unwrap_or_default());
    });
}

/// Whether two spans' scopes are the same: at once when they are copies of one scope
/// without attributes (the texts at the same addresses: a tracer's spans), else by
/// comparing them, which costs more than the rest of a span's encoding.
fn same_scope(a: &InstrumentationScope, b: &InstrumentationScope) -> bool {
    let text = |t: Option<&str>| t.map(|t| t as *const str);
    let copies = std::ptr::eq(a.name(), b.name())
        && text(a.version()) == text(b.version())
        && text(a.schema_url()) == text(b.schema_url())
        && a.attributes().next().is_none()
        && b.attributes().next().is_none();
    copies || a == b
}

fn encode_span(span: &SpanData, out: &mut Vec<u8>) {
    let context = &span.span_context;
    bytes(out, 1, &context.trace_id().to_bytes());
    bytes(out, 2, &context.span_id().to_bytes());
    let state = context.trace_state().header();
    string(out, 3, &state);
    if span.parent_span_id != SpanId::INVALID {
        bytes(out, 4, &span.parent_span_id.to_bytes());
    }
    string(out, 5, &span.name);
    let kind = match span.span_kind {
        SpanKind::Internal => 1,
        SpanKind::Server => 2,
        SpanKind::Client => 3,
        SpanKind::Producer => 4,
        SpanKind::Consumer => 5,
    };
    varint_field(out, 6, kind);
    fixed64(out, 7, nanos(span.start_time));
    fixed64(out, 8, nanos(span.end_time));
    for kv in &span.attributes {
        key_value(out, 9, kv.key.as_str(), &kv.value);
    }
    varint_field(out, 10, u64::from(span.dropped_attributes_count));
    for event in span.events.iter() {
        message(out, 11, |out| {
            fixed64(out, 1, nanos(event.timestamp));
            string(out, 2, &event.name);
            for kv in &event.attributes {
                key_value(out, 3, kv.key.as_str(), &kv.value);
            }
            varint_field(out, 4, u64::from(event.dropped_attributes_count));
        });
    }
    varint_field(out, 12, u64::from(span.events.dropped_count));
    for link in span.links.iter() {
        message(out, 13, |out| {
            let context = &link.span_context;
            bytes(out, 1, &context.trace_id().to_bytes());
            bytes(out, 2, &context.span_id().to_bytes());
            string(out, 3, &context.trace_state().header());
            for kv in &link.attributes {
                key_value(out, 4, kv.key.as_str(), &kv.value);
            }
            varint_field(out, 5, u64::from(link.dropped_attributes_count));
            let flags = u32::from(context.trace_flags().to_u8())
                | HAS_IS_REMOTE
                | if context.is_remote() { IS_REMOTE } else { 0 };
            fixed32(out, 6, flags);
        });
    }
    varint_field(out, 14, u64::from(span.links.dropped_count));
    // Span.status = 15: always set.
    message(out, 15, |out| {
        let (message, code) = match &span.status {
            Status::Unset => ("", 0),
            Status::Ok => ("", 1),
            Status::Error { description } => (&**description, 2),
        };
        string(out, 2, message);
        varint_field(out, 3, code);
    });
    let flags = u32::from(context.trace_flags().to_u8())
        | HAS_IS_REMOTE
        | if span.parent_span_is_remote {
            IS_REMOTE
        } else {
            0
        };
    fixed32(out, 16, flags);
}

/// A `KeyValue` message as field `field`.
fn key_value(out: &mut Vec<u8>, field: u32, key: &str, value: &Value) {
    if let Value::String(text) = value {
        // Nearly every attribute: its lengths known at once, written in one pass.
        string_key_value(out, field, key, text.as_str());
        return;
    }
    message(out, field, |out| {
        string(out, 1, key);
        message(out, 2, |out| any_value(out, value));
    });
}

/// The length of a `KeyValue` message with a string value.
fn string_key_value_len(key: &str, text: &str) -> usize {
    let any = 1 + varint_len(text.len()) + text.len();
    let key_field = if key.is_empty() {
        0
    } else {
        1 + varint_len(key.len()) + key.len()
    };
    key_field + 1 + varint_len(any) + any
}

/// A `KeyValue` message with a string value as field `field` (a one-byte tag).
fn string_key_value(out: &mut Vec<u8>, field: u32, key: &str, text: &str) {
    let body = string_key_value_len(key, text);
    out.reserve(1 + varint_len(body) + body);
    tag(out, field, LEN);
    varint(out, body as u64);
    string(out, 1, key);
    tag(out, 2, LEN);
    varint(out, (1 + varint_len(text.len()) + text.len()) as u64);
    tag(out, 1, LEN);
    len_bytes(out, text.as_bytes());
}

/// The fields of a server span that every request of one kind shares: its name (`parts`
/// written one after the other), its kind and the `attributes` that do not change from one
/// request to the next (method, tool, revision, transport). Written once and kept (see
/// `own`); [`RequestSpan`] puts them into each span as they are.
pub(super) fn fixed_fields<'k, 'v>(
    parts: [&str; 3],
    attributes: impl Iterator<Item = (&'k str, &'v str)>,
    out: &mut Vec<u8>,
) {
    let name_len = parts.iter().map(|part| part.len()).sum::<usize>();
    if name_len > 0 {
        tag(out, 5, LEN);
        varint(out, name_len as u64);
        for part in parts {
            out.extend_from_slice(part.as_bytes());
        }
    }
    varint_field(out, 6, 2); // SERVER
    for (key, value) in attributes {
        string_key_value(out, 9, key, value);
    }
}

/// A server span whose attributes are all texts, as `own` writes request spans: its
/// fields, and [`encode`](Self::encode) with the attributes.
///
/// The fields are not in field-number order (the name, kind and fixed attributes come
/// as one block): protobuf readers take fields in any order, and a repeated field's
/// values in the order they come.
pub(super) struct RequestSpan<'a> {
    pub(super) trace_id: [u8; 16],
    pub(super) span_id: [u8; 8],
    pub(super) trace_state: &'a str,
    pub(super) parent_span_id: Option<[u8; 8]>,
    /// [`fixed_fields`].
    pub(super) fixed: &'a [u8],
    pub(super) start: SystemTime,
    pub(super) end: SystemTime,
    /// Status ERROR (else unset).
    pub(super) error: bool,
    /// The W3C trace flags.
    pub(super) flags: u32,
    pub(super) parent_is_remote: bool,
}

impl RequestSpan<'_> {
    /// Appends the span as a `ScopeSpans.spans` field (2) with the attributes that are the
    /// request's own (after the fixed ones): its length computed first, so that nothing is
    /// moved.
    pub(super) fn encode<'k, 'v>(
        &self,
        attributes: impl Iterator<Item = (&'k str, &'v str)> + Clone,
        out: &mut Vec<u8>,
    ) {
        let (start, end) = (nanos(self.start), nanos(self.end));
        let time = |t: u64| if t == 0 { 0 } else { 9 };
        let state = if self.trace_state.is_empty() {
            0
        } else {
            1 + varint_len(self.trace_state.len()) + self.trace_state.len()
        };
        let status = if self.error { 2 } else { 0 };
        let body = 18
            + 10
            + state
            + self.parent_span_id.map_or(0, |_| 10)
            + self.fixed.len()
            + time(start)
            + time(end)
            + attributes
                .clone()
                .map(|(k, v)| {
                    let kv = string_key_value_len(k, v);
                    1 + varint_len(kv) + kv
                })
                .sum::<usize>()
            + 2
            + status
            + 6;
        out.reserve(1 + varint_len(body) + body);
        out.push(0x12); // ScopeSpans.spans = 2
        varint(out, body as u64);
        let head = out.len();
        out.extend_from_slice(&[0x0a, 16]); // trace_id = 1
        out.extend_from_slice(&self.trace_id);
        out.extend_from_slice(&[0x12, 8]); // span_id = 2
        out.extend_from_slice(&self.span_id);
        string(out, 3, self.trace_state);
        if let Some(id) = &self.parent_span_id {
            out.extend_from_slice(&[0x22, 8]); // parent_span_id = 4
            out.extend_from_slice(id);
        }
        out.extend_from_slice(self.fixed);
        fixed64(out, 7, start);
        fixed64(out, 8, end);
        for (key, value) in attributes {
            string_key_value(out, 9, key, value);
        }
        // status = 15: always set; code = 3, 2 is ERROR.
        out.extend_from_slice(&[0x7a, status as u8]);
        if self.error {
            out.extend_from_slice(&[0x18, 2]);
        }
        let flags = self.flags | HAS_IS_REMOTE | if self.parent_is_remote { IS_REMOTE } else { 0 };
        out.extend_from_slice(&[0x85, 0x01]); // flags = 16, fixed32
        out.extend_from_slice(&flags.to_le_bytes());
        debug_assert_eq!(out.len() - head, body, "a request span's computed length");
    }
}

/// The parts of an `ExportTraceServiceRequest` around one scope's spans: written once,
/// and put in front of (and behind) a batch of [`RequestSpan`]s without moving them.
#[derive(Debug)]
pub(super) struct Envelope {
    /// `ResourceSpans.resource` (field 1).
    resource: Vec<u8>,
    /// `ScopeSpans.scope` (field 1).
    scope: Vec<u8>,
    /// `ResourceSpans.schema_url` (field 3), if any.
    tail: Vec<u8>,
}

impl Envelope {
    /// The envelope of spans of the scope named `scope` from `resource`.
    pub(super) fn new(resource: &Resource, scope: &str) -> Self {
        let mut head = Vec::new();
        message(&mut head, 1, |out| {
            for (key, value) in resource.iter() {
                key_value(out, 1, key.as_str(), value);
            }
        });
        let mut scope_field = Vec::new();
        message(&mut scope_field, 1, |out| string(out, 1, scope));
        let mut tail = Vec::new();
        string(&mut tail, 3, resource.schema_url().unwrap_or_default());
        Self {
            resource: head,
            scope: scope_field,
            tail,
        }
    }

    /// How many bytes to keep in front of a batch for [`wrap`](Self::wrap).
    pub(super) fn room(&self) -> usize {
        self.resource.len() + self.scope.len() + 2 * 11
    }

    /// The request body of `batch`: [`room`](Self::room) bytes, then spans. Returns it
    /// with the offset it starts at.
    pub(super) fn wrap(&self, mut batch: Vec<u8>) -> (Vec<u8>, usize) {
        let room = self.room();
        let spans = batch.len() - room;
        let scope_spans = self.scope.len() + spans;
        let resource_spans =
            self.resource.len() + 1 + varint_len(scope_spans) + scope_spans + self.tail.len();
        let mut head = Vec::with_capacity(room);
        tag(&mut head, 1, LEN);
        varint(&mut head, resource_spans as u64);
        head.extend_from_slice(&self.resource);
        tag(&mut head, 2, LEN);
        varint(&mut head, scope_spans as u64);
        head.extend_from_slice(&self.scope);
        let from = room - head.len();
        batch[from..room].copy_from_slice(&head);
        batch.extend_from_slice(&self.tail);
        (batch, from)
    }
}

/// The fields of an `AnyValue` (a oneof: written even at its default).
fn any_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::String(s) => {
            tag(out, 1, LEN);
            len_bytes(out, s.as_str().as_bytes());
        }
        Value::Bool(b) => {
            tag(out, 2, VARINT);
            varint(out, u64::from(*b));
        }
        Value::I64(i) => {
            tag(out, 3, VARINT);
            varint(out, *i as u64);
        }
        Value::F64(f) => {
            tag(out, 4, FIXED64);
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        Value::Array(array) => message(out, 5, |out| match array {
            Array::Bool(v) => v.iter().for_each(|b| element(out, &Value::Bool(*b))),
            Array::I64(v) => v.iter().for_each(|i| element(out, &Value::I64(*i))),
            Array::F64(v) => v.iter().for_each(|f| element(out, &Value::F64(*f))),
            Array::String(v) => v
                .iter()
                .for_each(|s| element(out, &Value::String(s.clone()))),
            // A kind of array this encoder does not know (the enum is non-exhaustive): its
            // text, rather than nothing.
            other => element(out, &Value::String(other.to_string().into())),
        }),
        // A kind of value this encoder does not know (the enum is non-exhaustive): its text.
        other => {
            tag(out, 1, LEN);
            len_bytes(out, other.to_string().as_bytes());
        }
    }
}

/// One `ArrayValue.values` element.
fn element(out: &mut Vec<u8>, value: &Value) {
    message(out, 1, |out| any_value(out, value));
}

fn nanos(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::KeyValue;
    use opentelemetry::trace::{SpanContext, SpanId, TraceFlags, TraceId, TraceState};
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_proto::transform::common::tonic::ResourceAttributesWithSchema;
    use opentelemetry_proto::transform::trace::tonic::group_spans_by_resource_and_scope;
    use opentelemetry_sdk::trace::{SpanEvents, SpanLinks};
    use prost::Message as _;
    use std::borrow::Cow;
    use std::time::Duration;

    fn span(name: &'static str, attributes: Vec<KeyValue>, status: Status) -> SpanData {
        let start = UNIX_EPOCH + Duration::from_nanos(1_764_000_000_123_456_789);
        let mut events = SpanEvents::default();
        events.events.push(opentelemetry::trace::Event::new(
            "progress",
            start + Duration::from_micros(3),
            vec![KeyValue::new("done", 3_i64)],
            0,
        ));
        let mut links = SpanLinks::default();
        links.links.push(opentelemetry::trace::Link::new(
            SpanContext::new(
                TraceId::from(7),
                SpanId::from(8),
                TraceFlags::SAMPLED,
                true,
                TraceState::default(),
            ),
            vec![KeyValue::new("why", "because")],
            1,
        ));
        SpanData {
            span_context: SpanContext::new(
                TraceId::from(0x4bf9_2f35_77b3_4da6_a3ce_929d_0e0e_4736),
                SpanId::from(0x00f0_67aa_0ba9_02b7),
                TraceFlags::SAMPLED,
                false,
                TraceState::from_key_value([("vendor", "value")]).unwrap(),
            ),
            parent_span_id: SpanId::from(0x1122_3344_5566_7788),
            parent_span_is_remote: true,
            span_kind: SpanKind::Server,
            name: Cow::Borrowed(name),
            start_time: start,
            end_time: start + Duration::from_micros(17),
            attributes,
            dropped_attributes_count: 2,
            events,
            links,
            status,
            instrumentation_scope: InstrumentationScope::builder("mcp-runtime")
                .with_version("0.1.0")
                .build(),
        }
    }

    /// What opentelemetry-otlp would send for the same spans.
    fn reference(resource: &Resource, spans: Vec<SpanData>) -> ExportTraceServiceRequest {
        ExportTraceServiceRequest {
            resource_spans: group_spans_by_resource_and_scope(
                spans,
                &ResourceAttributesWithSchema::from(resource),
            ),
        }
    }

    #[test]
    fn spans_decode_as_opentelemetry_otlp_would_send_them() {
        let resource = Resource::builder_empty()
            .with_service_name("echo")
            .with_attribute(KeyValue::new("deployment.environment", "test"))
            .build();
        // Long enough that lengths take several bytes; every kind of value.
        let long = "x".repeat(300);
        let spans: Vec<SpanData> = (0..40)
            .map(|i| {
                span(
                    "tools/call echo",
                    vec![
                        KeyValue::new("mcp.method.name", "tools/call"),
                        KeyValue::new("jsonrpc.request.id", format!("{i}")),
                        KeyValue::new("long", long.clone()),
                        KeyValue::new("empty", ""),
                        KeyValue::new("", "no key"),
                        KeyValue::new("count", -5_i64),
                        KeyValue::new("zero", 0_i64),
                        KeyValue::new("yes", true),
                        KeyValue::new("no", false),
                        KeyValue::new("ratio", 0.25),
                        KeyValue::new(
                            "list",
                            Value::Array(Array::String(vec!["a".into(), "b".into()])),
                        ),
                        KeyValue::new("numbers", Value::Array(Array::I64(vec![1, -2]))),
                    ],
                    if i % 2 == 0 {
                        Status::Unset
                    } else {
                        Status::error("-32602")
                    },
                )
            })
            .collect();
        let mut body = Vec::new();
        encode_spans(&resource, &spans, &mut body);
        let decoded = ExportTraceServiceRequest::decode(&*body).unwrap();
        assert_eq!(decoded, reference(&resource, spans));
        // And byte for byte what prost writes.
        assert_eq!(body, decoded.encode_to_vec());
    }

    /// A request span as the SDK would hand it over: no events, links or dropped counts.
    fn request_span(error: bool, parent: bool, long: bool) -> SpanData {
        let mut span = span("tools/call echo", Vec::new(), Status::Unset);
        span.events = SpanEvents::default();
        span.links = SpanLinks::default();
        span.dropped_attributes_count = 0;
        span.instrumentation_scope = InstrumentationScope::builder("mcp-runtime").build();
        if !parent {
            span.parent_span_id = SpanId::INVALID;
            span.parent_span_is_remote = false;
        }
        span.attributes = vec![
            KeyValue::new("mcp.method.name", "tools/call"),
            KeyValue::new(
                "gen_ai.tool.name",
                if long { "x".repeat(200) } else { "echo".into() },
            ),
            KeyValue::new("jsonrpc.request.id", "7"),
        ];
        if error {
            span.attributes.push(KeyValue::new("error.type", "-32602"));
            span.status = Status::error("");
        }
        span
    }

    /// `span` through [`fixed_fields`] (its name and first two attributes) and
    /// [`RequestSpan`] (the others).
    fn written(span: &SpanData, out: &mut Vec<u8>) {
        let state = span.span_context.trace_state().header();
        let attributes: Vec<(String, String)> = span
            .attributes
            .iter()
            .map(|kv| (kv.key.to_string(), kv.value.to_string()))
            .collect();
        let pairs = attributes.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        let mut fixed = Vec::new();
        fixed_fields(
            [&span.name[..5], "", &span.name[5..]],
            pairs.clone().take(2),
            &mut fixed,
        );
        RequestSpan {
            trace_id: span.span_context.trace_id().to_bytes(),
            span_id: span.span_context.span_id().to_bytes(),
            trace_state: &state,
            parent_span_id: (span.parent_span_id != SpanId::INVALID)
                .then(|| span.parent_span_id.to_bytes()),
            fixed: &fixed,
            start: span.start_time,
            end: span.end_time,
            error: matches!(span.status, Status::Error { .. }),
            flags: u32::from(span.span_context.trace_flags().to_u8()),
            parent_is_remote: span.parent_span_is_remote,
        }
        .encode(pairs.skip(2), out);
    }

    #[test]
    fn request_spans_decode_as_the_sdk_spans_do() {
        let resource = Resource::builder_empty()
            .with_service_name("echo")
            .with_schema_url([], "https://opentelemetry.io/schemas/1.30.0")
            .build();
        for long in [false, true] {
            let spans: Vec<SpanData> = (0..8)
                .map(|i| request_span(i % 2 == 1, i % 4 < 2, long))
                .collect();
            let envelope = Envelope::new(&resource, "mcp-runtime");
            let mut batch = vec![0; envelope.room()];
            for span in &spans {
                written(span, &mut batch);
            }
            let (body, from) = envelope.wrap(batch);
            let mut expected = Vec::new();
            encode_spans(&resource, &spans, &mut expected);
            assert_eq!(
                ExportTraceServiceRequest::decode(&body[from..]).unwrap(),
                ExportTraceServiceRequest::decode(&*expected).unwrap(),
            );
        }
        // An empty batch is never posted; its envelope is still a valid request.
        let envelope = Envelope::new(&resource, "mcp-runtime");
        let (body, from) = envelope.wrap(vec![0; envelope.room()]);
        ExportTraceServiceRequest::decode(&body[from..]).unwrap();
    }

    #[test]
    fn scopes_are_the_same_by_content_and_copies_at_once() {
        let scope = InstrumentationScope::builder("mcp-runtime")
            .with_version("0.1.0")
            .build();
        let built = |name: String, attributes: Vec<KeyValue>| {
            InstrumentationScope::builder(name)
                .with_version("0.1.0")
                .with_attributes(attributes)
                .build()
        };
        let a = || vec![KeyValue::new("a", "b")];
        assert!(same_scope(&scope, &scope.clone()));
        assert!(same_scope(&scope, &built("mcp-runtime".into(), vec![])));
        assert!(!same_scope(&scope, &built("other".into(), vec![])));
        assert!(!same_scope(&scope, &built("mcp-runtime".into(), a())));
        let with = built("mcp-runtime".into(), a());
        assert!(same_scope(&with, &with.clone()));
        assert!(same_scope(&with, &built("mcp-runtime".into(), a())));
        let unversioned = InstrumentationScope::builder("mcp-runtime").build();
        assert!(!same_scope(&scope, &unversioned));
    }

    #[test]
    fn varint_lengths_are_what_varints_take() {
        for v in [0_usize, 1, 127, 128, 300, 16_383, 16_384, usize::MAX] {
            let mut out = Vec::new();
            varint(&mut out, v as u64);
            assert_eq!(varint_len(v), out.len(), "{v}");
        }
    }

    #[test]
    fn an_empty_batch_and_an_empty_resource_decode_too() {
        let resource = Resource::builder_empty().build();
        let mut body = Vec::new();
        encode_spans(&resource, &[], &mut body);
        let decoded = ExportTraceServiceRequest::decode(&*body).unwrap();
        assert_eq!(decoded, reference(&resource, Vec::new()));
    }
}
