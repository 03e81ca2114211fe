import { expect, test } from "bun:test";
import { sessionProcesses } from "../../src/process/process-session.ts";
import { until } from "../helpers/poll.ts";

test("a session is found by its leader's pid; 0 (a leader outside this pid namespace) and other non-pids name nothing to end", async () => {
  // setsid, not a group leader here, makes the session itself and becomes `sleep`: the leader's pid is the child's.
  const leader = Bun.spawn(["setsid", "sleep", "30"], { stdout: "ignore" });
  try {
    await until(
      async () => sessionProcesses(leader.pid),
      (members) => members.includes(leader.pid),
    );
    for (const notALeader of [0, "0", -1, 1, Number.NaN]) expect(sessionProcesses(notALeader)).toEqual([]);
  } finally {
    leader.kill("SIGKILL");
    await leader.exited;
  }
});
