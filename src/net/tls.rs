//! Whom a TLS connection trusts: the certificates of `SSL_CERT_FILE` in place of the
//! built-in roots, read (capped, non-blocking: SPEC §9) only when a TLS connection needs
//! them, or the built-in roots when it is unset.

use crate::limits::{self, MAX_CERT_FILE};

/// The trust store of `SSL_CERT_FILE` (PEM certificates) in place of the built-in roots:
/// a regular file of at most 4 MiB, opened without blocking.
pub fn trust_store(
    ssl_cert_file: Option<std::ffi::OsString>,
) -> Result<Option<ureq::tls::TlsConfig>, String> {
    let Some(path) = ssl_cert_file.filter(|p| !p.is_empty()) else {
        return Ok(None);
    };
    let shown = std::path::Path::new(&path).display().to_string();
    let pem = limits::read_regular_file(std::path::Path::new(&path), MAX_CERT_FILE).map_err(
        |e| match e {
            limits::ReadError::Io(e) => format!("cannot read SSL_CERT_FILE {shown}: {e}"),
            other => format!("SSL_CERT_FILE {shown} {other}"),
        },
    )?;
    let certs: Vec<_> = ureq::tls::parse_pem(&pem)
        .filter_map(|item| match item {
            Ok(ureq::tls::PemItem::Certificate(c)) => Some(c),
            _ => None,
        })
        .collect();
    if certs.is_empty() {
        return Err(format!("SSL_CERT_FILE {shown} holds no PEM certificate"));
    }
    let roots = ureq::tls::RootCerts::new_with_certs(&certs);
    Ok(Some(
        ureq::tls::TlsConfig::builder().root_certs(roots).build(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssl_cert_file_is_a_capped_regular_file_read_only_for_tls() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ca.pem");
        assert!(trust_store(None).unwrap().is_none());
        std::fs::write(&file, "not a certificate").unwrap();
        let e = trust_store(Some(file.clone().into())).unwrap_err();
        assert!(e.ends_with("ca.pem holds no PEM certificate"), "{e}");
        std::fs::write(
            &file,
            "-----BEGIN CERTIFICATE-----\nMAMCAQA=\n-----END CERTIFICATE-----\n",
        )
        .unwrap();
        assert!(trust_store(Some(file.into())).unwrap().is_some());
        let e = trust_store(Some(dir.path().join("nope").into())).unwrap_err();
        assert!(e.starts_with("cannot read SSL_CERT_FILE"), "{e}");
        // A FIFO nobody writes to and an endless device: refused at once.
        let fifo = dir.path().join("fifo");
        use rustix::fs::{FileType, Mode};
        rustix::fs::mknodat(rustix::fs::CWD, &fifo, FileType::Fifo, Mode::from(0o600), 0).unwrap();
        let e = trust_store(Some(fifo.into())).unwrap_err();
        assert!(e.ends_with("fifo is not a regular file"), "{e}");
        let e = trust_store(Some("/dev/zero".into())).unwrap_err();
        assert_eq!(e, "SSL_CERT_FILE /dev/zero is not a regular file");
        let big = dir.path().join("big.pem");
        std::fs::write(&big, vec![b'x'; MAX_CERT_FILE as usize + 1]).unwrap();
        let e = trust_store(Some(big.into())).unwrap_err();
        assert!(e.ends_with("big.pem is larger than 4 MiB"), "{e}");
    }
}
