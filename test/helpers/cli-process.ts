import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");

/** How to run `atrium`: from source by default, or a compiled executable. */
export type AtriumCommand = string[];
export const sourceCommand: AtriumCommand = [process.execPath, join(root, "src", "main.ts")];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runAtrium(command: AtriumCommand, args: string[], home: string, env: Record<string, string> = {}): Promise<CliResult> {
  const child = Bun.spawn([...command, ...args], {
    env: { ...process.env, ...env, ATRIUM_HOME: home },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

export interface ServeProcess {
  child: Bun.Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  /** The first line the server printed. */
  firstLine: string;
}

/** Starts `atrium serve` (on a free port unless told otherwise) and waits for its "listening on" line. */
export async function startServe(
  command: AtriumCommand,
  home: string,
  serveArgs: string[] = ["--port", "0"],
  env: Record<string, string> = {},
): Promise<ServeProcess> {
  const child = Bun.spawn([...command, "serve", ...serveArgs], {
    env: { ...process.env, ...env, ATRIUM_HOME: home },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const reader = child.stdout.getReader();
  let output = "";
  const deadline = Date.now() + 15_000;
  while (!output.includes("\n")) {
    const next = await Promise.race([reader.read(), Bun.sleep(Math.max(0, deadline - Date.now())).then(() => undefined)]);
    if (!next || next.done) {
      child.kill("SIGKILL");
      throw new Error(`atrium serve printed no line: ${output}${await new Response(child.stderr).text()}`);
    }
    output += new TextDecoder().decode(next.value);
  }
  reader.releaseLock();
  const firstLine = output.split("\n")[0]!;
  const url = /^listening on (http:\/\/\S+)$/.exec(firstLine)?.[1];
  if (!url) throw new Error(`unexpected first line: ${firstLine}`);
  return { child, url, firstLine };
}
