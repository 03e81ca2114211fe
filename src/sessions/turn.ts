import type { TurnNotices } from "./agent-notices.ts";
import type { ReplyStream } from "./reply-stream.ts";
import type { SilenceWatch } from "./silence-watch.ts";
import type { TurnTokens } from "./turn-tokens.ts";

/** A turn in flight: one queued prompt sent to the agent, and what its reply has gathered so far. */
export interface Turn {
  promptId: string;
  itemId: string;
  cancelled: boolean;
  /**
   * Set once the prompt is sent: only then is what the agent streams this turn's reply (before, a
   * session/load replays history, which the stored conversation already holds).
   */
  live: boolean;
  /** Ends the turn without the agent (a cancel it did not honour in time). */
  abort: (reason: Error) => void;
  aborted: Promise<never>;
  escalation: ReturnType<typeof setTimeout> | undefined;
  /** Where what the agent streams this turn goes. */
  reply: ReplyStream;
  silence: SilenceWatch;
  /** What the turn tells of its agent through the status, and says at its end when it ends well. */
  notices: TurnNotices;
  /** Set when the turn must end in error whatever the agent does (its reply cannot be written). */
  failure: string | undefined;
  /** Its tokens so far, and what of them the goal was charged. */
  tokens: TurnTokens;
}
