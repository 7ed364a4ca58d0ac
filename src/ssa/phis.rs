//! The builder's φ bookkeeping: making φs, adding their operands, and
//! Braun et al.'s removal of trivial φs (with the users to re-check); and
//! the placeholder values where no definition reaches.
use super::builder::{Blk, Builder, LvnKey, Var};
use crate::ir::{Flags, Inst, Operand, Type, Value};
use crate::span::Span;

impl Builder {
    pub(super) fn new_phi(&mut self, var: Var, b: Blk) -> u32 {
        let ty = self.var_ty.get(var as usize).cloned().unwrap_or(Type::Int);
        let n = self.add_node(
            Inst::Phi {
                edges: Vec::new(),
                values: Vec::new(),
            },
            ty,
            Span::default(),
            Flags(Flags::EFFECT_FREE.0 | Flags::NOTHROW.0),
            b,
        );
        if var < self.named_vars {
            self.nodes[n as usize].var = Some(var);
        }
        self.blocks[b as usize].phis.push(n);
        n
    }

    pub(super) fn add_phi_operand(&mut self, phi: u32, v: Operand) {
        let v = self.resolve(v);
        if let Operand::Value(u) = v {
            self.phi_users.add(u.0, phi);
        }
        if let Inst::Phi { values, .. } = &mut self.nodes[phi as usize].inst {
            values.push(v);
        }
    }

    /// The operands of φ `n`, resolved.
    pub fn phi_operands(&self, n: u32) -> Vec<Operand> {
        match &self.nodes[n as usize].inst {
            Inst::Phi { values, .. } => values.iter().map(|v| self.resolve(*v)).collect(),
            _ => Vec::new(),
        }
    }

    /// Replaces `phi` by `value` and records the users to re-check.
    pub fn replace_phi(&mut self, phi: u32, value: Operand) {
        self.forward[phi as usize] = Some(value);
        if let Operand::Value(x) = value
            && x.0 != phi
        {
            self.phi_users.copy(phi, x.0);
        }
    }

    /// Braun et al.'s tryRemoveTrivialPhi, with a worklist over the φ users
    /// instead of recursion. Returns what `phi` stands for now.
    pub fn try_remove_trivial_phi(&mut self, phi: u32) -> Operand {
        let mut work = std::mem::take(&mut self.work);
        work.clear();
        work.push(phi);
        while let Some(p) = work.pop() {
            if self.forward[p as usize].is_some()
                || !self.blocks[self.nodes[p as usize].block as usize].sealed
            {
                continue;
            }
            let Some((same, count)) = self.trivial_value(p) else {
                continue;
            };
            let same = match same {
                Some(s) => s,
                None => {
                    if count == 0
                        && !self.blocks[self.nodes[p as usize].block as usize]
                            .preds
                            .is_empty()
                    {
                        continue;
                    }
                    let ty = self.nodes[p as usize].ty.clone();
                    self.placeholder(&ty)
                }
            };
            self.replace_phi(p, same);
            for u in self.phi_users.of(p) {
                if u != p {
                    work.push(u);
                }
            }
        }
        self.work = work;
        self.resolve(Operand::Value(Value(phi)))
    }

    /// When φ `p` is trivial (its resolved operands are itself and at most
    /// one other value): that value, if any, and the number of operands.
    fn trivial_value(&self, p: u32) -> Option<(Option<Operand>, usize)> {
        let Inst::Phi { values, .. } = &self.nodes[p as usize].inst else {
            return Some((None, 0));
        };
        let me = Operand::Value(Value(p));
        let mut same: Option<Operand> = None;
        for &op in values {
            let op = self.resolve(op);
            if op == me || same == Some(op) {
                continue;
            }
            if same.is_some() {
                return None;
            }
            same = Some(op);
        }
        Some((same, values.len()))
    }

    /// The value of `var` where no definition reaches: dead code, or (with
    /// `explicit_undef`) a path on which the variable was never assigned.
    pub(super) fn undef(&mut self, var: Var) -> Operand {
        let ty = self.var_ty.get(var as usize).cloned().unwrap_or(Type::Int);
        self.placeholder(&ty)
    }

    pub(super) fn placeholder(&mut self, ty: &Type) -> Operand {
        if self.explicit_undef {
            self.undef_of(ty)
        } else {
            self.zero_of(ty)
        }
    }

    /// An `undef` statement of type `ty`, one per type, in the entry block
    /// (which dominates every use).
    pub fn undef_of(&mut self, ty: &Type) -> Operand {
        let key = LvnKey::Undef(ty.clone());
        let flags = Flags(Flags::EFFECT_FREE.0 | Flags::NOTHROW.0);
        self.entry_placeholder(key, Inst::Undef, ty.clone(), flags)
    }

    /// The entry block's statement `inst` numbered by `key`, made on first
    /// use.
    fn entry_placeholder(&mut self, key: LvnKey, inst: Inst, ty: Type, flags: Flags) -> Operand {
        if let Some(&n) = self.entry_lvn.get(&key) {
            return Operand::Value(Value(n));
        }
        let n = self.push_at_with(0, || inst, ty, Span::default(), flags);
        self.entry_lvn.insert(key, n);
        Operand::Value(Value(n))
    }

    /// A constant of type `ty` (for `str`, an empty string statement).
    /// For an array type it is `nil`, which is no array's value: callers
    /// use it only as a placeholder in dead code, which emission drops, so
    /// the verifier never sees it (an empty array literal's fill is
    /// `FnLower::empty_fill`).
    pub fn zero_of(&mut self, ty: &Type) -> Operand {
        match ty {
            Type::Int | Type::Void => Operand::Int(0),
            Type::Float => Operand::Float(0.0),
            Type::Bool => Operand::Bool(false),
            Type::Array(_) | Type::Struct(_) => Operand::Nil,
            Type::Str => {
                // In the entry block, which dominates every use.
                let key = LvnKey::Str("".into());
                let flags = Flags(Flags::EFFECT_FREE.0 | Flags::NOTHROW.0);
                self.entry_placeholder(key, Inst::StrConst("".into()), Type::Str, flags)
            }
        }
    }
}
