//! The agent loop: a pure step function (`step`) that turns one model response into what
//! must be stored, and a driver (`driver`) that performs the effects (call the model, run
//! the tools, persist, suspend) for one leg under a lease; a leg that resumes a step whose
//! calls were approved first runs those tools (`approved`); every command tool a driver
//! starts is recorded first, and a driver taking over waits for what an earlier one left
//! running (`started`).

pub mod approved;
pub mod claude_code;
pub mod claude_leg;
pub mod def;
pub mod driver;
pub mod lease;
mod started;
pub mod step;

pub use def::{AgentDef, Engine};

/// What drives a run's legs, ready to: our loop with the model's provider, or `claude -p`
/// (the agent's `claudeCode` block, `claude_leg`).
pub enum Drive {
    Model(Box<dyn crate::providers::Provider>),
    ClaudeCode,
}

impl Drive {
    /// What drives `agent`'s legs: its model's provider (checked: keys, script) or Claude Code.
    pub fn of(agent: &AgentDef) -> anyhow::Result<Drive> {
        Ok(match agent.engine() {
            Engine::Model(model) => Drive::Model(crate::providers::from_spec(model)?),
            Engine::ClaudeCode(_) => Drive::ClaudeCode,
        })
    }
}
