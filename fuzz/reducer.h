// The reducer of `tare fuzz` (issue 24): a finding's model shrunk while the finding still
// reproduces (on the same engine, of the same kind: for "budget" the same op, for "error" the same
// message up to its first digit; fuzz/oracle.h). Steps, each kept only when
// the finding survives it:
//   1. windows: the smallest run of consecutive nodes (one node first, then two, ...) that still
//      shows it, cut out of the model: values the window reads from earlier nodes become graph
//      inputs fed with ref64's values of them (rounded to float32), constants stay constants;
//   2. shapes: each dim of each graph input halved, else made one less (its leading part kept),
//      repeatedly, every node's output
//      shape inferred again, when shape inference still accepts every node;
//   3. attributes: each attribute of each node removed (its default), when shape inference still
//      accepts the node;
//   4. inputs: each input's values rounded to 3 significant digits, then small integers.
// A crash or a hang is reduced the same way, each candidate run in a child process (fuzz.cc).
#pragma once
#include "fuzz/oracle.h"

namespace tare::fuzz {

/// The reduced case and the checks it took. `reproduced` is false when even the original does
/// not show `f` again (a flaky finding): `c` is then the original.
struct Reduced {
  FuzzCase c;
  Finding finding;  ///< the finding as the reduced model shows it
  int checks = 0;
  bool reproduced = false;
};

/// How a candidate is checked: Check itself, or (for a crash or a hang) Check in a child process
/// (fuzz.cc).
using CheckFn = std::function<CheckResult(const FuzzCase& c, const Engines& engines)>;

/// Shrinks `c` for finding `f` (found by Check with `engines`), running only f's engine, at most
/// `max_checks` checks, each by `check` (empty: Check).
Reduced Reduce(const FuzzCase& c, const Finding& f, const Engines& engines, int max_checks = 300, const CheckFn& check = {});

}  // namespace tare::fuzz
