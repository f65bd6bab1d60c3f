//! Discrepancy-based tree traversal (GOAL, section 2.4).
//!
//! A candidate schedule is a path from the root: at depth d (1-based) the
//! node chooses the d-th job among those not yet placed, by rank in the
//! branching heuristic's order. Rank 0 follows the heuristic; any other
//! rank is one discrepancy at that depth. Iteration 0 of both traversals is
//! the heuristic path. Iteration k of LDS visits the paths with exactly k
//! discrepancies; iteration k of DDS the paths with a discrepancy at depth k,
//! any above it and none below. Within an iteration, paths are visited left
//! to right, depth first, so a prefix shared by several paths is placed once.

/// The traversal order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Traversal {
    /// Limited discrepancy search: fewest discrepancies first.
    Lds,
    /// Depth-bounded discrepancy search: discrepancies high in the tree first.
    Dds,
}

/// What the visitor says after entering a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Go on below this node.
    Descend,
    /// Skip the subtree below this node (pruned).
    Prune,
}

/// The search's side of the traversal: placing and removing jobs.
pub trait Visitor {
    /// Enters the child of rank `rank` at `depth` (1-based). Counts as one
    /// node visit.
    fn enter(&mut self, depth: usize, rank: usize) -> Step;
    /// Leaves the node entered last.
    fn leave(&mut self);
    /// A complete path (all jobs placed) has been entered.
    fn leaf(&mut self);
}

/// Traverses the tree of `n` jobs until the iterations are exhausted or
/// `budget` node visits have been made; iteration 0 (the heuristic path) is
/// always completed, so there is always a schedule. Returns the visits made.
pub fn traverse(n: usize, traversal: Traversal, budget: u64, v: &mut dyn Visitor) -> u64 {
    let mut walk = Walk {
        n,
        visits: 0,
        budget,
        v,
        stopped: false,
    };
    if n == 0 {
        return 0;
    }
    // The heuristic path first, whatever the budget.
    walk.budget = u64::MAX;
    walk.descend(1, &Rule::Heuristic);
    walk.budget = budget;
    // Iterations 1.. up to the deepest level with a choice (depth n - 1).
    for k in 1..n {
        if walk.stopped || walk.visits >= walk.budget {
            break;
        }
        let rule = match traversal {
            Traversal::Lds => Rule::Exactly(k),
            Traversal::Dds => Rule::DiscrepancyAt(k),
        };
        walk.descend(1, &rule);
    }
    walk.visits
}

/// Which ranks an iteration allows.
enum Rule {
    Heuristic,
    /// LDS: exactly this many discrepancies on the path (left to place).
    Exactly(usize),
    /// DDS: a discrepancy at this depth, any above, none below.
    DiscrepancyAt(usize),
}

struct Walk<'a> {
    n: usize,
    visits: u64,
    budget: u64,
    v: &'a mut dyn Visitor,
    stopped: bool,
}

impl Walk<'_> {
    /// Explores the children at `depth` (1-based) allowed by `rule`.
    fn descend(&mut self, depth: usize, rule: &Rule) {
        if depth > self.n {
            self.v.leaf();
            return;
        }
        let children = self.n - depth + 1;
        // Levels below this one where a discrepancy is possible (2+ children).
        let levels_below = self.n.saturating_sub(depth + 1);
        // Most rules allow the heuristic's child alone: the ranks after it
        // are not looked at, so a path costs its depth, not its depth
        // times the queue.
        let ranks = match *rule {
            Rule::Heuristic | Rule::Exactly(0) => 0..1,
            Rule::DiscrepancyAt(at) if depth > at => 0..1,
            _ => 0..children,
        };
        for rank in ranks {
            let next = match *rule {
                Rule::Heuristic => (rank == 0).then_some(Rule::Heuristic),
                Rule::Exactly(k) => {
                    // A discrepancy here uses one; the rest must fit below.
                    let left = if rank == 0 { Some(k) } else { k.checked_sub(1) };
                    left.filter(|&l| l <= levels_below).map(Rule::Exactly)
                }
                Rule::DiscrepancyAt(at) => {
                    let ok = if depth < at {
                        true
                    } else if depth == at {
                        rank > 0
                    } else {
                        rank == 0
                    };
                    ok.then_some(Rule::DiscrepancyAt(at))
                }
            };
            let Some(next) = next else { continue };
            if self.visits >= self.budget {
                self.stopped = true;
                return;
            }
            self.visits += 1;
            if self.v.enter(depth, rank) == Step::Descend {
                self.descend(depth + 1, &next);
            }
            self.v.leave();
            if self.stopped {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the paths (as job numbers 1..=n, FCFS branching) per
    /// iteration, where an iteration starts at each return to the root.
    struct Recorder {
        jobs: Vec<usize>,
        path: Vec<usize>,
        paths: Vec<Vec<usize>>,
        visits: u64,
    }

    impl Recorder {
        fn new(n: usize) -> Self {
            Recorder {
                jobs: (1..=n).collect(),
                path: Vec::new(),
                paths: Vec::new(),
                visits: 0,
            }
        }
    }

    impl Visitor for Recorder {
        fn enter(&mut self, _depth: usize, rank: usize) -> Step {
            self.visits += 1;
            let remaining: Vec<usize> = self
                .jobs
                .iter()
                .copied()
                .filter(|j| !self.path.contains(j))
                .collect();
            self.path.push(remaining[rank]);
            Step::Descend
        }
        fn leave(&mut self) {
            self.path.pop();
        }
        fn leaf(&mut self) {
            self.paths.push(self.path.clone());
        }
    }

    fn paths(t: Traversal, budget: u64) -> Vec<String> {
        let mut r = Recorder::new(4);
        traverse(4, t, budget, &mut r);
        r.paths
            .iter()
            .map(|p| p.iter().map(|j| j.to_string()).collect())
            .collect()
    }

    #[test]
    fn lds_iterations_0_1_2_of_figure_1() {
        let all = paths(Traversal::Lds, u64::MAX);
        // Iteration 0: the heuristic path.
        assert_eq!(all[0], "1234");
        // Iteration 1 (Fig. 1b): the six paths with exactly one discrepancy.
        assert_eq!(all[1..7], ["1243", "1324", "1423", "2134", "3124", "4123"]);
        // Iteration 2 (Fig. 1c): the eleven paths with exactly two.
        assert_eq!(
            all[7..18],
            [
                "1342", "1432", "2143", "2314", "2413", "3142", "3214", "3412", "4132", "4213",
                "4312"
            ]
        );
        // Iteration 3 completes the tree: every permutation exactly once.
        assert_eq!(all.len(), 24);
        let mut sorted = all.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 24);
    }

    #[test]
    fn dds_iterations_0_1_2_of_figure_1() {
        let all = paths(Traversal::Dds, u64::MAX);
        assert_eq!(all[0], "1234");
        // Iteration 1 (Fig. 1e): a discrepancy at depth one, none below.
        assert_eq!(all[1..4], ["2134", "3124", "4123"]);
        // Iteration 2 (Fig. 1f): any choice at depth one, a discrepancy at
        // depth two, none below.
        assert_eq!(
            all[4..12],
            ["1324", "1423", "2314", "2413", "3214", "3412", "4213", "4312"]
        );
        assert_eq!(all.len(), 24);
    }

    #[test]
    fn budget_counts_every_node_visit() {
        // Iteration 0 takes 4 visits; DDS iteration 1 then 4 per path
        // (nothing shared but the root): a budget of 10 allows one more path
        // and stops inside the second.
        let mut r = Recorder::new(4);
        let visits = traverse(4, Traversal::Dds, 10, &mut r);
        assert_eq!(visits, 10);
        assert_eq!(r.visits, 10);
        assert_eq!(r.paths.len(), 2);
        // The heuristic path completes even with no budget.
        let mut r = Recorder::new(4);
        assert_eq!(traverse(4, Traversal::Lds, 0, &mut r), 4);
        assert_eq!(r.paths.len(), 1);
    }

    #[test]
    fn pruned_subtrees_are_skipped() {
        struct PruneAt2(Recorder);
        impl Visitor for PruneAt2 {
            fn enter(&mut self, d: usize, r: usize) -> Step {
                self.0.enter(d, r);
                // Prune every subtree whose first job is 2.
                if d == 1 && self.0.path[0] == 2 {
                    Step::Prune
                } else {
                    Step::Descend
                }
            }
            fn leave(&mut self) {
                self.0.leave()
            }
            fn leaf(&mut self) {
                self.0.leaf()
            }
        }
        let mut v = PruneAt2(Recorder::new(4));
        traverse(4, Traversal::Dds, u64::MAX, &mut v);
        assert_eq!(v.0.paths.len(), 18);
        assert!(v.0.paths.iter().all(|p| p[0] != 2));
    }
}
