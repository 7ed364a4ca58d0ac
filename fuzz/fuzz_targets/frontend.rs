//! Parser, checker and SSA construction on arbitrary bytes: no input may
//! panic, hang, overflow the stack or build IR the verifier rejects.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    // The driver runs the front end on a thread with a large stack; so do we.
    let verdict = std::thread::Builder::new()
        .stack_size(toyc::driver::COMPILER_STACK)
        .spawn(move || toyc::driver::front_end_on_text(&text))
        .expect("cannot spawn the front-end thread")
        .join()
        .expect("the front end panicked");
    if let Err(e) = verdict {
        panic!("the IR verifier rejected a program the checker accepted:\n{e}");
    }
});
