//! Plots of a store as SVG (drawn by plotters): a measure against load per
//! goal, bars per month (or window) per goal, search cost against the node
//! budget, and two measures against each other with EASY marked.
//!
//! [`plan`] computes every plot's data ([`Plot`], pinned by the tests as
//! text), [`svg`] draws one, [`write_all`] writes them all to a folder:
//! `goalc report` and `goalc bench` call it.
//!
//! Where a point stands for several cells (the other axes: seeds, traces,
//! months...), its value is their mean; the title says how many.

use super::{cmp_period, goal_base, is_easy, sorted};
use crate::report::{measure, RunReport};
use crate::store::{Axes, Record, FORMAT, GOALC_VERSION};
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The measures plotted against load and months unless told otherwise.
pub const DEFAULT_MEASURES: &[&str] = &["avg_wait_s", "avg_slowdown"];

/// The scatters drawn unless told otherwise: GOAL's trade-off (max wait
/// against average bounded slowdown) and GREEDY's (AWRT of group 1
/// against group 2, when the store has user groups).
pub const DEFAULT_SCATTERS: &[(&str, &str)] =
    &[("max_wait_s", "avg_slowdown"), ("awrt_1_s", "awrt_2_s")];

/// What a plot draws.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Lines through points, x numeric.
    Lines,
    /// Bars per category (x is the category's index), one per series.
    Bars { categories: Vec<String> },
    /// One point per series.
    Scatter,
}

/// One line, set of bars, or point: one goal.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    /// The EASY baseline, drawn in black with crosses.
    pub easy: bool,
    /// (x, y), sorted by x.
    pub points: Vec<(f64, f64)>,
}

/// One plot's data and labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    /// File name in the plot folder (`load-avg_wait_s.svg`).
    pub file: String,
    pub title: String,
    pub x: String,
    pub y: String,
    pub kind: Kind,
    pub series: Vec<Series>,
}

/// The plots a store allows, and a note for each it does not.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plan {
    pub plots: Vec<Plot>,
    pub skipped: Vec<String>,
}

/// A plot that could not be drawn or written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot draw {file}: {message}")]
    Draw { file: String, message: String },
}

/// A measure name as part of a file name (`visits/search` is
/// `visits_search`).
fn file_part(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Series key: goal name without budget, budget, full name; so a goal's
/// budgets sit together, in budget order.
type Key = (String, Option<u64>, String);

/// Series of the records' (x, y) values, one per goal as `key` names it;
/// the y of equal x are averaged. Also returns the most cells behind one
/// point.
fn series(
    records: &[&Record],
    key: impl Fn(&Record) -> Key,
    x: impl Fn(&Record) -> Option<f64>,
    y: impl Fn(&Record) -> Option<f64>,
) -> (Vec<Series>, usize) {
    let mut by: BTreeMap<Key, (bool, Vec<(f64, f64)>)> = BTreeMap::new();
    for r in records {
        if let (Some(x), Some(y)) = (x(r), y(r)) {
            let e = by.entry(key(r)).or_default();
            e.0 |= is_easy(r);
            e.1.push((x, y));
        }
    }
    let mut most = 0;
    let out = by
        .into_iter()
        .map(|((_, _, name), (easy, mut pts))| {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut points: Vec<(f64, f64)> = Vec::new();
            let mut i = 0;
            while i < pts.len() {
                let j = pts[i..]
                    .iter()
                    .position(|p| p.0 != pts[i].0)
                    .map_or(pts.len(), |n| i + n);
                let ys = &pts[i..j];
                most = most.max(ys.len());
                points.push((
                    pts[i].0,
                    ys.iter().map(|p| p.1).sum::<f64>() / ys.len() as f64,
                ));
                i = j;
            }
            Series { name, easy, points }
        })
        .collect();
    (out, most)
}

fn goal_key(r: &Record) -> Key {
    (
        goal_base(&r.goal).to_string(),
        r.axes.budget,
        r.goal.clone(),
    )
}

/// " (each point: mean of N cells)" when points stand for several cells.
fn mean_note(most: usize) -> String {
    if most > 1 {
        format!(" (each point: mean of up to {most} cells)")
    } else {
        String::new()
    }
}

/// Distinct values, in order.
fn distinct<T: PartialEq>(mut v: Vec<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for x in v.drain(..) {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// The plots of `records` for `measures` (against load and months) and
/// `scatters` (pairs of measures). Names must be known measures
/// ([`super::check_measures`]).
pub fn plan(records: &[Record], measures: &[&str], scatters: &[(&str, &str)]) -> Plan {
    let recs = sorted(records);
    let mut plan = Plan::default();

    let mut loads: Vec<f64> = recs.iter().filter_map(|r| r.axes.load).collect();
    loads.sort_by(f64::total_cmp);
    loads.dedup();
    for m in measures {
        let file = format!("load-{}.svg", file_part(m));
        if loads.len() < 2 {
            plan.skipped.push(format!(
                "{file}: skipped, the store has {} load{}",
                if loads.is_empty() { "no" } else { "one" },
                if loads.is_empty() { " axis" } else { "" }
            ));
            continue;
        }
        let (series, most) = series(&recs, goal_key, |r| r.axes.load, |r| measure(&r.report, m));
        if series.is_empty() {
            plan.skipped
                .push(format!("{file}: skipped, no cell has {m}"));
            continue;
        }
        plan.plots.push(Plot {
            file,
            title: format!("{m} against offered load{}", mean_note(most)),
            x: "target offered load".into(),
            y: m.to_string(),
            kind: Kind::Lines,
            series,
        });
    }

    type Period = fn(&Record) -> Option<String>;
    let periods: [(&str, Period); 2] = [
        ("months", |r| r.axes.month.clone()),
        ("windows", |r| r.axes.window.clone()),
    ];
    let mut any_period = false;
    for (what, period) in periods {
        let mut cats: Vec<Option<String>> = distinct(recs.iter().map(|r| period(r)).collect());
        cats.retain(Option::is_some);
        cats.sort_by(cmp_period);
        if cats.len() < 2 {
            continue;
        }
        any_period = true;
        let categories: Vec<String> = cats.iter().flatten().cloned().collect();
        for m in measures {
            let index = |r: &Record| {
                let p = period(r)?;
                categories.iter().position(|c| *c == p).map(|i| i as f64)
            };
            let (series, most) = series(&recs, goal_key, index, |r| measure(&r.report, m));
            let file = format!("{what}-{}.svg", file_part(m));
            if series.is_empty() {
                plan.skipped
                    .push(format!("{file}: skipped, no cell has {m}"));
                continue;
            }
            plan.plots.push(Plot {
                file,
                title: format!("{m} per {}{}", &what[..what.len() - 1], mean_note(most)),
                x: what[..what.len() - 1].to_string(),
                y: m.to_string(),
                kind: Kind::Bars {
                    categories: categories.clone(),
                },
                series,
            });
        }
    }
    if !any_period {
        for m in measures {
            plan.skipped.push(format!(
                "months-{}.svg: skipped, the store has fewer than two months or windows",
                file_part(m)
            ));
        }
    }

    let searching: Vec<&Record> = recs
        .iter()
        .copied()
        .filter(|r| r.report.search.is_some() && r.axes.budget.is_some())
        .collect();
    let budgets = distinct(searching.iter().map(|r| r.axes.budget).collect());
    if budgets.len() < 2 {
        plan.skipped.push(
            "budget-search.svg: skipped, the store has no search goal at two budgets or more"
                .into(),
        );
    } else {
        let base = |r: &Record| {
            let b = goal_base(&r.goal).to_string();
            (b.clone(), None, b)
        };
        let (series, most) = series(
            &searching,
            base,
            |r| r.axes.budget.map(|b| b as f64),
            |r| r.report.search.map(|s| s.node_visits as f64),
        );
        plan.plots.push(Plot {
            file: "budget-search.svg".into(),
            title: format!("search cost against node budget L{}", mean_note(most)),
            x: "node budget L".into(),
            y: "node visits".into(),
            kind: Kind::Lines,
            series,
        });
    }

    for (a, b) in scatters {
        let file = format!("scatter-{}-{}.svg", file_part(a), file_part(b));
        let both: Vec<&Record> = recs
            .iter()
            .copied()
            .filter(|r| measure(&r.report, a).is_some() && measure(&r.report, b).is_some())
            .collect();
        if both.is_empty() {
            plan.skipped
                .push(format!("{file}: skipped, no cell has both {a} and {b}"));
            continue;
        }
        // One point per goal: x and y are each the mean over its cells.
        let (xs, most) = series(&both, goal_key, |_| Some(0.0), |r| measure(&r.report, a));
        let (ys, _) = series(&both, goal_key, |_| Some(0.0), |r| measure(&r.report, b));
        let series = xs
            .into_iter()
            .zip(ys)
            .map(|(x, y)| Series {
                points: vec![(x.points[0].1, y.points[0].1)],
                ..x
            })
            .collect();
        plan.plots.push(Plot {
            file,
            title: format!("{b} against {a}, one point per goal{}", mean_note(most)),
            x: a.to_string(),
            y: b.to_string(),
            kind: Kind::Scatter,
            series,
        });
    }
    plan
}

/// The data behind a plot as text: what the tests pin.
pub fn describe(plot: &Plot) -> String {
    let mut out = format!(
        "{}: {}\n  x: {}\n  y: {}\n",
        plot.file, plot.title, plot.x, plot.y
    );
    if let Kind::Bars { categories } = &plot.kind {
        let _ = writeln!(out, "  categories: {}", categories.join(", "));
    }
    for s in &plot.series {
        let pts: Vec<String> = s
            .points
            .iter()
            .map(|(x, y)| format!("({x}, {y})"))
            .collect();
        let _ = writeln!(
            out,
            "  {}{}: {}",
            s.name,
            if s.easy { " [EASY]" } else { "" },
            pts.join(" ")
        );
    }
    out
}

/// Lower and upper bounds of an axis holding `values`, padded so no
/// point sits on the frame; from 0 when `from_zero` and all are positive.
fn bounds(values: impl Iterator<Item = f64>, from_zero: bool) -> (f64, f64) {
    let (mut lo, mut hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(v), h.max(v))
        });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if from_zero && lo >= 0.0 {
        lo = 0.0;
    }
    if hi - lo < 1e-9 {
        let d = (hi.abs() * 0.1).max(1.0);
        return (lo - d, hi + d);
    }
    let pad = (hi - lo) * 0.08;
    if !(from_zero && lo == 0.0) {
        lo -= pad;
    }
    hi += pad;
    (lo, hi)
}

const WIDTH: u32 = 800;
const HEIGHT: u32 = 500;
const FONT: &str = "sans-serif";

/// The plot as SVG text.
pub fn svg(plot: &Plot) -> Result<String, PlotError> {
    let mut text = String::new();
    draw(plot, &mut text).map_err(|e| PlotError::Draw {
        file: plot.file.clone(),
        message: e.to_string(),
    })?;
    Ok(text)
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Tableau's ten colours without its grey: black and grey are EASY's.
const PALETTE: [RGBColor; 9] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

fn color(i: usize, s: &Series) -> RGBColor {
    if s.easy {
        BLACK
    } else {
        PALETTE[i % PALETTE.len()]
    }
}

/// An axis label: whole numbers from 100 up, else up to 3 decimals.
fn tick(v: &f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Plot area height, pixels (the image less caption, margins, labels).
const AREA: f64 = (HEIGHT - 110) as f64;

/// Raises `hi` so that the top of the plot area leaves the legend room
/// above the data (its box: 17 pixels a line, a few more around).
fn legend_room(lo: f64, hi: f64, lines: usize) -> f64 {
    let f = ((17 * lines + 24) as f64 / AREA).min(0.6);
    (hi - lo * f) / (1.0 - f)
}

/// Series past which the legend moves beside the chart: inside it, it
/// would hide the points.
const LEGEND_INSIDE: usize = 8;
/// Width of a legend beside the chart, and the height of one of its lines.
const SIDE_LEGEND: u32 = 330;
const LEGEND_LINE: u32 = 16;

fn draw(plot: &Plot, text: &mut String) -> DrawResult {
    let n_series = plot.series.len();
    let beside = n_series > LEGEND_INSIDE;
    let (width, height) = if beside {
        let lines = n_series as u32 * LEGEND_LINE + 60;
        (WIDTH + SIDE_LEGEND, HEIGHT.max(lines))
    } else {
        (WIDTH, HEIGHT)
    };
    let canvas = SVGBackend::with_string(text, (width, height)).into_drawing_area();
    canvas.fill(&WHITE)?;
    let (root, side) = canvas.split_horizontally(WIDTH);
    let points = || plot.series.iter().flat_map(|s| s.points.iter());
    let (x0, x1) = match &plot.kind {
        Kind::Bars { categories } => (-0.5, categories.len() as f64 - 0.5),
        Kind::Lines => bounds(points().map(|p| p.0), false),
        Kind::Scatter => bounds(points().map(|p| p.0), true),
    };
    let (y0, y1) = bounds(points().map(|p| p.1), true);
    let y1 = if beside {
        y1
    } else {
        legend_room(y0, y1, n_series)
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(&plot.title, (FONT, 18))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    let categories = match &plot.kind {
        Kind::Bars { categories } => categories.clone(),
        _ => Vec::new(),
    };
    let label_x = |x: &f64| -> String {
        if categories.is_empty() {
            tick(x)
        } else if (x - x.round()).abs() < 1e-6 && x.round() >= 0.0 {
            categories
                .get(x.round() as usize)
                .cloned()
                .unwrap_or_default()
        } else {
            String::new()
        }
    };
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(&plot.x)
        .y_desc(&plot.y)
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 15))
        .x_label_formatter(&label_x)
        .y_label_formatter(&tick);
    if !categories.is_empty() {
        mesh.x_labels(categories.len()).disable_x_mesh();
    }
    mesh.draw()?;

    let n = plot.series.len().max(1) as f64;
    for (i, s) in plot.series.iter().enumerate() {
        let c = color(i, s);
        let stroke = if s.easy { 3 } else { 2 };
        let legend =
            move |(x, y): (i32, i32)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], c.filled());
        match &plot.kind {
            Kind::Lines => {
                chart
                    .draw_series(LineSeries::new(
                        s.points.iter().copied(),
                        c.stroke_width(stroke),
                    ))?
                    .label(&s.name)
                    .legend(legend);
                if s.easy {
                    chart.draw_series(
                        s.points
                            .iter()
                            .map(|&p| Cross::new(p, 7, BLACK.stroke_width(3))),
                    )?;
                } else {
                    chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
                }
            }
            Kind::Bars { .. } => {
                // Bars of one category side by side, 80% of its width.
                let w = 0.8 / n;
                chart
                    .draw_series(s.points.iter().map(|&(x, y)| {
                        let left = x - 0.4 + i as f64 * w;
                        let style = if s.easy {
                            BLACK.mix(0.75).filled()
                        } else {
                            c.filled()
                        };
                        Rectangle::new([(left, 0.0f64.max(y0)), (left + w, y)], style)
                    }))?
                    .label(&s.name)
                    .legend(legend);
            }
            Kind::Scatter => {
                if s.easy {
                    // EASY: a big black cross with its name beside it.
                    chart
                        .draw_series(s.points.iter().map(|&p| {
                            EmptyElement::at(p)
                                + Cross::new((0, 0), 9, BLACK.stroke_width(3))
                                + Text::new(s.name.clone(), (10, -16), (FONT, 13))
                        }))?
                        .label(format!("{} (EASY baseline)", s.name))
                        .legend(move |(x, y)| Cross::new((x + 8, y), 6, BLACK.stroke_width(3)));
                } else {
                    chart
                        .draw_series(s.points.iter().map(|&p| Circle::new(p, 6, c.filled())))?
                        .label(&s.name)
                        .legend(move |(x, y)| Circle::new((x + 8, y), 5, c.filled()));
                }
            }
        }
    }
    if beside {
        // One line per series, marker and name, beside the chart.
        for (i, s) in plot.series.iter().enumerate() {
            let y = 40 + (i as u32 * LEGEND_LINE) as i32;
            if s.easy {
                side.draw(&Cross::new((14, y), 5, BLACK.stroke_width(2)))?;
            } else {
                let c = color(i, s);
                match plot.kind {
                    Kind::Scatter => side.draw(&Circle::new((14, y), 5, c.filled()))?,
                    _ => side.draw(&Rectangle::new([(6, y - 5), (22, y + 5)], c.filled()))?,
                }
            }
            side.draw(&Text::new(s.name.clone(), (28, y - 7), (FONT, 12)))?;
        }
    } else {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font((FONT, 13))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
    }
    canvas.present()?;
    Ok(())
}

/// Writes the planned plots into `dir` (created if missing); returns the
/// files written, in the plan's order.
pub fn write(plan: &Plan, dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| PlotError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let mut out = Vec::new();
    for p in &plan.plots {
        let path = dir.join(&p.file);
        std::fs::write(&path, svg(p)?).map_err(io(&path))?;
        out.push(path);
    }
    Ok(out)
}

/// Writes every plot the records allow, for the default measures and
/// scatters, into `dir`; returns the files written. `goalc bench` calls
/// it after a suite.
pub fn write_all(records: &[Record], dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    write(&plan(records, DEFAULT_MEASURES, DEFAULT_SCATTERS), dir)
}

/// The plots of one bench's runs, which have no store and no axes: for
/// each mechanism, the scatters of its goals (one point per goal) with
/// EASY marked beside them, so that no plot holds every goal of a bench;
/// for each workload into `dir`, or into a folder per workload under `dir`
/// when there are several. Returns the files written.
pub fn write_for_runs(reports: &[RunReport], dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    let record = |r: &RunReport| Record {
        format: FORMAT,
        goalc: GOALC_VERSION.to_string(),
        suite: String::new(),
        suite_cells: None,
        key: String::new(),
        goal: r.label.clone(),
        goal_hash: String::new(),
        trace: r.trace.clone(),
        trace_sha256: String::new(),
        axes: Axes::none(r.events),
        report: Record::deterministic(r.clone()),
    };
    let mut traces: Vec<&str> = Vec::new();
    for r in reports {
        if !traces.contains(&r.trace.as_str()) {
            traces.push(&r.trace);
        }
    }
    let mut out = Vec::new();
    for trace in &traces {
        let runs: Vec<Record> = reports
            .iter()
            .filter(|r| r.trace == *trace)
            .map(record)
            .collect();
        let into = if traces.len() == 1 {
            dir.to_path_buf()
        } else {
            dir.join(file_part(trace))
        };
        let mut mechanisms: Vec<_> = runs.iter().map(|r| r.report.mechanism).collect();
        mechanisms.sort();
        mechanisms.dedup();
        for m in mechanisms {
            // The mechanism's goals, and EASY once beside them.
            let easy = runs.iter().find(|r| is_easy(r));
            let own: Vec<Record> = runs
                .iter()
                .filter(|r| r.report.mechanism == m)
                .chain(easy.filter(|e| e.report.mechanism != m))
                .cloned()
                .collect();
            let mut plan = plan(&own, &[], DEFAULT_SCATTERS);
            let name = format!("{m:?}").to_lowercase();
            for p in &mut plan.plots {
                p.file = format!("{name}-{}", p.file);
                p.title = format!("{name}: {}", p.title);
            }
            out.extend(write(&plan, &into)?);
        }
    }
    Ok(out)
}
