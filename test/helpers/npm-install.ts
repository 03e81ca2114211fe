/** The real npm, for the tests that install real CLIs from the registry into a prefix of their own. */

export const npm = Bun.which("npm");
export const node = Bun.which("node");

/**
 * The environment for the npm we start. When the suite runs under `npm test`, npm exports its own
 * prefix (the repo) as npm_config_prefix and derives the global config path from it; those would
 * point the install somewhere other than where we ask. Everything else (the cache in ~/.npm, the
 * user's .npmrc, proxies) is kept.
 */
export function npmEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  const derived = ["npm_config_prefix", "npm_config_global_prefix", "npm_config_local_prefix", "npm_config_globalconfig", "npm_config_global"];
  for (const key of Object.keys(env)) {
    if (derived.includes(key.toLowerCase())) delete env[key];
  }
  return env;
}

const NETWORK_ERROR = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ESOCKETTIMEDOUT|ERR_SOCKET_TIMEOUT)\b|network timeout/;

/**
 * Asks npm itself (so its registry, proxy and CA settings apply) whether the registry answers for
 * `pkg`: undefined when it does (or when npm is missing, which is not a network problem), else why not.
 */
export async function registryUnreachable(pkg: string): Promise<string | undefined> {
  if (!npm) return undefined;
  const child = Bun.spawn([npm, "view", pkg, "version", "--fetch-retries=0", "--fetch-timeout=10000"], {
    env: npmEnv(),
    stdout: "pipe",
    stderr: "pipe",
    timeout: 15_000,
  });
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  if (code === 0) return undefined;
  if (child.signalCode) return `npm view ${pkg} did not answer within 15 s`;
  const reason = NETWORK_ERROR.exec(stderr)?.[0];
  return reason ? `npm view ${pkg} failed with ${reason}` : undefined;
}

/**
 * `npm install --global --prefix <prefix> <packages…>` in one run, as a user would (shared npm cache,
 * install scripts on); throws with npm's output when it fails. Returns how long it took, in ms.
 */
export async function npmInstallGlobal(prefix: string, packages: readonly string[], options: { cwd: string; timeoutMs: number }): Promise<number> {
  if (!npm) throw new Error("npm is not on the PATH");
  const started = performance.now();
  const install = Bun.spawn(
    [npm, "install", "--global", "--prefix", prefix, "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=error", ...packages],
    { cwd: options.cwd, env: npmEnv(), stdout: "pipe", stderr: "pipe", timeout: options.timeoutMs },
  );
  const [out, err, code] = await Promise.all([new Response(install.stdout).text(), new Response(install.stderr).text(), install.exited]);
  if (code !== 0) throw new Error(`npm install exited with ${code} (${install.signalCode ?? "no signal"}):\n${out}\n${err}`);
  return Math.round(performance.now() - started);
}
