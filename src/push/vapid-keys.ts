import { existsSync, readFileSync } from "node:fs";
import { writeJsonAtomically } from "../system/json-file.ts";
import type { Logger } from "../logging/logger.ts";

/** The web-push package: only its crypto is used (RFC 8291 payload encryption, RFC 8292 VAPID JWT). */
export type WebPushLibrary = typeof import("web-push");

/** The server's application server key pair (RFC 8292), base64url: a P-256 point and its private scalar. */
export interface VapidKeyPair {
  publicKey: string;
  privateKey: string;
}

/** When config.json names no `pushSubject`: a mailto: with a real domain (Apple's push service refuses `@localhost`). */
export const DEFAULT_PUSH_SUBJECT = "mailto:atrium@example.com";

const isKeyPair = (value: unknown): value is VapidKeyPair => {
  const pair = value as Partial<VapidKeyPair> | null;
  return (
    typeof pair?.publicKey === "string" &&
    typeof pair.privateKey === "string" &&
    Buffer.from(pair.publicKey, "base64url").length === 65 &&
    Buffer.from(pair.privateKey, "base64url").length === 32
  );
};

/**
 * The VAPID key pair, made on first use and kept in the data dir (mode 0600, like the admin token).
 * A browser subscribes with the public key; a new pair would leave every subscription made with the
 * old one refused by its push service, so the file is kept across restarts and updates. The web-push
 * package is loaded with the first use too: its 40 ms are not start-up's.
 */
export class VapidKeys {
  private pair: VapidKeyPair | undefined;
  private library: Promise<WebPushLibrary> | undefined;

  constructor(
    private readonly file: string,
    private readonly logger: Logger,
  ) {}

  webPush(): Promise<WebPushLibrary> {
    this.library ??= import("web-push").then((module) => ((module as { default?: WebPushLibrary }).default ?? module) as WebPushLibrary);
    return this.library;
  }

  async keys(): Promise<VapidKeyPair> {
    this.pair ??= this.read();
    if (this.pair) return this.pair;
    // The library (tens of ms to load) only when there is no key pair to read; checked again after the
    // wait, so two callers make one pair.
    const library = await this.webPush();
    this.pair ??= this.create(library);
    return this.pair;
  }

  private read(): VapidKeyPair | undefined {
    if (!existsSync(this.file)) return undefined;
    try {
      const parsed = JSON.parse(readFileSync(this.file, "utf8")) as unknown;
      if (isKeyPair(parsed)) return { publicKey: parsed.publicKey, privateKey: parsed.privateKey };
    } catch {
      // unreadable: made again below
    }
    this.logger.warn("the VAPID key file is damaged; making a new key pair (browsers subscribed with the old one must subscribe again)", { file: this.file });
    return undefined;
  }

  private create(library: WebPushLibrary): VapidKeyPair {
    const { publicKey, privateKey } = library.generateVAPIDKeys();
    writeJsonAtomically(this.file, { publicKey, privateKey, createdAt: new Date().toISOString() });
    this.logger.info("made the VAPID key pair for Web Push", { file: this.file });
    return { publicKey, privateKey };
  }
}
