//! The `blobs` table: each file handed in, stored once under its SHA-256, in the same
//! transaction as the submission that names it, so that a worker on any machine reads it from
//! there.

use sha2::{Digest, Sha256};

use super::Db;

/// The SHA-256 of `bytes`, in hex: what a file handed in is stored under.
pub(crate) fn hash(bytes: &[u8]) -> String {
    xtask::files::to_hex(&Sha256::digest(bytes))
}

/// Stores `bytes` under `hash` (once: the same bytes again are already there).
pub(crate) async fn put(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    hash: &str,
    bytes: &[u8],
) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO blobs (hash, bytes) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING")
        .bind(hash)
        .bind(bytes)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// The bytes stored under `hash`, checked against it.
pub(crate) async fn get(db: &Db, hash: &str) -> Result<Vec<u8>, String> {
    let bytes: Option<Vec<u8>> = sqlx::query_scalar("SELECT bytes FROM blobs WHERE hash = $1")
        .bind(hash)
        .fetch_optional(db)
        .await
        .map_err(|err| err.to_string())?;
    let bytes = bytes.ok_or_else(|| format!("no stored file has the hash {hash}"))?;
    // What was stored is what comes back, or nothing.
    if self::hash(&bytes) != hash {
        return Err(format!("the stored file {hash} does not match its hash"));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_stored_under_its_sha_256() {
        // The SHA-256 of "print(1)\n", computed apart (sha256sum).
        assert_eq!(
            hash(b"print(1)\n"),
            "cc42155088fca5730758db72b2a5bca33112a941dfaa2d43098ec422ce4ea213"
        );
    }
}
