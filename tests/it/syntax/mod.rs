//! The parser and checker: syntax, robustness against bad input, mutation fuzzing.
mod parser;
mod robustness;
mod mutations;
