//! An agent that is Claude Code (SPEC §15, "Claude Code as a run"): the `claudeCode` block
//! of an agent file (the program, extra arguments, which tools pause, which variables
//! reach it), checked when the file is read, and what follows from it: whether a tool is
//! gated, the command line of each leg and the environment `claude` gets. Nothing here
//! starts a process or touches the store (`claude_leg` drives a leg).

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::json;

/// What a Claude Code agent's run shows as its model: Claude Code's own (`args`).
pub const MODEL: &str = "claude-code";

/// The tools that never pause by default: they only read (or keep Claude Code's own todo
/// list). Every other tool, `AskUserQuestion` and `ExitPlanMode` included, is gated.
pub const READ_ONLY: &[&str] = &["Read", "Glob", "Grep", "LS", "NotebookRead", "TodoWrite"];

/// Arguments a `claudeCode` block may not add: each would switch the gate off or take a
/// setting mastra-ask owns.
const REFUSED: &[&str] = &[
    "--bare",
    "--setting-sources",
    "--settings",
    "--session-id",
    "--dangerously-skip-permissions",
];

/// The variables of mastra-ask's environment that reach `claude` (besides `env`'s names):
/// exact names, and prefixes ending in `_`.
const PASSED: &[&str] = &[
    "PATH",
    "HOME",
    "LANG",
    "TERM",
    "LC_",
    "ANTHROPIC_",
    "CLAUDE_CODE_",
    "CLAUDE_CONFIG_DIR",
    "DISABLE_",
    "HTTPS_PROXY",
    "NO_PROXY",
    "SSL_CERT_FILE",
];

/// The most `args` and `env` entries, and the longest of each.
const MAX_ENTRIES: usize = 64;
const MAX_ENTRY: usize = 4096;

/// The `claudeCode` block, as a run keeps it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClaudeCodeDef {
    /// The program; `claude` on `PATH` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Extra arguments of every leg.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// The tools that pause: names separated by `|`, or `*` for every tool; every tool but
    /// `READ_ONLY` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
    /// More variables that reach `claude`, by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
}

/// The agent file of a Claude Code agent: no `instructions`, `model` or `tools`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClaudeCodeFile {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    pub claude_code: ClaudeCodeDef,
    #[serde(default)]
    pub review: Option<crate::domain::review::RuleSpec>,
}

impl ClaudeCodeDef {
    /// The problem, one line, with a block no run may start with.
    pub fn check(&self) -> Result<(), String> {
        if let Some(c) = &self.command {
            if c.trim().is_empty() || c.len() > MAX_ENTRY || c.contains('\0') {
                return Err("claudeCode.command must name a program".into());
            }
        }
        if self.args.len() > MAX_ENTRIES || self.env.len() > MAX_ENTRIES {
            return Err(format!(
                "claudeCode.args and claudeCode.env take at most {MAX_ENTRIES} entries"
            ));
        }
        for arg in &self.args {
            if arg.len() > MAX_ENTRY || arg.contains('\0') {
                return Err("claudeCode.args has an argument that is too long or holds NUL".into());
            }
            let flag = arg.split_once('=').map_or(arg.as_str(), |(f, _)| f);
            if REFUSED.contains(&flag) {
                return Err(format!(
                    "claudeCode.args may not contain {flag}: mastra-ask sets the session, the settings and the gate of a Claude Code run"
                ));
            }
        }
        for name in &self.env {
            let ok = !name.is_empty()
                && name.len() <= 256
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if !ok {
                return Err(format!(
                    "claudeCode.env names {}, which is not a variable name",
                    json!(name)
                ));
            }
        }
        if let Some(gate) = &self.gate {
            let ok = gate == "*"
                || (!gate.is_empty()
                    && gate.len() <= MAX_ENTRY
                    && gate.split('|').all(|t| {
                        !t.is_empty()
                            && t.bytes()
                                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
                    }));
            if !ok {
                return Err(
                    "claudeCode.gate must be tool names separated by |, or * for every tool".into(),
                );
            }
        }
        Ok(())
    }

    /// Whether a call of `tool` pauses for a decision.
    pub fn gates(&self, tool: &str) -> bool {
        match self.gate.as_deref() {
            None => !READ_ONLY.contains(&tool),
            Some("*") => true,
            Some(gate) => gate.split('|').any(|t| t == tool),
        }
    }

    /// The program to start.
    pub fn program(&self) -> &str {
        self.command.as_deref().unwrap_or("claude")
    }

    /// The arguments of a leg: the SDK's mode, the session (new, or resumed), the settings
    /// holding the hook (`hook`: its command line), then `args`.
    pub fn leg_args(&self, run_id: &str, resume: bool, hook: &str) -> Vec<String> {
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": "*",
            "hooks": [{"type": "command", "command": hook, "timeout": 60}]}]}});
        let mut args: Vec<String> = [
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-prompt-tool",
            "stdio",
            if resume { "--resume" } else { "--session-id" },
            run_id,
            "--setting-sources",
            "user",
            "--settings",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(settings.to_string());
        args.extend(self.args.iter().cloned());
        args
    }

    /// The variables of `vars` that reach `claude`.
    pub fn passed_env(
        &self,
        vars: impl Iterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
    ) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
        vars.filter(|(k, _)| {
            let Some(k) = k.to_str() else { return false };
            self.env.iter().any(|n| n == k)
                || PASSED
                    .iter()
                    .any(|p| k == *p || (p.ends_with('_') && k.starts_with(p)))
        })
        .collect()
    }
}

/// Whether the item `call_id` is of Claude Code's call `tool_use_id`: that id, or that id
/// and `/N` (a question of an `AskUserQuestion` call).
pub fn is_item_of(call_id: &str, tool_use_id: &str) -> bool {
    call_id == tool_use_id
        || call_id
            .strip_prefix(tool_use_id)
            .is_some_and(|n| n.starts_with('/'))
}

/// The hook's command line for a run: this program, the store, the run. Words are quoted
/// for the shell Claude Code runs it with; `|| exit 2` blocks the tool where the hook
/// cannot answer (SPEC §15).
pub fn hook_command(program: &Path, db: &str, run_id: &str) -> String {
    format!(
        "{} --db {} hook claude-code --run {} || exit 2",
        quoted(&program.to_string_lossy()),
        quoted(db),
        quoted(run_id)
    )
}

/// `s` in single quotes for a POSIX shell.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(args: &[&str]) -> ClaudeCodeDef {
        ClaudeCodeDef {
            args: args.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn arguments_that_open_the_gate_are_refused_in_either_spelling() {
        for flag in REFUSED {
            for arg in [flag.to_string(), format!("{flag}=x")] {
                assert_eq!(
                    def(&["--model", "m", &arg]).check(),
                    Err(format!("claudeCode.args may not contain {flag}: mastra-ask sets the session, the settings and the gate of a Claude Code run"))
                );
            }
        }
        assert_eq!(def(&["--permission-mode", "plan"]).check(), Ok(()));
    }

    #[test]
    fn the_gate_is_every_tool_but_the_read_only_ones_unless_named() {
        let d = ClaudeCodeDef::default();
        assert!(d.gates("Bash") && d.gates("Write") && d.gates("AskUserQuestion"));
        assert!(!d.gates("Read") && !d.gates("Grep"));
        let d = ClaudeCodeDef {
            gate: Some("Bash|AskUserQuestion".into()),
            ..Default::default()
        };
        assert!(d.gates("Bash") && !d.gates("Write") && !d.gates("Bas"));
        let bad = ClaudeCodeDef {
            gate: Some("Bash|.*".into()),
            ..Default::default()
        };
        assert!(bad.check().is_err());
    }

    #[test]
    fn only_the_listed_variables_reach_claude() {
        let d = ClaudeCodeDef {
            env: vec!["GIT_AUTHOR".into()],
            ..Default::default()
        };
        let vars = [
            "PATH",
            "MASTRA_ASK_DB",
            "PGPASSWORD",
            "LC_ALL",
            "ANTHROPIC_API_KEY",
            "GIT_AUTHOR",
            "GIT_AUTHORX",
            "LCX",
        ]
        .map(|k| (k.into(), "v".into()));
        let kept: Vec<_> = d
            .passed_env(vars.into_iter())
            .into_iter()
            .map(|(k, _)| k.into_string().unwrap())
            .collect();
        assert_eq!(kept, ["PATH", "LC_ALL", "ANTHROPIC_API_KEY", "GIT_AUTHOR"]);
    }
}
