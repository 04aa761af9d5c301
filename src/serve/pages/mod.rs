//! The inbox's pages: server-rendered HTML (maud escapes every value) that works without
//! JavaScript and on a 375-pixel-wide screen. Model text is shown through `text`, never
//! interpreted; plans through `markdown`, with no live markup.
//!
//! `layout` is the frame of every page, `assets` the one stylesheet and the one script,
//! `login` signing in and out, `inbox` what waits (and its live updates), `run` one run,
//! `item` one item with its form, `tap` a notification's one-tap decision.

pub mod assets;
pub mod inbox;
pub mod item;
pub mod layout;
pub mod login;
pub mod markdown;
pub mod run;
pub mod tap;
pub mod text;
