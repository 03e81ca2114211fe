import type { Logger } from "../logging/logger.ts";
import type { ProviderLoginAttempt } from "../schemas/harnesses.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import { newId } from "../ids.ts";
import { writeCredentialEntry } from "./credential-file.ts";
import { pollDeviceToken, requestDeviceCode, type DeviceCode, type DeviceFlowEndpoints } from "./github-device-flow.ts";

export interface ProviderLoginDeps {
  /** Where OpenCode reads provider credentials (its auth.json). */
  authFile: () => string;
  /** The GitHub (or GitHub Enterprise) device flow used for the `github-copilot` provider. */
  github: DeviceFlowEndpoints;
  /** Called after a credential was written, so the harness's login is read again. */
  onCredentialsChanged: () => void;
  logger: Logger;
  now?: () => Date;
}

/** The providers whose sign-in Atrium can run itself (a device flow needs no browser on this machine). */
const OAUTH_PROVIDERS = new Set(["github-copilot"]);
const PROVIDER_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** Finished attempts stay readable this long, then are forgotten. */
const KEEP_FINISHED_MS = 60 * 60_000;
const MAX_ATTEMPTS = 200;

interface AttemptRecord {
  attempt: ProviderLoginAttempt;
  finishedAtMs: number | null;
  abort: AbortController;
}

/**
 * Provider logins for OpenCode: an API key asked for with a secret prompt and written to OpenCode's
 * auth.json, or a device-flow sign-in whose code the client shows. Attempts live in memory; only the
 * resulting credential is written, and only into OpenCode's own file.
 */
export class ProviderLogins {
  private readonly attempts = new Map<string, AttemptRecord>();
  private readonly now: () => Date;

  constructor(private readonly deps: ProviderLoginDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async start(providerId: string, method: "api_key" | "oauth"): Promise<ProviderLoginAttempt> {
    if (!PROVIDER_ID.test(providerId)) throw new InvalidInputError(`providerId "${providerId}" is not a provider id such as anthropic or openai`);
    if (method === "oauth" && !OAUTH_PROVIDERS.has(providerId)) {
      throw new InvalidInputError(`${providerId} has no sign-in Atrium can run; use method api_key (sign-in works for ${[...OAUTH_PROVIDERS].join(", ")})`);
    }
    this.forgetOld();
    if (this.attempts.size >= MAX_ATTEMPTS) throw new ConflictError("too many login attempts are open; cancel some first");
    const record: AttemptRecord = {
      attempt: {
        id: newId("login"),
        providerId,
        method,
        state: "running",
        prompt: null,
        event: null,
        error: null,
        startedAt: this.now().toISOString(),
        finishedAt: null,
      },
      finishedAtMs: null,
      abort: new AbortController(),
    };
    this.attempts.set(record.attempt.id, record);
    if (method === "api_key") {
      record.attempt.prompt = {
        id: "api_key",
        type: "secret",
        message: `Paste the API key for ${providerId}; OpenCode will use it from now on.`,
        placeholder: "API key",
        options: [],
      };
      return { ...record.attempt };
    }
    await this.startDeviceFlow(record);
    return { ...record.attempt };
  }

  get(providerId: string, attemptId: string): ProviderLoginAttempt {
    return { ...this.record(providerId, attemptId).attempt };
  }

  /** Answers the attempt's prompt. The value goes to OpenCode's auth.json and nowhere else. */
  respond(providerId: string, attemptId: string, value: string): ProviderLoginAttempt {
    const record = this.record(providerId, attemptId);
    if (record.attempt.state !== "running") throw new ConflictError(`the login attempt has already ${record.attempt.state}`);
    if (!record.attempt.prompt) throw new ConflictError("the login attempt is not waiting for an answer");
    const key = value.trim();
    if (key.length === 0) throw new InvalidInputError("value is empty");
    try {
      writeCredentialEntry(this.deps.authFile(), providerId, { type: "api", key });
    } catch (error) {
      this.finish(record, "failed", `the key could not be saved: ${(error as Error).message}`);
      return { ...record.attempt };
    }
    this.finish(record, "succeeded", null);
    return { ...record.attempt };
  }

  cancel(providerId: string, attemptId: string): ProviderLoginAttempt {
    const record = this.record(providerId, attemptId);
    if (record.attempt.state !== "running") throw new ConflictError(`the login attempt has already ${record.attempt.state}`);
    this.finish(record, "cancelled", null);
    return { ...record.attempt };
  }

  /** Stops every running attempt (server shutdown). */
  close(): void {
    for (const record of this.attempts.values()) record.abort.abort();
  }

  private async startDeviceFlow(record: AttemptRecord): Promise<void> {
    let code: DeviceCode;
    try {
      code = await requestDeviceCode(this.deps.github);
    } catch (error) {
      this.finish(record, "failed", `could not start the sign-in with ${new URL(this.deps.github.baseUrl).host}: ${(error as Error).message}`);
      return;
    }
    record.attempt.event = {
      type: "device_code",
      message: `Open ${code.verificationUrl} and enter the code ${code.userCode}`,
      url: code.verificationUrl,
      userCode: code.userCode,
      verificationUrl: code.verificationUrl,
    };
    void this.pollUntilDone(record, code).catch((error: unknown) => {
      this.deps.logger.warn("a provider sign-in failed", { providerId: record.attempt.providerId, error });
      if (record.attempt.state === "running") this.finish(record, "failed", (error as Error).message);
    });
  }

  private async pollUntilDone(record: AttemptRecord, code: DeviceCode): Promise<void> {
    const deadline = Date.now() + code.expiresInSeconds * 1000;
    let interval = code.intervalSeconds;
    while (record.attempt.state === "running") {
      await Bun.sleep(interval * 1000);
      if (record.abort.signal.aborted || record.attempt.state !== "running") return;
      if (Date.now() > deadline) return this.finish(record, "failed", "the code expired before it was entered; start again");
      const poll = await pollDeviceToken(this.deps.github, code);
      if (record.attempt.state !== "running") return;
      if (poll.status === "pending") {
        interval = poll.intervalSeconds;
        continue;
      }
      if (poll.status === "failed") return this.finish(record, "failed", poll.error);
      // OpenCode keeps the GitHub token as the refresh token and fetches Copilot tokens itself.
      writeCredentialEntry(this.deps.authFile(), record.attempt.providerId, {
        type: "oauth",
        refresh: poll.accessToken,
        access: poll.accessToken,
        expires: 0,
      });
      this.finish(record, "succeeded", null);
    }
  }

  private finish(record: AttemptRecord, state: "succeeded" | "failed" | "cancelled", error: string | null): void {
    record.attempt.state = state;
    record.attempt.error = error;
    record.attempt.prompt = null;
    record.attempt.finishedAt = this.now().toISOString();
    record.finishedAtMs = Date.now();
    record.abort.abort();
    if (state === "succeeded") this.deps.onCredentialsChanged();
  }

  private record(providerId: string, attemptId: string): AttemptRecord {
    const record = this.attempts.get(attemptId);
    if (!record || record.attempt.providerId !== providerId) throw new NotFoundError(`no login attempt ${attemptId} for ${providerId}`);
    return record;
  }

  private forgetOld(): void {
    for (const [id, record] of this.attempts) {
      if (record.finishedAtMs !== null && Date.now() - record.finishedAtMs > KEEP_FINISHED_MS) this.attempts.delete(id);
    }
  }
}
