//! Model specs (§6.2): the text an agent file or `--model` names a model with, parsed into
//! what it means, and written back in the normalized form a run keeps.
//!
//! Pure: no environment, no files; which keys and URLs a spec needs at call time is decided
//! by the provider built from it.

use std::path::{Path, PathBuf};

/// The forms a model spec can take, for error messages.
pub const FORMS: &str = "script:PATH, openai/MODEL, ollama/MODEL, openrouter/MODEL, \
    openai-compatible/MODEL@URL, command:ARGV";

/// A kind of OpenAI-compatible chat completions server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Server {
    OpenAi,
    Ollama,
    OpenRouter,
    /// Any other server, its base URL given in the spec.
    Compatible,
}

impl Server {
    pub fn prefix(self) -> &'static str {
        match self {
            Server::OpenAi => "openai",
            Server::Ollama => "ollama",
            Server::OpenRouter => "openrouter",
            Server::Compatible => "openai-compatible",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spec {
    Script(PathBuf),
    /// The program and its arguments.
    Command(Vec<String>),
    Chat {
        server: Server,
        model: String,
        /// Only for `openai-compatible/MODEL@URL`.
        base_url: Option<String>,
    },
}

impl Spec {
    /// Parses a spec; the error says what is wrong.
    pub fn parse(spec: &str) -> Result<Spec, String> {
        if let Some(path) = spec.strip_prefix("script:") {
            if path.is_empty() {
                return Err("script: needs a path".into());
            }
            return Ok(Spec::Script(PathBuf::from(path)));
        }
        if let Some(line) = spec.strip_prefix("command:") {
            let argv = shell_words::split(line)
                .map_err(|e| format!("cannot split the command \"{line}\": {e}"))?;
            if argv.is_empty() || argv[0].is_empty() {
                return Err("command: needs a program".into());
            }
            return Ok(Spec::Command(argv));
        }
        let unknown = || format!("unknown model spec \"{spec}\"; use one of: {FORMS}");
        let Some((prefix, rest)) = spec.split_once('/') else {
            return Err(unknown());
        };
        let server = [
            Server::OpenAi,
            Server::Ollama,
            Server::OpenRouter,
            Server::Compatible,
        ]
        .into_iter()
        .find(|s| s.prefix() == prefix)
        .ok_or_else(unknown)?;
        let (model, base_url) = match server {
            Server::Compatible => {
                let Some(at) = rest.find("@http") else {
                    return Err(format!(
                        "\"{spec}\" needs a base URL: openai-compatible/MODEL@URL, e.g. \
                         openai-compatible/qwen2.5@http://localhost:8080/v1"
                    ));
                };
                let url = rest[at + 1..].trim_end_matches('/');
                check_url(url)?;
                (&rest[..at], Some(url.to_string()))
            }
            _ => (rest, None),
        };
        if model.trim().is_empty() {
            return Err(format!("\"{spec}\" names no model"));
        }
        Ok(Spec::Chat {
            server,
            model: model.to_string(),
            base_url,
        })
    }

    /// Makes paths absolute against `base`: the script, and a command's program when it is
    /// a relative path (a bare name is looked up in PATH when the command runs).
    pub fn absolute(self, base: &Path) -> Spec {
        match self {
            Spec::Script(path) => Spec::Script(join(base, &path)),
            Spec::Command(mut argv) => {
                if let Some(program) = argv.first_mut().filter(|p| p.contains('/')) {
                    *program = join(base, Path::new(program))
                        .to_string_lossy()
                        .into_owned();
                }
                Spec::Command(argv)
            }
            chat => chat,
        }
    }

    /// The spec as text, parseable again.
    pub fn to_text(&self) -> String {
        match self {
            Spec::Script(path) => format!("script:{}", path.display()),
            Spec::Command(argv) => format!("command:{}", shell_words::join(argv)),
            Spec::Chat {
                server,
                model,
                base_url,
            } => match base_url {
                Some(url) => format!("{}/{model}@{url}", server.prefix()),
                None => format!("{}/{model}", server.prefix()),
            },
        }
    }
}

/// `path` against `base`, without `.` components (`..` stays: it may cross a symlink).
fn join(base: &Path, path: &Path) -> PathBuf {
    base.join(path).components().collect()
}

/// A base URL must be plain http(s) with a host.
pub fn check_url(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| format!("base URL \"{url}\" must start with http:// or https://"))?;
    if rest.is_empty() || rest.starts_with('/') || url.chars().any(char::is_whitespace) {
        return Err(format!("base URL \"{url}\" is not a valid URL"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat(server: Server, model: &str, base_url: Option<&str>) -> Spec {
        Spec::Chat {
            server,
            model: model.into(),
            base_url: base_url.map(str::to_string),
        }
    }

    #[test]
    fn chat_servers() {
        assert_eq!(
            Spec::parse("openai/gpt-4o-mini"),
            Ok(chat(Server::OpenAi, "gpt-4o-mini", None))
        );
        assert_eq!(
            Spec::parse("ollama/llama3.1:8b"),
            Ok(chat(Server::Ollama, "llama3.1:8b", None))
        );
        assert_eq!(
            Spec::parse("openrouter/anthropic/claude-3.5-sonnet"),
            Ok(chat(
                Server::OpenRouter,
                "anthropic/claude-3.5-sonnet",
                None
            ))
        );
    }

    #[test]
    fn openai_compatible_splits_at_the_first_at_before_http() {
        assert_eq!(
            Spec::parse("openai-compatible/qwen@2@http://localhost:8080/v1/"),
            Ok(chat(
                Server::Compatible,
                "qwen@2",
                Some("http://localhost:8080/v1")
            ))
        );
        assert_eq!(
            Spec::parse("openai-compatible/m@https://u@example.com/v1"),
            Ok(chat(
                Server::Compatible,
                "m",
                Some("https://u@example.com/v1")
            ))
        );
        assert!(Spec::parse("openai-compatible/qwen")
            .unwrap_err()
            .contains("needs a base URL"));
        assert!(Spec::parse("openai-compatible/@http://x")
            .unwrap_err()
            .contains("names no model"));
        assert!(Spec::parse("openai-compatible/m@http://").is_err());
    }

    #[test]
    fn bad_specs() {
        for bad in [
            "",
            "gpt-4o",
            "openai/",
            "anthropic/claude",
            "script:",
            "command:",
            "command:'a",
        ] {
            assert!(Spec::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn commands_resolve_relative_programs_only() {
        let base = Path::new("/agents");
        let spec = Spec::parse("command:./bin/model --temp 0 'two words'").unwrap();
        assert_eq!(
            spec.absolute(base).to_text(),
            "command:/agents/bin/model --temp 0 'two words'"
        );
        let spec = Spec::parse("command:python3 model.py").unwrap();
        assert_eq!(spec.absolute(base).to_text(), "command:python3 model.py");
        let spec = Spec::parse("script:./s.json").unwrap();
        assert_eq!(spec.absolute(base).to_text(), "script:/agents/s.json");
        let spec = Spec::parse("command:/usr/bin/env x").unwrap();
        assert_eq!(spec.absolute(base).to_text(), "command:/usr/bin/env x");
    }

    #[test]
    fn text_round_trips() {
        for s in [
            "script:/a/b.json",
            "openai/gpt-4o",
            "openai-compatible/m@http://h:1/v1",
            "command:/bin/sh -c 'echo hi'",
        ] {
            assert_eq!(Spec::parse(s).unwrap().to_text(), s);
        }
    }
}
