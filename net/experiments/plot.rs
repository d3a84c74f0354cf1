//! SVG plots of experiment results (Fig. 3.2a: bottleneck queue over time; Fig. 3.2b: slowdown
//! per message).

use super::incast::IncastResult;
use plotters::prelude::*;

fn label(r: &IncastResult) -> String {
    format!("{} {:.0} KB", r.protocol, r.buffer_kb)
}

fn err(e: impl std::fmt::Display) -> String {
    format!("plot: {e}")
}

type Chart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>>;

/// A white chart with a caption, axes `ranges` and axis descriptions `desc`.
fn chart<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    caption: &str,
    ranges: (std::ops::Range<f64>, std::ops::Range<f64>),
    desc: (&str, &str),
) -> Result<Chart<'a, 'b>, String> {
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(root)
        .caption(caption, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(ranges.0, ranges.1)
        .map_err(err)?;
    chart.configure_mesh().x_desc(desc.0).y_desc(desc.1).draw().map_err(err)?;
    Ok(chart)
}

/// Bottleneck queue (packets) over time (µs), one line per run.
pub fn queue_svg(results: &[IncastResult], path: &std::path::Path) -> Result<(), String> {
    let xmax = results.iter().flat_map(|r| r.queue.iter().map(|q| q.0 / 1000.0)).fold(1.0, f64::max);
    let ymax = results.iter().flat_map(|r| r.queue.iter().map(|q| q.1 as f64)).fold(1.0, f64::max) * 1.1;
    let root = SVGBackend::new(path, (900, 500)).into_drawing_area();
    let mut chart = chart(&root, "Bottleneck queue during the incast", (0.0..xmax, 0.0..ymax), ("time (µs)", "queue (packets)"))?;
    for (i, r) in results.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        // A step line: each level holds until the next change.
        let mut pts = Vec::new();
        for w in r.queue.windows(2) {
            pts.push((w[0].0 / 1000.0, w[0].1 as f64));
            pts.push((w[1].0 / 1000.0, w[0].1 as f64));
        }
        chart
            .draw_series(LineSeries::new(pts, color.stroke_width(2)))
            .map_err(err)?
            .label(label(r))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(err)?;
    root.present().map_err(err)
}

/// Slowdown per message (by its size in packets), one line per run; a thin line with hollow marks
/// in the same colour gives the slowdown at arrival (the ns-3 model's MsgFinish point).
pub fn slowdown_svg(results: &[IncastResult], path: &std::path::Path) -> Result<(), String> {
    let xs = results.iter().flat_map(|r| r.messages.iter().map(|m| m.packets as f64));
    let (xmin, xmax) = xs.fold((f64::MAX, 0.0f64), |(a, b), x| (a.min(x), b.max(x)));
    let (xmin, xmax) = if xmin > xmax { (0.0, 1.0) } else { (xmin - 1.0, xmax + 1.0) };
    let ymax = results.iter().flat_map(|r| r.messages.iter().filter_map(|m| m.slowdown)).fold(1.0, f64::max) * 1.1;
    let root = SVGBackend::new(path, (900, 500)).into_drawing_area();
    let mut chart = chart(&root, "Slowdown per message", (xmin..xmax, 0.0..ymax), ("message size (packets)", "slowdown"))?;
    for (i, r) in results.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let pts: Vec<(f64, f64)> = r.messages.iter().filter_map(|m| m.slowdown.map(|s| (m.packets as f64, s))).collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(err)?
            .label(label(r))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled()))).map_err(err)?;
        let arrived: Vec<(f64, f64)> = r.messages.iter().filter_map(|m| m.arrived_slowdown.map(|s| (m.packets as f64, s))).collect();
        chart
            .draw_series(LineSeries::new(arrived.clone(), color.stroke_width(1)))
            .map_err(err)?
            .label(format!("{} (at arrival)", label(r)))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(1)));
        chart.draw_series(arrived.into_iter().map(|p| Circle::new(p, 3, color.stroke_width(1)))).map_err(err)?;
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(err)?;
    root.present().map_err(err)
}

/// Any number of named lines on one chart (the bulk experiment's queues over time).
pub fn lines_svg(path: &std::path::Path, caption: &str, desc: (&str, &str), series: &[(String, Vec<(f64, f64)>)]) -> Result<(), String> {
    let xmax = series.iter().flat_map(|s| s.1.iter().map(|p| p.0)).fold(1e-9, f64::max);
    let ymax = series.iter().flat_map(|s| s.1.iter().map(|p| p.1)).fold(1.0, f64::max) * 1.1;
    let root = SVGBackend::new(path, (900, 500)).into_drawing_area();
    let mut chart = chart(&root, caption, (0.0..xmax, 0.0..ymax), desc)?;
    for (i, (name, points)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(1)))
            .map_err(err)?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(err)?;
    root.present().map_err(err)
}

/// One mark per named series with its faded companions (Fig. 4-2: a scheme's overall mean and
/// its per-second means).
pub fn points_svg(
    path: &std::path::Path,
    caption: &str,
    desc: (&str, &str),
    series: &[(String, (f64, f64), Vec<(f64, f64)>)],
) -> Result<(), String> {
    let all = || series.iter().flat_map(|s| std::iter::once(s.1).chain(s.2.iter().copied()));
    let xmax = all().map(|p| p.0).fold(1e-9, f64::max) * 1.1;
    let ymax = all().map(|p| p.1).fold(1e-9, f64::max) * 1.1;
    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    let mut chart = chart(&root, caption, (0.0..xmax, 0.0..ymax), desc)?;
    for (i, (name, mean, faded)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart.draw_series(faded.iter().map(|p| Circle::new(*p, 3, color.mix(0.3).filled()))).map_err(err)?;
        chart
            .draw_series(std::iter::once(Circle::new(*mean, 8, color.filled())))
            .map_err(err)?
            .label(name.as_str())
            .legend(move |(x, y)| Circle::new((x + 10, y), 6, color.filled()));
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(err)?;
    root.present().map_err(err)
}
