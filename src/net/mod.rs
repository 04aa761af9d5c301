//! Outgoing HTTP, set up once for every client the program has (the model providers and the
//! Mastra server client): the same proxy rule (`HTTPS_PROXY`, `NO_PROXY`, never for a
//! loopback server), the same trust (`SSL_CERT_FILE`, read capped and only when TLS needs
//! it), the same redirect rule (followed by hand, a POST never to another server), and the
//! server-sent-events framing both read. It knows nothing of chat completions or of Mastra's
//! routes, never builds a message from a request header, and prints nothing.

pub mod agents;
pub mod origin;
pub mod proxy;
pub mod redirect;
pub mod sse;
pub mod tls;

pub use agents::{Agents, Timeouts};
pub use origin::{Origin, Scheme};
