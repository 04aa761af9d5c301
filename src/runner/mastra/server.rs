//! The Mastra server a command works on (`--server URL`, SPEC §12): its client with the
//! deadlines of this command's requests (`MASTRA_ASK_SERVER_IDLE_TIMEOUT`, and `wait
//! --timeout` as a hard one), and the server as it is shown and kept in the ledger (no
//! credentials). Building it warns once when the token is withheld from a plain-http server.

use std::time::Instant;

use anyhow::Result;

use crate::remote::{Client, Deadlines, ServerConfig};
use crate::runner::Context;

pub struct Server {
    pub client: Client,
    pub config: ServerConfig,
    /// The deadlines of its requests.
    pub deadlines: Deadlines,
    /// The server as shown and stored (no credentials).
    pub shown: String,
    /// The command that lists what waits on it, as a person would type it.
    pub pending: String,
}

impl Server {
    /// The server of `config` (`--server`); no request lasts past `hard`, if given.
    pub fn connect(ctx: &Context, config: &ServerConfig, hard: Option<Instant>) -> Result<Server> {
        let report = ctx.report;
        let mut deadlines = Deadlines::from_env()?;
        if let Some(hard) = hard {
            deadlines = deadlines.until(hard);
        }
        if config.credential_withheld() {
            report.warn(&format!(
                "the token is not sent to {}: it is plain http and not on this machine (use https)",
                config.origin().host
            ));
        }
        Ok(Server {
            client: Client::with_deadlines(config.clone(), deadlines)?,
            config: config.clone(),
            deadlines,
            shown: config.display().to_string(),
            pending: format!("{} pending", ctx.program()),
        })
    }

    /// The same server for runs started or resumed with `maxSteps` (`run --max-steps`).
    pub fn with_max_steps(self, max_steps: u32) -> Result<Server> {
        let client =
            Client::with_deadlines(self.config.clone(), self.deadlines)?.with_max_steps(max_steps);
        Ok(Server { client, ..self })
    }
}
