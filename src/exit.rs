//! The process exit codes, in one table. The README and the man page show the same table
//! (a test compares them).

/// How a command ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Success,
    Failure,
    Usage,
    NotFound,
    Conflict,
    Rejected,
    Cancelled,
    Suspended,
    Forbidden,
    TimedOut,
    HungUp,
    Interrupted,
    Terminated,
}

/// Every exit code with its meaning.
pub const TABLE: [(Exit, i32, &str); 13] = [
    (Exit::Success, 0, "success; the run completed (for a plan run: approved; an answer only recorded for a waiter)"),
    (Exit::Failure, 1, "runtime failure: provider, I/O or store error; the run failed"),
    (Exit::Usage, 2, "usage or invalid input; nothing changed"),
    (Exit::NotFound, 3, "not found: no such run or tool call"),
    (Exit::Conflict, 4, "conflict: already resolved, not pending, finished, ambiguous id, several pending without `--tool-call`, live lease"),
    (Exit::Rejected, 5, "the plan was rejected (a plan run: `plan --wait`, `wait`)"),
    (Exit::Cancelled, 6, "the run was cancelled"),
    (Exit::Suspended, 75, "suspended: the run waits for human input"),
    (Exit::Forbidden, 77, "not permitted: a policy does not let this identity make this decision, or a deciding command runs inside Claude Code (`CLAUDECODE=1`, or `CLAUDE_CODE_SESSION_ID` naming the run); nothing changed"),
    (Exit::TimedOut, 124, "timed out (`--timeout`), items expired"),
    (Exit::HungUp, 129, "the waiter of a one-step run got SIGHUP: its run was cancelled (a `run --wait` waiter: it stopped waiting)"),
    (Exit::Interrupted, 130, "interrupted; nothing recorded (the waiter of a one-step run got SIGINT: its run was cancelled)"),
    (Exit::Terminated, 143, "the waiter of a one-step run got SIGTERM: its run was cancelled (a `run --wait` waiter: it stopped waiting)"),
];

impl Exit {
    /// The process exit code (the same as in `TABLE`, which a test checks).
    pub fn code(self) -> i32 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::NotFound => 3,
            Exit::Conflict => 4,
            Exit::Rejected => 5,
            Exit::Cancelled => 6,
            Exit::Suspended => 75,
            Exit::Forbidden => 77,
            Exit::TimedOut => 124,
            Exit::HungUp => 129,
            Exit::Interrupted => 130,
            Exit::Terminated => 143,
        }
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> std::process::ExitCode {
        // Every code of the table is below 256.
        std::process::ExitCode::from(exit.code() as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_shows_every_exit_with_its_code() {
        for (exit, code, _) in TABLE {
            assert_eq!(exit.code(), code, "{exit:?}");
        }
        let mut codes: Vec<i32> = TABLE.iter().map(|(_, c, _)| *c).collect();
        codes.dedup();
        assert_eq!(codes.len(), TABLE.len());
    }
}
