//! Secrets the inbox hands out (reviewer tokens, sign-in link secrets, session ids): random
//! from the operating system, 256 bits, and known to the store only as their SHA-256 hashes,
//! so that nobody who reads the store (or a backup of it) can sign in.
//!
//! The store's methods take the secret itself and hash it here: no caller can store one in
//! clear by mistake. Nothing here prints or logs a secret.

use base64::Engine as _;
use ring::rand::{SecureRandom, SystemRandom};

/// The prefix of a reviewer's token, so that a leaked one is recognised (by a person or a
/// secret scanner) for what it is.
pub const TOKEN_PREFIX: &str = "mra_";

/// A fresh random secret: 32 bytes from the operating system, base64url without padding.
pub fn generate() -> String {
    let mut bytes = [0u8; 32];
    // The kernel's random source does not fail once the system has booted; a failure here
    // is no state to go on in.
    SystemRandom::new()
        .fill(&mut bytes)
        .expect("the operating system's random source failed");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// A new reviewer token.
pub fn token() -> String {
    format!("{TOKEN_PREFIX}{}", generate())
}

/// The hash the store keeps of a secret: SHA-256, lowercase hex.
pub fn hash(secret: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, secret.as_bytes());
    let mut hex = String::with_capacity(64);
    for b in digest.as_ref() {
        hex.push_str(&format!("{b:02x}"));
    }
    hex
}

/// Compares two strings in time that depends only on their lengths.
pub fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A value derived from a secret for another use (a form's csrf field from a session id):
/// it cannot be turned back into the secret.
pub fn derive(purpose: &str, secret: &str) -> String {
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    ctx.update(purpose.as_bytes());
    ctx.update(&[0]);
    ctx.update(secret.as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(ctx.finish().as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_long_distinct_and_hashed() {
        let (a, b) = (token(), token());
        assert_ne!(a, b);
        assert!(a.starts_with(TOKEN_PREFIX) && a.len() == 4 + 43, "{a}");
        assert_eq!(hash("abc").len(), 64);
        assert_eq!(
            hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(same("abc", "abc") && !same("abc", "abd") && !same("abc", "ab"));
        assert_ne!(derive("csrf", "x"), derive("csrf", "y"));
        assert_ne!(derive("csrf", "x"), derive("other", "x"));
    }
}
