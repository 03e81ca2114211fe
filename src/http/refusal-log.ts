import { systemClock, type Clock, type ClockTimer } from "../clock.ts";
import type { Logger } from "../logging/logger.ts";

export interface RefusalLogOptions {
  /** Refusals of one address after its first are counted and logged once per this long. */
  windowMs: number;
  /** Addresses tracked at once; refusals from more are counted together, so memory stays bounded. */
  maxAddresses: number;
}

const defaultRefusalLogOptions: RefusalLogOptions = { windowMs: 60_000, maxAddresses: 10_000 };

/** Where refusals from addresses beyond `maxAddresses` are counted. */
const OTHER_ADDRESSES = "other addresses";

export interface Refusal {
  status: number;
  method: string;
  path: string;
}

interface AddressWindow {
  startedAt: number;
  /** Refusals since the window's line was written. */
  unlogged: number;
}

const firstLineMessage = (status: number) => (status === 401 ? "refused a request without a valid token" : "refused a request that is not allowed");

/**
 * Logs refused requests (401, 403) by client address at a bounded rate: anyone who can reach the port
 * can send them, and one line per refusal let a flood rotate the useful lines out of the log. The
 * first refusal of an address is logged at once; later ones are counted, and each window that counted
 * some ends with one line giving the count. An address quiet for a whole window is forgotten.
 */
export class RefusalLog {
  /** In the order the windows started (a renewed window is re-inserted), so the oldest ends first. */
  private readonly windows = new Map<string, AddressWindow>();
  private timer: ClockTimer | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
    private readonly options: RefusalLogOptions = defaultRefusalLogOptions,
  ) {}

  refused(address: string, refusal: Refusal): void {
    const key = this.windows.has(address) || this.windows.size < this.options.maxAddresses ? address : OTHER_ADDRESSES;
    const window = this.windows.get(key);
    if (window) {
      window.unlogged++;
      return;
    }
    this.windows.set(key, { startedAt: this.clock.now(), unlogged: 0 });
    this.logger.info(firstLineMessage(refusal.status), { address: key, ...refusal });
    this.scheduleWindowEnd();
  }

  private scheduleWindowEnd(): void {
    const oldest = this.windows.values().next().value;
    if (this.timer !== undefined || oldest === undefined) return;
    const delay = Math.max(0, oldest.startedAt + this.options.windowMs - this.clock.now());
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.endWindows();
      this.scheduleWindowEnd();
    }, delay);
    // Counting refusals is no reason to keep a stopping process alive.
    this.timer.unref?.();
  }

  private endWindows(): void {
    const now = this.clock.now();
    for (const [address, window] of this.windows) {
      if (now - window.startedAt < this.options.windowMs) break;
      this.windows.delete(address);
      if (window.unlogged === 0) continue;
      this.logger.info("refused more requests from this address", {
        address,
        count: window.unlogged,
        seconds: Math.round((now - window.startedAt) / 1000),
      });
      this.windows.set(address, { startedAt: now, unlogged: 0 });
    }
  }
}
