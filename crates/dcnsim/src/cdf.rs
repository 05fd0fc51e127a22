//! Empirical flow-size distributions (CDFs) and sampling by inverse transform.
//!
//! A CDF is a list of points `(size in bytes, P(size ≤ that))`, sizes and
//! probabilities non-decreasing, the last probability 1. Two readings:
//!
//! * `linear` (default, the convention of the pFabric / PIAS / HPCC traffic
//!   generators these tables come from): the distribution function is
//!   piecewise linear between points; the first point's probability is a
//!   mass at its size (so `(1460, 0), (1460, 0.5)` — the data-mining table —
//!   puts half of all flows at exactly 1460 bytes);
//! * `step`: only the listed sizes occur, size `x_i` with probability
//!   `p_i − p_{i−1}` (an empirical table of observed sizes).
//!
//! A draw is `u ∈ (0, 1]` mapped through the inverse CDF, then rounded up to
//! whole bytes (at least 1). Rounding up keeps `P(drawn ≤ n) = F(n)` exactly
//! at every integer `n ≥ 1`, which is what a Kolmogorov–Smirnov test of the
//! drawn sizes compares against ([`FlowSizeCdf::prob_le`]).

/// The two built-in workloads, embedded so every front (Rust, Python, CLI)
/// sees the same numbers: (name, file text).
pub const BUILTIN: &[(&str, &str)] = &[
    ("websearch", include_str!("../data/websearch_cdf.txt")),
    ("datamining", include_str!("../data/datamining_cdf.txt")),
];

/// Sizes above this are rejected: 1 PB keeps every sum of sizes far from u64 overflow.
pub const MAX_SIZE: f64 = 1e15;
/// A CDF longer than this is almost certainly a mistake (and slows validation).
pub const MAX_POINTS: usize = 100_000;
/// The last probability may miss 1 by this much (tables given in percent, rounded).
pub const END_TOLERANCE: f64 = 1e-6;

/// Points `(size, probability)` and the file line of each.
pub type PointsAndLines = (Vec<(f64, f64)>, Vec<usize>);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    Linear,
    Step,
}

impl Sampling {
    pub fn name(self) -> &'static str {
        match self {
            Sampling::Linear => "linear",
            Sampling::Step => "step",
        }
    }
}

/// A validated flow-size CDF.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSizeCdf {
    sizes: Vec<f64>,
    probs: Vec<f64>,
    sampling: Sampling,
    mean: f64,
}

/// One problem with a CDF: the index of the point (if it is about one point)
/// and the reason.
#[derive(Clone, Debug, PartialEq)]
pub struct CdfError {
    pub point: Option<usize>,
    pub message: String,
}

impl CdfError {
    fn at(i: usize, message: String) -> Self {
        CdfError {
            point: Some(i),
            message,
        }
    }
    fn whole(message: impl Into<String>) -> Self {
        CdfError {
            point: None,
            message: message.into(),
        }
    }
}

impl FlowSizeCdf {
    /// Validate `points` (size, cumulative probability); every problem is reported.
    pub fn new(points: &[(f64, f64)], sampling: Sampling) -> Result<Self, Vec<CdfError>> {
        let mut errs = Vec::new();
        if points.is_empty() {
            return Err(vec![CdfError::whole("needs at least one point")]);
        }
        if points.len() > MAX_POINTS {
            return Err(vec![CdfError::whole(format!(
                "too many points ({}, at most {MAX_POINTS})",
                points.len()
            ))]);
        }
        // HPCC's traffic_gen files (WebSearch_distribution.txt and its kin)
        // write percent: one error saying so, not one per point over 1
        let (_, last) = points[points.len() - 1];
        if (last - 100.0).abs() <= 100.0 * END_TOLERANCE
            && points
                .iter()
                .all(|&(_, p)| p.is_finite() && (0.0..=100.0).contains(&p))
        {
            return Err(vec![CdfError::whole(
                "its probabilities end at 100: percent, as HPCC's traffic_gen files write \
                 them? here a CDF ends at probability 1 (divide the second column by 100)",
            )]);
        }
        for (i, &(x, p)) in points.iter().enumerate() {
            if !x.is_finite() || x < 0.0 {
                errs.push(CdfError::at(i, format!("size must be ≥ 0, got {x}")));
            } else if x > MAX_SIZE {
                errs.push(CdfError::at(
                    i,
                    format!("size {x} exceeds {MAX_SIZE:e} bytes"),
                ));
            }
            if !p.is_finite() || !(0.0..=1.0).contains(&p) {
                errs.push(CdfError::at(
                    i,
                    format!("probability must be in [0, 1], got {p}"),
                ));
            }
            if x == 0.0 && p > 0.0 {
                errs.push(CdfError::at(
                    i,
                    format!("size 0 with probability {p} > 0: flows must carry at least one byte"),
                ));
            }
            if i > 0 {
                let (x0, p0) = points[i - 1];
                if x < x0 {
                    errs.push(CdfError::at(
                        i,
                        format!("sizes must not decrease: {x} after {x0}"),
                    ));
                }
                if p < p0 {
                    errs.push(CdfError::at(
                        i,
                        format!("probabilities must not decrease: {p} after {p0}"),
                    ));
                }
            }
        }
        let (_, last_p) = points[points.len() - 1];
        if last_p.is_finite() && (last_p - 1.0).abs() > END_TOLERANCE {
            errs.push(CdfError::at(
                points.len() - 1,
                format!("the CDF must end at probability 1, ends at {last_p}"),
            ));
        }
        if !errs.is_empty() {
            return Err(errs);
        }
        let sizes: Vec<f64> = points.iter().map(|p| p.0).collect();
        let mut probs: Vec<f64> = points.iter().map(|p| p.1).collect();
        // Within tolerance: the last point is the top of the distribution.
        *probs.last_mut().expect("non-empty") = 1.0;
        let mut mean = probs[0] * sizes[0];
        for i in 1..sizes.len() {
            let dp = probs[i] - probs[i - 1];
            mean += dp
                * match sampling {
                    Sampling::Linear => 0.5 * (sizes[i - 1] + sizes[i]),
                    Sampling::Step => sizes[i],
                };
        }
        Ok(FlowSizeCdf {
            sizes,
            probs,
            sampling,
            mean,
        })
    }

    /// The text of a CDF file: one point per line, `size probability`
    /// (whitespace or comma separated); `#` starts a comment. Errors carry
    /// the 1-based line number.
    pub fn parse_text(text: &str) -> Result<Vec<(f64, f64)>, String> {
        Self::parse_text_lines(text).map(|(pts, _)| pts)
    }

    /// [`Self::parse_text`], plus the 1-based line number of each point.
    pub fn parse_text_lines(text: &str) -> Result<PointsAndLines, String> {
        let mut out = Vec::new();
        let mut lines = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line
                .split(|c: char| c.is_whitespace() || c == ',')
                .filter(|s| !s.is_empty())
                .collect();
            let bad = || {
                format!(
                    "line {}: expected 'size probability', got '{}'",
                    n + 1,
                    crate::text::excerpt(line)
                )
            };
            if fields.len() != 2 {
                return Err(bad());
            }
            let (Ok(x), Ok(p)) = (fields[0].parse::<f64>(), fields[1].parse::<f64>()) else {
                // "10KB 0.5": an inline CDF takes units, a file does not
                if fields[1].parse::<f64>().is_ok()
                    && fields[0].starts_with(|c: char| c.is_ascii_digit())
                {
                    return Err(format!(
                        "line {}: sizes in a CDF file are plain bytes, got '{}'",
                        n + 1,
                        crate::text::excerpt(fields[0])
                    ));
                }
                return Err(bad());
            };
            out.push((x, p));
            lines.push(n + 1);
            if out.len() > MAX_POINTS {
                return Err(format!("more than {MAX_POINTS} points"));
            }
        }
        if out.is_empty() {
            return Err("no points (lines of 'size probability')".into());
        }
        Ok((out, lines))
    }

    /// A built-in workload by name (`websearch`, `datamining`).
    pub fn builtin(name: &str, sampling: Sampling) -> Option<FlowSizeCdf> {
        let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name)?;
        let pts = Self::parse_text(text).expect("built-in CDF parses");
        Some(Self::new(&pts, sampling).expect("built-in CDF is valid"))
    }

    pub fn sampling(&self) -> Sampling {
        self.sampling
    }

    /// The points, as given (the last probability set to exactly 1).
    pub fn points(&self) -> Vec<(f64, f64)> {
        self.sizes
            .iter()
            .copied()
            .zip(self.probs.iter().copied())
            .collect()
    }

    /// Mean flow size in bytes (of the distribution before rounding up to
    /// whole bytes; rounding adds less than one byte).
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// The size for `u ∈ (0, 1]` (inverse transform), in whole bytes ≥ 1.
    pub fn quantile(&self, u: f64) -> u64 {
        // First point whose probability reaches u.
        let i = self
            .probs
            .partition_point(|&p| p < u)
            .min(self.probs.len() - 1);
        let x = if i == 0 || self.sampling == Sampling::Step {
            self.sizes[i]
        } else {
            let (x0, x1) = (self.sizes[i - 1], self.sizes[i]);
            let (p0, p1) = (self.probs[i - 1], self.probs[i]);
            // p0 < u ≤ p1, so p1 > p0.
            x0 + (u - p0) / (p1 - p0) * (x1 - x0)
        };
        (x.ceil() as u64).max(1)
    }

    /// Draw one size from `rng`.
    pub fn sample<R: rand::Rng>(&self, rng: &mut R) -> u64 {
        // gen::<f64>() is in [0, 1); 1 − it is in (0, 1].
        self.quantile(1.0 - rng.gen::<f64>())
    }

    /// `P(size ≤ x)` of the (continuous or step) distribution; at integer
    /// `x ≥ 1` this is also the probability that a drawn size is ≤ `x`.
    pub fn prob_le(&self, x: f64) -> f64 {
        let n = self.sizes.partition_point(|&s| s <= x);
        if n == 0 {
            return 0.0;
        }
        let i = n - 1;
        if i + 1 == self.sizes.len() || self.sampling == Sampling::Step {
            return self.probs[i];
        }
        let (x0, x1) = (self.sizes[i], self.sizes[i + 1]);
        let (p0, p1) = (self.probs[i], self.probs[i + 1]);
        p0 + (x - x0) / (x1 - x0) * (p1 - p0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_parse_with_their_documented_means() {
        // The data files' headers state the means under linear interpolation.
        let w = FlowSizeCdf::builtin("websearch", Sampling::Linear).unwrap();
        assert!((w.mean() - 1_711_250.0).abs() < 1.0, "{}", w.mean());
        let d = FlowSizeCdf::builtin("datamining", Sampling::Linear).unwrap();
        assert!((d.mean() / 1460.0 - 5116.6).abs() < 0.1, "{}", d.mean());
    }

    #[test]
    fn step_at_the_first_point_is_a_mass() {
        let d = FlowSizeCdf::builtin("datamining", Sampling::Linear).unwrap();
        assert_eq!(d.quantile(1e-9), 1460);
        assert_eq!(d.quantile(0.5), 1460);
        assert!(d.quantile(0.5001) > 1460);
        assert_eq!(d.prob_le(1460.0), 0.5);
        assert_eq!(d.prob_le(1459.0), 0.0);
    }

    #[test]
    fn quantile_inverts_prob_le() {
        let w = FlowSizeCdf::builtin("websearch", Sampling::Linear).unwrap();
        for k in 1..1000 {
            let u = k as f64 / 1000.0;
            let x = w.quantile(u);
            // The smallest integer size whose probability reaches u.
            assert!(w.prob_le(x as f64) >= u - 1e-12);
            assert!(x == 1 || w.prob_le((x - 1) as f64) < u + 1e-12);
        }
        assert_eq!(w.quantile(1.0), 30_000_000);
    }

    #[test]
    fn step_sampling_draws_only_listed_sizes() {
        let c = FlowSizeCdf::new(
            &[(100.0, 0.25), (200.0, 0.25), (300.0, 1.0)],
            Sampling::Step,
        )
        .unwrap();
        assert_eq!(c.quantile(0.1), 100);
        assert_eq!(c.quantile(0.25), 100);
        assert_eq!(c.quantile(0.26), 300);
        assert!((c.mean() - (0.25 * 100.0 + 0.75 * 300.0)).abs() < 1e-9);
    }

    #[test]
    fn bad_cdfs_name_the_point() {
        let e = FlowSizeCdf::new(&[(10.0, 0.5), (5.0, 0.4), (20.0, 0.9)], Sampling::Linear)
            .unwrap_err();
        let msgs: Vec<_> = e.iter().map(|e| (e.point, e.message.clone())).collect();
        assert!(msgs
            .iter()
            .any(|(p, m)| *p == Some(1) && m.contains("sizes must not decrease")));
        assert!(msgs
            .iter()
            .any(|(p, m)| *p == Some(1) && m.contains("probabilities must not decrease")));
        assert!(msgs
            .iter()
            .any(|(p, m)| *p == Some(2) && m.contains("end at probability 1")));
        let e = FlowSizeCdf::new(&[(0.0, 0.1), (5.0, 1.0)], Sampling::Linear).unwrap_err();
        assert!(e[0].message.contains("at least one byte"));
        assert!(FlowSizeCdf::new(&[], Sampling::Linear).is_err());
        assert!(FlowSizeCdf::new(&[(-1.0, 1.0)], Sampling::Linear).is_err());
        assert!(FlowSizeCdf::new(&[(1.0, 1.5)], Sampling::Linear).is_err());
    }

    #[test]
    fn parse_text_reports_lines() {
        assert_eq!(
            FlowSizeCdf::parse_text("# c\n1 0\n 2, 1 # end\n").unwrap(),
            vec![(1.0, 0.0), (2.0, 1.0)]
        );
        let e = FlowSizeCdf::parse_text("1 0\n2 x\n").unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
        assert!(FlowSizeCdf::parse_text("# nothing\n").is_err());
        let e = FlowSizeCdf::parse_text("1 0\n10KB 1\n").unwrap_err();
        assert_eq!(e, "line 2: sizes in a CDF file are plain bytes, got '10KB'");
    }

    /// HPCC's traffic_gen writes its CDFs in percent: one error that says
    /// so, not an error at every point above 1.
    #[test]
    fn a_cdf_in_percent_is_named_once() {
        let pct = [(0.0, 0.0), (10_000.0, 15.0), (1e6, 70.0), (3e7, 100.0)];
        let e = FlowSizeCdf::new(&pct, Sampling::Linear).unwrap_err();
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].point.is_none() && e[0].message.contains("percent"),
            "{e:?}"
        );
        let frac: Vec<(f64, f64)> = pct.iter().map(|&(x, p)| (x, p / 100.0)).collect();
        assert!(FlowSizeCdf::new(&frac, Sampling::Linear).is_ok());
        // a CDF that ends elsewhere keeps its errors point by point
        let e = FlowSizeCdf::new(&[(1.0, 0.5), (2.0, 50.0)], Sampling::Linear).unwrap_err();
        assert!(e.iter().all(|x| !x.message.contains("percent")), "{e:?}");
    }
}
