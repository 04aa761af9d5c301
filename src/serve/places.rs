//! Bounded places, each kept by someone (SPEC §13, "Fair under load"): at most `total`
//! held at once, and at most `per_key` by any one key (a reviewer, a session, a client
//! address), so that no one key can hold them all. A place is given back when its `Place`
//! drops. Taking one never waits: past a bound the caller says no (503, `recorded`, a
//! closed connection). It knows nothing of what the places are for.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

pub struct Places<K: Eq + Hash + Clone> {
    held: Arc<Mutex<Held<K>>>,
    total: usize,
    per_key: usize,
}

struct Held<K> {
    total: usize,
    by_key: HashMap<K, usize>,
}

/// One place, held until dropped.
pub struct Place<K: Eq + Hash + Clone> {
    held: Arc<Mutex<Held<K>>>,
    key: K,
}

impl<K: Eq + Hash + Clone> Places<K> {
    pub fn new(total: usize, per_key: usize) -> Places<K> {
        Places {
            held: Arc::new(Mutex::new(Held {
                total: 0,
                by_key: HashMap::new(),
            })),
            total,
            per_key,
        }
    }

    /// A place for `key`, or `None` when all are held or `key` holds its share.
    pub fn take(&self, key: K) -> Option<Place<K>> {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let of_key = held.by_key.get(&key).copied().unwrap_or(0);
        if held.total >= self.total || of_key >= self.per_key {
            return None;
        }
        held.total += 1;
        held.by_key.insert(key.clone(), of_key + 1);
        Some(Place {
            held: self.held.clone(),
            key,
        })
    }
}

impl<K: Eq + Hash + Clone> Drop for Place<K> {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        held.total -= 1;
        // A key that holds nothing is forgotten: the map holds only the places held.
        if let Some(n) = held.by_key.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                held.by_key.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Places;

    #[test]
    fn a_key_gets_its_share_and_the_rest_stay_for_others() {
        let places = Places::new(3, 2);
        let a1 = places.take("a").unwrap();
        let _a2 = places.take("a").unwrap();
        assert!(places.take("a").is_none(), "a holds its share");
        let b1 = places.take("b").unwrap();
        assert!(places.take("c").is_none(), "all are held");
        drop(a1);
        assert!(
            places.take("a").is_some(),
            "a place given back is taken again"
        );
        drop(b1);
        assert_eq!(places.held.lock().unwrap().by_key.get("b"), None);
    }
}
