//! Model providers: one trait, one implementation per kind of model spec.
//!
//! A provider turns the conversation into one assistant message. It never runs tools and
//! never touches the store; API keys come from the environment of the calling process.

mod none;
mod scripted;

use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use crate::domain::{Message, Usage};
use crate::error::{fail, Error};
use crate::tools::ToolSpec;

pub use none::NoModel;
pub use scripted::Scripted;

/// One model call.
pub struct Request<'a> {
    pub system: &'a str,
    pub messages: &'a [Message],
    pub tools: &'a [ToolSpec],
}

/// Arguments the model sent that are not valid JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct BadArgs {
    pub raw: String,
    pub message: String,
}

/// A tool call as the model made it: the id may be missing, the arguments broken.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelCall {
    pub id: Option<String>,
    pub name: String,
    pub args: Result<Value, BadArgs>,
}

/// One assistant message.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Response {
    pub text: Option<String>,
    pub calls: Vec<ModelCall>,
    pub usage: Usage,
}

pub trait Provider {
    /// Calls the model; text is handed to `on_text` as it arrives (all of it, before
    /// returning).
    fn complete(&self, request: &Request, on_text: &mut dyn FnMut(&str)) -> Result<Response>;
}

/// The model spec of `ask` and `plan` runs, which have no model (never accepted from users).
pub const NO_MODEL: &str = "none";

/// Checks a model spec and makes paths in it absolute (relative to `base`).
pub fn normalize_spec(spec: &str, base: &Path) -> Result<String> {
    match spec.split_once(':') {
        Some(("script", path)) if !path.is_empty() => {
            Ok(format!("script:{}", base.join(path).display()))
        }
        _ => fail(Error::usage(format!(
            "unknown model spec \"{spec}\"; this build supports script:PATH"
        ))),
    }
}

/// The provider for a (normalized) model spec. Fails before anything is stored when the
/// spec cannot work in this process (a missing or malformed script).
pub fn from_spec(spec: &str) -> Result<Box<dyn Provider>> {
    if spec == NO_MODEL {
        return Ok(Box::new(NoModel { first: None }));
    }
    match spec.split_once(':') {
        Some(("script", path)) => Ok(Box::new(Scripted::load(Path::new(path))?)),
        _ => fail(Error::usage(format!("unknown model spec \"{spec}\""))),
    }
}
