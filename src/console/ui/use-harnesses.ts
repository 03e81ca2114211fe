import type { Static } from "@sinclair/typebox";
import { useEffect, useRef, useState } from "preact/hooks";
import type { Harness, HarnessEvents } from "../../schemas/harnesses.ts";
import { api, failureText } from "./api.ts";
import { followEvents } from "./event-stream.ts";
import { TerminalFeed } from "./terminal-feed.ts";

type TerminalOutput = Static<(typeof HarnessEvents)["terminal.output"]>;

/** Shows the harness(es) a call answers with, e.g. `apply(() => api<Harness>("POST", …))`. */
export type ApplyHarnesses = (call: () => Promise<Harness | Harness[]>) => Promise<void>;

/** The harnesses and the feed of their install output, once read. */
interface Loaded {
  harnesses: Harness[];
  feed: TerminalFeed;
}

/**
 * The harness list, then `harness.updated` and `terminal.output` from the event cursor taken before it was
 * read, so no change and no line of an install started afterwards is missed.
 */
export function useHarnesses() {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  // How many `harness.updated` each harness has had, to tell whether one came while a call ran.
  const updates = useRef(new Map<string, number>()).current;

  const show = (fresh: Harness[]) =>
    setLoaded(
      (current) => current && { ...current, harnesses: current.harnesses.map((listed) => fresh.find((harness) => harness.id === listed.id) ?? listed) },
    );

  // An answer can be older than an event that overtook it (an install failing at once): where the stream
  // spoke while the call ran, the stream's state stands, and any change the call made is on its way.
  const apply: ApplyHarnesses = async (call) => {
    const before = new Map(updates);
    const answer = await call();
    show((Array.isArray(answer) ? answer : [answer]).filter((harness) => updates.get(harness.id) === before.get(harness.id)));
  };

  useEffect(() => {
    let stop: (() => void) | undefined;
    let left = false;
    const load = async () => {
      const { cursor } = await api<{ cursor: number }>("GET", "/v1/events/cursor");
      const harnesses = await api<Harness[]>("GET", "/v1/harnesses");
      if (left) return;
      const feed = new TerminalFeed(new Set(harnesses.flatMap((harness) => harness.lifecycle.terminalId ?? [])));
      setLoaded({ harnesses, feed });
      stop = followEvents(`after=${cursor}&kind=harness.updated,terminal.output`, (event) => {
        if (event.kind === "terminal.output") {
          const { terminalId, text } = event.payload as TerminalOutput;
          feed.add(terminalId, text);
          return;
        }
        const { harness } = event.payload as { harness: Harness };
        updates.set(harness.id, (updates.get(harness.id) ?? 0) + 1);
        show([harness]);
      });
    };
    load().catch((failure: unknown) => setError(failureText(failure)));
    return () => {
      left = true;
      stop?.();
    };
  }, []);
  return { loaded, error, apply };
}
