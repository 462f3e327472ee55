//! Ranges of indices claimed in turn: the layers of groups, the points of envelopes. Each
//! index belongs to the first range that covers it, and claiming a range says whether an
//! earlier one covered part of it, in amortized logarithmic time. A hostile map with tens of
//! thousands of ranges all covering each other costs what a real one costs, not the square.

use std::collections::BTreeMap;
use std::ops::Range;

/// Claimed ranges; see the [module docs](self).
#[derive(Debug, Default)]
pub struct Claims {
    /// The covered indices as disjoint ranges, start -> end. Ranges a claim overlaps are merged
    /// into one, so each claim visits only the ranges made since they were last merged.
    covered: BTreeMap<usize, usize>,
    /// Who claimed each piece first: start -> (end, owner); pieces are disjoint.
    owners: BTreeMap<usize, (usize, usize)>,
}

/// What claiming a range found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Claim {
    /// The first index an earlier claim holds, and that claim's owner.
    pub taken: Option<(usize, usize)>,
    /// The parts of the range that were free, now the claimant's.
    pub new: Vec<Range<usize>>,
}

impl Claims {
    /// Claims `range` for `owner`.
    pub fn claim(&mut self, range: Range<usize>, owner: usize) -> Claim {
        let Range { start, end } = range;
        if start >= end {
            return Claim::default();
        }
        // The covered ranges this one meets: one that starts before it and reaches into it,
        // then every one that starts inside it.
        let before = self
            .covered
            .range(..start)
            .next_back()
            .filter(|&(_, &e)| e > start)
            .map(|(&s, &e)| (s, e));
        let inside: Vec<(usize, usize)> = self
            .covered
            .range(start..end)
            .map(|(&s, &e)| (s, e))
            .collect();
        let met: Vec<(usize, usize)> = before.into_iter().chain(inside).collect();

        let mut new = Vec::new();
        let mut cursor = start;
        for &(s, e) in &met {
            if s > cursor {
                new.push(cursor..s);
            }
            cursor = cursor.max(e);
        }
        if cursor < end {
            new.push(cursor..end);
        }

        let taken = met.first().and_then(|&(s, _)| {
            let first = s.max(start);
            self.owners
                .range(..=first)
                .next_back()
                .map(|(_, &(_, owner))| (first, owner))
        });

        let merged_start = met.first().map_or(start, |&(s, _)| s.min(start));
        let merged_end = met.last().map_or(end, |&(_, e)| e.max(end));
        for (s, _) in met {
            self.covered.remove(&s);
        }
        self.covered.insert(merged_start, merged_end);
        for piece in &new {
            self.owners.insert(piece.start, (piece.end, owner));
        }
        Claim { taken, new }
    }
}

#[cfg(test)]
// A claim's new parts are a list of ranges, here often one.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    #[test]
    fn first_claim_wins_and_overlaps_name_the_owner() {
        let mut claims = Claims::default();
        assert_eq!(
            claims.claim(2..5, 0),
            Claim {
                taken: None,
                new: vec![2..5]
            }
        );
        assert_eq!(
            claims.claim(7..9, 1),
            Claim {
                taken: None,
                new: vec![7..9]
            }
        );
        // Over both, and the gaps around and between them.
        assert_eq!(
            claims.claim(0..12, 2),
            Claim {
                taken: Some((2, 0)),
                new: vec![0..2, 5..7, 9..12]
            }
        );
        // Inside a gap that claim 2 took.
        assert_eq!(
            claims.claim(5..6, 3),
            Claim {
                taken: Some((5, 2)),
                new: vec![]
            }
        );
        // Starting inside claim 1's piece.
        assert_eq!(
            claims.claim(8..14, 4),
            Claim {
                taken: Some((8, 1)),
                new: vec![12..14]
            }
        );
        // Touching is not overlapping; empty ranges claim nothing.
        assert_eq!(
            claims.claim(14..15, 5),
            Claim {
                taken: None,
                new: vec![14..15]
            }
        );
        assert_eq!(claims.claim(3..3, 6), Claim::default());
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = 9..4;
        assert_eq!(claims.claim(reversed, 7), Claim::default());
    }

    /// Against a plain array of owners, over many random ranges.
    #[test]
    fn agrees_with_a_plain_array() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..200 {
            let mut claims = Claims::default();
            let mut owners: Vec<Option<usize>> = vec![None; 64];
            for owner in 0..20 {
                let (a, b) = (next(65), next(65));
                let range = a.min(b)..a.max(b);
                let claim = claims.claim(range.clone(), owner);
                let taken = range
                    .clone()
                    .find_map(|i| owners[i].map(|other| (i, other)));
                assert_eq!(claim.taken, taken);
                let free: Vec<usize> = range.clone().filter(|&i| owners[i].is_none()).collect();
                let new: Vec<usize> = claim.new.iter().flat_map(Clone::clone).collect();
                assert_eq!(new, free);
                for i in free {
                    owners[i] = Some(owner);
                }
            }
        }
    }
}
