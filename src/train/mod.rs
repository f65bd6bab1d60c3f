//! Training: offline optimisation of a policy's numeric parameters.
//!
//! The optimiser ([`es`]) knows nothing of scheduling: it minimises a
//! fitness function over a box of real parameters. What the parameters mean
//! and how a parameter vector is scored (a simulation of the training
//! workloads, measured against the goal) belong to the caller.

pub mod es;
pub mod greedy;

pub use es::{
    Bounds, Checkpoint, Es, EsConfig, EsError, EsResult, Individual, Progress, CHECKPOINT_VERSION,
};
