//! The run layer: the one loop that moves runs, and everything it needs.

pub mod advance;
pub mod input;
pub mod notify;
pub mod outcome;
pub mod prompt;
pub mod start;
pub mod target;
pub mod view;
pub mod waiter;
