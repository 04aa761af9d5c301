//! The agent's own tools (SPEC §11): a command tool as an agent file declares it, checked
//! when the file is loaded (a valid name, a program that exists, an input schema that
//! compiles), offered to models like the built-ins, and a call's arguments checked against
//! its schema with a JSON Schema validator (the `jsonschema` crate, with no remote or file
//! references: a schema can never make the driver fetch anything).
//!
//! Running the program is `program.rs`; whether a call waits for approval first is decided
//! by `Toolbox`. Nothing here runs a program, prints or touches the store.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::schema::{type_name, Problems};
use super::ToolSpec;
use crate::domain::HUMAN_TOOLS;
use crate::limits::{
    DEFAULT_TOOL_TIMEOUT, MAX_ENV_NAME_CHARS, MAX_TOOL_ENV_NAMES, MAX_TOOL_NAME_CHARS,
    MAX_TOOL_TIMEOUT,
};

/// The name by which a command tool runs this program.
const THIS_PROGRAM: &str = "mastra-ask";

/// A command tool: a program run per call, arguments as JSON on stdin, stdout the result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CommandTool {
    pub name: String,
    pub description: String,
    /// The JSON Schema of the arguments (an object schema).
    pub input_schema: Value,
    /// The program and its arguments; no shell. `command[0]` is made absolute at load.
    pub command: Vec<String>,
    /// Every call waits for a person to approve it before the program runs.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub require_approval: bool,
    /// How long the program may run [default 60,000].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Names of variables of the driver's environment the program gets besides the
    /// allow-list (`program::ALLOWED`): a token it needs, say. Names only, never values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// Who may approve this tool's calls, in place of the agent's `review` (SPEC §14).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<crate::domain::review::RuleSpec>,
}

impl CommandTool {
    /// What a model is offered.
    pub fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: self.input_schema.clone(),
        }
    }

    /// How long one call may run before its process group is killed.
    pub fn timeout(&self) -> Duration {
        self.timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_TOOL_TIMEOUT)
    }

    /// Checks everything but the program's existence (see `resolve`).
    pub fn check(&self) -> Result<(), String> {
        let name = &self.name;
        let ok_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        if name.is_empty() || name.len() > MAX_TOOL_NAME_CHARS || !name.chars().all(ok_char) {
            return Err(format!(
                "command tool name {name:?} must be 1 to {MAX_TOOL_NAME_CHARS} letters, digits, _ or -"
            ));
        }
        if HUMAN_TOOLS.contains(&name.as_str()) {
            return Err(format!(
                "command tool \"{name}\" has the name of a built-in tool"
            ));
        }
        if self.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(format!(
                "command tool \"{name}\": inputSchema must be a JSON Schema of an object (\"type\": \"object\")"
            ));
        }
        if let Err(e) = jsonschema::validator_for(&self.input_schema) {
            return Err(format!(
                "command tool \"{name}\": inputSchema is not a valid JSON Schema: {e}"
            ));
        }
        match self.command.first() {
            None => return Err(format!("command tool \"{name}\": command is empty")),
            Some(p) if p.is_empty() || self.command.iter().any(|a| a.contains('\0')) => {
                return Err(format!(
                    "command tool \"{name}\": command has an empty program or a NUL byte"
                ))
            }
            Some(_) => {}
        }
        self.check_env()?;
        if let Some(r) = &self.review {
            r.check()
                .map_err(|e| format!("command tool \"{name}\": {e}"))?;
        }
        if let Some(ms) = self.timeout_ms {
            if ms == 0 || ms > MAX_TOOL_TIMEOUT.as_millis() as u64 {
                return Err(format!(
                    "command tool \"{name}\": timeoutMs must be between 1 and {}",
                    MAX_TOOL_TIMEOUT.as_millis()
                ));
            }
        }
        Ok(())
    }

    /// The `"env"` names: at most `MAX_TOOL_ENV_NAMES`, each a variable name (a letter or
    /// `_`, then letters, digits or `_`; so never `NAME=value`), no longer than
    /// `MAX_ENV_NAME_CHARS`.
    fn check_env(&self) -> Result<(), String> {
        let name = &self.name;
        if self.env.len() > MAX_TOOL_ENV_NAMES {
            return Err(format!(
                "command tool \"{name}\": env names at most {MAX_TOOL_ENV_NAMES} variables"
            ));
        }
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
        for var in &self.env {
            let good = !var.is_empty()
                && var.len() <= MAX_ENV_NAME_CHARS
                && !var.starts_with(|c: char| c.is_ascii_digit())
                && var.chars().all(word);
            if !good {
                return Err(format!(
                    "command tool \"{name}\": env entry {var:?} is not a variable name (letters, digits and _, at most {MAX_ENV_NAME_CHARS}, not starting with a digit; names only, no values)"
                ));
            }
        }
        Ok(())
    }

    /// Makes `command[0]` an absolute path to an executable file: an absolute path as it is;
    /// a relative one against `dir` (the agent file's directory), then, for a bare name,
    /// in `PATH`. `mastra-ask` is this very program, so its helpers (`mastra-ask tool
    /// write_file`) work whether or not it is installed.
    pub fn resolve(&mut self, dir: &Path) -> Result<(), String> {
        let Some(program) = self.command.first() else {
            return Err(format!("command tool \"{}\": command is empty", self.name));
        };
        if program == THIS_PROGRAM {
            if let Ok(me) = std::env::current_exe() {
                self.command[0] = me.to_string_lossy().into_owned();
                return Ok(());
            }
        }
        let given = Path::new(program);
        let mut candidates: Vec<PathBuf> = Vec::new();
        if given.is_absolute() {
            candidates.push(given.to_path_buf());
        } else {
            candidates.push(dir.join(given));
            if !program.contains('/') {
                if let Some(path) = std::env::var_os("PATH") {
                    candidates.extend(std::env::split_paths(&path).map(|d| d.join(given)));
                }
            }
        }
        let found = candidates
            .into_iter()
            .find(|c| executable(c))
            .ok_or_else(|| {
                format!(
                    "command tool \"{}\": program {program} not found (looked in {}{})",
                    self.name,
                    dir.display(),
                    if given.is_absolute() || program.contains('/') {
                        ""
                    } else {
                        " and PATH"
                    }
                )
            })?;
        self.command[0] = found.to_string_lossy().into_owned();
        Ok(())
    }

    /// Checks a call's arguments against the input schema: `Err` is Mastra's validation
    /// object for the model (`- field: problem` lines, then the arguments).
    pub fn validate(&self, args: &Value) -> Result<(), Value> {
        let validator = match jsonschema::validator_for(&self.input_schema) {
            Ok(v) => v,
            // Checked at load; a stored agent edited by hand lands here.
            Err(e) => {
                let mut p = Problems::default();
                p.add(
                    "root",
                    format!("the tool's inputSchema does not compile: {e}"),
                );
                return Err(p.into_result(&self.name, args));
            }
        };
        let mut p = Problems::default();
        for error in validator.iter_errors(args) {
            let at = field(error.instance_path().as_str());
            match error.kind() {
                jsonschema::error::ValidationErrorKind::Required { property } => {
                    let key = property.as_str().map(str::to_string);
                    let key = key.unwrap_or_else(|| property.to_string());
                    let f = if at == "root" {
                        key
                    } else {
                        format!("{at}.{key}")
                    };
                    p.add(f, "Required");
                }
                jsonschema::error::ValidationErrorKind::AdditionalProperties { unexpected } => {
                    let keys: Vec<String> = unexpected.iter().map(|k| format!("'{k}'")).collect();
                    p.add(
                        at,
                        format!("Unrecognized key(s) in object: {}", keys.join(", ")),
                    );
                }
                jsonschema::error::ValidationErrorKind::Type { kind } => {
                    let wanted = match kind {
                        jsonschema::error::TypeKind::Single(t) => t.to_string(),
                        jsonschema::error::TypeKind::Multiple(ts) => ts
                            .iter()
                            .map(|t| t.to_string())
                            .collect::<Vec<_>>()
                            .join(" | "),
                    };
                    p.add(
                        at,
                        format!(
                            "Expected {wanted}, received {}",
                            type_name(error.instance())
                        ),
                    );
                }
                _ => p.add(at, error.to_string()),
            }
        }
        if p.is_empty() {
            Ok(())
        } else {
            Err(p.into_result(&self.name, args))
        }
    }
}

/// A JSON pointer as a field name: `/a/0/b` is `a.0.b`, the root is `root`.
fn field(pointer: &str) -> String {
    let path: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect();
    if path.is_empty() {
        "root".into()
    } else {
        path.join(".")
    }
}

/// A regular file someone may execute.
fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(schema: Value) -> CommandTool {
        CommandTool {
            name: "tag_release".into(),
            description: "Tags a release.".into(),
            input_schema: schema,
            command: vec!["true".into()],
            require_approval: false,
            timeout_ms: None,
            env: vec![],
            review: None,
        }
    }

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "version": {"type": "string", "pattern": "^v[0-9]+"},
                "notes": {"type": "object", "properties": {"lines": {"type": "integer"}}}
            },
            "required": ["version"],
            "additionalProperties": false
        })
    }

    #[test]
    fn arguments_are_checked_against_the_schema_with_mastras_object() {
        let t = tool(schema());
        assert_eq!(t.validate(&json!({"version": "v2"})), Ok(()));
        let args = json!({"notes": {"lines": "three"}, "force": true});
        let err = t.validate(&args).unwrap_err();
        assert_eq!(err["error"], true);
        assert_eq!(
            err["validationErrors"],
            json!({
                "root": ["Unrecognized key(s) in object: 'force'"],
                "version": ["Required"],
                "notes.lines": ["Expected integer, received string"]
            })
        );
        let message = err["message"].as_str().unwrap();
        assert!(
            message.starts_with("Tool input validation failed for tag_release. Please fix the following errors and try again:\n- "),
            "{message}"
        );
        assert!(message.ends_with("\n\nProvided arguments: {\n  \"notes\": {\n    \"lines\": \"three\"\n  },\n  \"force\": true\n}"), "{message}");
        let err = t.validate(&json!({"version": "2"})).unwrap_err();
        assert_eq!(
            err["validationErrors"]["version"][0],
            r#""2" does not match "^v[0-9]+""#
        );
        let err = t.validate(&json!("v2")).unwrap_err();
        assert_eq!(
            err["validationErrors"],
            json!({"root": ["Expected object, received string"]})
        );
    }

    #[test]
    fn definitions_are_checked() {
        assert_eq!(tool(schema()).check(), Ok(()));
        let bad = |f: &dyn Fn(&mut CommandTool)| {
            let mut t = tool(schema());
            f(&mut t);
            t.check().unwrap_err()
        };
        assert!(bad(&|t| t.name = "ask_user".into()).contains("built-in"));
        assert!(bad(&|t| t.name = "has space".into()).contains("letters, digits"));
        assert!(bad(&|t| t.name = "x".repeat(65)).contains("1 to 64"));
        assert!(bad(&|t| t.input_schema = json!({"type": "string"})).contains("of an object"));
        assert!(
            bad(&|t| t.input_schema = json!({"type": "object", "minProperties": "x"}))
                .contains("not a valid JSON Schema")
        );
        assert!(bad(&|t| t.command = vec![]).contains("command is empty"));
        assert!(bad(&|t| t.timeout_ms = Some(0)).contains("timeoutMs"));
        let mut t = tool(schema());
        t.env = vec!["GITHUB_TOKEN".into(), "_x1".into(), "lower_case".into()];
        assert_eq!(t.check(), Ok(()));
        for var in ["TOKEN=abc", "", "1ST", "A-B", "A B", "Ä", &"X".repeat(129)] {
            let e = bad(&|t| t.env = vec![var.to_string()]);
            assert!(e.contains("is not a variable name"), "{var}: {e}");
        }
        let many: Vec<String> = (0..65).map(|i| format!("V{i}")).collect();
        assert!(bad(&|t| t.env = many.clone()).contains("at most 64"));
    }

    #[test]
    fn the_program_is_found_beside_the_agent_file_then_in_path() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("tag.sh");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut t = tool(schema());
        t.command = vec!["tag.sh".into(), "--dry-run".into()];
        t.resolve(dir.path()).unwrap();
        assert_eq!(t.command, [script.to_str().unwrap(), "--dry-run"]);
        t.command = vec!["sh".into()];
        t.resolve(dir.path()).unwrap();
        assert!(t.command[0].ends_with("/sh") && t.command[0].starts_with('/'));
        t.command = vec!["sub/none.sh".into()];
        let e = t.resolve(dir.path()).unwrap_err();
        assert!(
            e.contains("program sub/none.sh not found (looked in"),
            "{e}"
        );
        assert!(!e.contains("PATH"), "{e}");
        std::fs::write(dir.path().join("plain"), "").unwrap();
        t.command = vec!["plain".into()];
        assert!(t.resolve(dir.path()).is_err(), "not executable");
    }
}
