//! goalc: goal-oriented scheduling for parallel machines.
//!
//! Data flows one way: workloads ([`workload`]) and policies ([`policy`])
//! go into the simulation core ([`sim`]), whose outcomes are turned into
//! [`measures`]; the [`run`] layer makes a goal's workloads, runs and
//! measures it; the goal language ([`lang`]) lowers goal files to what
//! the run layer runs, and [`report`] prints the results; [`train`] tunes
//! a policy's numeric parameters offline by an evolution strategy. The
//! command line is the binary's (`src/bin/goalc`), so the library does not
//! depend on clap.

pub mod lang;
pub mod measures;
pub mod policy;
pub mod report;
pub mod results;
pub mod run;
pub mod sim;
pub mod store;
pub mod suggest;
pub mod suite;
pub mod train;
pub mod units;
pub mod workload;
