//! The agent loop: a pure step function (`step`) that turns one model response into what
//! must be stored, and a driver (`driver`) that performs the effects (call the model, run
//! the tools, persist, suspend) for one leg under a lease; a leg that resumes a step whose
//! calls were approved first runs those tools (`approved`); every command tool a driver
//! starts is recorded first, and a driver taking over waits for what an earlier one left
//! running (`started`).

pub mod approved;
pub mod def;
pub mod driver;
pub mod lease;
mod started;
pub mod step;

pub use def::AgentDef;
