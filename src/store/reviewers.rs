//! The people who may sign in to `serve` (SPEC §13), their sessions, sign-in links and
//! one-tap secrets (SPEC §17), and the inbox's settings (the recorded public URL): the rows a
//! backend provides (`ReviewerTx`) and the transitions over them, written once for both
//! backends (`Reviewers`).
//!
//! Every secret reaches this module in clear and leaves it hashed (`secret.rs`): the store
//! never holds a token, a link secret, a one-tap secret or a session id, only their hashes.
//! Rotating a reviewer's token ends their sessions, links and one-tap secrets; removing a
//! reviewer ends all four, and changing their channel ends their one-tap secrets; a link
//! signs in once and a one-tap secret is used once, exactly once under concurrency. No SQL and no wording for people
//! beyond the refusals.

use super::backend::{Backend, Durability, RunRow, Tx};
use super::error::{Conflict, Error, NotFound, Result};
use super::transitions::write;
use super::{now_ms, secret};
use crate::domain::CallState;

/// A session ends after this long without a request...
pub const SESSION_IDLE_MS: i64 = 12 * 3600 * 1000;
/// ...and this long after it began, whatever happens.
pub const SESSION_MAX_MS: i64 = 7 * 24 * 3600 * 1000;
/// A sign-in link is valid this long.
pub const LINK_MS: i64 = 15 * 60 * 1000;
/// A one-tap secret is valid this long at most (less when its item expires sooner).
pub const TAP_MS: i64 = 3600 * 1000;
/// A session's last use is written at most this often (a request is a read, not a write).
const TOUCH_MS: i64 = 60 * 1000;

/// The setting that holds the public URL `serve --public-url` recorded.
pub const PUBLIC_URL: &str = "public_url";

/// A reviewer as the store keeps them (their token only as a hash, never shown).
#[derive(Clone, Debug, PartialEq)]
pub struct Reviewer {
    pub name: String,
    pub groups: Vec<String>,
    pub os_user: Option<String>,
    pub pg_role: Option<String>,
    /// Where serve tells them of new items (`reviewer notify`): the channel's URL as
    /// given, parsed where it is used (`crate::notify`).
    pub notify: Option<String>,
    pub created_at: i64,
    pub rotated_at: Option<i64>,
    /// When they were removed; a removed reviewer is kept for the audit and signs in no more.
    pub removed_at: Option<i64>,
}

/// A reviewer's row: the reviewer and the hash of their current token.
#[derive(Clone, Debug, PartialEq)]
pub struct ReviewerRow {
    pub reviewer: Reviewer,
    pub token_hash: Option<String>,
}

/// A session's row.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionRow {
    pub reviewer: String,
    pub created_at: i64,
    pub last_seen_at: i64,
}

/// A sign-in link's row.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkRow {
    pub reviewer: String,
    pub expires_at: i64,
    pub used_at: Option<i64>,
}

/// A one-tap secret's row (SPEC §17): who decides what on which item with it.
#[derive(Clone, Debug, PartialEq)]
pub struct TapRow {
    pub run_id: String,
    pub call_id: String,
    pub reviewer: String,
    /// The button's label, as the notification showed it.
    pub label: String,
    /// The form fields it decides with (`approved=true`, `answer=Yes`), urlencoded.
    pub sends: String,
    pub expires_at: i64,
    pub used_at: Option<i64>,
}

/// A one-tap decision to hand out: the secret (in clear, for the notification only), its
/// label and the form fields it sends.
pub struct NewTap<'a> {
    pub secret: &'a str,
    pub label: &'a str,
    pub sends: &'a str,
}

/// The row operations on reviewers, sessions, links and settings within one write
/// transaction. Rows read here are locked until the transaction ends.
pub trait ReviewerTx {
    fn reviewer(&mut self, name: &str) -> Result<Option<ReviewerRow>>;
    /// The active reviewer whose token has this hash.
    fn reviewer_by_token(&mut self, token_hash: &str) -> Result<Option<ReviewerRow>>;
    /// The active reviewer, other than `new.name`, mapped to its OS user or PostgreSQL role.
    fn reviewer_mapped(&mut self, new: &NewReviewer) -> Result<Option<String>>;
    /// Every reviewer, by name.
    fn reviewers(&mut self) -> Result<Vec<Reviewer>>;
    /// Inserts the row, or replaces a removed reviewer's row of the same name; false (and
    /// nothing written) when an active reviewer has the name, committed meanwhile included.
    fn insert_reviewer(&mut self, row: &ReviewerRow) -> Result<bool>;
    /// Writes an existing reviewer's row.
    fn put_reviewer(&mut self, row: &ReviewerRow) -> Result<()>;
    fn insert_session(&mut self, id_hash: &str, row: &SessionRow) -> Result<()>;
    fn session(&mut self, id_hash: &str) -> Result<Option<SessionRow>>;
    fn touch_session(&mut self, id_hash: &str, at: i64) -> Result<()>;
    fn delete_session(&mut self, id_hash: &str) -> Result<()>;
    /// Deletes the reviewer's sessions, sign-in links and one-tap secrets.
    fn end_access(&mut self, reviewer: &str) -> Result<()>;
    /// Deletes sessions last seen before `idle_before` or created before `created_before`,
    /// and links that expired before `now`.
    fn delete_stale(&mut self, idle_before: i64, created_before: i64, now: i64) -> Result<()>;
    fn insert_link(&mut self, secret_hash: &str, row: &LinkRow, at: i64) -> Result<()>;
    fn link(&mut self, secret_hash: &str) -> Result<Option<LinkRow>>;
    fn use_link(&mut self, secret_hash: &str, at: i64) -> Result<()>;
    fn setting(&mut self, key: &str) -> Result<Option<String>>;
    /// Inserts the claim that `reviewer` is told of the run's call, unless one exists
    /// (committed meanwhile included); whether it was inserted.
    fn insert_notification(
        &mut self,
        run: &RunRow,
        call_id: &str,
        reviewer: &str,
        at: i64,
    ) -> Result<bool>;
    fn put_setting(&mut self, key: &str, value: &str, at: i64) -> Result<()>;
    fn insert_tap(&mut self, secret_hash: &str, run: &RunRow, row: &TapRow, at: i64) -> Result<()>;
    /// The tap's row, locked.
    fn tap(&mut self, secret_hash: &str) -> Result<Option<TapRow>>;
    fn use_tap(&mut self, secret_hash: &str, at: i64) -> Result<()>;
    /// Deletes the reviewer's one-tap secrets (their channel changed).
    fn delete_taps(&mut self, reviewer: &str) -> Result<()>;
}

/// A reviewer's name, a group or an identity (`what`) as the store keeps it: what can be
/// typed, linked and shown as is (1 to 64 letters, digits, `.`, `_`, `-` or `@`, not
/// starting with `-`); a usage error otherwise.
pub fn check_name<'a>(what: &str, value: &'a str) -> Result<&'a str> {
    let ok = !value.is_empty()
        && value.len() <= 64
        && !value.starts_with('-')
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '@'));
    if !ok {
        return Err(Error::usage(format!(
            "{what} {} is not a name mastra-ask takes: 1 to 64 letters, digits, `.`, `_`, `-` or `@`, not starting with `-`",
            crate::output::format::shell_quote(value)
        )));
    }
    Ok(value)
}

/// A new reviewer, as `reviewer add` gives it.
pub struct NewReviewer<'a> {
    pub name: &'a str,
    pub groups: &'a [String],
    pub os_user: Option<&'a str>,
    pub pg_role: Option<&'a str>,
    pub notify: Option<&'a str>,
}

/// What recording a public URL did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PublicUrl {
    /// It is the one recorded (now or before).
    Recorded,
    /// It replaced this other one (`--replace-public-url`).
    Replaced(String),
}

/// The transitions on reviewers, sessions, links and settings; the same for every backend.
pub trait Reviewers: Backend {
    /// Adds a reviewer with `token` (the caller prints it once; the store keeps its hash).
    fn add_reviewer(&self, new: &NewReviewer, token: &str) -> Result<Reviewer> {
        let now = now_ms();
        let name = new.name.to_string();
        write(self, Durability::Durable, |tx| {
            let tx = tx.reviewers();
            if tx
                .reviewer(&name)?
                .is_some_and(|r| r.reviewer.removed_at.is_none())
            {
                return Err(Conflict::ReviewerExists { name: name.clone() }.into());
            }
            if let Some(other) = tx.reviewer_mapped(new)? {
                return Err(Error::usage(format!(
                    "reviewer {other} is mapped to that OS user or PostgreSQL role already; remove them first"
                )));
            }
            let reviewer = Reviewer {
                name: name.clone(),
                groups: new.groups.to_vec(),
                os_user: new.os_user.map(str::to_string),
                pg_role: new.pg_role.map(str::to_string),
                notify: new.notify.map(str::to_string),
                created_at: now,
                rotated_at: None,
                removed_at: None,
            };
            tx.end_access(&name)?;
            let row = ReviewerRow {
                reviewer: reviewer.clone(),
                token_hash: Some(secret::hash(token)),
            };
            if !tx.insert_reviewer(&row)? {
                return Err(Conflict::ReviewerExists { name: name.clone() }.into());
            }
            Ok(reviewer)
        })
    }

    /// Every reviewer, removed ones included, by name.
    fn list_reviewers(&self) -> Result<Vec<Reviewer>> {
        write(self, Durability::Deferred, |tx| tx.reviewers().reviewers())
    }

    /// Gives the reviewer a new token; the old one, their sessions and links stop working.
    fn rotate_reviewer(&self, name: &str, token: &str) -> Result<()> {
        let now = now_ms();
        write(self, Durability::Durable, |tx| {
            let tx = tx.reviewers();
            let mut row = active(tx, name)?;
            row.token_hash = Some(secret::hash(token));
            row.reviewer.rotated_at = Some(now);
            tx.end_access(name)?;
            tx.put_reviewer(&row)
        })
    }

    /// Removes a reviewer: their token, sessions and links stop working; the row stays, for
    /// the audit of what they decided.
    fn remove_reviewer(&self, name: &str) -> Result<()> {
        let now = now_ms();
        write(self, Durability::Durable, |tx| {
            let tx = tx.reviewers();
            let mut row = active(tx, name)?;
            row.token_hash = None;
            row.reviewer.removed_at = Some(now);
            tx.end_access(name)?;
            tx.put_reviewer(&row)
        })
    }

    /// Sets (or, with `None`, clears) where serve tells the reviewer of new items.
    fn set_notify(&self, name: &str, channel: Option<&str>) -> Result<()> {
        write(self, Durability::Durable, |tx| {
            let tx = tx.reviewers();
            let mut row = active(tx, name)?;
            row.reviewer.notify = channel.map(str::to_string);
            tx.delete_taps(name)?;
            tx.put_reviewer(&row)
        })
    }

    /// Claims telling `reviewer` of a pending item (SPEC §17): of every serve on the store
    /// that finds it, exactly one gets true and sends the notification. False when the item
    /// is no longer pending.
    fn claim_notification(&self, run_id: &str, call_id: &str, reviewer: &str) -> Result<bool> {
        let now = now_ms();
        write(self, Durability::Durable, |tx| {
            let Some(run) = still_pending(tx, run_id, call_id)? else {
                return Ok(false);
            };
            tx.reviewers()
                .insert_notification(&run, call_id, reviewer, now)
        })
    }

    /// Stores one-tap secrets for `reviewer` on a pending item (SPEC §17), valid `TAP_MS`
    /// or until the item expires, whichever is first; false (nothing stored) when the item
    /// is no longer pending or the reviewer is gone. `item_expires`: the item's expiry.
    fn add_taps(
        &self,
        (run_id, call_id): (&str, &str),
        item_expires: Option<i64>,
        reviewer: &str,
        taps: &[NewTap],
    ) -> Result<bool> {
        let now = now_ms();
        write(self, Durability::Durable, |tx| {
            let Some(run) = still_pending(tx, run_id, call_id)? else {
                return Ok(false);
            };
            let expires_at = item_expires.map_or(now + TAP_MS, |e| e.min(now + TAP_MS));
            let tx = tx.reviewers();
            if active(tx, reviewer).is_err() {
                return Ok(false);
            }
            for t in taps {
                let row = TapRow {
                    run_id: run_id.to_string(),
                    call_id: call_id.to_string(),
                    reviewer: reviewer.to_string(),
                    label: t.label.to_string(),
                    sends: t.sends.to_string(),
                    expires_at,
                    used_at: None,
                };
                tx.insert_tap(&secret::hash(t.secret), &run, &row, now)?;
            }
            Ok(true)
        })
    }

    /// The live one-tap secret `tap_secret` (unused, unexpired, its reviewer active), and,
    /// with `spend`, uses it: of two uses, concurrent ones included, only the first gets it.
    fn tap(&self, tap_secret: &str, spend: bool) -> Result<Option<TapRow>> {
        let (hash, now) = (secret::hash(tap_secret), now_ms());
        write(self, Durability::Durable, |tx| {
            let tx = tx.reviewers();
            let Some(tap) = tx.tap(&hash)? else {
                return Ok(None);
            };
            if tap.used_at.is_some() || tap.expires_at <= now || active(tx, &tap.reviewer).is_err()
            {
                return Ok(None);
            }
            if spend {
                tx.use_tap(&hash, now)?;
            }
            Ok(Some(tap))
        })
    }

    /// Stores a single-use sign-in link for the reviewer, valid `LINK_MS`; its expiry.
    fn add_link(&self, name: &str, link_secret: &str) -> Result<i64> {
        let now = now_ms();
        write(self, Durability::Durable, |tx| {
            let tx = tx.reviewers();
            active(tx, name)?;
            let row = LinkRow {
                reviewer: name.to_string(),
                expires_at: now + LINK_MS,
                used_at: None,
            };
            tx.insert_link(&secret::hash(link_secret), &row, now)?;
            Ok(row.expires_at)
        })
    }

    /// The active reviewer whose token this is (the API's bearer token): a read.
    fn reviewer_of_token(&self, token: &str) -> Result<Option<Reviewer>> {
        let hash = secret::hash(token);
        Ok(self
            .token_reviewer(&hash)?
            .filter(|r| {
                r.token_hash
                    .as_deref()
                    .is_some_and(|h| secret::same(h, &hash))
            })
            .map(|r| r.reviewer))
    }

    /// Signs in with a token: a new session `session_id` for its reviewer. `None` when the
    /// token is nobody's (unknown and wrong tokens are the same case).
    fn sign_in(&self, token: &str, session_id: &str) -> Result<Option<Reviewer>> {
        let (hash, now) = (secret::hash(token), now_ms());
        write(self, Durability::Durable, |tx| {
            let tx = tx.reviewers();
            let Some(row) = tx.reviewer_by_token(&hash)?.filter(|r| {
                r.token_hash
                    .as_deref()
                    .is_some_and(|h| secret::same(h, &hash))
            }) else {
                return Ok(None);
            };
            start_session(tx, &row.reviewer.name, session_id, now)?;
            Ok(Some(row.reviewer))
        })
    }

    /// Signs in with a link's secret, once: the first use gets a session, every later one
    /// (and an expired link, or one whose reviewer is gone) `None`.
    fn sign_in_with_link(&self, link_secret: &str, session_id: &str) -> Result<Option<Reviewer>> {
        let (hash, now) = (secret::hash(link_secret), now_ms());
        write(self, Durability::Durable, |tx| {
            let tx = tx.reviewers();
            let Some(link) = tx.link(&hash)? else {
                return Ok(None);
            };
            if link.used_at.is_some() || link.expires_at <= now {
                return Ok(None);
            }
            let Some(row) = tx
                .reviewer(&link.reviewer)?
                .filter(|r| r.reviewer.removed_at.is_none())
            else {
                return Ok(None);
            };
            tx.use_link(&hash, now)?;
            start_session(tx, &row.reviewer.name, session_id, now)?;
            Ok(Some(row.reviewer))
        })
    }

    /// The reviewer of a live session (not idle past `SESSION_IDLE_MS`, not older than
    /// `SESSION_MAX_MS`, its reviewer not removed); its use is noted. A read, unless the
    /// session must be ended or its last use written (at most every `TOUCH_MS`).
    fn session_reviewer(&self, session_id: &str) -> Result<Option<Reviewer>> {
        let (hash, now) = (secret::hash(session_id), now_ms());
        match self.session_of(&hash)? {
            None => return Ok(None),
            Some((session, reviewer))
                if session.last_seen_at + TOUCH_MS > now
                    && session.created_at + SESSION_MAX_MS > now =>
            {
                return Ok(reviewer
                    .filter(|r| r.reviewer.removed_at.is_none())
                    .map(|r| r.reviewer));
            }
            // Stale or due for a touch: decided again under the write lock below.
            Some(_) => {}
        }
        write(self, Durability::Deferred, |tx| {
            let tx = tx.reviewers();
            let Some(session) = tx.session(&hash)? else {
                return Ok(None);
            };
            if session.last_seen_at + SESSION_IDLE_MS <= now
                || session.created_at + SESSION_MAX_MS <= now
            {
                tx.delete_session(&hash)?;
                return Ok(None);
            }
            let Some(row) = tx
                .reviewer(&session.reviewer)?
                .filter(|r| r.reviewer.removed_at.is_none())
            else {
                return Ok(None);
            };
            if session.last_seen_at + TOUCH_MS <= now {
                tx.touch_session(&hash, now)?;
            }
            Ok(Some(row.reviewer))
        })
    }

    /// Ends a session (`POST /logout`).
    fn end_session(&self, session_id: &str) -> Result<()> {
        let hash = secret::hash(session_id);
        write(self, Durability::Durable, |tx| {
            tx.reviewers().delete_session(&hash)
        })
    }

    /// The public URL `serve` recorded, if any: a read.
    fn public_url(&self) -> Result<Option<String>> {
        self.setting(PUBLIC_URL)
    }

    /// Records the public URL the first time; a different one is refused unless `replace`.
    fn record_public_url(&self, url: &str, replace: bool) -> Result<PublicUrl> {
        let now = now_ms();
        write(self, Durability::Durable, |tx| {
            let tx = tx.reviewers();
            match tx.setting(PUBLIC_URL)? {
                Some(old) if old == url => Ok(PublicUrl::Recorded),
                Some(old) if !replace => Err(Error::usage(format!(
                    "this store's public URL is {old}, not {url}: links already given out point there"
                ))),
                old => {
                    tx.put_setting(PUBLIC_URL, url, now)?;
                    Ok(old.map_or(PublicUrl::Recorded, PublicUrl::Replaced))
                }
            }
        })
    }
}

impl<B: Backend + ?Sized> Reviewers for B {}

/// A new session for `reviewer`; stale sessions and links are cleared on the way.
fn start_session(
    tx: &mut dyn ReviewerTx,
    reviewer: &str,
    session_id: &str,
    now: i64,
) -> Result<()> {
    tx.delete_stale(now - SESSION_IDLE_MS, now - SESSION_MAX_MS, now)?;
    tx.insert_session(
        &secret::hash(session_id),
        &SessionRow {
            reviewer: reviewer.to_string(),
            created_at: now,
            last_seen_at: now,
        },
    )
}

/// The reviewer's row, when they exist and were not removed.
fn active(tx: &mut dyn ReviewerTx, name: &str) -> Result<ReviewerRow> {
    tx.reviewer(name)?
        .filter(|r| r.reviewer.removed_at.is_none())
        .ok_or_else(|| {
            NotFound::Reviewer {
                name: name.to_string(),
            }
            .into()
        })
}

/// Run `run_id`, locked in this transaction, while its call `call_id` is pending.
fn still_pending(tx: &mut dyn Tx, run_id: &str, call_id: &str) -> Result<Option<RunRow>> {
    let Some(run) = tx.lock_run(run_id)? else {
        return Ok(None);
    };
    Ok(match tx.call(&run, call_id)? {
        Some(c) if c.state == CallState::Pending => Some(run),
        _ => None,
    })
}
