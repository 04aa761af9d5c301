//! `serve`, the reviewers' inbox (SPEC §13), through the real binary and real HTTP: a serve
//! child process per test on a free port, on the backend the suite runs against. The
//! reviewer commands, the API with Mastra's shapes, the pages for each kind of item, the
//! audit, the bounds and the attacks, fairness under load, `--drive`, the items' links; and in a real browser (headless Chromium over
//! WebDriver) the flows a person on a phone goes through.

mod api;
mod attacks;
mod browser;
mod changes;
mod client_policy;
pub mod drive;
mod escalate;
pub mod harness;
mod links;
mod load;
mod notify;
mod pages;
mod policy;
mod race_policy;
mod reviewers;
mod tap;
pub mod webdriver;
