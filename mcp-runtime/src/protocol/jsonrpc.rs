//! JSON-RPC 2.0 framing: ids, one-pass message decoding, response encoding.
//!
//! Decoding reads the envelope once ([`RawMessage`]), keeping `params`, `result` and `error`
//! as borrowed raw JSON. The dispatcher then matches on `method` and deserializes the params
//! of exactly that method. Nothing tries message types one by one, and the params are parsed
//! once. Batches (JSON arrays) are not part of MCP since 2025-06-18 and are rejected with
//! `-32600`.

use super::error::{ErrorCode, McpError};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// The version string every JSON-RPC 2.0 message carries.
pub const JSONRPC_VERSION: &str = "2.0";

/// A request id: a string or an integer (MCP forbids `null`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(Arc<str>),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.into())
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => s.serialize_i64(*n),
            RequestId::String(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    // A hand-written visitor instead of `#[serde(untagged)]`, which buffers the value and
    // tries each variant in turn.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct IdVisitor;
        impl Visitor<'_> for IdVisitor {
            type Value = RequestId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or integer request id")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RequestId, E> {
                i64::try_from(v)
                    .map(RequestId::Number)
                    .map_err(|_| E::custom("request id out of range"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(v.into()))
            }
        }
        d.deserialize_any(IdVisitor)
    }
}

/// One decoded JSON-RPC message, borrowing from the input line.
#[derive(Debug, Deserialize)]
pub struct RawMessage<'a> {
    /// Must be `"2.0"`.
    #[serde(borrow, default)]
    pub jsonrpc: Option<Cow<'a, str>>,
    /// Present on requests and responses.
    #[serde(default)]
    pub id: Option<RequestId>,
    /// Present on requests and notifications.
    #[serde(borrow, default)]
    pub method: Option<Cow<'a, str>>,
    /// The method's parameters, still unparsed.
    #[serde(borrow, default)]
    pub params: Option<&'a RawValue>,
    /// A success response's result, still unparsed.
    #[serde(borrow, default)]
    pub result: Option<&'a RawValue>,
    /// An error response's error, still unparsed.
    #[serde(borrow, default)]
    pub error: Option<&'a RawValue>,
}

/// What a decoded message is.
#[derive(Debug)]
pub enum Message<'a> {
    /// A request: expects a response with the same id.
    Request {
        /// The request id.
        id: RequestId,
        /// The method name.
        method: Cow<'a, str>,
        /// The parameters, unparsed.
        params: Option<&'a RawValue>,
    },
    /// A notification: no response.
    Notification {
        /// The method name.
        method: Cow<'a, str>,
        /// The parameters, unparsed.
        params: Option<&'a RawValue>,
    },
    /// A response to a request this side sent.
    Response {
        /// The id of the request it answers.
        id: RequestId,
        /// `Ok(result)` or `Err(error object)`, unparsed.
        outcome: Result<&'a RawValue, &'a RawValue>,
    },
}

/// Why a line could not be decoded; carries the id when one could be read, so the error
/// response can name it.
#[derive(Debug)]
pub struct DecodeError {
    /// The id of the offending message, when known.
    pub id: Option<RequestId>,
    /// The error to answer with.
    pub error: McpError,
}

/// Decodes one JSON-RPC message in a single pass.
pub fn decode(bytes: &[u8]) -> Result<Message<'_>, DecodeError> {
    let raw: RawMessage<'_> = serde_json::from_slice(bytes).map_err(|e| {
        use serde_json::error::Category;
        let error = match e.classify() {
            Category::Syntax | Category::Eof | Category::Io => McpError::parse_error(e),
            Category::Data => {
                if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
                    McpError::invalid_request(
                        "batches are not supported; send one message per line",
                    )
                } else {
                    McpError::invalid_request(e)
                }
            }
        };
        DecodeError { id: None, error }
    })?;
    classify(raw)
}

fn classify(raw: RawMessage<'_>) -> Result<Message<'_>, DecodeError> {
    let fail = |id: Option<RequestId>, msg: &str| DecodeError {
        id,
        error: McpError::invalid_request(msg),
    };
    if raw.jsonrpc.as_deref() != Some(JSONRPC_VERSION) {
        return Err(fail(raw.id, "\"jsonrpc\" must be \"2.0\""));
    }
    match (raw.method, raw.id) {
        (Some(method), Some(id)) => {
            if raw.result.is_some() || raw.error.is_some() {
                return Err(fail(
                    Some(id),
                    "a request cannot carry \"result\" or \"error\"",
                ));
            }
            check_params(raw.params).map_err(|m| fail(Some(id.clone()), m))?;
            Ok(Message::Request {
                id,
                method,
                params: raw.params,
            })
        }
        (Some(method), None) => {
            check_params(raw.params).map_err(|m| fail(None, m))?;
            Ok(Message::Notification {
                method,
                params: raw.params,
            })
        }
        (None, Some(id)) => match (raw.result, raw.error) {
            (Some(r), None) => Ok(Message::Response { id, outcome: Ok(r) }),
            (None, Some(e)) => Ok(Message::Response {
                id,
                outcome: Err(e),
            }),
            _ => Err(fail(
                Some(id),
                "a message with an id needs a \"method\", or exactly one of \"result\" and \"error\"",
            )),
        },
        (None, None) => Err(fail(None, "missing \"method\"")),
    }
}

fn check_params(params: Option<&RawValue>) -> Result<(), &'static str> {
    match params.map(|p| p.get().as_bytes().first()) {
        None | Some(Some(b'{')) => Ok(()),
        Some(_) => Err("\"params\" must be an object"),
    }
}

/// A success response, serialized around an already-serializable result.
#[derive(Debug, Serialize)]
pub struct Response<'a, R: Serialize> {
    /// Always `"2.0"`.
    pub jsonrpc: &'static str,
    /// The id of the request answered.
    pub id: &'a RequestId,
    /// The result.
    pub result: R,
}

/// An error response.
#[derive(Debug, Serialize)]
pub struct ErrorResponse<'a> {
    /// Always `"2.0"`.
    pub jsonrpc: &'static str,
    /// The id of the request answered, or `null` when it could not be read.
    pub id: Option<&'a RequestId>,
    /// The error.
    pub error: &'a McpError,
}

/// A notification to send.
#[derive(Debug, Serialize)]
pub struct Notification<'a, P: Serialize> {
    /// Always `"2.0"`.
    pub jsonrpc: &'static str,
    /// The method.
    pub method: &'a str,
    /// The parameters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

/// A request to send (used by the client).
#[derive(Debug, Serialize)]
pub struct Request<'a, P: Serialize> {
    /// Always `"2.0"`.
    pub jsonrpc: &'static str,
    /// The request id.
    pub id: &'a RequestId,
    /// The method.
    pub method: &'a str,
    /// The parameters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

/// Serializes a success response as one line (with the trailing newline).
pub fn encode_result<R: Serialize>(id: &RequestId, result: &R) -> Vec<u8> {
    let response = Response {
        jsonrpc: JSONRPC_VERSION,
        id,
        result,
    };
    finish_line(serde_json::to_vec(&response)).unwrap_or_else(|e| {
        encode_error(
            Some(id),
            &McpError::internal(format!("could not serialize the result: {e}")),
        )
    })
}

/// Serializes a success response as one line, unless it would be longer than `budget`
/// bytes: then the writing stops there (the memory used stays within the budget, whatever
/// the result holds) and `Err(budget)` says so.
pub fn encode_result_within<R: Serialize>(
    id: &RequestId,
    result: &R,
    budget: usize,
) -> Result<Vec<u8>, usize> {
    /// A buffer that refuses to grow past its budget.
    struct Budgeted {
        buf: Vec<u8>,
        budget: usize,
    }
    // serde_json writes each token with `write_all`: inlined, a one-byte token becomes a
    // compare and a store instead of a call into `write` and `memcpy` (about 1,800
    // instructions of a small call's answer, measured with `bench/callgrind.sh`).
    impl std::io::Write for Budgeted {
        #[inline]
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.write_all(bytes).map(|()| bytes.len())
        }
        #[inline]
        fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
            if bytes.len() > self.budget - self.buf.len() {
                return Err(over_budget());
            }
            self.buf.extend_from_slice(bytes);
            Ok(())
        }
        #[inline]
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    #[cold]
    fn over_budget() -> std::io::Error {
        std::io::Error::other("over the response budget")
    }
    let response = Response {
        jsonrpc: JSONRPC_VERSION,
        id,
        result,
    };
    // Most results are small: one allocation of this size holds them whole, where growing
    // from empty would reallocate five times on the way.
    const FIRST: usize = 512;
    let mut out = Budgeted {
        buf: Vec::with_capacity(FIRST.min(budget.saturating_add(1))),
        budget,
    };
    match serde_json::to_writer(&mut out, &response) {
        Ok(()) => {
            out.buf.push(b'\n');
            Ok(out.buf)
        }
        Err(e) if e.is_io() => Err(budget),
        Err(e) => Ok(encode_error(
            Some(id),
            &McpError::internal(format!("could not serialize the result: {e}")),
        )),
    }
}

/// Builds a success response around a result that is already JSON text (a cached page).
pub fn encode_raw_result(id: &RequestId, result_json: &str) -> Vec<u8> {
    let mut line = Vec::with_capacity(result_json.len() + 48);
    line.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    serde_json::to_writer(&mut line, id).expect("ids serialize");
    line.extend_from_slice(br#","result":"#);
    line.extend_from_slice(result_json.as_bytes());
    line.extend_from_slice(b"}\n");
    line
}

/// Serializes an error response as one line (with the trailing newline).
pub fn encode_error(id: Option<&RequestId>, error: &McpError) -> Vec<u8> {
    let response = ErrorResponse {
        jsonrpc: JSONRPC_VERSION,
        id,
        error,
    };
    let mut line = serde_json::to_vec(&response).unwrap_or_else(|_| {
        // The message and data are plain strings and JSON values; this cannot fail, but a
        // fixed fallback keeps the promise of always answering.
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#
            .to_vec()
    });
    line.push(b'\n');
    line
}

/// Serializes a notification as one line.
pub fn encode_notification<P: Serialize>(method: &str, params: Option<P>) -> Vec<u8> {
    let n = Notification {
        jsonrpc: JSONRPC_VERSION,
        method,
        params,
    };
    finish_line(serde_json::to_vec(&n))
        .unwrap_or_else(|e| encode_error(None, &McpError::internal(e)))
}

/// Serializes a request (server to client, or client to server) as one line.
///
/// ```
/// use mcp_runtime::protocol::RequestId;
/// use mcp_runtime::protocol::jsonrpc::encode_request;
///
/// let line = encode_request(&RequestId::Number(7), "roots/list", None::<()>);
/// assert_eq!(line, b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"roots/list\"}\n");
/// ```
pub fn encode_request<P: Serialize>(id: &RequestId, method: &str, params: Option<P>) -> Vec<u8> {
    #[derive(Serialize)]
    struct Request<'a, P> {
        jsonrpc: &'static str,
        id: &'a RequestId,
        method: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        params: Option<P>,
    }
    let r = Request {
        jsonrpc: JSONRPC_VERSION,
        id,
        method,
        params,
    };
    finish_line(serde_json::to_vec(&r))
        .unwrap_or_else(|e| encode_error(None, &McpError::internal(e)))
}

fn finish_line(bytes: serde_json::Result<Vec<u8>>) -> serde_json::Result<Vec<u8>> {
    bytes.map(|mut b| {
        b.push(b'\n');
        b
    })
}

/// The error object of an error response, as a client reads it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ErrorObject {
    /// The error code.
    pub code: ErrorCode,
    /// The message.
    pub message: String,
    /// Optional detail.
    #[serde(default)]
    pub data: Option<serde_json::Value>,
}

impl From<ErrorObject> for McpError {
    fn from(e: ErrorObject) -> Self {
        McpError {
            code: e.code,
            message: e.message.into(),
            data: e.data,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_each_kind_once() {
        let m = decode(br#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}"#).unwrap();
        assert!(
            matches!(m, Message::Request { id: RequestId::Number(7), ref method, .. } if method == "tools/list")
        );
        let m = decode(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
        assert!(matches!(m, Message::Notification { .. }));
        let m = decode(br#"{"jsonrpc":"2.0","id":"a","result":{}}"#).unwrap();
        assert!(matches!(m, Message::Response { outcome: Ok(_), .. }));
    }

    #[test]
    fn classifies_failures_with_spec_codes() {
        let e = decode(b"{not json").unwrap_err();
        assert_eq!(e.error.code, ErrorCode::PARSE_ERROR);
        let e = decode(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).unwrap_err();
        assert_eq!(e.error.code, ErrorCode::INVALID_REQUEST);
        let e = decode(br#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#).unwrap_err();
        assert_eq!(e.error.code, ErrorCode::INVALID_REQUEST);
        assert_eq!(e.id, Some(RequestId::Number(3)));
        let e = decode(br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#).unwrap_err();
        assert_eq!(e.error.code, ErrorCode::INVALID_REQUEST);
        let e = decode(br#"{"jsonrpc":"2.0","id":4,"method":"ping","params":[1]}"#).unwrap_err();
        assert_eq!(e.error.code, ErrorCode::INVALID_REQUEST);
        let e = decode(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#).unwrap();
        assert!(
            matches!(e, Message::Notification { .. }),
            "null id reads as absent"
        );
    }

    #[test]
    fn escaped_method_names_still_decode() {
        let m = decode(br#"{"jsonrpc":"2.0","id":1,"method":"tools\/list"}"#).unwrap();
        assert!(matches!(m, Message::Request { ref method, .. } if method == "tools/list"));
    }
}
