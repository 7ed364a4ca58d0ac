//! The Cranelift backend and the JIT.
mod fdiv_pair;
mod fixed_data;
mod ice;
mod jit;
mod jit_hir;
mod jit_many;

/// `toyc ARGS FILE` on program `src` (written to a temporary file named
/// after `tag` and this process), which must exit 0; its stdout.
fn toyc_on(src: &str, tag: &str, args: &[&str]) -> String {
    let path = std::env::temp_dir().join(format!("toyc-{tag}-{}.toy", std::process::id()));
    std::fs::write(&path, src).expect("write program");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(args)
        .arg(&path)
        .output()
        .expect("run toyc");
    assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("utf-8")
}
