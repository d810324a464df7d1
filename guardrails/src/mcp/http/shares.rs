//! Fair shares: how much of a bounded resource (sessions, in-flight requests) each client
//! holds, and at most how much it may.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::operate::CallerKey;

/// The shares of one resource, per client.
#[derive(Debug)]
pub(crate) struct Shares {
    max: usize,
    held: Mutex<HashMap<CallerKey, usize>>,
}

/// One unit of a client's share, given back when dropped.
#[derive(Debug)]
pub(crate) struct Share {
    shares: Arc<Shares>,
    owner: CallerKey,
}

impl Shares {
    /// At most `max` units per client (at least 1).
    pub(crate) fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            max: max.max(1),
            held: Mutex::new(HashMap::new()),
        })
    }

    fn held_map(&self) -> MutexGuard<'_, HashMap<CallerKey, usize>> {
        // Each operation on the map is one update: it stays consistent whatever panicked.
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The most units one client may hold.
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// How many units `owner` holds.
    pub(crate) fn held(&self, owner: &CallerKey) -> usize {
        self.held_map().get(owner).copied().unwrap_or(0)
    }

    /// One more unit for `owner`, unless it holds its share already.
    pub(crate) fn try_take(self: &Arc<Self>, owner: CallerKey) -> Option<Share> {
        let mut held = self.held_map();
        let count = held.entry(owner).or_insert(0);
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(Share {
            shares: Arc::clone(self),
            owner,
        })
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut held = self.shares.held_map();
        if let Some(count) = held.get_mut(&self.owner) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                held.remove(&self.owner);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operate::CallerKind;

    #[test]
    fn a_client_holds_at_most_its_share_and_gets_it_back() {
        let shares = Shares::new(2);
        let a = CallerKey::of(CallerKind::Named, b"a");
        let b = CallerKey::of(CallerKind::Named, b"b");
        let first = shares.try_take(a).unwrap();
        let _second = shares.try_take(a).unwrap();
        assert!(shares.try_take(a).is_none(), "a third is over the share");
        let other = shares
            .try_take(b)
            .expect("another client has its own share");
        assert_eq!(shares.held(&a), 2);
        drop(first);
        assert_eq!(shares.held(&a), 1);
        assert!(shares.try_take(a).is_some());
        drop(other);
        assert_eq!(shares.held(&b), 0);
        assert!(
            shares.held_map().get(&b).is_none(),
            "no entry is kept at zero"
        );
    }
}
