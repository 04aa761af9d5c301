//! `none`: the "model" of `ask` and `plan` runs. Its first call returns the one human-input
//! call the command asked for; every later call ends the run, so resolving the item
//! completes it.

use anyhow::Result;

use super::{Provider, Request, Response};
use crate::domain::Message;
use crate::error::{fail, Error};

pub struct NoModel {
    pub first: Option<Response>,
}

impl Provider for NoModel {
    fn complete(&self, request: &Request, _on_text: &mut dyn FnMut(&str)) -> Result<Response> {
        let started = request
            .messages
            .iter()
            .any(|m| matches!(m, Message::Assistant { .. }));
        match &self.first {
            Some(first) if !started => Ok(first.clone()),
            // Only the command that started the run knows its item; a run stopped before
            // the item was stored (a killed process, a full disk) cannot be resumed into
            // one, and must not complete as if it had been answered.
            None if !started => fail(Error::provider(
                "this ask or plan run stopped before its item was stored; start it again",
            )),
            _ => Ok(Response::default()),
        }
    }
}
