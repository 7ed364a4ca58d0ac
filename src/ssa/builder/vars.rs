//! Braun et al.'s reads and writes of variables: `write_var` records a
//! definition in the block's map, `read_var` finds the value a read sees,
//! by the maps alone where they have it, else by a walk over the
//! predecessors that makes φs where control flow merges (an incomplete φ
//! in a block not yet sealed). A variable the front end vouches has one
//! definition skips all of it ([`Builder::single_definition`]).
use super::{Blk, Builder, Var};
use crate::ir::{Inst, Operand, Value};
use crate::ssa::env::Entry;
use cranelift_entity::EntityRef;

/// What a variable with one definition has ([`Builder::single_definition`]).
#[derive(Clone, Copy, Debug)]
pub(super) enum Sole {
    /// Assigned more than once: read through the maps and φs.
    Many,
    /// Not written yet.
    Unwritten,
    /// What its definition wrote: every read finds it.
    Value(Operand),
}

/// A step of [`Builder::read_var`]'s walk (its explicit stack).
pub(super) enum Frame {
    Lookup(Blk),
    Visit(Blk),
    Single(Blk),
    Phi { phi: u32, block: Blk, next: usize },
}

impl Builder {
    /// Vouches that each variable `v` with `single(v)` has one definition,
    /// which dominates every read of it (the front end knows: a local
    /// never assigned after its declaration). Such a variable bypasses the
    /// maps and φs: its write is remembered and every read returns it.
    pub fn single_definition(&mut self, vars: usize, single: impl Fn(Var) -> bool) {
        self.sole.clear();
        self.sole.extend((0..vars as Var).map(|v| {
            if single(v) {
                Sole::Unwritten
            } else {
                Sole::Many
            }
        }));
    }

    /// Defines `var` in `block` (an assignment of the program).
    pub fn write_var(&mut self, var: Var, block: Blk, value: Operand) {
        let new = self.name_node(var, value);
        match self.sole.get_mut(var as usize) {
            Some(s @ Sole::Unwritten) => {
                // Its only definition: no map or log entry, and nothing
                // for `note_copy` to track (a variable without φs cannot
                // make a redundant one).
                *s = Sole::Value(value);
                return;
            }
            Some(Sole::Value(_)) => {
                panic!("variable {var} was vouched to have one definition, and has a second")
            }
            _ => {}
        }
        self.note_copy(var, new);
        self.log.push(var);
        self.cache_var(var, block, value);
    }

    /// Records that `value` is a value of `var`: its node (if it is one)
    /// is marked assigned, and takes `var`'s name unless it has one (only
    /// variables below `named_vars` name nodes). Returns whether `value`
    /// is new: a node no variable had before, not a φ.
    fn name_node(&mut self, var: Var, value: Operand) -> bool {
        let Operand::Value(v) = self.resolve(value) else {
            return false;
        };
        let named = var < self.named_vars;
        let Some(node) = self.nodes.get_mut(v.index()) else {
            return false;
        };
        if named && node.var.is_none() {
            node.var = Some(var);
        }
        !matches!(node.inst, Inst::Phi { .. }) && !std::mem::replace(&mut node.assigned, true)
    }

    /// Records `value` as what a read of `var` finds at the end of
    /// `block` (an assignment, or what an earlier read found).
    fn cache_var(&mut self, var: Var, block: Blk, value: Operand) {
        self.arena
            .insert(&mut self.env[block as usize], var, Entry::Val(value));
        let v = var as usize;
        if v >= self.last_read.len() {
            self.last_read.resize(v + 1, (Blk::MAX, Operand::Nil));
        }
        self.last_read[v] = (block, value);
    }

    /// Where the walk for `var` from `b` ends: the value found on the way,
    /// or the first block where the lookup is not a plain hop.
    fn target(&mut self, var: Var, b: Blk) -> Result<Operand, Blk> {
        let mut b = b;
        loop {
            self.steps += 1;
            match self.arena.get(self.env[b as usize], var) {
                Some(Entry::Val(v)) => return Ok(v),
                Some(Entry::Stop(c)) if c != b => b = c,
                Some(Entry::Stop(_)) => return Err(b),
                None if self.root[b as usize] != b => b = self.root[b as usize],
                None => return Err(b),
            }
        }
    }

    /// The value of `var` at the end of what has been built of `block`.
    /// Iterative: no recursion, whatever the shape of the CFG.
    pub fn read_var(&mut self, var: Var, block: Blk) -> Operand {
        if let Some(&Sole::Value(v)) = self.sole.get(var as usize) {
            return self.resolve(v);
        }
        if let Some(&(b, v)) = self.last_read.get(var as usize)
            && b == block
        {
            return self.resolve(v);
        }
        match self.target(var, block) {
            Ok(v) => self.resolve(v),
            Err(t) => {
                let mut stack = std::mem::take(&mut self.read_stack);
                stack.clear();
                if t != block {
                    // Remember the result where the read started.
                    stack.push(Frame::Single(block));
                }
                stack.push(Frame::Visit(t));
                let v = self.walk(var, &mut stack);
                self.read_stack = stack;
                v
            }
        }
    }

    /// [`Builder::read_var`]'s walk once the lookup from the block read
    /// has stopped at a block that is not a plain hop.
    fn walk(&mut self, var: Var, stack: &mut Vec<Frame>) -> Operand {
        let mut ret: Option<Operand> = None;
        // Hops to a single predecessor or a region's head. A reachable
        // block reaches a definition in fewer hops than there are blocks;
        // more means a cycle of single-predecessor blocks that nothing
        // enters (dead code after a raise), where the variable has no value.
        let mut hops = 0usize;
        while let Some(frame) = stack.pop() {
            match frame {
                Frame::Lookup(b) => match self.target(var, b) {
                    Ok(v) => ret = Some(self.resolve(v)),
                    Err(t) => {
                        if t != b {
                            // Remember the result where the read started.
                            stack.push(Frame::Single(b));
                        }
                        stack.push(Frame::Visit(t));
                    }
                },
                Frame::Visit(b) => self.visit(var, b, &mut hops, stack, &mut ret),
                Frame::Single(b) => {
                    let v = ret.unwrap_or_else(|| self.undef(var));
                    self.cache_var(var, b, v);
                    ret = Some(v);
                }
                Frame::Phi {
                    phi,
                    block: b,
                    next,
                } => {
                    if let Some(v) = ret.take() {
                        self.add_phi_operand(phi, v);
                    }
                    let preds = &self.blocks[b as usize].preds;
                    if next < preds.len() {
                        let p = preds[next];
                        stack.push(Frame::Phi {
                            phi,
                            block: b,
                            next: next + 1,
                        });
                        stack.push(Frame::Lookup(p));
                    } else {
                        ret = Some(self.try_remove_trivial_phi(phi));
                    }
                }
            }
        }
        let v = ret.unwrap_or_else(|| self.undef(var));
        self.resolve(v)
    }

    /// [`Builder::walk`] at block `b`, not a plain hop: a value for `var`
    /// (into `ret`), or the frames that find it (a hop through a skipped
    /// region or a single predecessor, or a φ over the predecessors).
    fn visit(
        &mut self,
        var: Var,
        b: Blk,
        hops: &mut usize,
        stack: &mut Vec<Frame>,
        ret: &mut Option<Operand>,
    ) {
        self.steps += 1;
        let blk = &self.blocks[b as usize];
        if blk.sealed && *hops > self.blocks.len() {
            let v = self.undef(var);
            self.cache_var(var, b, v);
            *ret = Some(v);
            return;
        }
        if blk.sealed
            && let Some((head, written)) = self.skip[b as usize]
            && !written.contains(&self.written, var)
        {
            // A structured region that does not write
            // `var`: its value is the one at the head.
            *hops += 1;
            stack.push(Frame::Single(b));
            stack.push(Frame::Lookup(head));
            return;
        }
        if !blk.sealed {
            let phi = self.new_phi(var, b);
            self.blocks[b as usize].incomplete.push((var, phi));
            let v = Operand::Value(Value(phi));
            self.cache_var(var, b, v);
            *ret = Some(v);
        } else if blk.preds.len() == 1 {
            let p = blk.preds[0];
            *hops += 1;
            stack.push(Frame::Single(b));
            stack.push(Frame::Lookup(p));
        } else if blk.preds.is_empty() {
            // Dead code or a read before any definition (sema
            // rules the latter out): any value of the type.
            let v = self.undef(var);
            self.cache_var(var, b, v);
            *ret = Some(v);
        } else {
            match self.join_by_lookup(var, b) {
                Ok(v) => *ret = Some(v),
                Err((phi, k)) => {
                    *ret = None;
                    let p = self.blocks[b as usize].preds[k];
                    stack.push(Frame::Phi {
                        phi,
                        block: b,
                        next: k + 1,
                    });
                    stack.push(Frame::Lookup(p));
                }
            }
        }
    }

    /// The value of `var` at the sealed block `b`, which has several
    /// predecessors, while lookups in the maps alone find it at their ends
    /// (no walk): no φ is made until two of those values differ. `Ok`: the
    /// value, cached at `b`; the one all predecessors have, or a φ of
    /// theirs (not trivial: it has two different operands). `Err((phi,
    /// k))`: predecessor `k` needs a walk; `phi` is made, cached at `b`,
    /// and has the operands of the predecessors before `k`.
    ///
    /// A lookup made before the φ is cached finds what it would find after:
    /// a predecessor's chain of plain hops never passes `b` (only a loop
    /// header is its own predecessors' ancestor, and its lookup is not a
    /// plain hop: such a chain stops there, which is a walk).
    fn join_by_lookup(&mut self, var: Var, b: Blk) -> Result<Operand, (u32, usize)> {
        let mut same = None;
        let mut phi = None;
        for k in 0..self.blocks[b as usize].preds.len() {
            let p = self.blocks[b as usize].preds[k];
            let found = self.target(var, p).map(|v| self.resolve(v));
            let phi = match (phi, found) {
                (Some(x), _) => x,
                (None, Ok(v)) if same.is_none_or(|s| s == v) => {
                    same = Some(v);
                    continue;
                }
                (None, _) => {
                    let x = self.new_phi(var, b);
                    self.cache_var(var, b, Operand::Value(Value(x)));
                    // The predecessors before `k`, which all had `same`.
                    for v in std::iter::repeat_n(same, k).flatten() {
                        self.add_phi_operand(x, v);
                    }
                    *phi.insert(x)
                }
            };
            match found {
                Ok(v) => self.add_phi_operand(phi, v),
                Err(_) => return Err((phi, k)),
            }
        }
        let v = match (phi, same) {
            (Some(x), _) => return Ok(Operand::Value(Value(x))),
            (None, Some(v)) => v,
            (None, None) => self.undef(var),
        };
        self.cache_var(var, b, v);
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Type;
    use crate::span::Span;

    /// A diamond from the entry: `then` and `els` each jump to `join`,
    /// which is sealed and made current. Variable 0 is `_1` from the entry
    /// on; variable 1 is `then_value` and `els_value` on the two sides.
    fn diamond(b: &mut Builder, then_value: Operand, els_value: Operand) -> Blk {
        let span = Span::default();
        b.write_var(0, 0, Operand::Arg(0));
        let (then, els, join) = (b.new_block(), b.new_block(), b.new_block());
        b.branch(Operand::Arg(1), then, els, span);
        for (side, value) in [(then, then_value), (els, els_value)] {
            b.seal(side);
            b.switch_to(side);
            b.write_var(1, side, value);
            b.jump(join, span);
        }
        b.seal(join);
        b.switch_to(join);
        join
    }

    #[test]
    fn a_join_makes_a_phi_only_when_its_predecessors_differ() {
        let mut b = Builder::new(vec![Type::Int; 2]);
        let join = diamond(&mut b, Operand::Int(1), Operand::Int(2));
        let made = b.nodes.len();
        // Both predecessors find `_1` in the entry's map: no φ, not even a
        // trivial one removed again.
        assert_eq!(b.read_var(0, join), Operand::Arg(0));
        assert_eq!(b.nodes.len(), made);
        // Two values: one φ, its operands in predecessor order.
        let Operand::Value(Value(phi)) = b.read_var(1, join) else {
            panic!("no φ for two different values");
        };
        assert_eq!(b.nodes.len(), made + 1);
        assert_eq!(b.blocks[join as usize].phis, [phi]);
        assert_eq!(b.phi_operands(phi), [Operand::Int(1), Operand::Int(2)]);
        // Read again: the value cached at the join, nothing new.
        assert_eq!(b.read_var(1, join), Operand::Value(Value(phi)));
        assert_eq!(b.nodes.len(), made + 1);

        // The same constant on both sides: no φ.
        let mut b = Builder::new(vec![Type::Int; 2]);
        let join = diamond(&mut b, Operand::Int(7), Operand::Int(7));
        let made = b.nodes.len();
        assert_eq!(b.read_var(1, join), Operand::Int(7));
        assert_eq!(b.nodes.len(), made);
        assert!(b.blocks[join as usize].phis.is_empty());
    }

    #[test]
    fn a_variable_with_one_definition_is_read_without_maps_or_phis() {
        let span = Span::default();
        let mut b = Builder::new(vec![Type::Int; 2]);
        // Variable 0 has one definition; variable 1 is assigned again.
        b.single_definition(2, |v| v == 0);
        b.write_var(0, 0, Operand::Arg(0));
        b.write_var(1, 0, Operand::Arg(1));
        // A loop header, not sealed: its predecessors are not all known.
        let header = b.new_block();
        b.jump(header, span);
        b.switch_to(header);
        let made = b.nodes.len();
        assert_eq!(b.read_var(0, header), Operand::Arg(0));
        assert_eq!(b.nodes.len(), made);
        // Variable 1 may change around the loop: an incomplete φ.
        assert!(matches!(b.read_var(1, header), Operand::Value(_)));
        assert_eq!(b.nodes.len(), made + 1);
    }

    #[test]
    #[should_panic(expected = "has a second")]
    fn a_second_definition_of_a_vouched_variable_is_an_internal_error() {
        let mut b = Builder::new(vec![Type::Int; 1]);
        b.single_definition(1, |_| true);
        b.write_var(0, 0, Operand::Arg(0));
        b.write_var(0, 0, Operand::Arg(1));
    }

    #[test]
    fn a_predecessor_that_needs_a_walk_gets_it_after_the_phi_is_made() {
        let span = Span::default();
        let mut b = Builder::new(vec![Type::Int; 2]);
        let join = diamond(&mut b, Operand::Int(1), Operand::Int(2));
        // From the join (nothing read there yet): `c` writes 3, `d` writes
        // nothing, both go to `join2`.
        let (c, d, join2) = (b.new_block(), b.new_block(), b.new_block());
        b.branch(Operand::Arg(1), c, d, span);
        for side in [c, d] {
            b.seal(side);
            b.switch_to(side);
            if side == c {
                b.write_var(1, c, Operand::Int(3));
            }
            b.jump(join2, span);
        }
        b.seal(join2);
        b.switch_to(join2);
        let made = b.nodes.len();
        // `c` is found by lookup; `d`'s lookup stops at `join`, whose φ the
        // walk makes after `join2`'s.
        let Operand::Value(Value(phi2)) = b.read_var(1, join2) else {
            panic!("no φ at join2");
        };
        let Operand::Value(Value(phi)) = b.read_var(1, join) else {
            panic!("no φ at join");
        };
        assert_eq!(b.nodes.len(), made + 2);
        assert_eq!(b.phi_operands(phi), [Operand::Int(1), Operand::Int(2)]);
        assert_eq!(
            b.phi_operands(phi2),
            [Operand::Int(3), Operand::Value(Value(phi))]
        );
    }
}
