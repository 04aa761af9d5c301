//! `none`: the "model" of `ask` and `plan` runs. Its first call returns the one human-input
//! call the command asked for; every later call ends the run, so resolving the item
//! completes it.

use anyhow::Result;

use super::{Provider, Request, Response};
use crate::domain::Message;

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
            _ => Ok(Response::default()),
        }
    }
}
