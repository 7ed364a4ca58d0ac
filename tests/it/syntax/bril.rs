//! The Bril front end and lowering never panic: mutations of every Bril
//! lang-test (text, and the JSON form of one program), random bytes, and
//! deep type nesting either give diagnostics or build IR that verifies.
use super::robustness::Rng;
use std::path::Path;

/// Front end, lowering and the verifier on `text`, on a thread with the
/// driver's stack. `Err` is a verifier failure (or a panic).
fn compile(name: &'static str, text: String) -> Result<(), String> {
    std::thread::Builder::new()
        .stack_size(toyc::driver::COMPILER_STACK)
        .spawn(move || {
            let mut sources = toyc::span::SourceMap::new();
            let file = sources.add(name.into(), None, text.clone());
            let Ok((prog, checked)) = toyc::bril::load(&sources, file) else {
                return Ok(());
            };
            let m = toyc::ssa::bril::build_bril_module(&prog, &checked, None);
            toyc::ir::verify::verify_module(&m)
                .map_err(|e| format!("{}\n--- input ---\n{text}", e.join("; ")))
        })
        .unwrap()
        .join()
        .map_err(|_| "panicked".to_string())?
}

fn bril_tests() -> Vec<String> {
    let mut out = Vec::new();
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("lang-tests/bril")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).expect("dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "bril") {
                out.push(std::fs::read_to_string(p).expect("read"));
            }
        }
    }
    out.sort();
    out
}

const PIECES: [&str; 16] = [
    ";",
    ":",
    "=",
    ".l",
    "@f",
    "jmp .l",
    "br x .l .m",
    "{",
    "}",
    "ptr<",
    ">",
    "const",
    "'a'",
    "phi",
    "\n.x:\n",
    "-1.5e3",
];

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(3) {
            0 if at < bytes.len() => {
                let len = 1 + rng.below(8).min(bytes.len() - at - 1);
                bytes.drain(at..at + len);
            }
            1 => {
                let piece = PIECES[rng.below(PIECES.len())];
                bytes.splice(at..at, piece.bytes());
            }
            _ => {
                // Duplicate a line: more definitions, jumps and labels.
                let start = bytes[..at]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |i| i + 1);
                let end = bytes[at..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |i| at + i + 1);
                let line = bytes[start..end].to_vec();
                bytes.splice(end..end, line);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn mutated_bril_programs_never_panic_and_verify() {
    let mut rng = Rng(0x05ee_db11);
    let tests = bril_tests();
    assert!(tests.len() > 20, "found the Bril lang-tests");
    for t in &tests {
        compile("t.bril", t.clone()).expect("the unmutated test");
        for _ in 0..100 {
            let m = mutate(&mut rng, t);
            compile("t.bril", m).expect("a mutation");
        }
    }
}

#[test]
fn random_bytes_and_json_never_panic() {
    let mut rng = Rng(7);
    let json = "{\"functions\": [{\"name\": \"main\", \"args\": [{\"name\": \"n\", \"type\": \"int\"}], \
                \"instrs\": [{\"dest\": \"c\", \"op\": \"lt\", \"type\": \"bool\", \"args\": [\"n\", \"n\"]}, \
                {\"op\": \"br\", \"args\": [\"c\"], \"labels\": [\"a\", \"b\"]}, {\"label\": \"a\"}, \
                {\"dest\": \"p\", \"op\": \"alloc\", \"type\": {\"ptr\": \"int\"}, \"args\": [\"n\"]}, \
                {\"op\": \"free\", \"args\": [\"p\"]}, {\"label\": \"b\"}, {\"op\": \"print\", \"args\": [\"n\"]}]}]}";
    compile("t.json", json.to_string()).expect("the JSON program");
    for _ in 0..300 {
        compile("t.json", mutate(&mut rng, json)).expect("a JSON mutation");
        let n = rng.below(200);
        let bytes: Vec<u8> = (0..n).map(|_| (rng.next() & 0x7f) as u8).collect();
        compile("t.bril", String::from_utf8_lossy(&bytes).into_owned()).expect("random bytes");
    }
}

#[test]
fn deep_pointer_types_are_fine() {
    let depth = 20_000;
    let ty = format!("{}int{}", "ptr<".repeat(depth), ">".repeat(depth));
    let text = format!("@main {{\n  n: int = const 1;\n  p: {ty} = alloc n;\n  free p;\n}}\n");
    compile("t.bril", text).expect("deep type");
}
