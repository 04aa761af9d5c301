//! Server-sent events: the framing of a streamed chat completion and of a Mastra leg
//! (`data:` lines, blank-line separated, `:` comments for keep-alives, an optional `event:`
//! name).
//!
//! Framing only: what a frame's data means (JSON chunks, `[DONE]`, error frames) is decided
//! by the caller. Bounded: a frame (or a line) larger than the cap is an error, never
//! unbounded memory.

use std::io::{self, BufRead, Read};

/// One event of the stream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    pub event: Option<String>,
    pub data: String,
}

/// Assembles frames from lines.
#[derive(Debug, Default)]
pub struct Decoder {
    event: Option<String>,
    data: Option<String>,
}

impl Decoder {
    /// Takes one line without its line ending; returns a frame when the line ends one.
    pub fn line(&mut self, line: &str) -> Option<Frame> {
        if line.is_empty() {
            return self.take();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => {
                let data = self.data.get_or_insert_with(String::new);
                if !data.is_empty() {
                    data.push('\n');
                }
                data.push_str(value);
            }
            "event" => self.event = Some(value.to_string()),
            _ => {}
        }
        None
    }

    /// The frame still open when the stream ends (a server that did not end it with a
    /// blank line).
    pub fn finish(&mut self) -> Option<Frame> {
        self.take()
    }

    /// The bytes of data held for the frame being assembled.
    pub fn pending_len(&self) -> usize {
        self.data.as_ref().map_or(0, String::len)
    }

    fn take(&mut self) -> Option<Frame> {
        let event = self.event.take();
        self.data.take().map(|data| Frame { event, data })
    }
}

/// What to do after a frame.
pub enum Flow {
    Continue,
    Stop,
}

/// Reads frames from `reader` until it ends or `on_frame` stops; a frame whose data (or a
/// line) is larger than `max_frame` bytes is an error. Errors of `on_frame` end the reading
/// and are returned.
pub fn read<E: From<io::Error>>(
    mut reader: impl BufRead,
    max_frame: usize,
    mut on_frame: impl FnMut(Frame) -> Result<Flow, E>,
) -> Result<(), E> {
    let too_large = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("an event of the stream is larger than {max_frame} bytes"),
        )
    };
    let mut decoder = Decoder::default();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = reader
            .by_ref()
            .take(max_frame as u64 + 1)
            .read_until(b'\n', &mut buf)?;
        if n == 0 {
            break;
        }
        if buf.len() > max_frame {
            return Err(too_large().into());
        }
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        if let Some(frame) = decoder.line(&String::from_utf8_lossy(&buf)) {
            if let Flow::Stop = on_frame(frame)? {
                return Ok(());
            }
        } else if decoder.pending_len() > max_frame {
            return Err(too_large().into());
        }
    }
    if let Some(frame) = decoder.finish() {
        on_frame(frame)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(text: &str) -> Vec<Frame> {
        let mut out = Vec::new();
        read::<io::Error>(text.as_bytes(), 64, |f| {
            out.push(f);
            Ok(Flow::Continue)
        })
        .unwrap();
        out
    }

    fn data(d: &str) -> Frame {
        Frame {
            event: None,
            data: d.into(),
        }
    }

    #[test]
    fn data_lines_comments_and_events() {
        let text = ": OPENROUTER PROCESSING\n\ndata: {\"a\":1}\n\ndata:{\"b\":2}\r\n\r\nevent: error\ndata: {\"error\":{}}\n\ndata: [DONE]\n\n";
        assert_eq!(
            frames(text),
            [
                data("{\"a\":1}"),
                data("{\"b\":2}"),
                Frame {
                    event: Some("error".into()),
                    data: "{\"error\":{}}".into()
                },
                data("[DONE]"),
            ]
        );
    }

    #[test]
    fn multi_line_data_and_an_unterminated_last_frame() {
        assert_eq!(
            frames("data: a\ndata: b\n\ndata: c"),
            [data("a\nb"), data("c")]
        );
        assert_eq!(frames("id: 7\nretry: 10\n\n"), []);
    }

    #[test]
    fn stopping_and_overlong_lines() {
        let mut seen = 0;
        read::<io::Error>("data: 1\n\ndata: 2\n\n".as_bytes(), 64, |_| {
            seen += 1;
            Ok(Flow::Stop)
        })
        .unwrap();
        assert_eq!(seen, 1);
        let long = format!("data: {}\n\n", "x".repeat(100));
        let err = read::<io::Error>(long.as_bytes(), 64, |_| Ok(Flow::Continue)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "an event of the stream is larger than 64 bytes"
        );
    }

    #[test]
    fn a_frame_of_many_short_lines_is_capped_too() {
        let many = "data: xxxxxxxxxx\n".repeat(10) + "\n";
        let err = read::<io::Error>(many.as_bytes(), 64, |_| Ok(Flow::Continue)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "an event of the stream is larger than 64 bytes"
        );
        // Within the cap, the same lines make one frame.
        let few = "data: xxxxxxxxxx\n".repeat(5) + "\n";
        assert_eq!(frames(&few).len(), 1);
        // An endless frame ends at the cap, not when memory runs out.
        let endless = std::io::repeat(b'a');
        let mut prefixed = std::io::Read::chain(&b"data: "[..], endless);
        let reader = std::io::BufReader::new(&mut prefixed);
        assert!(read::<io::Error>(reader, 4096, |_| Ok(Flow::Continue)).is_err());
    }
}
