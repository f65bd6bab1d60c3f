//! The candidates not yet placed on the search's path, in one order, as a
//! doubly linked list over their indices: a node takes one out and its
//! leaving puts it back, last out first in, each in constant time, and the
//! rank-th one is found by walking from the front (ranks are mostly 0).

/// Candidates `0..n` in a given order, with index `n` as the list's head.
pub(super) struct Unplaced {
    next: Vec<u32>,
    prev: Vec<u32>,
}

impl Unplaced {
    /// All of `order` (a permutation of `0..order.len()`), in that order.
    pub fn new(order: &[usize]) -> Self {
        let n = order.len();
        let head = n as u32;
        let mut next = vec![head; n + 1];
        let mut prev = vec![head; n + 1];
        let mut last = head;
        for &i in order {
            next[last as usize] = i as u32;
            prev[i] = last;
            last = i as u32;
        }
        next[last as usize] = head;
        prev[n] = last;
        Unplaced { next, prev }
    }

    fn head(&self) -> u32 {
        (self.next.len() - 1) as u32
    }

    /// The first candidate left, if any.
    pub fn first(&self) -> Option<usize> {
        self.nth(0)
    }

    /// The `rank`-th candidate left (0 is the first), if there are that many.
    pub fn nth(&self, rank: usize) -> Option<usize> {
        let head = self.head();
        let mut at = self.next[head as usize];
        for _ in 0..rank {
            if at == head {
                return None;
            }
            at = self.next[at as usize];
        }
        (at != head).then_some(at as usize)
    }

    /// The candidate after `i` (which is in the list), if any.
    pub fn after(&self, i: usize) -> Option<usize> {
        let at = self.next[i];
        (at != self.head()).then_some(at as usize)
    }

    /// Takes candidate `i` out.
    pub fn take(&mut self, i: usize) {
        let (p, n) = (self.prev[i], self.next[i]);
        self.next[p as usize] = n;
        self.prev[n as usize] = p;
    }

    /// Puts back candidate `i`, the last one taken out and not yet put
    /// back: its neighbours then are those it had.
    pub fn put_back(&mut self, i: usize) {
        let (p, n) = (self.prev[i], self.next[i]);
        self.next[p as usize] = i as u32;
        self.prev[n as usize] = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Taking and putting back along a path, as a depth-first search
        /// does, against a plain list.
        #[test]
        fn walks_like_a_list(
            order in Just((0..12usize).collect::<Vec<_>>()).prop_shuffle(),
            moves in prop::collection::vec((any::<bool>(), 0..14usize), 0..200),
        ) {
            let mut list = Unplaced::new(&order);
            let mut plain = order.clone();
            let mut taken: Vec<(usize, usize)> = Vec::new();
            for (take, rank) in moves {
                for r in 0..14 {
                    prop_assert_eq!(list.nth(r), plain.get(r).copied());
                }
                prop_assert_eq!(list.first(), plain.first().copied());
                for (k, &i) in plain.iter().enumerate() {
                    prop_assert_eq!(list.after(i), plain.get(k + 1).copied());
                }
                if take {
                    if let Some(i) = list.nth(rank) {
                        list.take(i);
                        taken.push((i, rank));
                        plain.remove(rank);
                    }
                } else if let Some((i, rank)) = taken.pop() {
                    list.put_back(i);
                    plain.insert(rank, i);
                }
            }
        }
    }
}
