//! The tool's own RSA key: made once per course and kept in its state folder (`lti-key.pem`,
//! 0600, written whole or not at all); it signs the client assertions the platform's token
//! endpoint takes, and its public half is `/lti/jwks`.

use std::path::Path;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rsa::pkcs1::{DecodeRsaPrivateKey, EncodeRsaPrivateKey};
use rsa::traits::PublicKeyParts;
use rsa::Generate;
use sha2::{Digest, Sha256};

use crate::error::Fault;

pub(crate) const FILE: &str = "lti-key.pem";

pub(crate) struct ToolKey {
    encoding: EncodingKey,
    pub(crate) kid: String,
    /// The public key as a JWK.
    jwk: serde_json::Value,
}

impl ToolKey {
    /// The key in `state_dir`, made there first if it has none.
    pub(crate) fn load_or_make(state_dir: &Path) -> Result<ToolKey, Fault> {
        let path = state_dir.join(FILE);
        let fault = |why: String| Fault::Io(format!("{}: {why}", path.display()));
        let key = match std::fs::read_to_string(&path) {
            Ok(pem) => rsa::PrivateKey::from_pkcs1_pem(&pem)
                .map_err(|err| fault(format!("not an RSA private key: {err}")))?,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                let key = rsa::PrivateKey::try_generate()
                    .map_err(|err| fault(format!("the kernel's random source: {err}")))?;
                let pem = key
                    .to_pkcs1_pem(rsa::pkcs8::LineEnding::LF)
                    .map_err(|err| fault(err.to_string()))?;
                write_private(&path, pem.as_bytes()).map_err(|err| fault(err.to_string()))?;
                key
            }
            Err(err) => return Err(fault(err.to_string())),
        };
        let der = key.to_pkcs1_der().map_err(|err| fault(err.to_string()))?;
        let public = key.to_public_key();
        let n = URL_SAFE_NO_PAD.encode(public.n_bytes());
        let e = URL_SAFE_NO_PAD.encode(public.e_bytes());
        let kid = xtask::files::to_hex(&Sha256::digest(n.as_bytes()))[..16].to_string();
        let jwk = serde_json::json!({
            "kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid, "n": n, "e": e,
        });
        Ok(ToolKey {
            encoding: EncodingKey::from_rsa_der(der.as_bytes()),
            kid,
            jwk,
        })
    }

    /// `/lti/jwks`: the public key set.
    pub(crate) fn jwks(&self) -> serde_json::Value {
        serde_json::json!({ "keys": [self.jwk] })
    }

    /// `claims` as a JWT signed by this key (RS256, its `kid`).
    pub(crate) fn sign(&self, claims: &serde_json::Value) -> Result<String, String> {
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.encoding).map_err(|err| err.to_string())
    }
}

/// Writes `bytes` to `path` readable by its owner only, through a temporary file renamed.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let temporary = path.with_extension("pem.new");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&temporary)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&temporary, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_made_once_and_signs_what_its_jwk_verifies() {
        let dir = tempfile::tempdir().unwrap();
        let made = ToolKey::load_or_make(dir.path()).unwrap();
        let again = ToolKey::load_or_make(dir.path()).unwrap();
        assert_eq!(made.kid, again.kid, "the second start reads the same key");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join(FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let token = made
            .sign(&serde_json::json!({ "sub": "x", "exp": 4_000_000_000u64 }))
            .unwrap();
        let set: jsonwebtoken::jwk::JwkSet = serde_json::from_value(again.jwks()).unwrap();
        let jwk = set.find(&made.kid).expect("the kid is in the set");
        let key = jsonwebtoken::DecodingKey::from_jwk(jwk).unwrap();
        let mut validation = jsonwebtoken::Validation::new(Algorithm::RS256);
        validation.required_spec_claims.clear();
        let data = jsonwebtoken::decode::<serde_json::Value>(&token, &key, &validation).unwrap();
        assert_eq!(data.claims["sub"], "x");
        // Another key's signature is refused.
        let other = tempfile::tempdir().unwrap();
        let forged = ToolKey::load_or_make(other.path())
            .unwrap()
            .sign(&serde_json::json!({ "sub": "x", "exp": 4_000_000_000u64 }))
            .unwrap();
        assert!(jsonwebtoken::decode::<serde_json::Value>(&forged, &key, &validation).is_err());
    }
}
