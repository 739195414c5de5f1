//! What a cache shared by every caller evicts when it is over its budget, fair between the owners
//! whose requests filled it (the diffs of version pairs, the past versions loaded on demand).
//! Plain least-recently-used let one owner's large entry push out everyone's; here an owner
//! holding more than its part (a `share`-th of the entries or of the weight) loses its own least
//! recently used entries first, and an owner past its part never evicts the entries of an owner
//! within theirs: the cache then stays over its budget by that owner's newest entry until the
//! next insertion, which evicts it first.

use std::sync::Arc;

/// An entry of the cache, as eviction sees it.
#[derive(Debug, Clone)]
pub struct Held<K> {
    pub key: K,
    /// Whose request put it there (None: the server's own work).
    pub owner: Option<Arc<str>>,
    /// When it was last used (a counter: larger is more recent).
    pub used: u64,
    /// What it costs the budget (changes, bytes, or 1).
    pub weight: i64,
}

/// A cache's budget and each owner's part of it.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub entries: usize,
    pub weight: i64,
    /// An owner's part is this fraction of the entries and of the weight.
    pub share: usize,
}

impl Budget {
    fn over(&self, entries: usize, weight: i64) -> bool {
        entries > self.entries || weight > self.weight
    }

    fn past_part(&self, entries: usize, weight: i64) -> bool {
        let share = self.share.max(1);
        entries > (self.entries / share).max(1) || weight > self.weight / share as i64
    }
}

fn totals<'a, K: 'a>(entries: impl Iterator<Item = &'a Held<K>>) -> (usize, i64) {
    entries.fold((0, 0), |(n, w), e| (n + 1, w + e.weight))
}

/// The keys to evict, in that order, so the rest fits `budget`; never `newest` (the entry just
/// added, whose caller is about to read it).
pub fn evictions<K: Clone + PartialEq>(held: &[Held<K>], newest: &K, budget: Budget) -> Vec<K> {
    let mut left: Vec<&Held<K>> = held.iter().collect();
    let mut evicted = Vec::new();
    let past_part = |left: &[&Held<K>], owner: &Option<Arc<str>>| {
        let (n, w) = totals(left.iter().copied().filter(|e| &e.owner == owner));
        budget.past_part(n, w)
    };
    loop {
        let (n, w) = totals(left.iter().copied());
        if !budget.over(n, w) {
            break;
        }
        let candidates = || left.iter().copied().filter(|e| &e.key != newest);
        let newcomer_past_part = left.iter().find(|e| &e.key == newest).is_some_and(|e| past_part(&left, &e.owner));
        let victim = candidates()
            .filter(|e| past_part(&left, &e.owner))
            .min_by_key(|e| e.used)
            .or_else(|| (!newcomer_past_part).then(|| candidates().min_by_key(|e| e.used)).flatten())
            .map(|e| e.key.clone());
        let Some(victim) = victim else { break };
        left.retain(|e| e.key != victim);
        evicted.push(victim);
    }
    evicted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(key: u32, owner: &str, used: u64, weight: i64) -> Held<u32> {
        Held { key, owner: Some(Arc::from(owner)), used, weight }
    }

    const BUDGET: Budget = Budget { entries: 8, weight: 100, share: 4 };

    /// Within budget nothing goes; over it, owners within their parts see plain LRU.
    #[test]
    fn owners_within_their_parts_see_least_recently_used() {
        let fits = [held(1, "a", 1, 20), held(2, "b", 2, 20)];
        assert!(evictions(&fits, &2, BUDGET).is_empty());
        let over = [
            held(1, "a", 5, 20),
            held(2, "b", 1, 20),
            held(3, "c", 3, 20),
            held(4, "d", 4, 20),
            held(5, "e", 6, 20),
            held(6, "f", 7, 20),
        ];
        assert_eq!(evictions(&over, &6, BUDGET), [2]);
    }

    /// One owner's entry as large as the whole budget evicts only that owner's others: everyone
    /// else's stay, and the cache is over budget until the next insertion, which takes it first.
    #[test]
    fn a_large_entry_evicts_its_owners_entries_and_no_one_elses() {
        let before = [held(1, "a", 1, 20), held(2, "b", 2, 20), held(3, "big", 3, 10)];
        let mut now = before.to_vec();
        now.push(held(4, "big", 4, 100));
        assert_eq!(evictions(&now, &4, BUDGET), [3]);
        let mut next = vec![before[0].clone(), before[1].clone(), held(4, "big", 4, 100), held(5, "c", 5, 20)];
        assert_eq!(evictions(&next, &5, BUDGET), [4], "the over-part entry goes first, though not the oldest");
        next.retain(|e| e.key != 4);
        assert!(evictions(&next, &5, BUDGET).is_empty());
    }

    /// Counted in entries too: an owner holding many small entries loses its own oldest, not
    /// others' older ones.
    #[test]
    fn an_owner_past_its_part_in_entries_loses_its_own_first() {
        let mut held_now: Vec<Held<u32>> = (0..7).map(|i| held(i, "many", 10 + i as u64, 1)).collect();
        held_now.push(held(100, "quiet", 1, 1));
        held_now.push(held(7, "many", 20, 1));
        let evicted = evictions(&held_now, &7, BUDGET);
        assert_eq!(evicted, [0]);
        assert!(!evicted.contains(&100));
    }
}
