//! Helpers for what the core says: user values shortened to one line,
//! "did you mean" suggestions, and the lines a run says of how it goes
//! ([`say`]). A leaf module: every layer that reports problems with its
//! input (units, cdf, topology, scenario) or on the run (parallel.rs) may
//! use it.

/// Edit distance with adjacent transpositions (optimal string alignment),
/// on chars, case-insensitive: `"stpo"` → `"stop"` is 1.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for (j, x) in d.iter_mut().take(w).enumerate() {
        *x = j;
    }
    for i in 1..=a.len() {
        d[i * w] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j - 1] + cost)
                .min(d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

/// The closest candidate within a small edit distance, if any; ties go to
/// the longer common prefix, then to the first listed.
pub fn suggest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    if word.chars().count() > 64 {
        return None;
    }
    let prefix = |c: &str| {
        word.chars()
            .zip(c.chars())
            .take_while(|(x, y)| x.eq_ignore_ascii_case(y))
            .count()
    };
    let mut best: Option<(usize, usize, &'a str)> = None;
    for (n, c) in candidates.enumerate() {
        if n >= 2000 {
            break;
        }
        let limit = (word.chars().count().max(c.chars().count()) / 3).max(1);
        let d = edit_distance(word, c);
        if d > limit {
            continue;
        }
        let p = prefix(c);
        if best.is_none_or(|(bd, bp, _)| d < bd || (d == bd && p > bp)) {
            best = Some((d, p, c));
        }
    }
    best.map(|(_, _, c)| c)
}

/// A count as the Python side prints one (`f"{n:,}"`): digits grouped by
/// threes with commas, so "10,388 more apps" reads at a glance.
pub fn count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Shorten a user value for an error message (char-boundary safe), with
/// control characters escaped: a problem is one line of output, and a
/// newline in a value must not split it (found by tests/test_fuzz.py).
pub fn excerpt(s: &str) -> String {
    const MAX: usize = 40;
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == MAX {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::count;

    /// Grouped as Python's `f"{n:,}"` groups: removing the commas gives the
    /// number back, and every group after the first has three digits.
    #[test]
    fn counts_group_digits_by_threes() {
        for n in [
            0usize,
            7,
            999,
            1_000,
            10_388,
            999_999,
            1_000_000,
            123_456_789,
            usize::MAX,
        ] {
            let s = count(n);
            assert_eq!(s.replace(',', ""), n.to_string(), "{s}");
            let groups: Vec<&str> = s.split(',').collect();
            assert!((1..=3).contains(&groups[0].len()), "{s}");
            assert!(groups[1..].iter().all(|g| g.len() == 3), "{s}");
            assert_eq!(groups.len(), n.to_string().len().div_ceil(3), "{s}");
        }
    }
}

thread_local! {
    /// Where [`say`] puts its lines on this thread: `None`, stderr.
    static NOTES: std::cell::RefCell<Option<Vec<String>>> = const { std::cell::RefCell::new(None) };
}

/// One line about how a run goes that changes none of its results (why it
/// runs on fewer threads than asked, how its partitions share the cores):
/// on stderr, or to [`capture_notes`]'s caller when one is listening on
/// this thread. The Python layer listens and prints them on its own
/// `sys.stderr`, where a notebook shows them; written to the process's
/// stderr directly, they were lost there.
pub fn say(line: String) {
    NOTES.with(|n| match n.borrow_mut().as_mut() {
        Some(v) => v.push(line),
        None => eprintln!("{line}"),
    });
}

/// `f`'s result and the lines [`say`] gave while it ran on this thread.
pub fn capture_notes<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    let before = NOTES.with(|n| n.borrow_mut().replace(Vec::new()));
    let r = f();
    let notes = NOTES
        .with(|n| std::mem::replace(&mut *n.borrow_mut(), before))
        .unwrap_or_default();
    (r, notes)
}
