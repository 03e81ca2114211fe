import type { Static } from "@sinclair/typebox";
import { useState } from "preact/hooks";
import type { Harness, HarnessEvents } from "../../../schemas/harnesses.ts";
import { api } from "../shared/api.ts";
import { TerminalFeed } from "../shared/terminal-feed.ts";
import { type ListSource, useLiveList } from "../shared/use-live-list.ts";

type TerminalOutput = Static<(typeof HarnessEvents)["terminal.output"]>;

/** Shows the harness(es) a call answers with, e.g. `apply(() => api<Harness>("POST", …))`. */
export type ApplyHarnesses = (call: () => Promise<Harness | Harness[]>) => Promise<void>;

/** The harnesses, with each `terminal.output` batch handed to the feed. */
function harnessSource(feed: TerminalFeed): ListSource<Harness> {
  return {
    kinds: ["harness.updated", "terminal.output"],
    async readAll() {
      const harnesses = await api<Harness[]>("GET", "/v1/harnesses");
      feed.noteListed(harnesses.flatMap((harness) => harness.lifecycle.terminalId ?? []));
      return harnesses;
    },
    apply(event, { keep }) {
      if (event.kind === "harness.updated") keep((event.payload as { harness: Harness }).harness);
      else if (event.kind === "terminal.output") {
        const { terminalId, text } = event.payload as TerminalOutput;
        feed.add(terminalId, text);
      }
    },
    // The server's order: the set of harnesses is fixed, so a harness is only ever replaced in place.
    compare: () => 0,
  };
}

/**
 * The harness list, followed live through `harness.updated`, and the feed of the `terminal.output` of their
 * installs and updates, so no change and no line of an install started after the page opened is missed.
 */
export function useHarnesses() {
  // Made once: the live list reads its source once, and the logs keep listening to the same feed.
  const [feed] = useState(() => new TerminalFeed());
  const [source] = useState(() => harnessSource(feed));
  const { items: harnesses, error, keepAnswer } = useLiveList(source);
  const apply: ApplyHarnesses = keepAnswer;
  return { harnesses, feed, error, apply };
}
