//! The fuzz corpus (tests/data/fuzz_corpus, inputs that once crashed or
//! were misread) through the Rust parser: no panic, and every problem has
//! a field path and a reason. The `.toml` files are converted by the
//! Python front and are run by tests/test_fuzz.py.

use std::path::Path;

#[test]
fn corpus_json_files_are_rejected_with_named_problems() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/fuzz_corpus");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/data/fuzz_corpus exists") {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        n += 1;
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        let problems = dcnsim::validate_json(&text);
        for p in &problems {
            let (field, reason) = p.split_once(": ").unwrap_or(("", ""));
            assert!(
                !field.is_empty() && !reason.trim().is_empty(),
                "{}: problem without field or reason: {p}",
                path.display()
            );
        }
        // Every corpus file stays invalid for the core on its own too
        // (the Python front rejects them before the core sees them).
        assert!(!problems.is_empty(), "{} was accepted", path.display());
    }
    assert!(n >= 5, "the corpus has its JSON files ({n} found)");
}
