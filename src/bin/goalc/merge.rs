//! `goalc merge`: shard stores of one suite united into one store.

use crate::CliError;
use clap::Args;
use goalc::store::merge::{merge, warnings, Input};
use goalc::store::write_atomically;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The stores to unite (the shards of one suite, same goalc version)
    #[arg(required = true)]
    pub stores: Vec<PathBuf>,
    /// The united store, sorted by cell key (written whole, then renamed)
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

pub fn run(args: MergeArgs) -> Result<(), CliError> {
    goalc::store::replaceable(&args.out)?;
    // A store merged into itself would lose what merging drops (a torn
    // line, unknown keys, a record held twice).
    let stores = args.stores.iter().map(|s| ("the store", s.as_path()));
    crate::same_file::refuse_input_as_output("--out", &args.out, stores)?;
    let mut read = Vec::new();
    for path in &args.stores {
        let contents = crate::read_store(path, "shard")?;
        read.push((path.display().to_string(), contents));
    }
    let inputs: Vec<Input> = read
        .iter()
        .map(|(name, contents)| Input { name, contents })
        .collect();
    let records = merge(&inputs)?;
    let text: String = records.iter().map(|r| r.to_line()).collect();
    write_atomically(&args.out, text.as_bytes())?;
    say!(
        "merged {} records from {} stores into {}",
        records.len(),
        args.stores.len(),
        args.out.display()
    );
    if records.is_empty() {
        say!(
            "goalc: warning: no store held a record; {} is empty",
            args.out.display()
        );
    }
    for note in warnings(&args.out.display().to_string(), &records) {
        say!("goalc: warning: {note}");
    }
    Ok(())
}
