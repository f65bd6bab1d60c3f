//! Reports of a result store: the tables and the data behind every plot
//! of a small suite pinned as snapshots, every plot rendered to PNG (a
//! broken SVG fails), the diff of two stores, and a damaged store named
//! by file and line.
//!
//! Every PNG is left in target/results-png/ to look at;
//! `GOALC_WRITE_PICTURES=1 cargo test --release --test results` also
//! writes the README's example pictures (docs/*.png).

use goalc::report::Format;
use goalc::results::{diff, plots, tables};
use goalc::store::{Record, Store};
mod common;

use common::Scratch;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// A suite of 16 cells on the built-in model: EASY, conservative and a
/// DDS search goal at two node budgets, at two loads and in two windows.
const SUITE: &str = r#"
goals = [
    "../goals/easy.goal",
    "../goals/conservative.goal",
    "../goals/strict-lexical-tw-avgx-dds-fcfs.goal",
]

[[trace]]
model = { jobs = 400, procs = 32 }

[workload]
load_by = "arrivals"

[axes]
loads = [0.7, 0.9]
budgets = [50, 200]
seeds = [3]
windows = ["0d..4d", "4d..8d"]
"#;

fn temp_dir(name: &str) -> Scratch {
    Scratch::folder(&format!("goalc-results-{name}-"))
}

/// The suite run once through the library, its store read back.
fn fixture() -> &'static (String, Vec<Record>) {
    static STORE: OnceLock<(String, Vec<Record>)> = OnceLock::new();
    STORE.get_or_init(|| {
        let suites = Path::new(env!("CARGO_MANIFEST_DIR")).join("suites");
        let checked = goalc::suite::check_text("fixture.toml", SUITE, &suites, None);
        assert!(!checked.has_errors(), "{}", checked.render(false));
        let suite = checked.suite.unwrap();
        let layout = goalc::suite::Layout::of(&suite).unwrap();
        let dir = temp_dir("fixture");
        let path = dir.join("fixture.jsonl");
        goalc::suite::run(&suite, &layout, goalc::suite::Shard::WHOLE, &path, &|| ()).unwrap();
        let records = Store::read(&path).unwrap().records;
        assert_eq!(records.len(), 16);
        (std::fs::read_to_string(&path).unwrap(), records)
    })
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots/results");
    s.set_prepend_module_to_snapshot(false);
    s
}

#[test]
fn markdown_report_is_pinned() {
    let (_, records) = fixture();
    let md = tables::render(records, Format::Markdown, &[]);
    // One table per load and window, the search goal at both budgets in it.
    assert_eq!(md.matches("\n### ").count(), 4, "{md}");
    settings().bind(|| insta::assert_snapshot!("report_markdown", md));
}

#[test]
fn chosen_measures_only_in_table_and_csv() {
    let (_, records) = fixture();
    let only = ["avg_wait_s", "max_wait_s"];
    let csv = tables::render(records, Format::Csv, &only);
    let header = csv.lines().next().unwrap();
    assert_eq!(
        header,
        "trace,load,load_by,window,budget,seed,goal,policy,avg_wait_s,max_wait_s"
    );
    assert_eq!(csv.lines().count(), 17);
    let table = tables::render(records, Format::Table, &only);
    assert!(!table.contains("avg_slowdown") && !table.contains("search cost"));
    settings().bind(|| insta::assert_snapshot!("report_csv_two_measures", csv));
}

#[test]
fn plot_data_is_pinned() {
    let (_, records) = fixture();
    let plan = plots::plan(records, plots::DEFAULT_MEASURES, plots::DEFAULT_SCATTERS);
    let files: Vec<&str> = plan.plots.iter().map(|p| p.file.as_str()).collect();
    assert_eq!(
        files,
        [
            "load-avg_wait_s.svg",
            "load-avg_slowdown.svg",
            "windows-avg_wait_s.svg",
            "windows-avg_slowdown.svg",
            "budget-search.svg",
            "scatter-max_wait_s-avg_slowdown.svg",
        ]
    );
    // EASY is marked in every plot it is in.
    for p in &plan.plots {
        if p.file != "budget-search.svg" {
            assert_eq!(p.series.iter().filter(|s| s.easy).count(), 1, "{}", p.file);
        }
    }
    let mut text: String = plan.plots.iter().map(plots::describe).collect();
    for s in &plan.skipped {
        text += &format!("skipped: {s}\n");
    }
    settings().bind(|| insta::assert_snapshot!("plot_data", text));
}

/// Non-background pixels of a PNG rendering of `svg`, and the rendering;
/// with the system's fonts (DejaVu where installed), or none (text left
/// out, shapes only).
fn render(svg: &str, fonts: bool) -> (usize, resvg::tiny_skia::Pixmap) {
    let mut opt = resvg::usvg::Options::default();
    if fonts {
        opt.fontdb_mut().load_system_fonts();
        opt.fontdb_mut().set_sans_serif_family("DejaVu Sans");
    }
    let tree = resvg::usvg::Tree::from_str(svg, &opt).expect("the SVG parses");
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    let inked = pixmap
        .pixels()
        .iter()
        .filter(|p| (p.red(), p.green(), p.blue()) != (255, 255, 255))
        .count();
    (inked, pixmap)
}

#[test]
fn every_plot_renders_to_png() {
    let (_, records) = fixture();
    let plan = plots::plan(records, plots::DEFAULT_MEASURES, plots::DEFAULT_SCATTERS);
    let write = std::env::var_os("GOALC_WRITE_PICTURES").is_some();
    let look = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/results-png");
    std::fs::create_dir_all(&look).unwrap();
    for p in &plan.plots {
        let svg = plots::svg(p).unwrap();
        // The shapes alone, so the test holds on a machine without fonts.
        let (inked, pixmap) = render(&svg, false);
        let total = (pixmap.width() * pixmap.height()) as usize;
        // Axes, grid, lines, bars, markers and legend: well over 1% of an
        // 800x500 image; an empty or broken drawing is white.
        assert!(
            inked * 100 > total,
            "{}: only {inked} of {total} pixels drawn",
            p.file
        );
        // The first series' colour (Tableau blue) is drawn beyond its
        // legend's swatch: the data itself is on the picture.
        let blue = pixmap
            .pixels()
            .iter()
            .filter(|p| (p.red(), p.green(), p.blue()) == (31, 119, 180))
            .count();
        // The swatch is 17x11 pixels for lines and bars, a 5-pixel circle
        // for points; the data at least one more 6-pixel point.
        let swatch = if p.kind == plots::Kind::Scatter {
            80
        } else {
            190
        };
        assert!(blue > swatch + 80, "{}: {blue} pixels of data", p.file);
        let (_, pixmap) = render(&svg, true);
        pixmap
            .save_png(look.join(p.file.replace(".svg", ".png")))
            .unwrap();
        if write
            && matches!(
                p.file.as_str(),
                "load-avg_wait_s.svg" | "scatter-max_wait_s-avg_slowdown.svg"
            )
        {
            let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
            std::fs::create_dir_all(&docs).unwrap();
            pixmap
                .save_png(docs.join(p.file.replace(".svg", ".png")))
                .unwrap();
        }
    }
}

#[test]
fn same_store_same_bytes_whatever_the_line_order() {
    let (_, records) = fixture();
    let mut reversed = records.clone();
    reversed.reverse();
    for f in [Format::Table, Format::Markdown, Format::Csv, Format::Json] {
        assert_eq!(
            tables::render(records, f, &[]),
            tables::render(&reversed, f, &[])
        );
    }
    let svgs = |r: &[Record]| -> Vec<String> {
        plots::plan(r, plots::DEFAULT_MEASURES, plots::DEFAULT_SCATTERS)
            .plots
            .iter()
            .map(|p| plots::svg(p).unwrap())
            .collect()
    };
    assert_eq!(svgs(records), svgs(&reversed));
}

#[test]
fn plots_are_written_where_asked() {
    let (_, records) = fixture();
    let dir = temp_dir("plots");
    let written = plots::write_all(records, &dir.join("out")).unwrap();
    assert_eq!(written.len(), 6);
    for f in &written {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    }
}

#[test]
fn diff_of_a_store_with_itself_says_nothing_moved() {
    let (_, records) = fixture();
    let d = diff::diff(records, records, 0.0);
    assert_eq!(
        (d.matched, d.moved.len(), d.added.len(), d.removed.len()),
        (16, 0, 0, 0)
    );
    let md = diff::markdown(&d, "a.jsonl", "b.jsonl", 0.0);
    assert_eq!(
        md,
        "### Result store diff: `a.jsonl` → `b.jsonl`\n\n\
         Nothing moved: 16 cells matched, none added or removed (threshold 0%).\n"
    );
}

/// The fixture after a change: EASY's average wait 10% up at load 0.9 in
/// the first window, its goal file edited; conservative's max wait 0.5%
/// down there; one DDS cell gone and one new cell.
fn changed() -> (Vec<Record>, Vec<Record>) {
    let (_, records) = fixture();
    let before = records.clone();
    let mut after = Vec::new();
    for r in records {
        let mut r = r.clone();
        let here = r.axes.load == Some(0.9) && r.axes.window.as_deref() == Some("0d..4d");
        if here && r.goal == "EASY" {
            r.report.measures.avg_wait *= 1.1;
            r.goal_hash = "edited".into();
        }
        if here && r.goal == "Conservative" {
            r.report.measures.max_wait = (r.report.measures.max_wait as f64 * 0.995) as i64;
        }
        if here && r.axes.budget == Some(50) {
            continue;
        }
        after.push(r);
    }
    // The store's lines come in the order cells finished: take the first
    // in the records' own order, not the first line.
    let mut new = (*goalc::results::sorted(&after)[0]).clone();
    new.goal = "New goal".into();
    after.push(new);
    (before, after)
}

#[test]
fn diff_shows_moved_added_and_removed_cells() {
    let (before, after) = changed();
    let d = diff::diff(&before, &after, 0.0);
    assert_eq!((d.matched, d.added.len(), d.removed.len()), (15, 1, 1));
    let moved: Vec<(&str, Vec<&str>)> = d
        .moved
        .iter()
        .map(|m| {
            (
                m.after.goal.as_str(),
                m.moves.iter().map(|v| v.measure).collect(),
            )
        })
        .collect();
    // Only the measures changed moved: no other column reads them.
    assert_eq!(
        moved,
        [
            ("Conservative", vec!["max_wait_s"]),
            ("EASY", vec!["avg_wait_s"])
        ]
    );
    let easy = &d.moved[1].moves[0];
    assert_eq!(easy.better, Some(false));
    assert!((easy.pct.unwrap() - 10.0).abs() < 0.01, "{easy:?}");
    let md = diff::markdown(&d, "before.jsonl", "after.jsonl", 0.0);
    assert!(md.contains("| EASY (goal file changed) |"), "{md}");
    settings().bind(|| insta::assert_snapshot!("diff_markdown", md));

    // A threshold of 1% leaves out conservative's 0.5%.
    let d = diff::diff(&before, &after, 1.0);
    assert_eq!(d.moved.len(), 1);
    assert_eq!(d.moved[0].after.goal, "EASY");

    // A measure that was 0 moved from 0: it is not new.
    let mut from_zero = before.clone();
    for r in &mut from_zero {
        r.report.measures.avg_wait = 0.0;
    }
    let d = diff::diff(&from_zero, &before, 0.0);
    let md = diff::markdown(&d, "before.jsonl", "after.jsonl", 0.0);
    assert!(
        md.contains("| avg_wait_s | 0 | 11866 | from 0 worse |"),
        "{md}"
    );
    assert!(!md.contains(" new"), "{md}");
}

fn goalc(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_goalc"))
        .args(args)
        .output()
        .unwrap()
}

/// The fixture's store, written as `fixture.jsonl` in a new folder.
fn fixture_store(name: &str) -> (Scratch, std::path::PathBuf) {
    let dir = temp_dir(name);
    let path = dir.join("fixture.jsonl");
    std::fs::write(&path, &fixture().0).unwrap();
    (dir, path)
}

#[test]
fn command_line_report_and_diff() {
    let (dir, path) = fixture_store("cli");
    let plots_dir = dir.join("plots");
    let p = path.to_str().unwrap();
    let out = goalc(&[
        "report",
        p,
        "--format",
        "markdown",
        "--plots",
        plots_dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("## Result store report\n"));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.ends_with(&format!("plots: 6 SVG files in {}\n", plots_dir.display())),
        "{stderr}"
    );
    assert!(plots_dir.join("budget-search.svg").is_file());

    let out = goalc(&["report", "--diff", p, p]);
    assert!(out.status.success());
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("Nothing moved: 16 cells"));

    let out = goalc(&["report", p, "--measure", "avg_wiat_s", "--no-plots"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "goalc: error: unknown measure `avg_wiat_s`: did you mean `avg_wait_s`?\n"
    );
}

#[test]
fn plots_named_into_a_file_are_refused_before_the_tables() {
    let (dir, path) = fixture_store("plots-file");
    let file = dir.join("plots.txt");
    std::fs::write(&file, "mine").unwrap();
    let out = goalc(&[
        "report",
        path.to_str().unwrap(),
        "--plots",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("plots.txt: not a folder, so no place for the plots"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

/// A store kept where a plot goes is refused before the tables, not
/// written over by that plot.
#[test]
fn a_store_named_as_a_plot_is_refused_before_the_tables() {
    let (dir, _) = fixture_store("plot-store");
    let plots_dir = dir.join("plots");
    std::fs::create_dir(&plots_dir).unwrap();
    let store = plots_dir.join("budget-search.svg");
    std::fs::write(&store, &fixture().0).unwrap();
    let out = goalc(&[
        "report",
        store.to_str().unwrap(),
        "--plots",
        plots_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("and the plot") && stderr.contains("are the same file"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&store).unwrap(), fixture().0);
}

/// A device or a folder given as the store is bad input, as a missing one
/// is: exit 2.
#[test]
fn a_store_that_is_no_regular_file_is_bad_input() {
    let dir = temp_dir("not-a-file");
    for path in ["/dev/null", dir.to_str().unwrap()] {
        let out = goalc(&["report", path]);
        assert_eq!(out.status.code(), Some(2), "{path}");
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            format!("goalc: error: {path}: not a regular file, so not a store\n")
        );
    }
}

#[test]
fn a_bad_store_line_is_named_by_file_and_line() {
    let (text, _) = fixture();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = "{\"format\": 1, \"goal\": ";
    let dir = temp_dir("bad");
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let b = bad.to_str().unwrap();
    for args in [
        vec!["report", b, "--no-plots"],
        vec!["report", "--diff", b, b],
    ] {
        let out = goalc(&args);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.starts_with(&format!("goalc: error: {b}:3:")),
            "{stderr}"
        );
    }
    let out = goalc(&["report", "/nonexistent/store.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such store"));
}

#[test]
fn months_are_bars_in_calendar_order() {
    // The fixture's windows relabelled as months 10 and 2: the plot's
    // categories follow the months' numbers, not their spelling.
    let (_, records) = fixture();
    let months: Vec<Record> = records
        .iter()
        .cloned()
        .map(|mut r| {
            r.axes.month = Some(if r.axes.window.as_deref() == Some("0d..4d") {
                "10".into()
            } else {
                "2".into()
            });
            r.axes.window = None;
            r
        })
        .collect();
    let plan = plots::plan(&months, &["avg_wait_s"], &[]);
    let bars = plan
        .plots
        .iter()
        .find(|p| p.file == "months-avg_wait_s.svg")
        .expect("a months plot");
    assert_eq!(
        bars.kind,
        plots::Kind::Bars {
            categories: vec!["2".into(), "10".into()]
        }
    );
    // Month 2 holds what was the second window.
    let windows = plots::plan(records, &["avg_wait_s"], &[]);
    let by_window = windows
        .plots
        .iter()
        .find(|p| p.file == "windows-avg_wait_s.svg")
        .unwrap();
    for (m, w) in bars.series.iter().zip(&by_window.series) {
        assert_eq!(m.points[0].1, w.points[1].1);
        assert_eq!(m.points[1].1, w.points[0].1);
    }
    assert!(render(&plots::svg(bars).unwrap(), false).0 > 0);
}

#[test]
fn a_measure_no_cell_has_is_skipped_not_drawn_empty() {
    // No goal of the fixture has user groups or admission: a plot of
    // `owner_obj` or `missed` would be empty axes, so it is said, not drawn.
    let (_, records) = fixture();
    let plan = plots::plan(records, &["owner_obj", "missed", "avg_wait_s"], &[]);
    let files: Vec<&str> = plan.plots.iter().map(|p| p.file.as_str()).collect();
    assert!(files.contains(&"load-avg_wait_s.svg"), "{files:?}");
    assert!(files.contains(&"windows-avg_wait_s.svg"), "{files:?}");
    for m in ["owner_obj", "missed"] {
        for what in ["load", "windows"] {
            let file = format!("{what}-{m}.svg");
            assert!(!files.contains(&file.as_str()), "{files:?}");
            assert!(
                plan.skipped
                    .contains(&format!("{file}: skipped, no cell has {m}")),
                "{:?}",
                plan.skipped
            );
        }
    }
}
