//! The Cranelift backend and the JIT.
mod fdiv_pair;
mod fixed_data;
mod ice;
mod invariant;
mod jit;
mod jit_hir;
mod jit_many;
mod loop_layout;
mod schedule;

/// `toyc ARGS FILE` on program `src` (written to a temporary file named
/// after `tag`, this process and the call, so that tests running at once
/// never share one), which must exit 0; its stdout.
fn toyc_on(src: &str, tag: &str, args: &[&str]) -> String {
    toyc_on_env(src, tag, args, &[])
}

/// [`toyc_on`] with environment variables set.
fn toyc_on_env(src: &str, tag: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = format!("toyc-{tag}-{}-{call}.toy", std::process::id());
    let path = std::env::temp_dir().join(name);
    std::fs::write(&path, src).expect("write program");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(args)
        .arg(&path)
        .envs(env.iter().copied())
        .output()
        .expect("run toyc");
    let _ = std::fs::remove_file(&path);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("utf-8")
}
