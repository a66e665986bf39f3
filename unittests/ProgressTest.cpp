//===- ProgressTest.cpp - Progress on a terminal only ---------------------===//

#include "tshape/Support/Progress.h"

#include <gtest/gtest.h>

using tshape::Progress;

TEST(Progress, NeverDrawsWhenNotATerminal) {
  Progress p("tool", /*delaySeconds=*/0, /*intervalSeconds=*/0,
             /*enabled=*/false);
  p.update("working", 1, 2);
  EXPECT_FALSE(p.shown());
}

TEST(Progress, WaitsForTheDelayThenDrawsAndErases) {
  Progress slow("tool", /*delaySeconds=*/3600, /*intervalSeconds=*/0,
                /*enabled=*/true);
  slow.update("working");
  EXPECT_FALSE(slow.shown()); // work shorter than the delay stays silent
  Progress p("tool", /*delaySeconds=*/0, /*intervalSeconds=*/0,
             /*enabled=*/true);
  p.update("working", 1, 2);
  EXPECT_TRUE(p.shown());
  p.done();
  EXPECT_FALSE(p.shown());
}
