//! `--shard K/N`: a deterministic split of submissions or cases across machines.
//!
//! An item belongs to shard K of N when the FNV-1a hash of its id, modulo N, is K - 1. The hash
//! is fixed here, so every machine, every run and every scheduler agrees, and an item's shard
//! does not change when others are added.

use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: u64,
    pub count: u64,
}

impl Shard {
    pub fn contains(&self, id: &str) -> bool {
        fnv1a(id.as_bytes()) % self.count == self.index - 1
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let parsed = text
            .split_once('/')
            .and_then(|(k, n)| Some((k.parse::<u64>().ok()?, n.parse::<u64>().ok()?)));
        match parsed {
            Some((index, count)) if count >= 1 && (1..=count).contains(&index) => {
                Ok(Shard { index, count })
            }
            _ => Err(format!("`{text}` is not a shard like 2/5 (K from 1 to N)")),
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// FNV-1a, 64 bits.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_is_in_exactly_one_shard() {
        let ids: Vec<String> = (0..1000).map(|i| format!("student-{i}")).collect();
        for n in 1..=7 {
            let shards: Vec<Shard> = (1..=n).map(|k| Shard { index: k, count: n }).collect();
            for id in &ids {
                assert_eq!(shards.iter().filter(|s| s.contains(id)).count(), 1);
            }
        }
    }

    #[test]
    fn the_hash_is_fixed() {
        // FNV-1a's published test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn shards_parse_and_refuse_nonsense() {
        assert_eq!("2/5".parse::<Shard>(), Ok(Shard { index: 2, count: 5 }));
        for bad in ["0/3", "4/3", "1/0", "x/2", "3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
