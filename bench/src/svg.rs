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

/// Render the chart: log2 x axis through the given sizes, log10 y axis.
pub fn chart(title: &str, subtitle: &str, series: &[Series]) -> String {
    let (w, h) = (900.0, 540.0);
    let (l, r, t, b) = (90.0, 260.0, 90.0, 60.0);
    let pw = w - l - r;
    let ph = h - t - b;
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
    let (lx0, lx1) = (x0.log2(), x1.log2());
    let ly0 = (y0.log10() - 0.1).floor();
    let ly1 = (y1.log10() + 0.1).ceil();
    let px = |x: f64| l + (x.log2() - lx0) / (lx1 - lx0) * pw;
    let py = |y: f64| t + ph - (y.max(1e-9).log10() - ly0) / (ly1 - ly0) * ph;
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
    // Y grid: 1, 2, 5 per decade.
    let mut d = ly0 as i32;
    while d <= ly1 as i32 {
        for m in [1.0, 2.0, 5.0] {
            let y = m * 10f64.powi(d);
            let ly = y.log10();
            if ly < ly0 - 1e-9 || ly > ly1 + 1e-9 {
                continue;
            }
            let yy = py(y);
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
    // X ticks at every measured size.
    let mut xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    xs.sort_by(|a, b| a.total_cmp(b));
    xs.dedup();
    for &x in &xs {
        let xx = px(x);
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
        let c = COLORS[i % COLORS.len()];
        let path: Vec<String> = se
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
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
                px(x),
                py(y),
                esc(&se.name),
                fmt_secs(y),
                fmt_bytes(x)
            );
        }
        let ly = t + 10.0 + i as f64 * 22.0;
        let lx = l + pw + 15.0;
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
    s.push_str("</svg>\n");
    s
}
