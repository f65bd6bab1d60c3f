//! goalc: goal-oriented scheduling for parallel machines.
//!
//! Data flows one way: workloads ([`workload`]) and policies ([`policy`])
//! go into the simulation core ([`sim`]), whose outcomes are turned into
//! [`measures`] and printed by [`report`]. The [`cli`] wires them together.

pub mod bench;
pub mod cli;
pub mod lang;
pub mod measures;
pub mod policy;
pub mod report;
pub mod sim;
pub mod units;
pub mod workload;
