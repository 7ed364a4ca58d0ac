//! The parser and checker: syntax, robustness against bad input, mutation fuzzing.
mod bril;
mod mutations;
mod parser;
mod robustness;
