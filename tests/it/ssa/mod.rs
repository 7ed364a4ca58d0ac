//! SSA construction (Braun et al.): φ counts, heap operations, minimality, scaling, from source.
mod bril;
mod builder;
mod heap;
mod minimal;
mod scaling;
mod source;
