import { join } from "node:path";
import { homedir } from "node:os";
import { opencodeAuthFile } from "../harness/definitions/opencode.ts";
import { HarnessAccounts } from "../harness/harness-accounts.ts";
import { HarnessService } from "../harness/harness-service.ts";
import { LatestVersions } from "../harness/latest-versions.ts";
import { ProviderLogins } from "../harness/provider-login.ts";
import { harnessRegistry } from "../harness/registry.ts";
import { TerminalLogs } from "../harness/terminal-logs.ts";
import { harnessRoutes } from "../http/routes/harness-routes.ts";
import { providerLoginRoutes } from "../http/routes/provider-login-routes.ts";
import { HarnessEvents } from "../schemas/harnesses.ts";
import { HarnessAccountRepository } from "../store/harness-account-repository.ts";
import { HarnessSettingsRepository } from "../store/harness-settings-repository.ts";
import { PackageVersionRepository } from "../store/package-version-repository.ts";
import { buildInfo } from "../system/build-info.ts";
import { sleepUnlessAborted, systemClock } from "../clock.ts";
import { coreModule } from "./core-module.ts";
import { defineModule } from "./module.ts";
import { MODULE_FEATURES } from "./module-features.ts";

export interface HarnessTuning {
  /** The environment harnesses are looked for in (PATH, HOME, API keys); the server's own by default. */
  env?: Record<string, string | undefined>;
  /** Every harness probe (version, login) is cut off after this long. */
  probeTimeoutMs?: number;
  /** How long after the server listens the first scan starts. */
  firstScanDelayMs?: number;
  /** The command that runs this Atrium (for the built-in echo agent); the running one by default. */
  atriumCommand?: string[];
}

/** `gemini --version` alone takes 3.5–4.3 s on a 2-core machine; a slow probe keeps a harness ready anyway. */
const PROBE_TIMEOUT_MS = 20_000;
/**
 * The first scan starts a dozen probes at once, which on a 2-core machine would slow the first
 * requests (a supervisor's health check, a client reconnecting); until it runs, harnesses show where
 * their executables are (`not checked yet`).
 */
const FIRST_SCAN_DELAY_MS = 250;
/** OpenCode's own GitHub OAuth app, so a sign-in made here is the one OpenCode would make. */
const OPENCODE_GITHUB_CLIENT_ID = "Ov23li8tweQw6odWQebz";
/** The registry may need a cold round trip; the look-up runs in the background, so it can take longer. */
const LATEST_VERSION_TIMEOUT_MS = 15_000;
const LATEST_VERSION_FRESH_MS = 6 * 3_600_000;
const LATEST_VERSION_RETRY_MS = 15 * 60_000;

/** How to run this same Atrium: the binary itself, or Bun with the entry script when from source. */
export function currentAtriumCommand(): string[] {
  return buildInfo.compiled ? [process.execPath] : [process.execPath, Bun.main];
}

/** The coding-agent CLIs on this machine: detection, sign-ins, installs and updates. */
export const harnessesModule = defineModule({
  name: "harnesses",
  features: MODULE_FEATURES.harnesses,
  eventKinds: HarnessEvents,
  create: ({ store, logger, paths, config, modules }, tuning: HarnessTuning | undefined) => {
    const { events, children } = modules.get(coreModule);
    const env = tuning?.env ?? process.env;
    const home = env.HOME ?? homedir();
    const terminals = new TerminalLogs(store, events, logger);
    const harnesses = new HarnessService({
      terminals,
      logger,
      definitions: harnessRegistry(tuning?.atriumCommand ?? currentAtriumCommand(), join(paths.root, "echo-skills"), config.harnesses),
      store,
      settings: new HarnessSettingsRepository(store),
      accounts: new HarnessAccounts({ store, repository: new HarnessAccountRepository(store), accountsDir: paths.accounts }),
      latestVersions:
        config.harnessUpdateCheck === false
          ? undefined
          : new LatestVersions({
              env,
              home,
              repository: new PackageVersionRepository(store),
              logger,
              timeoutMs: LATEST_VERSION_TIMEOUT_MS,
              freshForMs: LATEST_VERSION_FRESH_MS,
              retryAfterMs: LATEST_VERSION_RETRY_MS,
            }),
      events,
      environment: { env, home, timeoutMs: tuning?.probeTimeoutMs ?? PROBE_TIMEOUT_MS, atriumVersion: buildInfo.version, children },
    });
    const providerLogins = new ProviderLogins({
      authFile: () => opencodeAuthFile(env, home),
      github: { baseUrl: (config.githubUrl ?? "https://github.com").replace(/\/+$/, ""), clientId: OPENCODE_GITHUB_CLIENT_ID, scope: "read:user" },
      onCredentialsChanged: () =>
        void harnesses.recheckAuth("opencode").catch((error: unknown) => logger.error("re-reading OpenCode's login failed", { error })),
      logger,
    });
    // A stop during the wait before the first scan skips the scan: waiting it out made every stop soon
    // after a start (a CLI run, an update's restart) a quarter of a second slower.
    const stopped = new AbortController();
    const beforeFirstScan = () =>
      sleepUnlessAborted(systemClock, tuning?.firstScanDelayMs ?? FIRST_SCAN_DELAY_MS, stopped.signal, () => new Error("stopped before the first scan"));
    return {
      harnesses,
      terminals,
      routes: [...harnessRoutes(harnesses), ...providerLoginRoutes(providerLogins)],
      start: () =>
        beforeFirstScan().then(
          () => harnesses.detect().catch((error: unknown) => logger.error("the first harness scan failed", { error })),
          () => undefined,
        ),
      stop: () => {
        stopped.abort();
        providerLogins.close();
        harnesses.close();
      },
    };
  },
});
