//! JSON-RPC 2.0 as MCP's stdio transport carries it (SPEC §16): one message per line, in
//! UTF-8, no embedded newlines. Reading is capped (`MAX_LINE`): a longer line is skipped to
//! its end and answered with an error, never buffered whole. Writing goes through one lock,
//! so each message is one whole line on stdout, and nothing else is ever written there.
//! Nothing here knows MCP's methods.

use std::io::{BufRead, Write};
use std::sync::Mutex;

use serde_json::{json, Value};

/// The longest line read: a tool call's input is small (a plan is read from its file).
pub const MAX_LINE: usize = 1024 * 1024;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;

/// One line of input.
#[derive(Debug, PartialEq)]
pub enum Line {
    Text(Vec<u8>),
    /// Longer than `MAX_LINE`: skipped to its newline.
    TooLong,
}

/// The next line (without its newline), `None` at the end of input. A last line without a
/// newline still counts.
pub fn read_line(input: &mut dyn BufRead, cap: usize) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => Some(Line::TooLong),
                (false, true) => None,
                (false, false) => Some(Line::Text(line)),
            });
        }
        let (chunk, found) = match buf.iter().position(|b| *b == b'\n') {
            Some(at) => (&buf[..at], Some(at + 1)),
            None => (buf, None),
        };
        if !too_long && line.len() + chunk.len() <= cap {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line = Vec::new();
        }
        let used = found.unwrap_or(buf.len());
        input.consume(used);
        if found.is_some() {
            return Ok(Some(if too_long {
                Line::TooLong
            } else {
                Line::Text(line)
            }));
        }
    }
}

/// A message from the client.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// The client's answer to a request of ours (an elicitation).
    Response {
        id: Value,
        result: Result<Value, Value>,
    },
}

/// What a line is, or the error to answer it with (with the id, when one could be read).
pub fn parse(line: &[u8]) -> Result<Incoming, (Value, i64, String)> {
    let value: Value = serde_json::from_slice(line)
        .map_err(|e| (Value::Null, PARSE_ERROR, format!("Parse error: {e}")))?;
    let invalid = |id: &Value, what: &str| {
        (
            id.clone(),
            INVALID_REQUEST,
            format!("Invalid Request: {what}"),
        )
    };
    let Value::Object(map) = &value else {
        return Err(invalid(
            &Value::Null,
            "a message is one JSON object (batches are not supported)",
        ));
    };
    let id = map.get("id").cloned();
    let shown = id.clone().unwrap_or(Value::Null);
    if map.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(invalid(&shown, "\"jsonrpc\" must be \"2.0\""));
    }
    if let Some(id) = &id {
        if !(id.is_string() || id.is_i64() || id.is_u64()) {
            return Err(invalid(
                &Value::Null,
                "\"id\" must be a string or an integer",
            ));
        }
    }
    let params = map.get("params").cloned().unwrap_or(Value::Null);
    if !(params.is_null() || params.is_object()) {
        return Err(invalid(&shown, "\"params\" must be an object"));
    }
    match (map.get("method"), id) {
        (Some(Value::String(method)), Some(id)) => Ok(Incoming::Request {
            id,
            method: method.clone(),
            params,
        }),
        (Some(Value::String(method)), None) => Ok(Incoming::Notification {
            method: method.clone(),
            params,
        }),
        (Some(_), _) => Err(invalid(&shown, "\"method\" must be a string")),
        (None, Some(id)) => match (map.get("result"), map.get("error")) {
            (Some(r), None) => Ok(Incoming::Response {
                id,
                result: Ok(r.clone()),
            }),
            (None, Some(e)) => Ok(Incoming::Response {
                id,
                result: Err(e.clone()),
            }),
            _ => Err(invalid(
                &id,
                "a response has either \"result\" or \"error\"",
            )),
        },
        (None, None) => Err(invalid(&Value::Null, "no \"method\"")),
    }
}

/// Where messages go: one whole line each, under one lock.
pub struct Out<W: Write> {
    w: Mutex<W>,
}

impl<W: Write> Out<W> {
    pub fn new(w: W) -> Out<W> {
        Out { w: Mutex::new(w) }
    }

    /// Writes one message; a client that went away is not an error here (the input ends).
    pub fn send(&self, message: &Value) {
        let mut text = message.to_string();
        text.push('\n');
        let mut w = self.w.lock().unwrap_or_else(|e| e.into_inner());
        let _ = w.write_all(text.as_bytes()).and_then(|_| w.flush());
    }

    pub fn result(&self, id: &Value, result: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    pub fn error(&self, id: &Value, code: i64, message: &str) {
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
        );
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    pub fn request(&self, id: &Value, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], cap: usize) -> Vec<Line> {
        let mut r = std::io::BufReader::with_capacity(4, input);
        std::iter::from_fn(|| read_line(&mut r, cap).unwrap()).collect()
    }

    #[test]
    fn lines_are_capped_and_the_rest_is_read_on() {
        assert_eq!(
            lines(b"ab\n0123456789\ncd", 5),
            vec![
                Line::Text(b"ab".to_vec()),
                Line::TooLong,
                Line::Text(b"cd".to_vec())
            ]
        );
        assert_eq!(lines(b"0123456789", 5), vec![Line::TooLong]);
        assert_eq!(lines(b"\n", 5), vec![Line::Text(vec![])]);
    }

    #[test]
    fn messages_are_told_apart_and_bad_ones_named() {
        let req = parse(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).unwrap();
        assert_eq!(
            req,
            Incoming::Request {
                id: json!(1),
                method: "ping".into(),
                params: Value::Null
            }
        );
        let note = parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
        assert!(matches!(note, Incoming::Notification { .. }));
        let resp = parse(br#"{"jsonrpc":"2.0","id":"e1","result":{"action":"accept"}}"#).unwrap();
        assert!(matches!(resp, Incoming::Response { result: Ok(_), .. }));
        assert_eq!(parse(b"nonsense").unwrap_err().1, PARSE_ERROR);
        assert_eq!(parse(b"[]").unwrap_err().1, INVALID_REQUEST);
        let e = parse(br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#).unwrap_err();
        assert_eq!((e.0, e.1), (json!(7), INVALID_REQUEST));
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","id":{},"method":"x"}"#)
                .unwrap_err()
                .1,
            INVALID_REQUEST
        );
    }
}
