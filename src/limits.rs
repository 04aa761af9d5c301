//! Every cap and maximum the program enforces, in one place, and the capped readers that
//! apply the size caps to what a user points at (a file, stdin).
//!
//! Hostile or mistaken input (`/dev/zero`, a FIFO, a huge number, a model that writes
//! megabytes) must end in a clear error, never in unbounded memory, a hang or an overflow.
//! The README's security table shows the same numbers. This module decides no exit code and
//! prints nothing: callers word the error for their input.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::Duration;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;

// Sizes of what a person or a file gives us.

/// An answer, feedback, a prompt or a message: a flag value, a file, or `-` on stdin.
pub const MAX_TEXT_INPUT: u64 = MIB;
/// An agent file (`--agent`).
pub const MAX_AGENT_FILE: u64 = MIB;
/// A `script:` model's file.
pub const MAX_SCRIPT_FILE: u64 = 16 * MIB;

// Sizes of what a model gives us.

/// A plan file submitted with `submit_plan` (or given to `plan`).
pub const MAX_PLAN_FILE: u64 = MIB;
/// A plan path, in characters.
pub const MAX_PLAN_PATH_CHARS: usize = 4096;
/// An `ask_user` question, in characters.
pub const MAX_QUESTION_CHARS: usize = 4000;
/// Options of one question.
pub const MAX_OPTIONS: usize = 50;
/// An option's label, in characters.
pub const MAX_LABEL_CHARS: usize = 200;
/// An option's description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1000;
/// A tool-call id the model chose is kept only when it has 1 to this many printable ASCII
/// characters (and is new in the run); else a generated id replaces it.
pub const MAX_TOOL_CALL_ID_CHARS: usize = 64;
/// One server-sent event (all its `data:` lines) from a model server.
pub const MAX_SSE_FRAME: usize = 16 * MIB as usize;
/// A whole HTTP response body from a model server.
pub const MAX_HTTP_BODY: u64 = 64 * MIB;
/// The part of an HTTP error body we read for its message.
pub const MAX_ERROR_BODY: u64 = 64 * KIB;
/// What a `command:` model prints on stdout (one message).
pub const MAX_MODEL_PROGRAM_OUTPUT: u64 = 16 * MIB;
/// What we keep of a `command:` model's stderr (for its last line).
pub const MAX_MODEL_PROGRAM_STDERR: u64 = 64 * KIB;
/// Model calls per leg (`maxSteps`, `--max-steps`).
pub const MAX_MAX_STEPS: u32 = 1000;

// Mastra servers (`--server`, SPEC §12).

/// Suspended calls one listing holds (every page of every agent).
pub const MAX_LISTING_ITEMS: usize = 10_000;
/// Bytes of answers one listing reads (every page of every agent).
pub const MAX_LISTING_BYTES: u64 = 64 * MIB;
/// Agents one listing walks.
pub const MAX_LISTING_AGENTS: usize = 1_000;
/// `SSL_CERT_FILE`, the PEM certificates to trust.
pub const MAX_CERT_FILE: u64 = 4 * MIB;

// The agent's own command tools (SPEC §11).

/// What one call of a command tool may print on stdout (its result); more is a tool error.
pub const MAX_TOOL_OUTPUT: u64 = MIB;
/// The end of a failing command tool's stderr that its error carries, in bytes.
pub const TOOL_STDERR_TAIL: usize = 2 * KIB as usize;
/// The input of `mastra-ask tool` on stdin: room for a `write_file` content of a whole
/// `MAX_PLAN_FILE` even when every byte of it is a 6-byte JSON escape (`\u0001`).
pub const MAX_TOOL_INPUT: u64 = 7 * MIB;
/// How long a program's pipe is still read for its end once the program's leader exited
/// and its group was ended, when nothing more comes: a daemon that left the group (`setsid`)
/// may hold the pipe open for ever; what the program printed is in the pipe by then.
pub const PIPE_GRACE: Duration = Duration::from_millis(250);
/// How long a pipe is read at most after that, even while something keeps writing to it.
pub const PIPE_GRACE_MAX: Duration = Duration::from_secs(1);
/// Names a command tool may pass through from the driver's environment (`"env"`).
pub const MAX_TOOL_ENV_NAMES: usize = 64;
/// One such name, in characters.
pub const MAX_ENV_NAME_CHARS: usize = 128;
/// A command tool's name (OpenAI's limit for function names).
pub const MAX_TOOL_NAME_CHARS: usize = 64;

// Durations. None may exceed a year; each has its own bound below that.

const DAY: Duration = Duration::from_secs(86_400);

/// `--expires-in`, `--timeout`, `--older-than`.
pub const MAX_FLAG_DURATION: Duration = Duration::from_secs(365 * 86_400);
/// `MASTRA_ASK_READ_TIMEOUT` (also the whole call of a `command:` model).
pub const MAX_READ_TIMEOUT: Duration = DAY;
/// `MASTRA_ASK_CONNECT_TIMEOUT`.
pub const MAX_CONNECT_TIMEOUT: Duration = Duration::from_secs(600);
/// `MASTRA_ASK_SERVER_IDLE_TIMEOUT`: the longest silence of a Mastra server.
pub const MAX_SERVER_IDLE_TIMEOUT: Duration = DAY;
/// `MASTRA_ASK_RETRY_DELAY` (the first retry's delay; later ones double it).
pub const MAX_RETRY_DELAY: Duration = Duration::from_secs(600);
/// The longest wait before one retry: the largest retry delay, doubled twice, plus jitter.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(3600);
/// The longest `Retry-After` a model server may ask for; more ends the call.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// A script step's `delayMs`.
pub const MAX_SCRIPT_DELAY: Duration = Duration::from_secs(3600);
/// An `--on-suspend` hook, after which its process group is killed.
pub const HOOK_TIMEOUT: Duration = Duration::from_secs(10);
/// How far back `--on-resolve` looks for resolved items whose hook no process ran (SPEC
/// §17): a process started with it on an old store does not run it for every item ever
/// resolved, only for those of the last day.
pub const RESOLVE_CATCH_UP: Duration = Duration::from_secs(24 * 3600);
/// A command tool's call when its `timeoutMs` does not say otherwise.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest `timeoutMs` a command tool may have.
pub const MAX_TOOL_TIMEOUT: Duration = DAY;

/// A size as the messages and the README write it: `1 MiB`, `64 KiB`, `300 bytes`.
pub fn show_size(bytes: u64) -> String {
    match bytes {
        b if b >= MIB && b.is_multiple_of(MIB) => format!("{} MiB", b / MIB),
        b if b >= KIB && b.is_multiple_of(KIB) => format!("{} KiB", b / KIB),
        b => format!("{b} bytes"),
    }
}

/// Why a capped read gave no bytes.
#[derive(Debug)]
pub enum ReadError {
    /// More than the cap (which is given).
    TooLarge(u64),
    /// Not a regular file (a FIFO, a device, a directory, a socket).
    NotRegular,
    Io(io::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::TooLarge(cap) => write!(f, "is larger than {}", show_size(*cap)),
            ReadError::NotRegular => f.write_str("is not a regular file"),
            ReadError::Io(e) => write!(f, "cannot be read: {e}"),
        }
    }
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> ReadError {
        ReadError::Io(e)
    }
}

/// Reads `reader` to its end, or fails as soon as it gave more than `cap` bytes (so at most
/// `cap + 1` bytes are ever held).
pub fn read_capped(reader: impl Read, cap: u64) -> Result<Vec<u8>, ReadError> {
    read_capped_sized(reader, cap, 0)
}

/// As [`read_capped`], into a buffer made for `expected` bytes (a file's size as its
/// metadata says): one read for the bytes and one for the end, not a doubling per read.
fn read_capped_sized(reader: impl Read, cap: u64, expected: u64) -> Result<Vec<u8>, ReadError> {
    let room = usize::try_from(expected.min(cap + 1)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(room);
    reader.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooLarge(cap));
    }
    Ok(bytes)
}

/// Opens `path` without blocking (a FIFO or a device never hangs the open) and without
/// making a terminal ours.
pub fn open_nonblocking(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

/// Reads a regular file of at most `cap` bytes: opened without blocking, checked on the
/// open descriptor, read up to the cap plus one byte. This is how every file named by a
/// flag or by the environment is read (agent and script files, `--feedback-file`,
/// `--plan-file`, `--server-token-file`, `SSL_CERT_FILE`): a FIFO or a device is refused,
/// never waited on (SPEC §9).
pub fn read_regular_file(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    let file = open_nonblocking(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular);
    }
    read_capped_sized(file, cap, meta.len())
}

/// A flag's text value, refused past [`MAX_TEXT_INPUT`] (a clap value parser).
pub fn text_value(s: &str) -> Result<String, String> {
    if s.len() as u64 > MAX_TEXT_INPUT {
        return Err(format!(
            "the value is larger than {}",
            show_size(MAX_TEXT_INPUT)
        ));
    }
    Ok(s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(show_size(MAX_TEXT_INPUT), "1 MiB");
        assert_eq!(show_size(MAX_SCRIPT_FILE), "16 MiB");
        assert_eq!(show_size(MAX_ERROR_BODY), "64 KiB");
        assert_eq!(show_size(300), "300 bytes");
    }

    #[test]
    fn capped_reads_stop_one_byte_past_the_cap() {
        assert_eq!(read_capped(&b"abcd"[..], 4).unwrap(), b"abcd");
        assert!(matches!(
            read_capped(&b"abcde"[..], 4),
            Err(ReadError::TooLarge(4))
        ));
        // An endless source ends at once.
        let zero = File::open("/dev/zero").unwrap();
        assert!(matches!(
            read_capped(zero, 1024),
            Err(ReadError::TooLarge(1024))
        ));
    }

    #[test]
    fn only_regular_files_are_read_as_files() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        use rustix::fs::{FileType, Mode};
        rustix::fs::mknodat(rustix::fs::CWD, &fifo, FileType::Fifo, Mode::from(0o600), 0).unwrap();
        assert!(matches!(
            read_regular_file(&fifo, 10),
            Err(ReadError::NotRegular)
        ));
        assert!(matches!(
            read_regular_file(Path::new("/dev/zero"), 10),
            Err(ReadError::NotRegular)
        ));
        assert!(matches!(
            read_regular_file(dir.path(), 10),
            Err(ReadError::NotRegular)
        ));
        std::fs::write(dir.path().join("f"), "12345").unwrap();
        assert_eq!(
            read_regular_file(&dir.path().join("f"), 5).unwrap(),
            b"12345"
        );
        assert_eq!(
            read_regular_file(&dir.path().join("f"), 4)
                .unwrap_err()
                .to_string(),
            "is larger than 4 bytes"
        );
        assert!(matches!(
            read_regular_file(&dir.path().join("nope"), 4),
            Err(ReadError::Io(_))
        ));
    }

    #[test]
    fn a_file_is_read_whole_whatever_size_its_metadata_says() {
        // A regular file whose metadata says 0 bytes (procfs): read to its end all the same,
        // and still refused past the cap.
        let proc_file = Path::new("/proc/self/status");
        assert_eq!(std::fs::metadata(proc_file).unwrap().len(), 0);
        let whole = read_regular_file(proc_file, 1 << 20).unwrap();
        assert!(whole.starts_with(b"Name:"), "{whole:?}");
        assert!(matches!(
            read_regular_file(proc_file, 8),
            Err(ReadError::TooLarge(8))
        ));
        // One that grew past its size since: read to the cap and refused.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "1234").unwrap();
        let mut file = File::open(&path).unwrap();
        std::fs::write(&path, "123456789").unwrap();
        assert!(matches!(
            read_capped_sized(&mut file, 8, 4),
            Err(ReadError::TooLarge(8))
        ));
    }

    #[test]
    fn flag_values_are_capped() {
        assert!(text_value("short").is_ok());
        let long = "x".repeat(MAX_TEXT_INPUT as usize + 1);
        assert_eq!(
            text_value(&long).unwrap_err(),
            "the value is larger than 1 MiB"
        );
    }
}
