//! `goalc train`: GREEDY's criteria trained by a (mu+lambda) evolution
//! strategy on recorded workloads, written back as a goal file.

use crate::args::WorkloadArgs;
use crate::same_file::same_file;
use crate::CliError;
use clap::Args;
use goalc::lang::{check_template, Template};
use goalc::train::greedy::GreedyTraining;
use goalc::train::{Bounds, Checkpoint, Es, EsConfig, EsError};
use std::io::{IsTerminal, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// A goal template: groups, an owner objective and a criterion per
    /// situation (parameters optional: given ones are a start point)
    pub template: PathBuf,
    /// SWF traces to train on (.swf or .swf.gz); several train one goal for
    /// the sum of their objectives; without one, the built-in workload model
    pub traces: Vec<PathBuf>,
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Where to write the trained goal file
    #[arg(long, short)]
    pub out: PathBuf,
    /// Parents per generation (mu)
    #[arg(long, default_value_t = 15, value_parser = crate::args::parse_count)]
    pub mu: usize,
    /// Offspring per generation (lambda)
    #[arg(long, default_value_t = 105, value_parser = crate::args::parse_count)]
    pub lambda: usize,
    /// Generations
    #[arg(long, default_value_t = 100)]
    pub generations: u32,
    /// Seed of the strategy's random numbers (same seed, same result,
    /// whatever the number of threads)
    #[arg(long, default_value_t = 1)]
    pub train_seed: u64,
    /// Save the strategy's state here after every generation, to resume a
    /// long run with --resume
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Resume from --checkpoint (same template, traces and settings; the
    /// number of generations may grow)
    #[arg(long, requires = "checkpoint")]
    pub resume: bool,
}

pub fn run(args: TrainArgs) -> Result<(), CliError> {
    // Each is written over while training: none may be another's file.
    let files = [
        ("the template", Some(args.template.as_path())),
        ("-o", Some(args.out.as_path())),
        ("--checkpoint", args.checkpoint.as_deref()),
    ];
    for (i, (a, pa)) in files.iter().enumerate() {
        for (b, pb) in &files[i + 1..] {
            if let (Some(pa), Some(pb)) = (pa, pb) {
                if same_file(pa, pb) {
                    return Err(CliError::Usage(format!(
                        "{a} and {b} are the same file, `{}`: training writes over {b}",
                        pb.display()
                    )));
                }
            }
        }
    }
    // A training trace is read, then written over at the end: refused too.
    for trace in &args.traces {
        for (b, pb) in &files[1..] {
            if pb.is_some_and(|pb| same_file(trace, pb)) {
                return Err(CliError::Usage(format!(
                    "the trace `{}` and {b} are the same file: training writes over {b}",
                    trace.display()
                )));
            }
        }
    }
    // Found out now, not after hours of training.
    writable(&args.out)?;
    if let Some(path) = &args.checkpoint {
        goalc::store::replaceable(path)?;
        writable(path)?;
    }
    let text = goalc::lang::read_goal_file(&args.template)
        .and_then(|b| {
            String::from_utf8(b)
                .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
        })
        .map_err(|e| CliError::Usage(format!("{}: {e}", args.template.display())))?;
    let file = args.template.display().to_string();
    let template: Template = match check_template(&file, &text) {
        Ok(t) => t,
        Err(checked) => {
            let _ = write!(
                std::io::stderr(),
                "{}",
                checked.render(std::io::stderr().is_terminal())
            );
            return Err(CliError::GoalErrors(format!(
                "{file}: not a template to train"
            )));
        }
    };
    let plan = args.workload.plan();
    args.workload.check_pairs(&plan).map_err(CliError::Usage)?;
    if let Some(unused) = args
        .workload
        .unused_model_options(!args.traces.is_empty(), &[])
    {
        say!("goalc: warning: {unused}");
    }
    let workloads = plan.workloads(&args.traces)?;
    let training = GreedyTraining::new(
        template.greedy.families,
        template.groups.clone(),
        template.owner.clone(),
        &workloads,
    )
    .map_err(|e| CliError::Run(e.into()))?;
    let config = EsConfig {
        mu: args.mu,
        lambda: args.lambda,
        generations: args.generations,
        seed: args.train_seed,
        problem: training.problem(),
        ..EsConfig::default()
    };
    let bounds: Bounds = training.bounds();
    let es_error = |e: EsError| CliError::Usage(e.to_string());
    let mut es = if args.resume {
        let path = args.checkpoint.as_deref().expect("clap requires it");
        let checkpoint = read_checkpoint(path)?;
        if let Some((i, p)) = checkpoint
            .population
            .iter()
            .enumerate()
            .find(|(_, p)| !GreedyTraining::possible_fitness(p.fitness))
        {
            return Err(CliError::Usage(format!(
                "{}: parent {} has fitness {}, which no schedule gives (an owner objective is \
                 finite): the checkpoint was edited; start afresh without --resume",
                path.display(),
                i + 1,
                p.fitness
            )));
        }
        Es::resume(config, bounds, checkpoint).map_err(|e| match e {
            EsError::CheckpointProblem { .. } => CliError::Usage(format!(
                "{}: this checkpoint trained another template, other traces or other workload settings; resume with those, or start afresh without --resume",
                path.display()
            )),
            e => es_error(e),
        })?
    } else {
        let starts: Vec<Vec<f64>> = template
            .greedy
            .criteria
            .as_ref()
            .map(|c| vec![GreedyTraining::vector(c)])
            .unwrap_or_default();
        Es::new(config, bounds, &starts).map_err(es_error)?
    };
    // Said once training is sure to start, not before a refusal: the
    // template's groups are all one group then, as bench notes.
    for w in workloads.iter().filter(|w| goalc::run::notes::one_user(w)) {
        say!(
            "goalc: note: workload `{}`: {}",
            w.name,
            goalc::run::notes::one_group()
        );
    }
    let interactive = std::io::stderr().is_terminal();
    let bar = crate::progress(
        u64::from(args.generations),
        "{bar:40} generation {pos}/{len} {msg} {elapsed} (eta {eta})",
    );
    bar.set_position(u64::from(es.generation()));
    let mut saved: Result<(), CliError> = Ok(());
    let fitness = |x: &[f64]| training.fitness(x);
    let result = es.run(&fitness, |p| {
        bar.set_position(u64::from(p.generation));
        bar.set_message(format!("best {:.0}", p.best_fitness));
        if !interactive {
            // A log (a batch job, CI) gets a line per generation instead.
            say!(
                "goalc train: generation {}/{}: best {:.0} after {} evaluations",
                p.generation,
                p.generations,
                p.best_fitness,
                p.evaluations
            );
        }
        if let Some(path) = &args.checkpoint {
            if let Err(e) = write_checkpoint(path, &p.checkpoint()) {
                saved = Err(e);
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    bar.finish_and_clear();
    saved?;
    let objectives = training.objectives(&result.best);
    let traces: Vec<String> = workloads
        .iter()
        .zip(&objectives)
        .map(|(w, o)| {
            format!(
                "  {} ({} jobs, {} processors): objective {o:.0}",
                w.name,
                w.jobs.len(),
                w.procs
            )
        })
        .collect();
    let name = format!(
        "{} (trained)",
        template
            .name
            .as_deref()
            .unwrap_or("GREEDY")
            .replace('"', "")
    );
    let mut comments = vec![
        format!(
            "GREEDY criteria trained by `goalc train` from {} with a ({}+{})-ES,",
            file, args.mu, args.lambda
        ),
        format!(
            "seed {}, {} generations, {} evaluations; owner objective on the training",
            args.train_seed, result.generations, result.evaluations
        ),
        "workloads (each with its own user groups):".to_string(),
    ];
    comments.extend(traces);
    let text = training.goal_text(&name, &result.best, &comments);
    // What is written must be a goal that runs as trained.
    let checked = goalc::lang::check_text(&args.out.display().to_string(), &text);
    if checked.has_errors() {
        return Err(CliError::Usage(format!(
            "the trained goal does not check (a bug):\n{}",
            checked.render(false)
        )));
    }
    std::fs::write(&args.out, &text).map_err(CliError::write(&args.out))?;
    say!(
        "goalc: wrote {} (objective {:.0}{})",
        args.out.display(),
        result.best_fitness,
        if result.stopped_early {
            ", stopped early"
        } else {
            ""
        }
    );
    Ok(())
}

fn read_checkpoint(path: &Path) -> Result<Checkpoint, CliError> {
    let text = goalc::workload::input::read_whole(path)
        .map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
    serde_json::from_slice(&text)
        .map_err(|e| CliError::Usage(format!("{}: not a checkpoint: {e}", path.display())))
}

/// Whether `path` can be written: opened to append (so nothing in it
/// changes) and, if that made it, removed again: the file made, where a
/// symbolic link `path` points, not the link.
fn writable(path: &Path) -> Result<(), CliError> {
    if path.is_dir() {
        return Err(CliError::Usage(format!(
            "{}: a folder, not a file to write",
            path.display()
        )));
    }
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(CliError::write(path))?;
    if !existed {
        let made = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let _ = std::fs::remove_file(made);
    }
    Ok(())
}

/// Writes the checkpoint beside its place and renames it there, so a run
/// stopped while writing leaves the last whole one.
fn write_checkpoint(path: &Path, c: &Checkpoint) -> Result<(), CliError> {
    let json = serde_json::to_string(c).map_err(|e| CliError::Usage(e.to_string()))?;
    Ok(goalc::store::write_atomically(path, json.as_bytes())?)
}
