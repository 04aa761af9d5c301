//! Agent definitions: the JSON agent file and the built-in `assistant`. An agent's tools are
//! built-ins by name and its own command tools (SPEC §11), whose programs are found when the
//! file is loaded and kept as absolute paths with the run.
//!
//! A definition is checked whole when it is read (unknown keys, tools, `maxSteps`,
//! `modelSettings`), so a run never starts on a bad one; it is then stored with the run
//! and read back as it was. Nothing here calls a model or touches the store.

use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use super::claude_code::{ClaudeCodeDef, ClaudeCodeFile};
use crate::domain::review::{PolicySpec, RuleSpec};
use crate::domain::HUMAN_TOOLS;
use crate::error::Error;
use crate::limits::{self, MAX_AGENT_FILE, MAX_MAX_STEPS};
use crate::providers::{self, ModelSettings};
use crate::store::Run;
use crate::tools::ToolEntry;

pub const DEFAULT_MAX_STEPS: u32 = 5;

/// An agent as a run keeps it: a later edit of the agent file cannot change a paused run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AgentDef {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub instructions: String,
    pub model: String,
    #[serde(default = "ToolEntry::builtins")]
    pub tools: Vec<ToolEntry>,
    #[serde(default = "default_max_steps")]
    pub max_steps: u32,
    /// Sampling and length controls sent with every model call (checked when read).
    #[serde(default, skip_serializing_if = "ModelSettings::is_empty")]
    pub model_settings: ModelSettings,
    /// Who may answer the run's questions, plans and approvals (SPEC §14); a command tool
    /// may carry its own for its approvals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<RuleSpec>,
    /// The agent is Claude Code, driven by `claude -p` (SPEC §15): no model, no tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_code: Option<ClaudeCodeDef>,
}

/// What drives the legs of a run of an agent.
pub enum Engine<'a> {
    /// Our loop, calling this model.
    Model(&'a str),
    /// `claude -p`, as the agent's `claudeCode` block says.
    ClaudeCode(&'a ClaudeCodeDef),
}

fn default_max_steps() -> u32 {
    DEFAULT_MAX_STEPS
}

impl AgentDef {
    /// The built-in agent; it has no model of its own.
    pub fn assistant(model: &str) -> AgentDef {
        AgentDef {
            id: "assistant".into(),
            name: Some("Assistant".into()),
            instructions: "You are a helpful assistant. When the request is ambiguous or a \
                decision belongs to the user, ask the user for clarification with ask_user \
                before you act. Before a larger change, write a plan to a Markdown file and \
                submit it for review with submit_plan."
                .into(),
            model: model.into(),
            tools: ToolEntry::builtins(),
            max_steps: DEFAULT_MAX_STEPS,
            model_settings: ModelSettings::default(),
            review: None,
            claude_code: None,
        }
    }

    /// What drives this agent's legs.
    pub fn engine(&self) -> Engine<'_> {
        match &self.claude_code {
            Some(c) => Engine::ClaudeCode(c),
            None => Engine::Model(&self.model),
        }
    }

    /// A Claude Code agent from its file (checked).
    fn of_claude_code(file: ClaudeCodeFile) -> std::result::Result<AgentDef, String> {
        file.claude_code.check()?;
        let def = AgentDef {
            id: file.id,
            name: file.name,
            instructions: String::new(),
            // Shown as the run's model; never a spec of ours (`engine` is Claude Code).
            model: super::claude_code::MODEL.into(),
            tools: Vec::new(),
            max_steps: 1,
            model_settings: ModelSettings::default(),
            review: file.review,
            claude_code: Some(file.claude_code),
        };
        def.check()?;
        Ok(def)
    }

    /// Reads an agent file; relative paths inside resolve against its directory.
    pub fn load(path: &Path) -> Result<AgentDef> {
        let shown = path.display();
        let bytes = limits::read_regular_file(path, MAX_AGENT_FILE).map_err(|e| match e {
            limits::ReadError::Io(e) => {
                Error::invalid(format!("cannot read agent file {shown}: {e}"))
            }
            other => Error::invalid(format!("agent file {shown} {other}")),
        })?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::invalid(format!("agent file {shown} is not valid UTF-8")))?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| Error::invalid(format!("agent file {shown}: {e}")))?;
        if value.get("claudeCode").is_some() {
            let mut def = serde_json::from_value::<ClaudeCodeFile>(value)
                .map_err(|e| e.to_string())
                .and_then(AgentDef::of_claude_code)
                .map_err(|e| Error::invalid(format!("agent file {shown}: {e}")))?;
            // A relative path names a program beside the agent file (a bare name: on PATH).
            if let Some(code) = def.claude_code.as_mut() {
                if let Some(c) = code.command.as_mut().filter(|c| c.contains('/')) {
                    let dir = absolute(path.parent().unwrap_or(Path::new(".")))?;
                    *c = dir.join(&*c).to_string_lossy().into_owned();
                }
            }
            return Ok(def);
        }
        let mut def: AgentDef = serde_json::from_value(value)
            .map_err(|e| Error::invalid(format!("agent file {shown}: {e}")))?;
        def.check()
            .map_err(|e| Error::invalid(format!("agent file {shown}: {e}")))?;
        let dir = absolute(path.parent().unwrap_or(Path::new(".")))?;
        def.model = providers::normalize_spec(&def.model, &dir)?;
        for tool in &mut def.tools {
            if let ToolEntry::Command(t) = tool {
                t.resolve(&dir)
                    .map_err(|e| Error::invalid(format!("agent file {shown}: {e}")))?;
            }
        }
        Ok(def)
    }

    fn check(&self) -> std::result::Result<(), String> {
        if self.id.trim().is_empty() {
            return Err("id must not be empty".into());
        }
        for (i, t) in self.tools.iter().enumerate() {
            match t {
                ToolEntry::Builtin(n) if !HUMAN_TOOLS.contains(&n.as_str()) => {
                    return Err(format!(
                        "unknown tool \"{n}\"; the built-in tools are ask_user and submit_plan (a tool of your own is an object, with a command)"
                    ));
                }
                ToolEntry::Builtin(_) => {}
                ToolEntry::Command(c) => c.check()?,
            }
            if self.tools[..i].iter().any(|o| o.name() == t.name()) {
                return Err(format!("tool \"{}\" is listed twice", t.name()));
            }
        }
        if self.max_steps == 0 || self.max_steps > MAX_MAX_STEPS {
            return Err(format!("maxSteps must be between 1 and {MAX_MAX_STEPS}"));
        }
        if let Some(r) = &self.review {
            r.check()?;
        }
        Ok(())
    }

    /// Who may answer a run of this agent, as declared (SPEC §14): the agent's `review`
    /// and its command tools' own. The store resolves the names when the run starts.
    pub fn policy_spec(&self) -> PolicySpec {
        PolicySpec {
            rule: self.review.clone(),
            tools: self
                .tools
                .iter()
                .filter_map(|t| match t {
                    ToolEntry::Command(c) => c.review.clone().map(|r| (c.name.clone(), r)),
                    ToolEntry::Builtin(_) => None,
                })
                .collect(),
            named: None,
        }
    }

    /// The agent a run keeps, as it was at `run`.
    pub fn of_run(run: &Run) -> Result<AgentDef> {
        serde_json::from_value(run.agent.clone()).map_err(|e| {
            Error::invalid(format!(
                "run {} has an agent this program cannot read: {e}",
                run.id
            ))
            .into()
        })
    }

    /// `run --require-approval`: every command tool's call waits for approval (kept in the
    /// stored agent).
    pub fn require_approval(mut self) -> AgentDef {
        for tool in &mut self.tools {
            if let ToolEntry::Command(t) = tool {
                t.require_approval = true;
            }
        }
        self
    }

    /// Sets `maxSteps` from the command line.
    pub fn with_max_steps(mut self, n: u32) -> Result<AgentDef> {
        self.max_steps = n;
        self.check().map_err(Error::usage)?;
        Ok(self)
    }
}

/// `p` made absolute against the current directory.
pub fn absolute(p: &Path) -> Result<std::path::PathBuf> {
    if p.is_absolute() {
        return Ok(p.to_path_buf());
    }
    let cwd = std::env::current_dir()
        .map_err(|e| Error::invalid(format!("cannot read the current directory: {e}")))?;
    Ok(cwd.join(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_with_defaults_and_a_relative_script() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("agent.json");
        std::fs::write(
            &file,
            r#"{"id":"a","instructions":"be brief","model":"script:s.json"}"#,
        )
        .unwrap();
        let def = AgentDef::load(&file).unwrap();
        assert_eq!(def.tools, ToolEntry::builtins());
        assert_eq!(def.max_steps, 5);
        assert_eq!(
            def.model,
            format!("script:{}", dir.path().join("s.json").display())
        );
    }

    #[test]
    fn unknown_keys_and_tools_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("agent.json");
        std::fs::write(
            &file,
            r#"{"id":"a","instructions":"","model":"script:s","color":1}"#,
        )
        .unwrap();
        assert!(AgentDef::load(&file)
            .unwrap_err()
            .to_string()
            .contains("unknown field `color`"));
        std::fs::write(
            &file,
            r#"{"id":"a","instructions":"","model":"script:s","tools":["rm"]}"#,
        )
        .unwrap();
        assert!(AgentDef::load(&file)
            .unwrap_err()
            .to_string()
            .contains("unknown tool \"rm\""));
    }

    #[test]
    fn a_claude_code_agent_is_read_without_a_model_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("agent.json");
        std::fs::write(
            &file,
            r#"{"id":"coder","claudeCode":{"args":["--model","opus"],"gate":"Bash|Write","env":["GH_TOKEN"]},"review":{"reviewers":["alice"]}}"#,
        )
        .unwrap();
        let def = AgentDef::load(&file).unwrap();
        let Engine::ClaudeCode(code) = def.engine() else {
            panic!("{def:?}")
        };
        assert_eq!(code.program(), "claude");
        assert!(code.gates("Write") && !code.gates("Edit"));
        assert!(def.tools.is_empty() && def.policy_spec().rule.is_some());
        // As a run stores it, and back.
        let stored = serde_json::to_value(&def).unwrap();
        assert_eq!(serde_json::from_value::<AgentDef>(stored).unwrap(), def);
        for (text, says) in [
            (
                r#"{"id":"c","model":"script:s","claudeCode":{}}"#,
                "unknown field `model`",
            ),
            (
                r#"{"id":"c","claudeCode":{"cmd":"claude"}}"#,
                "unknown field `cmd`",
            ),
            (
                r#"{"id":"c","claudeCode":{"args":["--dangerously-skip-permissions"]}}"#,
                "claudeCode.args may not contain --dangerously-skip-permissions",
            ),
            (
                r#"{"id":"c","claudeCode":{"env":["A=B"]}}"#,
                "claudeCode.env names \"A=B\", which is not a variable name",
            ),
            (r#"{"id":"","claudeCode":{}}"#, "id must not be empty"),
        ] {
            std::fs::write(&file, text).unwrap();
            let e = AgentDef::load(&file).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn model_settings_are_read_checked_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("agent.json");
        std::fs::write(
            &file,
            r#"{"id":"a","instructions":"","model":"script:s","modelSettings":{"temperature":0,"seed":7}}"#,
        )
        .unwrap();
        let def = AgentDef::load(&file).unwrap();
        assert_eq!(def.model_settings.temperature, Some(0.0));
        assert_eq!(def.model_settings.seed, Some(7));
        // As a run stores it, and back.
        let stored = serde_json::to_value(&def).unwrap();
        assert_eq!(
            stored["modelSettings"],
            serde_json::json!({"temperature": 0.0, "seed": 7})
        );
        assert_eq!(serde_json::from_value::<AgentDef>(stored).unwrap(), def);
        // An agent without settings stores none (older runs read the same).
        let plain = serde_json::to_value(AgentDef::assistant("script:s")).unwrap();
        assert!(plain.get("modelSettings").is_none());

        std::fs::write(
            &file,
            r#"{"id":"a","instructions":"","model":"script:s","modelSettings":{"topP":2}}"#,
        )
        .unwrap();
        let e = AgentDef::load(&file).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "agent file {}: modelSettings.topP must be a number from 0 to 1",
                file.display()
            )),
            "{e}"
        );
    }

    #[test]
    fn review_blocks_are_read_checked_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("agent.json");
        let tool = format!(
            r#"{{"name":"deploy","description":"d","inputSchema":{{"type":"object"}},"command":["{}"],"requireApproval":true,"review":{{"reviewers":["group:ops"],"approvals":2}}}}"#,
            std::env::current_exe().unwrap().display()
        );
        std::fs::write(
            &file,
            format!(
                r#"{{"id":"a","instructions":"","model":"script:s","tools":["ask_user",{tool}],"review":{{"reviewers":["alice","bob"],"allowSelf":true}}}}"#
            ),
        )
        .unwrap();
        let def = AgentDef::load(&file).unwrap();
        let spec = def.policy_spec();
        let rule = spec.rule.clone().unwrap();
        assert_eq!(
            (rule.reviewers, rule.approvals, rule.allow_self),
            (vec!["alice".to_string(), "bob".to_string()], 1, true)
        );
        assert_eq!(spec.tools.len(), 1);
        assert_eq!(spec.tools[0].0, "deploy");
        assert_eq!(spec.tools[0].1.approvals, 2);
        // As a run stores it, and back.
        let stored = serde_json::to_value(&def).unwrap();
        assert_eq!(serde_json::from_value::<AgentDef>(stored).unwrap(), def);

        for (review, says) in [
            (
                r#"{"reviewers":["alice"],"quorum":2}"#,
                "unknown field `quorum`",
            ),
            (
                r#"{"reviewers":[]}"#,
                "review.reviewers must name at least one",
            ),
            (
                r#"{"reviewers":["alice"],"approvals":0}"#,
                "review.approvals must be between",
            ),
            (r#"{"approvals":1}"#, "missing field `reviewers`"),
        ] {
            std::fs::write(
                &file,
                format!(r#"{{"id":"a","instructions":"","model":"script:s","review":{review}}}"#),
            )
            .unwrap();
            let e = AgentDef::load(&file).unwrap_err().to_string();
            assert!(e.contains(says), "{review}: {e}");
        }
        let e = format!(
            r#"{{"id":"a","instructions":"","model":"script:s","tools":[{}]}}"#,
            tool.replace(r#""approvals":2"#, r#""approvals":2,"who":1"#)
        );
        std::fs::write(&file, e).unwrap();
        let e = AgentDef::load(&file).unwrap_err().to_string();
        assert!(e.contains("unknown field `who`"), "{e}");
    }

    #[test]
    fn no_agent_file_makes_load_panic() {
        use crate::testing::{damage, json_input, Rng};
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("agent.json");
        let valid = serde_json::json!({
            "id": "a", "name": "A", "instructions": "Be brief.", "model": "script:s.json",
            "tools": ["ask_user", "submit_plan"], "maxSteps": 3,
            "modelSettings": {"temperature": 0.7, "maxOutputTokens": 512, "topP": 1,
                              "seed": 3, "stopSequences": ["END"]}
        });
        let mut rng = Rng::new(3);
        let mut loaded = 0;
        for _ in 0..1000 {
            let bytes = if rng.chance(30) {
                damage(&mut rng, &valid.to_string())
            } else {
                serde_json::to_vec(&json_input(&mut rng, std::slice::from_ref(&valid))).unwrap()
            };
            std::fs::write(&file, bytes).unwrap();
            if let Ok(def) = AgentDef::load(&file) {
                assert_eq!(def.check(), Ok(()), "{def:?}");
                assert!(def.model.starts_with("script:"), "{def:?}");
                let _ = def.with_max_steps(rng.next_u64() as u32);
                loaded += 1;
            }
        }
        assert!(
            loaded > 50,
            "only {loaded} generated files were valid agents"
        );
    }
}
