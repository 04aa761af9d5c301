//! Telling a reviewer that something waits (SPEC §17): the channels a reviewer can have, as
//! the store keeps them (the URL text `reviewer notify` was given, parsed here where it is
//! used, so a new kind of channel needs no store change), the access tokens serve is given
//! for them (never stored), and the message each gets. A channel is private only when it
//! carries an access token; only a private one gets what a model wrote.
//!
//! It decides nothing and reads no store: serve (`serve::notifications`) says which
//! reviewers of which items, and this builds and sends what they get. Adding Telegram,
//! Slack or email is a variant of `Channel` and a file beside `ntfy.rs`.

pub mod ntfy;
pub mod tokens;

pub use tokens::Tokens;

/// A reviewer's channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Channel {
    /// `ntfy:https://HOST/TOPIC`: an ntfy server's topic.
    Ntfy(ntfy::Topic),
}

impl Channel {
    /// The channel `text` names; why not, in words, when it names none.
    pub fn parse(text: &str) -> Result<Channel, String> {
        match text.split_once(':') {
            Some(("ntfy", rest)) => ntfy::Topic::parse(rest).map(Channel::Ntfy),
            _ => Err("a channel is ntfy:https://HOST/TOPIC".into()),
        }
    }
}

/// What a reviewer is told of one item, before a channel shapes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// The item's kind, as `pending` names it.
    pub kind: String,
    pub agent: String,
    /// How long it has waited, in words (`3m`).
    pub age: String,
    /// What it asks, in a few words, as a model wrote it: for private channels only.
    pub headline: String,
    /// Its page (`--public-url`), when one is recorded.
    pub url: Option<String>,
    /// The decisions it may offer as one-tap actions (on a private channel only).
    pub taps: Vec<TapChoice>,
}

/// A one-tap decision a notification may offer: its button's label, and the form fields it
/// decides with (urlencoded, as the item's page sends them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TapChoice {
    pub label: String,
    pub sends: String,
}

/// A one-tap action as published: its label and the URL it posts to (`PUBLIC_URL/tap/SECRET`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    pub label: String,
    pub url: String,
}
