//! Model providers: one trait, one implementation per kind of model spec.
//!
//! A provider turns the conversation into one assistant message. It never runs tools and
//! never touches the store or the terminal; API keys come from the environment of the
//! calling process and stay in memory.

mod assemble;
mod branches;
mod command;
mod http;
pub mod model_settings;
mod none;
mod openai;
#[cfg(test)]
mod properties;
mod scripted;
pub mod settings;
pub mod spec;
mod template;
mod wire;

use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use crate::domain::{Message, Usage};
use crate::error::Error;
use crate::tools::ToolSpec;

pub use command::CommandModel;
pub use model_settings::ModelSettings;
pub use none::NoModel;
pub use openai::OpenAi;
pub use scripted::Scripted;
pub use spec::Spec;

/// One model call.
pub struct Request<'a> {
    pub system: &'a str,
    pub messages: &'a [Message],
    pub tools: &'a [ToolSpec],
    /// The agent's `modelSettings`, sent with every call.
    pub settings: &'a ModelSettings,
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
    let parsed = Spec::parse(spec).map_err(Error::usage)?;
    Ok(parsed.absolute(base).to_text())
}

/// The provider for a (normalized) model spec. Fails before anything is stored when the
/// spec cannot work in this process (a missing script or program, a missing API key, a
/// malformed setting).
pub fn from_spec(spec: &str) -> Result<Box<dyn Provider>> {
    if spec == NO_MODEL {
        return Ok(Box::new(NoModel { first: None }));
    }
    let parsed = Spec::parse(spec).map_err(Error::usage)?;
    let env = |name: &str| std::env::var(name).ok();
    Ok(match parsed {
        Spec::Script(path) => Box::new(Scripted::load(&path)?),
        Spec::Command(argv) => {
            let settings = settings::Settings::from_lookup(env).map_err(Error::usage)?;
            Box::new(CommandModel::new(argv, &settings)?)
        }
        Spec::Chat {
            server,
            model,
            base_url,
        } => Box::new(OpenAi::new(server, &model, base_url.as_deref(), env)?),
    })
}
