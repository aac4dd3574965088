// Arena planner: offsets and sizes checked against hand-worked layouts.
#include <doctest/doctest.h>

#include "runtime/planner.h"

using namespace tare;

TEST_CASE("planner reuses memory of dead buffers and keeps live ones apart") {
  // a: 100 B live [0,1]; b: 200 B live [1,2]; c: 100 B live [2,3].
  // Largest first: b at 0 (256 B aligned). a overlaps b in time -> placed after b at 256.
  // c overlaps b (step 2) but not a -> lowest free offset not overlapping b: 256 (a's slot, free).
  ArenaPlan p = PlanArena({{100, 0, 1}, {200, 1, 2}, {100, 2, 3}});
  CHECK(p.offsets[1] == 0);
  CHECK(p.offsets[0] == 256);
  CHECK(p.offsets[2] == 256);
  CHECK(p.arena_bytes == 384);
}

TEST_CASE("planner: disjoint lifetimes share offset 0; all-overlapping ones stack") {
  ArenaPlan p = PlanArena({{64, 0, 0}, {64, 1, 1}, {64, 2, 2}});
  CHECK(p.arena_bytes == 64);
  ArenaPlan q = PlanArena({{64, 0, 2}, {128, 0, 2}, {1, 0, 2}});
  CHECK(q.arena_bytes == 64 + 128 + 64);
  CHECK(PlanArena({}).arena_bytes == 0);
}
