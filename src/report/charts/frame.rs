//! What every chart shares around its data, so that each chart file says
//! only what it shows: the canvas ([`SIZE`], white), the title, the legend
//! in a column on the right (entries wrapped whole, a line or a dot in the
//! strategy's colour), the plot area's margins, and the mesh (grid shades,
//! tick and axis-description fonts).
//!
//! A chart is a [`Plot`] — its [`Frame`] (title, legend, the words and tick
//! labels of its axes), its two axes, and the marks it draws on them — and
//! [`render`] draws any `Plot` to a standalone SVG document, always in the
//! same order: canvas, title and legend, mesh, marks.

use super::super::Report;
use super::axes::LogTimeAxis;
use crate::bench::metrics::UnitStats;
use crate::solver::Status;
use anyhow::anyhow;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Size of every chart, in SVG pixels.
pub const SIZE: (u32, u32) = (1200, 520);
/// The font of every text on a chart (the SVG viewer's sans-serif).
pub(super) const FONT: &str = "sans-serif";

/// Tableau 10: distinct, colour-blind-friendly enough, readable on white.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The colour of the `i`-th series (the palette repeats after ten).
pub(super) fn palette(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// One colour per strategy name, the same on every chart and dataset: the
/// strategies in order of first appearance in the report.
pub(super) fn strategy_colors(report: &Report) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for r in &report.results {
        if !names.contains(&r.strategy) {
            names.push(r.strategy.clone());
        }
    }
    names
}

/// The colour of `strategy` among `names` ([`strategy_colors`]).
pub(super) fn color_of(names: &[String], strategy: &str) -> RGBColor {
    palette(names.iter().position(|n| n == strategy).unwrap_or(0))
}

/// A strategy's legend entry: its name, and for one that did not finish
/// every puzzle (stalled, gave up, failed, wrong) how many it did not, so
/// that a line that skipped the hard puzzles is never read as the fastest.
pub(super) fn legend_label(u: &UnitStats) -> String {
    let unfinished: u64 = [Status::Stalled, Status::GaveUp]
        .iter()
        .chain(Status::FAULTS.iter())
        .map(|&st| u.status[st as usize])
        .sum();
    if unfinished == 0 {
        u.strategy.clone()
    } else {
        format!("{} (unfinished: {unfinished} of {})", u.strategy, u.puzzles)
    }
}

/// A plotters error as the reports' error.
pub(super) fn plot_err<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("drawing a chart: {e}")
}

/// The whole canvas, or the plot's part of it.
pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
/// The plot, in the coordinates of its two axes.
pub(super) type Chart2d<'a, 'b, X, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<X, Y>>;
/// A tick label: the text at a position of the axis.
pub(super) type TickLabel<'a> = Box<dyn Fn(&f64) -> String + 'a>;

/// How a strategy is drawn, for its legend entry.
#[derive(Clone, Copy)]
pub(super) enum Marker {
    Line,
    Dot,
}

/// What a chart says around its data: its title, its legend, and its
/// axes' words and tick labels ([`Frame::new`], then the axes).
pub(super) struct Frame<'a> {
    title: String,
    /// The legend's entries, in order: a label and its colour.
    legend: Vec<(&'a str, RGBColor)>,
    marker: Marker,
    /// The words under the x axis and beside the y axis.
    x_desc: String,
    y_desc: String,
    /// The tick labels (none: plotters' own).
    x_label: Option<TickLabel<'a>>,
    y_label: Option<TickLabel<'a>>,
    /// The tick labels' font size.
    label_size: i32,
    /// The light and the bold grid lines' colours.
    grid: (RGBColor, RGBColor),
}

impl<'a> Frame<'a> {
    /// A frame with `title` and a legend of `entries` drawn as `marker`,
    /// the usual tick font and grid, and no axis words yet.
    pub fn new(title: String, legend: Vec<(&'a str, RGBColor)>, marker: Marker) -> Self {
        Frame {
            title,
            legend,
            marker,
            x_desc: String::new(),
            y_desc: String::new(),
            x_label: None,
            y_label: None,
            label_size: 17,
            grid: (RGBColor(235, 235, 235), RGBColor(200, 200, 200)),
        }
    }

    /// The x axis's words and its tick labels.
    pub fn x_axis(mut self, desc: impl Into<String>, label: impl Fn(&f64) -> String + 'a) -> Self {
        self.x_desc = desc.into();
        self.x_label = Some(Box::new(label));
        self
    }

    /// The y axis's words and its tick labels.
    pub fn y_axis(mut self, desc: impl Into<String>, label: impl Fn(&f64) -> String + 'a) -> Self {
        self.y_desc = desc.into();
        self.y_label = Some(Box::new(label));
        self
    }

    /// A log time y axis ([`LogTimeAxis`]): its words and tick labels.
    pub fn log_time_y(self) -> Self {
        self.y_axis("solve time (log scale)", LogTimeAxis::label)
    }

    /// The y axis's words, with plotters' own tick labels.
    pub fn y_desc(mut self, desc: impl Into<String>) -> Self {
        self.y_desc = desc.into();
        self
    }

    /// Tick labels of `size` instead of the usual 17 (long labels).
    pub fn label_size(mut self, size: i32) -> Self {
        self.label_size = size;
        self
    }

    /// Grid lines of other colours than the usual light and bold ones.
    pub fn grid(mut self, light: RGBColor, bold: RGBColor) -> Self {
        self.grid = (light, bold);
        self
    }
}

/// One chart: its frame, its axes and the marks on them.
pub(super) trait Plot {
    type X: Ranged<ValueType = f64> + ValueFormatter<f64>;
    type Y: Ranged<ValueType = f64> + ValueFormatter<f64>;
    /// The title, the legend and the axes' words and tick labels.
    fn frame(&self) -> Frame<'_>;
    /// The x and the y axis.
    fn axes(&self) -> (Self::X, Self::Y);
    /// Draws the data on `chart`; `area` is the plot's part of the canvas,
    /// for what is placed in pixels.
    fn marks(
        &self,
        chart: &mut Chart2d<'_, '_, Self::X, Self::Y>,
        area: &Area,
    ) -> anyhow::Result<()>;
}

/// `plot` as a standalone SVG document.
pub(super) fn render<P: Plot>(plot: &P) -> anyhow::Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let frame = plot.frame();
        let area = title_and_legend(&root, &frame.title, &frame.legend, frame.marker)?;
        let (x, y) = plot.axes();
        let mut chart = plot_builder(&area)
            .build_cartesian_2d(x, y)
            .map_err(plot_err)?;
        draw_mesh(&mut chart, &frame)?;
        plot.marks(&mut chart, &area)?;
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// The plot area's builder, with the margins and label areas every chart
/// uses.
fn plot_builder<'a, 'b, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
) -> ChartBuilder<'a, 'b, DB> {
    let mut b = ChartBuilder::on(area);
    b.margin(16)
        .margin_right(40)
        .x_label_area_size(50)
        .y_label_area_size(80);
    b
}

/// The grid, the ticks and their labels, and the axes' words.
fn draw_mesh<X, Y>(chart: &mut Chart2d<'_, '_, X, Y>, frame: &Frame) -> anyhow::Result<()>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(frame.x_desc.as_str())
        .y_desc(frame.y_desc.as_str());
    if let Some(label) = &frame.x_label {
        mesh.x_label_formatter(label);
    }
    if let Some(label) = &frame.y_label {
        mesh.y_label_formatter(label);
    }
    mesh.label_style((FONT, frame.label_size))
        .axis_desc_style((FONT, 19))
        .light_line_style(frame.grid.0)
        .bold_line_style(frame.grid.1)
        .draw()
        .map_err(plot_err)
}

/// A line through `pts` in `color`, with a dot of `radius` at each point
/// (drawn over the line).
pub(super) fn line_with_dots<X, Y>(
    chart: &mut Chart2d<'_, '_, X, Y>,
    pts: &[(f64, f64)],
    color: RGBColor,
    radius: i32,
) -> anyhow::Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    chart
        .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
        .map_err(plot_err)?;
    chart
        .draw_series(pts.iter().map(|&p| Circle::new(p, radius, color.filled())))
        .map_err(plot_err)?;
    Ok(())
}

/// Draws the title across the top and the legend in a column on the right
/// (outside the plot, so it never hides data); returns the plot's area.
fn title_and_legend<'a>(
    root: &Area<'a>,
    title: &str,
    entries: &[(&str, RGBColor)],
    marker: Marker,
) -> anyhow::Result<Area<'a>> {
    // A long title (a long dataset or strategy name) gets a smaller font,
    // so that it fits the chart's width (about 0.55 em per character).
    let chars = title.chars().count().max(1) as f64;
    let title_font = (f64::from(SIZE.0 - 40) / (chars * 0.55)).clamp(14.0, 27.0);
    let body = root
        .margin(8, 0, 0, 0)
        .titled(title, (FONT, title_font))
        .map_err(plot_err)?;
    let wrapped: Vec<Vec<String>> = entries
        .iter()
        .map(|(n, _)| legend_lines(n, LEGEND_CHARS))
        .collect();
    let longest = wrapped
        .iter()
        .flatten()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0) as i32;
    let width = (longest * 9 + 60).clamp(130, 360);
    let (plot, legend) = body.split_horizontally(SIZE.0 as i32 - width);
    draw_legend(&legend, width, entries, &wrapped, marker)?;
    Ok(plot)
}

/// The legend's box and entries in `legend` (a column `width` pixels
/// wide); `wrapped` holds each entry's lines.
fn draw_legend(
    legend: &Area,
    width: i32,
    entries: &[(&str, RGBColor)],
    wrapped: &[Vec<String>],
    marker: Marker,
) -> anyhow::Result<()> {
    // Line height, gap between entries and font size: smaller when the
    // entries would not fit the chart's height otherwise.
    let lines: i32 = wrapped.iter().map(|w| w.len() as i32).sum();
    let n = entries.len() as i32;
    let (line_h, gap, font) = if lines * 20 + n * 8 <= 440 {
        (20, 8, 18)
    } else {
        (17, 4, 15)
    };
    let top = 16;
    let height = lines * line_h + n * gap + 12;
    legend
        .draw(&Rectangle::new(
            [(4, top), (width - 12, top + height)],
            RGBColor(170, 170, 170),
        ))
        .map_err(plot_err)?;
    let mut y0 = top + 6 + gap / 2;
    for ((_, color), text) in entries.iter().zip(wrapped) {
        let y = y0 + line_h / 2;
        let x = 16;
        match marker {
            Marker::Line => legend.draw(&PathElement::new(
                vec![(x, y), (x + 22, y)],
                color.stroke_width(3),
            )),
            Marker::Dot => legend.draw(&Circle::new((x + 11, y), 6, color.filled())),
        }
        .map_err(plot_err)?;
        for (k, line) in text.iter().enumerate() {
            legend
                .draw(&Text::new(
                    line.clone(),
                    (x + 32, y + k as i32 * line_h),
                    (FONT, font)
                        .into_font()
                        .color(&BLACK)
                        .pos(Pos::new(HPos::Left, VPos::Center)),
                ))
                .map_err(plot_err)?;
        }
        y0 += text.len() as i32 * line_h + gap;
    }
    Ok(())
}

/// Characters per line of a legend entry.
pub(super) const LEGEND_CHARS: usize = 30;

/// A legend entry's text in lines of at most `max` characters, so that a
/// long label (a 60-character `name=`) is shown whole: each line breaks
/// after the last `-`, `_`, `,`, `=`, `/`, `.` or space in its second
/// half, or at `max` characters when there is none; at most three lines,
/// the third ending in `…` when the label is longer still.
pub fn legend_lines(name: &str, max: usize) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut lines = Vec::new();
    let mut start = 0;
    while chars.len() - start > max {
        if lines.len() == 2 {
            let mut last: String = chars[start..start + max - 1].iter().collect();
            last.push('…');
            lines.push(last);
            return lines;
        }
        let window = &chars[start..start + max];
        let cut = window
            .iter()
            .rposition(|c| "-_,=/. ".contains(*c))
            .filter(|&i| i >= max / 2)
            .map_or(max, |i| i + 1);
        lines.push(chars[start..start + cut].iter().collect());
        start += cut;
    }
    lines.push(chars[start..].iter().collect());
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_legend_entries_wrap_whole() {
        let name = "python-solver-with-a-label-of-exactly-sixty-characters-long";
        let lines = legend_lines(name, LEGEND_CHARS);
        assert_eq!(lines.concat(), name);
        assert!(lines.iter().all(|l| l.chars().count() <= LEGEND_CHARS));
        assert_eq!(legend_lines("fast", LEGEND_CHARS), ["fast"]);
        let huge = "x".repeat(200);
        let lines = legend_lines(&huge, 30);
        assert_eq!(lines.len(), 3);
        assert!(lines[2].ends_with('…'));
    }
}
