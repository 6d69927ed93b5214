//! A small log-log line chart written as SVG by hand: one chart does not
//! justify adding a plotting crate (and its dependency tree) to a crate whose
//! library users would compile it too.

use std::fmt::Write;

/// One line of the chart: (x, y) points with x in bytes and y in seconds.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

const COLORS: [&str; 6] = [
    "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn fmt_bytes(x: f64) -> String {
    let gib = (1u64 << 30) as f64;
    let mib = (1u64 << 20) as f64;
    // Generated files are a few bytes short of their nominal size.
    if x >= 0.99 * gib {
        format!("{} GiB", trim(x / gib))
    } else {
        format!("{} MiB", trim(x / mib))
    }
}

fn fmt_secs(y: f64) -> String {
    if y >= 1.0 {
        format!("{} s", trim(y))
    } else {
        format!("{} ms", trim(y * 1000.0))
    }
}

fn trim(v: f64) -> String {
    // A generated "64M" file is a few bytes short of 64 MiB: label it 64.
    let v = if (v - v.round()).abs() < 0.01 * v.abs().max(1.0) {
        v.round()
    } else {
        v
    };
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Where the plot area lies and how values map into it.
struct Frame {
    /// Left and top margins, plot width and height.
    l: f64,
    t: f64,
    pw: f64,
    ph: f64,
    /// log2 of the x range, log10 of the y range.
    lx: (f64, f64),
    ly: (f64, f64),
}

impl Frame {
    fn px(&self, x: f64) -> f64 {
        self.l + (x.log2() - self.lx.0) / (self.lx.1 - self.lx.0) * self.pw
    }

    fn py(&self, y: f64) -> f64 {
        self.t + self.ph - (y.max(1e-9).log10() - self.ly.0) / (self.ly.1 - self.ly.0) * self.ph
    }
}

/// The frame that holds every point of `series`.
fn frame(series: &[Series], (w, h): (f64, f64)) -> Frame {
    let (l, r, t, b) = (90.0, 260.0, 90.0, 60.0);
    let pts = series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        if y > 0.0 {
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (1.0, 2.0, 0.001, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 * 2.0;
    }
    Frame {
        l,
        t,
        pw: w - l - r,
        ph: h - t - b,
        lx: (x0.log2(), x1.log2()),
        ly: ((y0.log10() - 0.1).floor(), (y1.log10() + 0.1).ceil()),
    }
}

/// Render the chart: log2 x axis through the given sizes, log10 y axis.
pub fn chart(title: &str, subtitle: &str, series: &[Series]) -> String {
    let (w, h) = (900.0, 540.0);
    let f = frame(series, (w, h));
    let (l, t, pw, ph) = (f.l, f.t, f.pw, f.ph);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="13">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="28" font-size="18" text-anchor="middle">{}</text>"#,
        l + pw / 2.0,
        esc(title)
    );
    for (k, line) in subtitle.lines().enumerate() {
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" font-size="11" fill="#555" text-anchor="middle">{}</text>"##,
            w / 2.0,
            48 + 15 * k,
            esc(line)
        );
    }
    y_grid(&f, &mut s);
    x_ticks(&f, series, &mut s);
    let _ = writeln!(
        s,
        r#"<rect x="{l}" y="{t}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">file size (log scale)</text>"#,
        l + pw / 2.0,
        h - 15.0
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(22,{:.1}) rotate(-90)" text-anchor="middle">median wall time (log scale)</text>"#,
        t + ph / 2.0
    );
    for (i, se) in series.iter().enumerate() {
        draw_series(&f, i, se, &mut s);
    }
    s.push_str("</svg>\n");
    s
}

/// Y grid: 1, 2, 5 per decade.
fn y_grid(f: &Frame, s: &mut String) {
    let (l, pw, (ly0, ly1)) = (f.l, f.pw, f.ly);
    let mut d = ly0 as i32;
    while d <= ly1 as i32 {
        for m in [1.0, 2.0, 5.0] {
            let y = m * 10f64.powi(d);
            let ly = y.log10();
            if ly < ly0 - 1e-9 || ly > ly1 + 1e-9 {
                continue;
            }
            let yy = f.py(y);
            let (stroke, sw) = if m == 1.0 {
                ("#bbb", 1.0)
            } else {
                ("#e5e5e5", 0.8)
            };
            let _ = writeln!(
                s,
                r#"<line x1="{l}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="{stroke}" stroke-width="{sw}"/>"#,
                l + pw
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
                l - 8.0,
                yy + 4.0,
                fmt_secs(y)
            );
        }
        d += 1;
    }
}

/// X ticks at every measured size.
fn x_ticks(f: &Frame, series: &[Series], s: &mut String) {
    let (t, ph) = (f.t, f.ph);
    let mut xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    xs.sort_by(|a, b| a.total_cmp(b));
    xs.dedup();
    for &x in &xs {
        let xx = f.px(x);
        let _ = writeln!(
            s,
            r##"<line x1="{xx:.1}" y1="{t}" x2="{xx:.1}" y2="{:.1}" stroke="#e5e5e5"/>"##,
            t + ph
        );
        let _ = writeln!(
            s,
            r#"<text x="{xx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            t + ph + 20.0,
            fmt_bytes(x)
        );
    }
}

/// The `i`-th series: its line, its points and its legend entry.
fn draw_series(f: &Frame, i: usize, se: &Series, s: &mut String) {
    let c = COLORS[i % COLORS.len()];
    let path: Vec<String> = se
        .points
        .iter()
        .map(|&(x, y)| format!("{:.1},{:.1}", f.px(x), f.py(y)))
        .collect();
    if path.len() > 1 {
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="2.5"/>"#,
            path.join(" ")
        );
    }
    for &(x, y) in &se.points {
        let _ = writeln!(
            s,
            r#"<circle cx="{:.1}" cy="{:.1}" r="4" fill="{c}"><title>{}: {} at {}</title></circle>"#,
            f.px(x),
            f.py(y),
            esc(&se.name),
            fmt_secs(y),
            fmt_bytes(x)
        );
    }
    let ly = f.t + 10.0 + i as f64 * 22.0;
    let lx = f.l + f.pw + 15.0;
    let _ = writeln!(
        s,
        r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{c}" stroke-width="3"/>"#,
        lx + 24.0
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}">{}</text>"#,
        lx + 30.0,
        ly + 4.0,
        esc(&se.name)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chart of a fixed set of series, byte for byte (the fixture was
    /// rendered by the chart code before it was split into parts).
    #[test]
    fn chart_is_unchanged() {
        let series = vec![
            Series {
                name: "grail -t 10".into(),
                points: vec![(64e6, 0.003), (256e6, 0.0031), (1.07e9, 0.0035)],
            },
            Series {
                name: "GNU <pipeline> & more".into(),
                points: vec![(64e6, 0.08), (256e6, 0.3), (1.07e9, 1.2)],
            },
            Series {
                name: "one point".into(),
                points: vec![(256e6, 0.02)],
            },
        ];
        let got = chart("Tails", "line one\nline two", &series);
        let want = include_str!("../testdata/chart.svg");
        assert_eq!(got, want);
    }
}
