//! TLS to a PostgreSQL server as libpq does it: `sslmode` with libpq's six meanings, and
//! the certificates trusted for it. `require` (and `allow`, `prefer`) encrypt without
//! checking who answers, unless a root certificate file is there (`sslrootcert`, or
//! `~/.postgresql/root.crt`): then `require` checks the chain as `verify-ca` does.
//! `verify-ca` checks the chain, `verify-full` the chain and the host name. The roots are
//! that file; else (and for `sslrootcert=system`) `SSL_CERT_FILE`, else the built-in
//! Mozilla roots. Every file is read capped and non-blocking, and only when a TLS
//! connection needs it. Nothing here connects.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};

use crate::limits::{read_regular_file, MAX_CERT_FILE};
use crate::store::{Error, Result};

/// libpq's `sslmode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Disable,
    Allow,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        Some(match s {
            "disable" => Mode::Disable,
            "allow" => Mode::Allow,
            "prefer" => Mode::Prefer,
            "require" => Mode::Require,
            "verify-ca" => Mode::VerifyCa,
            "verify-full" => Mode::VerifyFull,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Disable => "disable",
            Mode::Allow => "allow",
            Mode::Prefer => "prefer",
            Mode::Require => "require",
            Mode::VerifyCa => "verify-ca",
            Mode::VerifyFull => "verify-full",
        }
    }
}

/// Where the trusted roots come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RootCert {
    /// `sslrootcert=FILE`.
    File(PathBuf),
    /// `sslrootcert=system`.
    System,
    /// Not given: `~/.postgresql/root.crt` when it exists.
    Default,
}

/// How a server's certificate is checked.
#[derive(Debug, PartialEq, Eq)]
enum Check {
    Nothing,
    Chain(Trust),
    ChainAndName(Trust),
}

#[derive(Debug, PartialEq, Eq)]
enum Trust {
    File(PathBuf),
    /// `SSL_CERT_FILE`, or the built-in roots without it.
    System,
}

/// What libpq checks for `mode` with `root`; `home` is where `.postgresql/root.crt` is
/// looked for.
fn check(mode: Mode, root: &RootCert, home: Option<&Path>) -> Result<Check> {
    let default_file = || {
        home.map(|h| h.join(".postgresql/root.crt"))
            .filter(|p| p.exists())
    };
    let file = match root {
        RootCert::File(p) if p.exists() => Some(Trust::File(p.clone())),
        RootCert::File(p) if matches!(mode, Mode::VerifyCa | Mode::VerifyFull) => {
            return Err(Error::usage(format!(
                "the store URL's sslrootcert {} does not exist",
                p.display()
            )))
        }
        RootCert::File(_) => None,
        RootCert::System if mode != Mode::VerifyFull => {
            return Err(Error::usage(format!(
                "sslrootcert=system needs sslmode=verify-full, not {}",
                mode.as_str()
            )))
        }
        RootCert::System => Some(Trust::System),
        RootCert::Default => default_file().map(Trust::File),
    };
    Ok(match mode {
        Mode::Disable | Mode::Allow | Mode::Prefer => Check::Nothing,
        Mode::Require => file.map_or(Check::Nothing, Check::Chain),
        Mode::VerifyCa => Check::Chain(file.unwrap_or(Trust::System)),
        Mode::VerifyFull => Check::ChainAndName(file.unwrap_or(Trust::System)),
    })
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The TLS client for `mode` with `root`.
pub fn client(mode: Mode, root: &RootCert) -> Result<tokio_postgres_rustls::MakeRustlsConnect> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let provider = provider();
    let verifier: Arc<dyn ServerCertVerifier> = match check(mode, root, home.as_deref())? {
        Check::Nothing => Arc::new(Unchecked(provider.clone())),
        Check::Chain(trust) => Arc::new(ChainOnly(webpki(&trust, &provider)?)),
        Check::ChainAndName(trust) => webpki(&trust, &provider)?,
    };
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::usage(format!("setting up TLS for the store: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

fn webpki(trust: &Trust, provider: &Arc<CryptoProvider>) -> Result<Arc<WebPkiServerVerifier>> {
    let mut roots = RootCertStore::empty();
    let file = match trust {
        Trust::File(p) => Some((p.clone(), "sslrootcert")),
        Trust::System => std::env::var_os("SSL_CERT_FILE")
            .filter(|p| !p.is_empty())
            .map(|p| (PathBuf::from(p), "SSL_CERT_FILE")),
    };
    match file {
        Some((path, setting)) => {
            for cert in certificates(&path, setting)? {
                roots
                    .add(cert)
                    .map_err(|e| Error::usage(format!("{setting} {}: {e}", path.display())))?;
            }
        }
        None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| Error::usage(format!("setting up TLS for the store: {e}")))
}

/// The PEM certificates of `path` (named by `setting` in errors).
fn certificates(path: &Path, setting: &str) -> Result<Vec<CertificateDer<'static>>> {
    let shown = path.display();
    let pem = read_regular_file(path, MAX_CERT_FILE)
        .map_err(|e| Error::usage(format!("{setting} {shown} {e}")))?;
    let certs: Vec<_> = CertificateDer::pem_slice_iter(&pem)
        .filter_map(std::result::Result::ok)
        .collect();
    if certs.is_empty() {
        return Err(Error::usage(format!(
            "{setting} {shown} holds no PEM certificate"
        )));
    }
    Ok(certs)
}

/// `verify-ca` (and `require` with a root file): the chain to a trusted root, whatever
/// name the certificate is for.
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        // The name is checked last, once the chain is good.
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `allow`, `prefer` and `require` without a root file: encrypted, the certificate not
/// checked (the handshake's signatures still are).
#[derive(Debug)]
struct Unchecked(Arc<CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mode_checks_what_libpq_checks() {
        let dir = tempfile::tempdir().unwrap();
        let ca = dir.path().join("ca.crt");
        std::fs::write(&ca, "x").unwrap();
        let none = dir.path().join("none.crt");
        let given = RootCert::File(ca.clone());
        let missing = RootCert::File(none.clone());
        let file = || Trust::File(ca.clone());
        use Mode::*;
        for mode in [Disable, Allow, Prefer] {
            assert_eq!(check(mode, &given, None).unwrap(), Check::Nothing);
        }
        assert_eq!(
            check(Require, &RootCert::Default, None).unwrap(),
            Check::Nothing
        );
        assert_eq!(check(Require, &given, None).unwrap(), Check::Chain(file()));
        // libpq: a sslrootcert that does not exist is no root file for require ...
        assert_eq!(check(Require, &missing, None).unwrap(), Check::Nothing);
        // ... and an error for the modes that verify.
        assert!(check(VerifyCa, &missing, None).is_err());
        assert_eq!(check(VerifyCa, &given, None).unwrap(), Check::Chain(file()));
        assert_eq!(
            check(VerifyFull, &given, None).unwrap(),
            Check::ChainAndName(file())
        );
        assert_eq!(
            check(VerifyFull, &RootCert::Default, None).unwrap(),
            Check::ChainAndName(Trust::System)
        );
        assert_eq!(
            check(VerifyFull, &RootCert::System, None).unwrap(),
            Check::ChainAndName(Trust::System)
        );
        assert!(check(Require, &RootCert::System, None).is_err());
        // ~/.postgresql/root.crt, where it exists, is the default root file.
        std::fs::create_dir_all(dir.path().join(".postgresql")).unwrap();
        let default = dir.path().join(".postgresql/root.crt");
        std::fs::write(&default, "x").unwrap();
        assert_eq!(
            check(Require, &RootCert::Default, Some(dir.path())).unwrap(),
            Check::Chain(Trust::File(default))
        );
    }

    #[test]
    fn modes_are_libpqs_six() {
        for s in [
            "disable",
            "allow",
            "prefer",
            "require",
            "verify-ca",
            "verify-full",
        ] {
            assert_eq!(Mode::parse(s).unwrap().as_str(), s);
        }
        assert_eq!(Mode::parse("verify_full"), None);
    }
}
