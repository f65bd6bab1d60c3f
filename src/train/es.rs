//! A (μ+λ) evolution strategy with self-adapted step sizes: the optimiser
//! Franke, Lepping and Schwiegelshohn use to train the parameters of their
//! Greedy scheduler's sort criteria (section IV-C of their paper), written
//! generically: it minimises any fitness `Fn(&[f64]) -> f64` over a box.
//!
//! # Algorithm
//!
//! An individual is a point `x` of the box (its object parameters, one per
//! coordinate `i` with bounds `[lo_i, hi_i]`), one mutation step size `σ_i`
//! per coordinate (its strategy parameters) and its fitness, lower being
//! better.
//!
//! 1. **Initial parents**: the given start points (e.g. a hand-written
//!    goal's values), then points drawn uniformly in the box until there are
//!    μ of them, every one with `σ_i = initial_sigma_fraction × (hi_i − lo_i)`.
//!    They are evaluated and the best μ kept (there may be more start points
//!    than μ).
//! 2. **Breeding**: each generation makes λ offspring, one after another:
//!    * *discrete* recombination of the object parameters over all μ
//!      parents: each `x_i` is copied from a parent drawn uniformly,
//!      independently for each coordinate;
//!    * *intermediate* recombination of the step sizes: `σ_i` is the mean of
//!      two distinct parents' `σ_i` (one pair per offspring);
//!    * self-adaptation by the extended log-normal rule
//!      `σ_i' = σ_i · exp(τ0·N(0,1) + τ·N_i(0,1))`, one `N(0,1)` shared by all
//!      coordinates and one `N_i(0,1)` per coordinate, with `τ0 = 1/√(2n)` and
//!      `τ = 1/√(2√n)` for `n` parameters; `σ_i'` is then kept within
//!      `[min_sigma_fraction × (hi_i − lo_i), hi_i − lo_i]`;
//!    * mutation `x_i' = x_i + σ_i'·N_i(0,1)`, folded back into `[lo_i, hi_i]`
//!      by reflection at the bounds.
//! 3. **Selection**: the offspring are evaluated in parallel, then the best μ
//!    of parents and offspring together become the next parents. Being a
//!    plus strategy, the best fitness never gets worse.
//!
//! The paper's settings are the defaults ([`EsConfig::default`]): μ = 15,
//! λ = 105 (Schwefel's μ/λ = 1/7), 100 generations. Each run evaluates the
//! initial parents once, then λ offspring per generation.
//!
//! # Choices the paper leaves open
//!
//! * **Learning rates** `τ0 = 1/√(2n)`, `τ = 1/√(2√n)`: the values Bäck and
//!   Schwefel (1993) and Beyer and Schwefel (2002), the paper's references
//!   for its ES, give for one step size per coordinate, with the
//!   proportionality constant 1. The shared term rescales all step sizes
//!   together, the per-coordinate terms reshape them.
//! * **Two distinct parents** for the step sizes (when μ ≥ 2): averaging a
//!   parent with itself would merely copy its step sizes.
//! * **Bounds by reflection**: an offspring past a bound is mirrored back
//!   into the box (repeatedly, for a step longer than the range; a last
//!   clamp only absorbs rounding). Unlike clamping it does not pile
//!   offspring onto the bounds, and unlike resampling it never loops. The
//!   price: an optimum exactly on a bound is approached (as closely as the
//!   step-size floor allows), not hit.
//! * **Initial step sizes** 10 % of each range (`initial_sigma_fraction`):
//!   discrete recombination of parents spread over the whole box already
//!   explores it, so mutation starts moderate; self-adaptation then grows or
//!   shrinks the steps.
//! * **Step-size limits**: at least `min_sigma_fraction` (10⁻⁶) of the range,
//!   so that a step size never collapses to 0 (from which the log-normal rule
//!   could never recover); at most the range, as a longer step only lands
//!   somewhere near-uniform after reflection, and on a flat fitness an
//!   uncapped step size would drift to infinity.
//! * **Ties** keep the older individual: selection is a stable sort of the
//!   parents (in rank order) followed by the offspring (in breeding order),
//!   so equal fitness ranks parents before offspring, then by index. On a
//!   plateau the parents stay put, and the order never depends on the sort
//!   algorithm or on threads. `-0.0` and `0.0` are equal.
//! * **NaN fitness** ranks after every number, `+∞` included, and all NaNs
//!   rank equal: a failed evaluation must not survive selection, and sorting
//!   needs a total order (since Rust 1.81 `sort_by` may panic without one).
//!   NaNs are stored as [`f64::NAN`], whatever payload the fitness returned.
//!
//! # Determinism
//!
//! For a given seed, results are bit-identical whatever the number of
//! threads, provided the fitness is itself deterministic. Offspring are
//! drawn sequentially from a ChaCha8 generator seeded with
//! `seed_from_u64(seed)` on stream `g` for generation `g` (stream 0 for the
//! initial parents), so no generator state needs saving; only their
//! evaluation runs in parallel (rayon), each result stored at its
//! offspring's index. Random integers are drawn as `u64`, so 32- and 64-bit
//! targets agree, and `exp` is [`libm`]'s, the same bits on every platform.
//! The one dependency on the system's math library left is inside
//! `rand_distr`'s normal sampler (its rare rejection branches).
//!
//! # Checkpoints
//!
//! [`Es::checkpoint`] captures the whole state after a generation (config,
//! bounds, generation, evaluation count, population with parameters, step
//! sizes and fitness; the best so far is the first parent). It serialises
//! with serde; [`Es::resume`] continues it, and the resumed run is bit for
//! bit the uninterrupted one. In human-readable formats (JSON) every float
//! is written as a string of Rust's shortest round-trip form (`"0.3"`,
//! `"1e-7"`, `"NaN"`, `"inf"`): serde_json without its `float_roundtrip`
//! feature (not enabled here) reads 10 to 20 % of random `f64`s back one
//! unit in the last place off, and writes NaN and ±∞ as `null`, which it
//! cannot read back as a float. Binary formats get the raw `f64`.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::ops::ControlFlow;

/// The version of [`Checkpoint`]'s meaning. A change to how offspring are
/// drawn changes what a resumed run would do, so it bumps this and old
/// checkpoints are refused rather than silently resumed differently.
pub const CHECKPOINT_VERSION: u32 = 1;

/// How the strategy runs. The defaults are the paper's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EsConfig {
    /// Parents kept each generation (μ, at least 1).
    pub mu: usize,
    /// Offspring bred each generation (λ, at least 1).
    pub lambda: usize,
    /// Generations [`Es::run`] goes to (the initial parents are generation 0).
    pub generations: u32,
    /// Seed of every random draw.
    pub seed: u64,
    /// Initial step size as a fraction of each parameter's range, in (0, 1].
    #[serde(with = "exact")]
    pub initial_sigma_fraction: f64,
    /// Smallest step size as a fraction of each parameter's range, in
    /// (0, `initial_sigma_fraction`].
    #[serde(with = "exact")]
    pub min_sigma_fraction: f64,
    /// What is optimised, as the caller names it (a digest of the fitness
    /// function's inputs): a checkpoint resumes only the same problem, since
    /// its fitnesses are of that one. Empty by default.
    #[serde(default)]
    pub problem: String,
}

impl Default for EsConfig {
    fn default() -> Self {
        EsConfig {
            mu: 15,
            lambda: 105,
            generations: 100,
            seed: 0,
            initial_sigma_fraction: 0.1,
            min_sigma_fraction: 1e-6,
            problem: String::new(),
        }
    }
}

/// The most parents or offspring a generation may have: each offspring is
/// a whole simulation per generation, so more is no run anyone waits for,
/// and a number out of reach (a mistyped `--lambda`) must be an error, not
/// an allocation that aborts the process.
pub const MAX_POPULATION: usize = 1_000_000;

impl EsConfig {
    /// Checks the numbers make sense; [`Es::new`] and [`Es::resume`] call it.
    pub fn validate(&self) -> Result<(), EsError> {
        if self.mu == 0 {
            return Err(EsError::ZeroMu);
        }
        if self.lambda == 0 {
            return Err(EsError::ZeroLambda);
        }
        if self.mu > MAX_POPULATION || self.lambda > MAX_POPULATION {
            return Err(EsError::TooLarge {
                mu: self.mu,
                lambda: self.lambda,
            });
        }
        let initial = self.initial_sigma_fraction;
        // Written so that NaN fails too.
        if !(initial > 0.0 && initial <= 1.0) {
            return Err(EsError::InitialSigmaFraction(initial));
        }
        let min = self.min_sigma_fraction;
        if !(min > 0.0 && min <= initial) {
            return Err(EsError::MinSigmaFraction { min, initial });
        }
        Ok(())
    }
}

/// The box searched: `[lo, hi]` for each parameter, in order. `lo == hi`
/// fixes a parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Bounds(#[serde(with = "exact::pairs")] pub Vec<(f64, f64)>);

impl Bounds {
    /// The number of parameters.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no parameters.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Checks there is at least one parameter and every range is finite and
    /// not inverted; [`Es::new`] and [`Es::resume`] call it.
    pub fn validate(&self) -> Result<(), EsError> {
        if self.0.is_empty() {
            return Err(EsError::NoParameters);
        }
        for (index, &(lo, hi)) in self.0.iter().enumerate() {
            if !lo.is_finite() || !hi.is_finite() {
                return Err(EsError::NonFiniteBound { index, lo, hi });
            }
            if lo > hi {
                return Err(EsError::InvertedBound { index, lo, hi });
            }
            if !(hi - lo).is_finite() {
                return Err(EsError::RangeTooWide { index, lo, hi });
            }
        }
        Ok(())
    }

    /// Whether `value` lies in parameter `index`'s range (false for NaN).
    fn contains(&self, index: usize, value: f64) -> bool {
        let (lo, hi) = self.0[index];
        lo <= value && value <= hi
    }
}

/// One member of the population.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Individual {
    /// The object parameters, inside the bounds.
    #[serde(with = "exact::vec")]
    pub params: Vec<f64>,
    /// One mutation step size per parameter (the strategy parameters).
    #[serde(with = "exact::vec")]
    pub sigmas: Vec<f64>,
    /// The fitness (lower is better); NaN before evaluation.
    #[serde(with = "exact")]
    pub fitness: f64,
}

/// Everything needed to continue a run exactly where it stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// [`CHECKPOINT_VERSION`] when written.
    pub version: u32,
    /// The configuration the run was made with.
    pub config: EsConfig,
    /// The box searched.
    pub bounds: Bounds,
    /// Generations done (0: the initial parents only).
    pub generation: u32,
    /// Fitness evaluations done.
    pub evaluations: u64,
    /// Whether `population` has been evaluated; false only before the first
    /// generation.
    pub evaluated: bool,
    /// The parents, best first once evaluated.
    pub population: Vec<Individual>,
}

/// What the progress callback of [`Es::run`] sees after each generation.
#[derive(Debug)]
pub struct Progress<'a> {
    /// The generation just done (1 for the first).
    pub generation: u32,
    /// The generation the run goes to.
    pub generations: u32,
    /// The best fitness so far.
    pub best_fitness: f64,
    /// The parameters with that fitness.
    pub best: &'a [f64],
    /// Fitness evaluations so far.
    pub evaluations: u64,
    es: &'a Es,
}

impl Progress<'_> {
    /// The state after this generation, to save for a later resume.
    pub fn checkpoint(&self) -> Checkpoint {
        self.es.checkpoint()
    }
}

/// The outcome of [`Es::run`].
#[derive(Debug, Clone, PartialEq)]
pub struct EsResult {
    /// The best parameters found.
    pub best: Vec<f64>,
    /// Their fitness.
    pub best_fitness: f64,
    /// Generations done.
    pub generations: u32,
    /// Fitness evaluations done, the initial parents' included.
    pub evaluations: u64,
    /// Whether the callback stopped the run before `config.generations`.
    pub stopped_early: bool,
}

/// Why a strategy cannot be built or resumed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EsError {
    /// μ = 0.
    #[error("mu (parents per generation) must be at least 1")]
    ZeroMu,
    /// λ = 0.
    #[error("lambda (offspring per generation) must be at least 1")]
    ZeroLambda,
    /// μ or λ past [`MAX_POPULATION`].
    #[error(
        "mu ({mu}) and lambda ({lambda}) may each be at most {MAX_POPULATION}: every \
         offspring is a whole simulation per generation"
    )]
    TooLarge {
        /// Parents per generation asked for.
        mu: usize,
        /// Offspring per generation asked for.
        lambda: usize,
    },
    /// The initial step-size fraction is outside (0, 1].
    #[error("initial_sigma_fraction must be in (0, 1], got {0}")]
    InitialSigmaFraction(f64),
    /// The smallest step-size fraction is outside (0, initial].
    #[error("min_sigma_fraction must be in (0, initial_sigma_fraction = {initial}], got {min}")]
    MinSigmaFraction {
        /// The fraction given.
        min: f64,
        /// The initial fraction it may not exceed.
        initial: f64,
    },
    /// No bounds, so nothing to optimise.
    #[error("no parameters to optimise: the bounds are empty")]
    NoParameters,
    /// A bound is NaN or infinite.
    #[error("parameter {index}: bounds must be finite, got [{lo}, {hi}]")]
    NonFiniteBound {
        /// The parameter's position.
        index: usize,
        /// Its lower bound.
        lo: f64,
        /// Its upper bound.
        hi: f64,
    },
    /// A lower bound above its upper bound.
    #[error("parameter {index}: lower bound {lo} is above upper bound {hi}")]
    InvertedBound {
        /// The parameter's position.
        index: usize,
        /// Its lower bound.
        lo: f64,
        /// Its upper bound.
        hi: f64,
    },
    /// A range whose width overflows `f64`.
    #[error("parameter {index}: range [{lo}, {hi}] is too wide (its width overflows)")]
    RangeTooWide {
        /// The parameter's position.
        index: usize,
        /// Its lower bound.
        lo: f64,
        /// Its upper bound.
        hi: f64,
    },
    /// A start point without one value per parameter.
    #[error("start point {point} has {len} values, but there are {expected} parameters")]
    StartPointLength {
        /// The start point's position.
        point: usize,
        /// Its number of values.
        len: usize,
        /// The number of parameters.
        expected: usize,
    },
    /// A start point outside the box (or NaN).
    #[error("start point {point}: parameter {index} is {value}, outside [{lo}, {hi}]")]
    StartPointOutOfBounds {
        /// The start point's position.
        point: usize,
        /// The parameter's position.
        index: usize,
        /// The value given.
        value: f64,
        /// The parameter's lower bound.
        lo: f64,
        /// The parameter's upper bound.
        hi: f64,
    },
    /// A checkpoint from another version of this strategy.
    #[error("checkpoint has version {found}, but this build reads version {expected}")]
    CheckpointVersion {
        /// The checkpoint's version.
        found: u32,
        /// [`CHECKPOINT_VERSION`].
        expected: u32,
    },
    /// A checkpoint made with another configuration.
    #[error(
        "checkpoint was made with {field} = {checkpoint}, but this run has {field} = {expected}"
    )]
    CheckpointConfig {
        /// The configuration field that differs.
        field: &'static str,
        /// Its value in the checkpoint.
        checkpoint: String,
        /// Its value in this run.
        expected: String,
    },
    /// A checkpoint of another problem ([`EsConfig::problem`]).
    #[error(
        "checkpoint was made for another problem ({checkpoint:?}), not this run's ({expected:?})"
    )]
    CheckpointProblem {
        /// The checkpoint's problem.
        checkpoint: String,
        /// This run's.
        expected: String,
    },
    /// A checkpoint with another number of parameters.
    #[error("checkpoint has {checkpoint} parameters, but this run has {expected}")]
    CheckpointDimension {
        /// The checkpoint's number of parameters.
        checkpoint: usize,
        /// This run's.
        expected: usize,
    },
    /// A checkpoint with other bounds.
    #[error(
        "checkpoint has parameter {index} in [{}, {}], but this run has it in [{}, {}]",
        checkpoint.0, checkpoint.1, expected.0, expected.1
    )]
    CheckpointBound {
        /// The parameter's position.
        index: usize,
        /// Its bounds in the checkpoint.
        checkpoint: (f64, f64),
        /// Its bounds in this run.
        expected: (f64, f64),
    },
    /// A checkpoint whose state this strategy could not have produced.
    #[error("checkpoint is inconsistent: {0}")]
    CorruptCheckpoint(String),
}

/// Per-parameter constants, derived from the bounds and the config.
#[derive(Debug, Clone, Copy)]
struct Limit {
    lo: f64,
    hi: f64,
    width: f64,
    min_sigma: f64,
}

/// A (μ+λ) evolution strategy in progress. See the [module](self) docs.
#[derive(Debug, Clone)]
pub struct Es {
    config: EsConfig,
    bounds: Bounds,
    limits: Vec<Limit>,
    tau0: f64,
    tau: f64,
    generation: u32,
    evaluations: u64,
    evaluated: bool,
    /// The parents; best first once `evaluated`.
    population: Vec<Individual>,
}

impl Es {
    /// A strategy ready to run: the initial parents are drawn (the start
    /// points first) but not evaluated until the first [`Es::step`] or
    /// [`Es::run`].
    pub fn new(config: EsConfig, bounds: Bounds, start_points: &[Vec<f64>]) -> Result<Es, EsError> {
        let mut es = Es::assemble(config, bounds)?;
        let n = es.bounds.len();
        for (point, values) in start_points.iter().enumerate() {
            if values.len() != n {
                return Err(EsError::StartPointLength {
                    point,
                    len: values.len(),
                    expected: n,
                });
            }
            for (index, &value) in values.iter().enumerate() {
                if !es.bounds.contains(index, value) {
                    let (lo, hi) = es.bounds.0[index];
                    return Err(EsError::StartPointOutOfBounds {
                        point,
                        index,
                        value,
                        lo,
                        hi,
                    });
                }
            }
        }
        let initial_sigmas: Vec<f64> = es
            .limits
            .iter()
            .map(|l| es.config.initial_sigma_fraction * l.width)
            .collect();
        let mut population: Vec<Individual> = start_points
            .iter()
            .map(|values| Individual {
                params: values.clone(),
                sigmas: initial_sigmas.clone(),
                fitness: f64::NAN,
            })
            .collect();
        let mut rng = generation_rng(es.config.seed, 0);
        while population.len() < es.config.mu {
            let params = es
                .limits
                .iter()
                // gen::<f64>() is in [0, 1); the min only absorbs rounding.
                .map(|l| (l.lo + l.width * rng.gen::<f64>()).min(l.hi))
                .collect();
            population.push(Individual {
                params,
                sigmas: initial_sigmas.clone(),
                fitness: f64::NAN,
            });
        }
        es.population = population;
        Ok(es)
    }

    /// Continues a run from `checkpoint`, which must have been made with
    /// this `config` and these `bounds`, except that `config.generations`
    /// may differ: a finished run can be extended, still bit for bit as if
    /// it had been asked for more generations from the start.
    pub fn resume(config: EsConfig, bounds: Bounds, checkpoint: Checkpoint) -> Result<Es, EsError> {
        let mut es = Es::assemble(config, bounds)?;
        if checkpoint.version != CHECKPOINT_VERSION {
            return Err(EsError::CheckpointVersion {
                found: checkpoint.version,
                expected: CHECKPOINT_VERSION,
            });
        }
        es.check_config(&checkpoint.config)?;
        es.check_bounds(&checkpoint.bounds)?;
        es.check_population(&checkpoint)?;
        es.generation = checkpoint.generation;
        es.evaluations = checkpoint.evaluations;
        es.evaluated = checkpoint.evaluated;
        es.population = checkpoint.population;
        Ok(es)
    }

    /// The state now, to save and later [`Es::resume`].
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            version: CHECKPOINT_VERSION,
            config: self.config.clone(),
            bounds: self.bounds.clone(),
            generation: self.generation,
            evaluations: self.evaluations,
            evaluated: self.evaluated,
            population: self.population.clone(),
        }
    }

    /// Runs generations until `config.generations` or until `on_generation`,
    /// called after each one, breaks. Starting at or past
    /// `config.generations` only evaluates the initial parents if needed.
    ///
    /// `fitness` is called from several threads at once; results are
    /// reproducible only if it is deterministic.
    pub fn run<F, C>(&mut self, fitness: &F, mut on_generation: C) -> EsResult
    where
        F: Fn(&[f64]) -> f64 + Sync + ?Sized,
        C: FnMut(&Progress<'_>) -> ControlFlow<()>,
    {
        self.ensure_evaluated(fitness);
        let mut stopped_early = false;
        while self.generation < self.config.generations {
            self.step(fitness);
            if on_generation(&self.progress()).is_break() {
                stopped_early = self.generation < self.config.generations;
                break;
            }
        }
        let best = &self.population[0];
        EsResult {
            best: best.params.clone(),
            best_fitness: best.fitness,
            generations: self.generation,
            evaluations: self.evaluations,
            stopped_early,
        }
    }

    /// One generation (evaluating the initial parents first if need be),
    /// whatever `config.generations` says. Returns the best so far.
    pub fn step<F>(&mut self, fitness: &F) -> &Individual
    where
        F: Fn(&[f64]) -> f64 + Sync + ?Sized,
    {
        self.ensure_evaluated(fitness);
        let generation = self.generation + 1;
        let mut rng = generation_rng(self.config.seed, u64::from(generation));
        // Sequential draws: the offspring do not depend on the threads.
        let mut offspring: Vec<Individual> = (0..self.config.lambda)
            .map(|_| self.breed(&mut rng))
            .collect();
        evaluate(&mut offspring, fitness);
        self.evaluations = self.evaluations.saturating_add(offspring.len() as u64);
        // Parents first, so that ties keep them (see `rank`).
        self.population.append(&mut offspring);
        rank(&mut self.population);
        self.population.truncate(self.config.mu);
        self.generation = generation;
        &self.population[0]
    }

    /// The configuration.
    pub fn config(&self) -> &EsConfig {
        &self.config
    }

    /// The box searched.
    pub fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    /// Generations done.
    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// Fitness evaluations done.
    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }

    /// The parents: best first once evaluated, else the initial ones in
    /// drawing order (start points first).
    pub fn population(&self) -> &[Individual] {
        &self.population
    }

    /// The best individual so far; `None` before the initial parents are
    /// evaluated. A plus strategy never loses it, so it is the first parent.
    pub fn best(&self) -> Option<&Individual> {
        self.population.first().filter(|_| self.evaluated)
    }

    /// A strategy with validated config and bounds and no population yet.
    fn assemble(config: EsConfig, bounds: Bounds) -> Result<Es, EsError> {
        config.validate()?;
        bounds.validate()?;
        let limits = bounds
            .0
            .iter()
            .map(|&(lo, hi)| Limit {
                lo,
                hi,
                width: hi - lo,
                min_sigma: config.min_sigma_fraction * (hi - lo),
            })
            .collect();
        let (tau0, tau) = learning_rates(bounds.len());
        Ok(Es {
            config,
            bounds,
            limits,
            tau0,
            tau,
            generation: 0,
            evaluations: 0,
            evaluated: false,
            population: Vec::new(),
        })
    }

    fn progress(&self) -> Progress<'_> {
        let best = &self.population[0];
        Progress {
            generation: self.generation,
            generations: self.config.generations,
            best_fitness: best.fitness,
            best: &best.params,
            evaluations: self.evaluations,
            es: self,
        }
    }

    /// Evaluates the initial parents and keeps the best μ, once.
    fn ensure_evaluated<F>(&mut self, fitness: &F)
    where
        F: Fn(&[f64]) -> f64 + Sync + ?Sized,
    {
        if self.evaluated {
            return;
        }
        evaluate(&mut self.population, fitness);
        self.evaluations = self
            .evaluations
            .saturating_add(self.population.len() as u64);
        rank(&mut self.population);
        self.population.truncate(self.config.mu);
        self.evaluated = true;
    }

    /// One offspring of the current parents.
    fn breed(&self, rng: &mut ChaCha8Rng) -> Individual {
        let (mut params, mut sigmas) = recombine(&self.population, rng);
        mutate(
            &mut params,
            &mut sigmas,
            &self.limits,
            self.tau0,
            self.tau,
            rng,
        );
        Individual {
            params,
            sigmas,
            fitness: f64::NAN,
        }
    }

    fn check_config(&self, theirs: &EsConfig) -> Result<(), EsError> {
        let ours = &self.config;
        let differs = |field: &'static str, checkpoint: String, expected: String| {
            Err(EsError::CheckpointConfig {
                field,
                checkpoint,
                expected,
            })
        };
        if theirs.mu != ours.mu {
            return differs("mu", theirs.mu.to_string(), ours.mu.to_string());
        }
        if theirs.lambda != ours.lambda {
            return differs("lambda", theirs.lambda.to_string(), ours.lambda.to_string());
        }
        if theirs.seed != ours.seed {
            return differs("seed", theirs.seed.to_string(), ours.seed.to_string());
        }
        if theirs.problem != ours.problem {
            return Err(EsError::CheckpointProblem {
                checkpoint: theirs.problem.clone(),
                expected: ours.problem.clone(),
            });
        }
        // Bits, not ==: anything short of identical changes the run.
        let fractions = [
            (
                "initial_sigma_fraction",
                theirs.initial_sigma_fraction,
                ours.initial_sigma_fraction,
            ),
            (
                "min_sigma_fraction",
                theirs.min_sigma_fraction,
                ours.min_sigma_fraction,
            ),
        ];
        for (field, a, b) in fractions {
            if a.to_bits() != b.to_bits() {
                return differs(field, format!("{a:?}"), format!("{b:?}"));
            }
        }
        Ok(())
    }

    fn check_bounds(&self, theirs: &Bounds) -> Result<(), EsError> {
        if theirs.len() != self.bounds.len() {
            return Err(EsError::CheckpointDimension {
                checkpoint: theirs.len(),
                expected: self.bounds.len(),
            });
        }
        for (index, (&a, &b)) in theirs.0.iter().zip(&self.bounds.0).enumerate() {
            if a.0.to_bits() != b.0.to_bits() || a.1.to_bits() != b.1.to_bits() {
                return Err(EsError::CheckpointBound {
                    index,
                    checkpoint: a,
                    expected: b,
                });
            }
        }
        Ok(())
    }

    /// Refuses a population this strategy could not have produced, so that
    /// a hand-edited or truncated checkpoint fails here, not mid-run.
    fn check_population(&self, checkpoint: &Checkpoint) -> Result<(), EsError> {
        let corrupt = |what: String| Err(EsError::CorruptCheckpoint(what));
        let population = &checkpoint.population;
        let mu = self.config.mu;
        if checkpoint.evaluated && population.len() != mu {
            return corrupt(format!(
                "{} evaluated parents, but mu is {mu}",
                population.len()
            ));
        }
        if !checkpoint.evaluated && (population.len() < mu || checkpoint.generation > 0) {
            return corrupt(format!(
                "unevaluated population of {} at generation {} (mu is {mu})",
                population.len(),
                checkpoint.generation
            ));
        }
        let n = self.bounds.len();
        for (k, individual) in population.iter().enumerate() {
            if individual.params.len() != n || individual.sigmas.len() != n {
                return corrupt(format!(
                    "individual {k} has {} parameters and {} step sizes, expected {n} of each",
                    individual.params.len(),
                    individual.sigmas.len()
                ));
            }
            for (i, l) in self.limits.iter().enumerate() {
                let x = individual.params[i];
                if !self.bounds.contains(i, x) {
                    return corrupt(format!(
                        "individual {k}: parameter {i} is {x}, outside [{}, {}]",
                        l.lo, l.hi
                    ));
                }
                let s = individual.sigmas[i];
                if !(l.min_sigma <= s && s <= l.width) {
                    return corrupt(format!(
                        "individual {k}: step size {i} is {s}, outside [{}, {}]",
                        l.min_sigma, l.width
                    ));
                }
            }
        }
        if checkpoint.evaluated
            && population
                .windows(2)
                .any(|w| fitness_order(w[0].fitness, w[1].fitness) == Ordering::Greater)
        {
            return corrupt("parents are not sorted by fitness".to_string());
        }
        Ok(())
    }
}

/// `(τ0, τ)` for `n` parameters: `1/√(2n)` and `1/√(2√n)` (module docs).
fn learning_rates(n: usize) -> (f64, f64) {
    let n = n as f64;
    (1.0 / (2.0 * n).sqrt(), 1.0 / (2.0 * n.sqrt()).sqrt())
}

/// The generator for generation `generation` (0: the initial parents).
fn generation_rng(seed: u64, generation: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(generation);
    rng
}

/// A uniform index below `n`, drawn as `u64` so every target agrees.
fn pick(rng: &mut impl Rng, n: usize) -> usize {
    rng.gen_range(0..n as u64) as usize
}

/// Recombination before mutation: each object parameter from a uniformly
/// drawn parent among all (discrete), the step sizes the mean of two
/// distinct parents' (intermediate). `parents` is not empty.
fn recombine(parents: &[Individual], rng: &mut impl Rng) -> (Vec<f64>, Vec<f64>) {
    let mu = parents.len();
    let n = parents[0].params.len();
    let params = (0..n).map(|i| parents[pick(rng, mu)].params[i]).collect();
    let a = pick(rng, mu);
    let b = if mu > 1 {
        // Uniform over the others: skip over `a`.
        let b = pick(rng, mu - 1);
        if b >= a {
            b + 1
        } else {
            b
        }
    } else {
        a
    };
    let sigmas = parents[a]
        .sigmas
        .iter()
        .zip(&parents[b].sigmas)
        .map(|(s, t)| 0.5 * (s + t))
        .collect();
    (params, sigmas)
}

/// Self-adaptation then mutation, in place, within the limits.
fn mutate(
    params: &mut [f64],
    sigmas: &mut [f64],
    limits: &[Limit],
    tau0: f64,
    tau: f64,
    rng: &mut impl Rng,
) {
    let shared = tau0 * rng.sample::<f64, _>(StandardNormal);
    for ((x, s), l) in params.iter_mut().zip(sigmas.iter_mut()).zip(limits) {
        let own: f64 = rng.sample(StandardNormal);
        // f64::max drops a NaN (0 × ∞ on a fixed parameter) for the floor.
        *s = (*s * libm::exp(shared + tau * own))
            .max(l.min_sigma)
            .min(l.width);
        let step: f64 = rng.sample(StandardNormal);
        *x = reflect(*x + *s * step, l.lo, l.hi);
    }
}

/// `x` mirrored at the bounds until it lies in `[lo, hi]`.
fn reflect(x: f64, lo: f64, hi: f64) -> f64 {
    if lo <= x && x <= hi {
        return x;
    }
    let width = hi - lo;
    if width <= 0.0 {
        return lo;
    }
    // Reflection at both bounds is periodic with period 2 × width.
    let t = (x - lo).rem_euclid(2.0 * width);
    if t.is_nan() {
        // Only for an x or a width near f64::MAX: clamping is all that's left.
        return x.clamp(lo, hi);
    }
    let t = if t > width { 2.0 * width - t } else { t };
    // The clamp absorbs rounding only.
    (lo + t).clamp(lo, hi)
}

/// Evaluates everyone in parallel, each result stored at its own index.
fn evaluate<F>(population: &mut [Individual], fitness: &F)
where
    F: Fn(&[f64]) -> f64 + Sync + ?Sized,
{
    population.par_iter_mut().for_each(|individual| {
        let f = fitness(&individual.params);
        individual.fitness = if f.is_nan() { f64::NAN } else { f };
    });
}

/// Best first. The sort is stable, so equal fitness keeps the given order.
fn rank(population: &mut [Individual]) {
    population.sort_by(|a, b| fitness_order(a.fitness, b.fitness));
}

/// A total order on fitness: numbers as usual (`-0.0 == 0.0`), then NaN.
fn fitness_order(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
        (false, true) => Ordering::Less,
        (true, false) => Ordering::Greater,
        (true, true) => Ordering::Equal,
    }
}

/// Serde for floats that reads back the same bits, NaN and ±∞ included:
/// strings of Rust's shortest round-trip form in human-readable formats
/// (module docs: serde_json's own numbers do not round-trip), raw `f64`
/// otherwise.
mod exact {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    struct Exact(f64);

    impl Serialize for Exact {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            if s.is_human_readable() {
                // Debug is the shortest string that parses back to the
                // same f64, and switches to exponents for large or tiny.
                s.collect_str(&format_args!("{:?}", self.0))
            } else {
                s.serialize_f64(self.0)
            }
        }
    }

    impl<'de> Deserialize<'de> for Exact {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            if d.is_human_readable() {
                let text = String::deserialize(d)?;
                // str::parse rounds correctly, so it inverts Debug exactly.
                text.parse()
                    .map(Exact)
                    .map_err(|_| D::Error::custom(format_args!("`{text}` is not a number")))
            } else {
                f64::deserialize(d).map(Exact)
            }
        }
    }

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        Exact(*v).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Exact::deserialize(d).map(|e| e.0)
    }

    pub mod vec {
        use super::Exact;
        use serde::{Deserialize, Deserializer, Serializer};

        pub fn serialize<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(v.iter().map(|&x| Exact(x)))
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
            Vec::<Exact>::deserialize(d).map(|v| v.into_iter().map(|e| e.0).collect())
        }
    }

    pub mod pairs {
        use super::Exact;
        use serde::{Deserialize, Deserializer, Serializer};

        pub fn serialize<S: Serializer>(v: &[(f64, f64)], s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(v.iter().map(|&(a, b)| (Exact(a), Exact(b))))
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(f64, f64)>, D::Error> {
            Vec::<(Exact, Exact)>::deserialize(d)
                .map(|v| v.into_iter().map(|(a, b)| (a.0, b.0)).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    const CENTRE: [f64; 3] = [0.3, 0.6, 2.0];

    /// Squared distance to `CENTRE`: minimum 0, inside the toy box.
    fn sphere(x: &[f64]) -> f64 {
        x.iter().zip(CENTRE).map(|(a, c)| (a - c) * (a - c)).sum()
    }

    /// The paper's kind of box: two weights in [0, 1], a K in [0, 5].
    fn toy_bounds() -> Bounds {
        Bounds(vec![(0.0, 1.0), (0.0, 1.0), (0.0, 5.0)])
    }

    fn config(seed: u64, generations: u32) -> EsConfig {
        EsConfig {
            seed,
            generations,
            ..EsConfig::default()
        }
    }

    fn go_on(_: &Progress<'_>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    fn json(es: &Es) -> String {
        serde_json::to_string(&es.checkpoint()).unwrap()
    }

    fn assert_same_result(a: &EsResult, b: &EsResult) {
        assert_eq!(bits(&a.best), bits(&b.best));
        assert_eq!(a.best_fitness.to_bits(), b.best_fitness.to_bits());
        assert_eq!(a.generations, b.generations);
        assert_eq!(a.evaluations, b.evaluations);
    }

    fn assert_inside(es: &Es, x: &[f64]) {
        for (i, (&v, &(lo, hi))) in x.iter().zip(&es.bounds().0).enumerate() {
            assert!(
                lo <= v && v <= hi,
                "parameter {i} = {v} outside [{lo}, {hi}]"
            );
        }
    }

    #[test]
    fn defaults_are_the_papers() {
        let c = EsConfig::default();
        assert_eq!((c.mu, c.lambda, c.generations), (15, 105, 100));
        assert_eq!(c.validate(), Ok(()));
    }

    #[test]
    fn learning_rates_follow_beyer_schwefel() {
        let (tau0, tau) = learning_rates(1);
        assert_eq!(tau0, 1.0 / 2f64.sqrt());
        assert_eq!(tau, 1.0 / 2f64.sqrt());
        // n = 4: 1/√8 and 1/√(2·2) = 1/2.
        let (tau0, tau) = learning_rates(4);
        assert_eq!(tau0, 1.0 / 8f64.sqrt());
        assert_eq!(tau, 0.5);
    }

    /// Pins the exact numbers of one generation, so that any change to the
    /// draws (order, distribution, operators) shows; the other assertions
    /// are what must hold whatever the numbers.
    #[test]
    fn one_generation_on_the_toy_sphere() {
        let mut es = Es::new(config(2024, 100), toy_bounds(), &[]).unwrap();
        assert_eq!(es.best(), None);
        let initial = es.population().to_vec();
        assert_eq!(initial.len(), 15);
        for p in &initial {
            assert_inside(&es, &p.params);
            assert_eq!(p.sigmas, vec![0.1, 0.1, 0.5]);
        }
        let initial_best = initial
            .iter()
            .map(|p| sphere(&p.params))
            .fold(f64::INFINITY, f64::min);

        let best = es.step(&sphere).clone();
        assert_eq!(es.generation(), 1);
        assert_eq!(es.evaluations(), 15 + 105);
        assert_eq!(es.population().len(), 15);
        assert!(best.fitness <= initial_best);
        assert_eq!(best.fitness, sphere(&best.params));
        assert_inside(&es, &best.params);
        assert!(es
            .population()
            .windows(2)
            .all(|w| w[0].fitness <= w[1].fitness));

        assert_eq!(bits(&best.params), bits(&PINNED_PARAMS));
        assert_eq!(bits(&best.sigmas), bits(&PINNED_SIGMAS));
        assert_eq!(best.fitness.to_bits(), PINNED_FITNESS.to_bits());
    }

    // Seed 2024, generation 1. The best initial parent has fitness
    // 0.08614585843080967; this offspring is about 0.05, 0.004 and 0.16
    // from the centre: 0.0025 + 0.00002 + 0.026.
    const PINNED_PARAMS: [f64; 3] = [0.24964676149001275, 0.5960892117454246, 1.8383553956116887];
    const PINNED_SIGMAS: [f64; 3] = [
        0.08454607268647231,
        0.16260106209705005,
        0.39540075801839136,
    ];
    const PINNED_FITNESS: f64 = 0.028679721021069457;

    /// Every point ever evaluated is in the box, even with the optimum in a
    /// corner outside it (many reflections), and a fixed parameter stays.
    #[test]
    fn offspring_stay_inside_bounds() {
        let bounds = Bounds(vec![(0.0, 1.0), (0.0, 1.0), (0.0, 5.0), (2.0, 2.0)]);
        let seen = Mutex::new(Vec::new());
        let outside = |x: &[f64]| {
            seen.lock().unwrap().push(x.to_vec());
            (x[0] + 0.5).powi(2) + (x[1] - 1.5).powi(2) + (x[2] - 9.0).powi(2)
        };
        let cfg = EsConfig {
            initial_sigma_fraction: 1.0,
            ..config(5, 30)
        };
        let mut es = Es::new(cfg, bounds, &[]).unwrap();
        let result = es.run(&outside, go_on);
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen.len() as u64, result.evaluations);
        assert_eq!(seen.len(), 15 + 30 * 105);
        for x in &seen {
            assert_inside(&es, x);
            assert_eq!(x[3], 2.0);
        }
        for p in es.population() {
            for (s, &(lo, hi)) in p.sigmas.iter().zip(&es.bounds().0) {
                assert!((hi - lo) * 1e-6 <= *s && *s <= hi - lo);
            }
        }
        // The corner (0, 1, 5) is approached.
        assert!(result.best_fitness < 16.5 + 0.05, "{result:?}");
    }

    #[test]
    fn reflection_mirrors_at_the_bounds() {
        assert_eq!(reflect(0.5, 0.0, 1.0), 0.5);
        assert_eq!(reflect(-0.25, 0.0, 1.0), 0.25);
        assert_eq!(reflect(1.25, 0.0, 1.0), 0.75);
        // Two reflections: -1.75 → 1.75 → 0.25.
        assert_eq!(reflect(-1.75, 0.0, 1.0), 0.25);
        assert_eq!(reflect(2.5, 0.0, 1.0), 0.5);
        assert_eq!(reflect(7.0, 2.0, 2.0), 2.0);
        assert_eq!(reflect(f64::INFINITY, 0.0, 1.0), 1.0);
        let far = reflect(-f64::MAX, -1e300, 1e300);
        assert!((-1e300..=1e300).contains(&far));
    }

    proptest::proptest! {
        #[test]
        fn reflection_lands_inside(x in -1e6f64..1e6, lo in -1e3f64..1e3, width in 0f64..1e3) {
            let hi = lo + width;
            let y = reflect(x, lo, hi);
            proptest::prop_assert!(lo <= y && y <= hi, "{x} -> {y} not in [{lo}, {hi}]");
            if lo <= x && x <= hi {
                proptest::prop_assert_eq!(y, x);
            }
        }
    }

    /// The best fitness so far never gets worse (plus selection), on a
    /// multimodal function where a comma strategy would lose it.
    #[test]
    fn best_never_gets_worse() {
        let rastrigin = |x: &[f64]| {
            x.iter()
                .map(|v| {
                    let d = 4.0 * (v - 0.37);
                    d * d - (2.0 * std::f64::consts::PI * d).cos() + 1.0
                })
                .sum::<f64>()
        };
        let mut es = Es::new(config(3, 40), toy_bounds(), &[]).unwrap();
        let mut bests = Vec::new();
        let mut previous_best: Option<Vec<f64>> = None;
        let result = es.run(&rastrigin, |p| {
            bests.push(p.best_fitness);
            assert_eq!(p.best_fitness, rastrigin(p.best));
            assert_eq!(p.evaluations, 15 + 105 * u64::from(p.generation));
            if let Some(prev) = &previous_best {
                // An old best only leaves for a strictly better one.
                let kept = p.checkpoint().population.iter().any(|i| &i.params == prev);
                assert!(kept || p.best_fitness < rastrigin(prev));
            }
            previous_best = Some(p.best.to_vec());
            ControlFlow::Continue(())
        });
        assert_eq!(bests.len(), 40);
        assert!(bests.windows(2).all(|w| w[1] <= w[0]), "{bests:?}");
        assert_eq!(result.best_fitness, *bests.last().unwrap());
        assert!(!result.stopped_early);
    }

    /// Discrete recombination alone: every object coordinate is some
    /// parent's, each parent is used, and the step sizes are the mean of
    /// two distinct parents'.
    #[test]
    fn recombination_takes_coordinates_from_parents() {
        let (mu, n) = (5, 4);
        // Parent p's coordinate i is 10p + i, its step size i+1 times 2^p:
        // a value names its parent, a mean of two step sizes names the pair.
        let parents: Vec<Individual> = (0..mu)
            .map(|p| Individual {
                params: (0..n).map(|i| (10 * p + i) as f64).collect(),
                sigmas: (0..n)
                    .map(|i| (i + 1) as f64 * f64::from(1u32 << p))
                    .collect(),
                fitness: 0.0,
            })
            .collect();
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut used = vec![vec![0u32; mu]; n];
        let mut pairs = std::collections::BTreeSet::new();
        for _ in 0..2000 {
            let (params, sigmas) = recombine(&parents, &mut rng);
            assert_eq!((params.len(), sigmas.len()), (n, n));
            for (i, &x) in params.iter().enumerate() {
                let p = (x as usize - i) / 10;
                assert!(p < mu && x == (10 * p + i) as f64, "coordinate {i} = {x}");
                used[i][p] += 1;
            }
            // sigma_i / (i+1) = (2^a + 2^b) / 2 for one pair a != b.
            let twice = (2.0 * sigmas[0]) as u32;
            assert_eq!(
                twice.count_ones(),
                2,
                "not two distinct parents: {sigmas:?}"
            );
            for (i, s) in sigmas.iter().enumerate() {
                assert_eq!(*s, sigmas[0] * (i + 1) as f64);
            }
            pairs.insert(twice);
        }
        for counts in &used {
            // 400 expected each.
            assert!(counts.iter().all(|&c| c > 300), "{used:?}");
        }
        assert_eq!(pairs.len(), mu * (mu - 1) / 2);
    }

    #[test]
    fn recombination_with_one_parent_copies_it() {
        let parent = Individual {
            params: vec![0.25, 0.5],
            sigmas: vec![0.125, 0.0625],
            fitness: 1.0,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let (params, sigmas) = recombine(std::slice::from_ref(&parent), &mut rng);
        assert_eq!(params, parent.params);
        assert_eq!(sigmas, parent.sigmas);
    }

    #[test]
    fn converges_on_the_sphere() {
        let mut es = Es::new(config(1, 100), toy_bounds(), &[]).unwrap();
        let result = es.run(&sphere, |p| {
            if p.best_fitness < 1e-6 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert!(result.best_fitness < 1e-6, "{result:?}");
        assert!(result.stopped_early);
        assert!(result.generations < 100);
        assert_eq!(es.generation(), result.generations);
        assert_eq!(result.evaluations, 15 + 105 * u64::from(result.generations));
        for (x, c) in result.best.iter().zip(CENTRE) {
            assert!((x - c).abs() < 1e-3);
        }
    }

    /// Run to the end, the sphere gets down to what the step-size floor
    /// (10⁻⁶ of the range) allows.
    #[test]
    fn converges_to_the_step_size_floor() {
        let mut es = Es::new(config(1, 100), toy_bounds(), &[]).unwrap();
        let result = es.run(&sphere, go_on);
        assert!(result.best_fitness < 1e-12, "{result:?}");
    }

    /// Reflection does not keep the search off the bounds: an optimum in a
    /// corner (0, 1, ·) is approached as closely as one inside.
    #[test]
    fn approaches_an_optimum_on_a_bound() {
        let corner = |x: &[f64]| x[0] * x[0] + (x[1] - 1.0).powi(2) + (x[2] - 2.0).powi(2);
        let mut es = Es::new(config(1, 100), toy_bounds(), &[]).unwrap();
        let result = es.run(&corner, go_on);
        assert!(result.best_fitness < 1e-12, "{result:?}");
    }

    #[test]
    fn stopping_early_leaves_a_resumable_state() {
        let mut es = Es::new(config(9, 10), toy_bounds(), &[]).unwrap();
        let result = es.run(&sphere, |p| {
            if p.generation == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert!(result.stopped_early);
        assert_eq!(result.generations, 3);
        assert_eq!(es.generation(), 3);
        // Breaking at the last generation is not stopping early.
        let mut es = Es::new(config(9, 3), toy_bounds(), &[]).unwrap();
        let result = es.run(&sphere, |_| ControlFlow::Break(()));
        assert_eq!(result.generations, 1);
        assert!(result.stopped_early);
        let result = es.run(&sphere, |p| {
            if p.generation == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(result.generations, 3);
        assert!(!result.stopped_early);
    }

    #[test]
    fn zero_generations_evaluates_the_initial_parents_only() {
        let mut es = Es::new(config(4, 0), toy_bounds(), &[]).unwrap();
        let result = es.run(&sphere, |_| panic!("no generation to report"));
        assert_eq!((result.generations, result.evaluations), (0, 15));
        assert_eq!(result.best_fitness, es.best().unwrap().fitness);
        assert_eq!(result.best_fitness, sphere(&result.best));
    }

    #[test]
    fn same_bits_with_one_and_two_threads() {
        let run_with = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let workers = Mutex::new(std::collections::BTreeSet::new());
            // Slow enough that both workers get evaluations to do.
            let slow_sphere = |x: &[f64]| {
                workers
                    .lock()
                    .unwrap()
                    .insert(rayon::current_thread_index());
                let mut spin = 0u64;
                for k in 0..20_000u64 {
                    spin = std::hint::black_box(spin.wrapping_add(k));
                }
                sphere(x) + (spin as f64) * 0.0
            };
            let (result, state) = pool.install(|| {
                let mut es = Es::new(config(77, 25), toy_bounds(), &[]).unwrap();
                let result = es.run(&slow_sphere, go_on);
                (result, json(&es))
            });
            assert_eq!(workers.into_inner().unwrap().len(), threads);
            (result, state)
        };
        let (one, one_state) = run_with(1);
        let (two, two_state) = run_with(2);
        assert_same_result(&one, &two);
        assert_eq!(one_state, two_state);
    }

    /// Stop mid-run, write the checkpoint to JSON and back, resume: the
    /// same bits as the uninterrupted run, from any generation (0
    /// included), and when a finished run is extended.
    #[test]
    fn resume_is_bit_identical() {
        let mut whole = Es::new(config(31, 12), toy_bounds(), &[vec![0.5, 0.5, 1.0]]).unwrap();
        let expected = whole.run(&sphere, go_on);
        let expected_state = json(&whole);

        for stop_at in [0, 1, 5, 11, 12] {
            let mut first = Es::new(config(31, 12), toy_bounds(), &[vec![0.5, 0.5, 1.0]]).unwrap();
            let mut saved = None;
            if stop_at == 0 {
                saved = Some(serde_json::to_string(&first.checkpoint()).unwrap());
            } else {
                first.run(&sphere, |p| {
                    if p.generation == stop_at {
                        saved = Some(serde_json::to_string_pretty(&p.checkpoint()).unwrap());
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                });
            }
            let checkpoint: Checkpoint = serde_json::from_str(&saved.unwrap()).unwrap();
            assert_eq!(checkpoint.generation, stop_at);
            let mut resumed = Es::resume(config(31, 12), toy_bounds(), checkpoint).unwrap();
            let result = resumed.run(&sphere, go_on);
            assert_same_result(&result, &expected);
            assert_eq!(json(&resumed), expected_state, "stopped at {stop_at}");
        }

        // A 5-generation run extended to 12.
        let mut short = Es::new(config(31, 5), toy_bounds(), &[vec![0.5, 0.5, 1.0]]).unwrap();
        short.run(&sphere, go_on);
        let text = serde_json::to_string(&short.checkpoint()).unwrap();
        let checkpoint = serde_json::from_str(&text).unwrap();
        let mut extended = Es::resume(config(31, 12), toy_bounds(), checkpoint).unwrap();
        assert_same_result(&extended.run(&sphere, go_on), &expected);
    }

    #[test]
    fn a_count_of_evaluations_edited_near_its_end_stays_there() {
        let first = Es::new(config(31, 2), toy_bounds(), &[vec![0.5, 0.5, 1.0]]).unwrap();
        let mut checkpoint = first.checkpoint();
        checkpoint.evaluations = u64::MAX - 1;
        let mut resumed = Es::resume(config(31, 2), toy_bounds(), checkpoint).unwrap();
        assert_eq!(resumed.run(&sphere, go_on).evaluations, u64::MAX);
    }

    #[test]
    fn checkpoint_floats_round_trip_exactly() {
        let mut values = vec![
            // serde_json's default reader returns 0.497297614155548 for it.
            0.49729761415554796,
            1.9602200232702474e-120,
            0.1,
            1.0 / 3.0,
            -0.0,
            0.0,
            5e-324,
            f64::MIN_POSITIVE,
            f64::MAX,
            -f64::MAX,
            1e16,
            1e-7,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let mut rng = ChaCha8Rng::seed_from_u64(99);
        for k in 0..20_000 {
            values.push(if k % 2 == 0 {
                rng.gen::<f64>() * 5.0
            } else {
                f64::from_bits(rng.gen::<u64>())
            });
        }
        let individual = Individual {
            params: values.clone(),
            sigmas: values.iter().rev().copied().collect(),
            fitness: f64::NAN,
        };
        let text = serde_json::to_string(&individual).unwrap();
        let back: Individual = serde_json::from_str(&text).unwrap();
        // NaN payloads may differ, the rest must not.
        let canon = |v: &[f64]| {
            v.iter()
                .map(|x| {
                    if x.is_nan() {
                        f64::NAN.to_bits()
                    } else {
                        x.to_bits()
                    }
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(canon(&back.params), canon(&individual.params));
        assert_eq!(canon(&back.sigmas), canon(&individual.sigmas));
        assert!(back.fitness.is_nan());
        assert!(text
            .starts_with(r#"{"params":["0.49729761415554796","1.9602200232702474e-120","0.1","#));

        let bounds: Bounds =
            serde_json::from_str(&serde_json::to_string(&toy_bounds()).unwrap()).unwrap();
        assert_eq!(bounds, toy_bounds());
        assert_eq!(
            serde_json::to_string(&toy_bounds()).unwrap(),
            r#"[["0.0","1.0"],["0.0","1.0"],["0.0","5.0"]]"#
        );
        let bad: Result<Individual, _> =
            serde_json::from_str(r#"{"params":["zero"],"sigmas":[],"fitness":"1"}"#);
        assert!(bad
            .unwrap_err()
            .to_string()
            .contains("`zero` is not a number"));
    }

    #[test]
    fn nan_ranks_after_every_number() {
        let mut v = [
            f64::NAN,
            1.0,
            f64::NEG_INFINITY,
            -f64::NAN,
            f64::INFINITY,
            0.0,
            -0.0,
        ];
        v.sort_by(|a, b| fitness_order(*a, *b));
        assert_eq!(v[0], f64::NEG_INFINITY);
        // -0.0 and 0.0 tie, so the stable sort keeps their order.
        assert_eq!(v[1].to_bits(), 0.0f64.to_bits());
        assert_eq!(v[2].to_bits(), (-0.0f64).to_bits());
        assert_eq!(&v[3..5], &[1.0, f64::INFINITY]);
        assert!(v[5].is_nan() && v[6].is_nan());
    }

    /// A fitness that fails (NaN, odd payloads) over half the box: the run
    /// goes on, NaNs never beat a number, and they are stored canonical.
    #[test]
    fn nan_fitness_is_worst() {
        let odd_nan = f64::from_bits(0xfff8_0000_dead_beef);
        let failing = |x: &[f64]| if x[0] > 0.5 { odd_nan } else { sphere(x) };
        let mut es = Es::new(config(8, 15), toy_bounds(), &[]).unwrap();
        let result = es.run(&failing, go_on);
        assert!(result.best[0] <= 0.5);
        assert!(!result.best_fitness.is_nan());
        let population = es.population();
        let first_nan = population
            .iter()
            .position(|p| p.fitness.is_nan())
            .unwrap_or(population.len());
        assert!(population[first_nan..]
            .iter()
            .all(|p| p.fitness.to_bits() == f64::NAN.to_bits()));
        assert!(population[..first_nan].iter().all(|p| p.params[0] <= 0.5));

        let mut all_nan = Es::new(config(8, 3), toy_bounds(), &[]).unwrap();
        let result = all_nan.run(&|_: &[f64]| f64::NAN, go_on);
        assert!(result.best_fitness.is_nan());
        assert_eq!(result.generations, 3);
    }

    /// All ties: the parents stay, in their order, against every offspring.
    #[test]
    fn ties_keep_the_parents() {
        let flat = |_: &[f64]| 1.0;
        let mut es = Es::new(config(12, 5), toy_bounds(), &[]).unwrap();
        let initial = es.population().to_vec();
        es.run(&flat, go_on);
        let params: Vec<_> = es.population().iter().map(|p| p.params.clone()).collect();
        let initial: Vec<_> = initial.into_iter().map(|p| p.params).collect();
        assert_eq!(params, initial);
    }

    #[test]
    fn start_points_are_parents() {
        let optimum = CENTRE.to_vec();
        let mut es = Es::new(
            config(6, 3),
            toy_bounds(),
            &[vec![1.0, 1.0, 5.0], optimum.clone()],
        )
        .unwrap();
        assert_eq!(es.population()[0].params, vec![1.0, 1.0, 5.0]);
        assert_eq!(es.population()[1].params, optimum);
        let result = es.run(&sphere, go_on);
        // Nothing beats 0, and ties keep the parent.
        assert_eq!(result.best, optimum);
        assert_eq!(result.best_fitness, 0.0);

        // More start points than mu: all evaluated, the best mu kept.
        let many: Vec<Vec<f64>> = (0..20)
            .map(|k| vec![0.3, 0.6, f64::from(k) * 0.25])
            .collect();
        let mut es = Es::new(config(6, 1), toy_bounds(), &many).unwrap();
        assert_eq!(es.population().len(), 20);
        let result = es.run(&sphere, go_on);
        assert_eq!(result.evaluations, 20 + 105);
        assert_eq!(es.population().len(), 15);
        assert!(result.best_fitness <= 0.0);
    }

    #[test]
    fn bad_config_is_an_error() {
        let bounds = toy_bounds;
        let with = |f: fn(&mut EsConfig)| {
            let mut c = EsConfig::default();
            f(&mut c);
            Es::new(c, bounds(), &[]).unwrap_err()
        };
        assert_eq!(with(|c| c.mu = 0), EsError::ZeroMu);
        assert_eq!(with(|c| c.lambda = 0), EsError::ZeroLambda);
        // Out of reach: an error, not an allocation that aborts.
        assert_eq!(
            with(|c| c.lambda = 100_000_000_000),
            EsError::TooLarge {
                mu: 15,
                lambda: 100_000_000_000
            }
        );
        assert_eq!(
            with(|c| c.mu = usize::MAX),
            EsError::TooLarge {
                mu: usize::MAX,
                lambda: 105
            }
        );
        assert_eq!(
            with(|c| c.initial_sigma_fraction = 0.0),
            EsError::InitialSigmaFraction(0.0)
        );
        assert_eq!(
            with(|c| c.initial_sigma_fraction = 1.5),
            EsError::InitialSigmaFraction(1.5)
        );
        assert!(matches!(
            with(|c| c.initial_sigma_fraction = f64::NAN),
            EsError::InitialSigmaFraction(_)
        ));
        assert!(matches!(
            with(|c| c.min_sigma_fraction = 0.0),
            EsError::MinSigmaFraction { .. }
        ));
        assert!(matches!(
            with(|c| c.min_sigma_fraction = 0.2),
            EsError::MinSigmaFraction { .. }
        ));
        assert!(matches!(
            with(|c| c.min_sigma_fraction = f64::NAN),
            EsError::MinSigmaFraction { .. }
        ));
        assert_eq!(
            with(|c| c.lambda = 0).to_string(),
            "lambda (offspring per generation) must be at least 1"
        );
        // lambda < mu is a legal plus strategy; mu = lambda = 1 is (1+1).
        assert!(Es::new(
            EsConfig {
                mu: 1,
                lambda: 1,
                ..EsConfig::default()
            },
            bounds(),
            &[]
        )
        .is_ok());
    }

    #[test]
    fn bad_bounds_are_an_error() {
        let new = |b: Vec<(f64, f64)>| Es::new(EsConfig::default(), Bounds(b), &[]).unwrap_err();
        assert_eq!(new(vec![]), EsError::NoParameters);
        assert_eq!(
            new(vec![(0.0, 1.0), (1.0, 0.0)]),
            EsError::InvertedBound {
                index: 1,
                lo: 1.0,
                hi: 0.0
            }
        );
        assert!(matches!(
            new(vec![(f64::NAN, 1.0)]),
            EsError::NonFiniteBound { index: 0, .. }
        ));
        assert!(matches!(
            new(vec![(0.0, f64::INFINITY)]),
            EsError::NonFiniteBound { index: 0, .. }
        ));
        assert!(matches!(
            new(vec![(-f64::MAX, f64::MAX)]),
            EsError::RangeTooWide { index: 0, .. }
        ));
        assert_eq!(
            new(vec![(0.0, 1.0), (1.0, 0.0)]).to_string(),
            "parameter 1: lower bound 1 is above upper bound 0"
        );
    }

    #[test]
    fn bad_start_points_are_an_error() {
        let new = |p: Vec<f64>| {
            Es::new(EsConfig::default(), toy_bounds(), &[CENTRE.to_vec(), p]).unwrap_err()
        };
        assert_eq!(
            new(vec![0.5, 0.5]),
            EsError::StartPointLength {
                point: 1,
                len: 2,
                expected: 3
            }
        );
        assert_eq!(
            new(vec![0.5, 0.5, 5.5]),
            EsError::StartPointOutOfBounds {
                point: 1,
                index: 2,
                value: 5.5,
                lo: 0.0,
                hi: 5.0
            }
        );
        assert!(matches!(
            new(vec![f64::NAN, 0.5, 1.0]),
            EsError::StartPointOutOfBounds { index: 0, .. }
        ));
        assert_eq!(
            new(vec![0.5, 0.5]).to_string(),
            "start point 1 has 2 values, but there are 3 parameters"
        );
    }

    #[test]
    fn mismatched_checkpoint_is_an_error() {
        let mut es = Es::new(config(1, 2), toy_bounds(), &[]).unwrap();
        es.run(&sphere, go_on);
        let good = es.checkpoint();
        let resume = |config: EsConfig, bounds: Bounds, c: Checkpoint| {
            Es::resume(config, bounds, c).map(|_| ())
        };
        assert_eq!(resume(config(1, 2), toy_bounds(), good.clone()), Ok(()));

        let e = resume(config(2, 2), toy_bounds(), good.clone()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "checkpoint was made with seed = 1, but this run has seed = 2"
        );
        let base = config(1, 2);
        let changed = [
            (
                EsConfig {
                    mu: 10,
                    ..base.clone()
                },
                "mu",
            ),
            (
                EsConfig {
                    lambda: 10,
                    ..base.clone()
                },
                "lambda",
            ),
            (
                EsConfig {
                    initial_sigma_fraction: 0.2,
                    ..base.clone()
                },
                "initial_sigma_fraction",
            ),
            (
                EsConfig {
                    min_sigma_fraction: 1e-7,
                    ..base.clone()
                },
                "min_sigma_fraction",
            ),
        ];
        for (config, name) in changed {
            let e = resume(config, toy_bounds(), good.clone()).unwrap_err();
            assert!(
                matches!(e, EsError::CheckpointConfig { field, .. } if field == name),
                "{name}: {e}"
            );
        }
        let other = EsConfig {
            problem: "another".into(),
            ..base.clone()
        };
        assert_eq!(
            resume(other, toy_bounds(), good.clone()),
            Err(EsError::CheckpointProblem {
                checkpoint: String::new(),
                expected: "another".into()
            })
        );

        let four = Bounds(vec![(0.0, 1.0), (0.0, 1.0), (0.0, 5.0), (0.0, 1.0)]);
        let e = resume(config(1, 2), four, good.clone()).unwrap_err();
        assert_eq!(
            e,
            EsError::CheckpointDimension {
                checkpoint: 3,
                expected: 4
            }
        );
        let wider = Bounds(vec![(0.0, 1.0), (0.0, 1.0), (0.0, 6.0)]);
        let e = resume(config(1, 2), wider, good.clone()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "checkpoint has parameter 2 in [0, 5], but this run has it in [0, 6]"
        );
        // A bad config is refused before the checkpoint is looked at.
        let e = resume(
            EsConfig {
                mu: 0,
                ..config(1, 2)
            },
            toy_bounds(),
            good.clone(),
        )
        .unwrap_err();
        assert_eq!(e, EsError::ZeroMu);

        let broken = |f: fn(&mut Checkpoint)| {
            let mut c = good.clone();
            f(&mut c);
            resume(config(1, 2), toy_bounds(), c).unwrap_err()
        };
        assert_eq!(
            broken(|c| c.version = 0),
            EsError::CheckpointVersion {
                found: 0,
                expected: CHECKPOINT_VERSION
            }
        );
        assert!(matches!(
            broken(|c| {
                c.population.pop();
            }),
            EsError::CorruptCheckpoint(_)
        ));
        assert!(matches!(
            broken(|c| c.population[3].params[1] = 1.5),
            EsError::CorruptCheckpoint(_)
        ));
        assert!(matches!(
            broken(|c| c.population[3].params.push(0.5)),
            EsError::CorruptCheckpoint(_)
        ));
        assert!(matches!(
            broken(|c| c.population[3].sigmas[0] = 0.0),
            EsError::CorruptCheckpoint(_)
        ));
        assert!(matches!(
            broken(|c| c.population.swap(0, 14)),
            EsError::CorruptCheckpoint(_)
        ));
        assert!(matches!(
            broken(|c| c.evaluated = false),
            EsError::CorruptCheckpoint(_)
        ));
        let e = broken(|c| c.population[3].params[1] = 1.5);
        assert_eq!(
            e.to_string(),
            "checkpoint is inconsistent: individual 3: parameter 1 is 1.5, outside [0, 1]"
        );
    }
}
