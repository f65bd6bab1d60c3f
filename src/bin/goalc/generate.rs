//! `goalc generate`: a workload of the built-in model as SWF.

use crate::CliError;
use clap::Args;
use goalc::run::RunError;
use goalc::workload::model::{self, ModelParams};
use goalc::workload::swf;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Number of jobs
    #[arg(long, default_value_t = ModelParams::default().jobs)]
    pub jobs: usize,
    /// Processors of the machine
    #[arg(long, default_value_t = ModelParams::default().procs)]
    pub procs: u32,
    /// Random seed
    #[arg(long, default_value_t = ModelParams::default().seed)]
    pub seed: u64,
    /// Widest job: job sizes of a machine this wide, on the bigger machine
    /// of --procs (a grid or capacity machine: thousands of narrow jobs at once)
    #[arg(long)]
    pub widest: Option<u32>,
    /// N users, Zipf-active, repeating their jobs' sizes; 0: none (user
    /// -1), as the published model. The jobs are the same either way
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub users: u32,
    /// Output file (standard output when absent or `-`)
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

pub fn run(args: GenerateArgs) -> Result<(), CliError> {
    let w = model::generate(&ModelParams {
        jobs: args.jobs,
        procs: args.procs,
        seed: args.seed,
        widest: args.widest,
        users: Some(args.users).filter(|&u| u > 0),
    })
    .map_err(RunError::from)?;
    match args.output.as_ref().filter(|p| p.as_os_str() != "-") {
        Some(path) => {
            let file = std::fs::File::create(path).map_err(CliError::write(path))?;
            let mut out = std::io::BufWriter::new(file);
            swf::write_workload(&mut out, &w).map_err(CliError::write(path))?;
            out.flush().map_err(CliError::write(path))
        }
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            crate::stdout_written(swf::write_workload(&mut out, &w).and_then(|()| out.flush()))
        }
    }
}
