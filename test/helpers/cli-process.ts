import { until } from "./poll.ts";
import { devBuild } from "./compiled-build.ts";

/** How to run `atrium`: an executable and the arguments before the command's own. */
export type AtriumCommand = string[];
/**
 * `atrium` as people run it: the executable compiled from the sources as they are now, once per source
 * hash (compiled-build.ts). It starts on a third of the CPU that `bun src/main.ts` takes, which
 * transpiles every module at each start.
 */
export const builtCommand: AtriumCommand = [await devBuild()];

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
  /** Everything it prints, as it comes. */
  stdout: StreamedText;
  stderr: StreamedText;
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
  const stdout = new StreamedText(child.stdout);
  const stderr = new StreamedText(child.stderr);
  try {
    await stdout.waitFor("\n");
  } catch {
    child.kill("SIGKILL");
    await child.exited;
    throw new Error(`atrium serve printed no line: ${stdout.text}${stderr.text}`);
  }
  const firstLine = stdout.text.split("\n")[0]!;
  const url = /^listening on (https?:\/\/\S+)$/.exec(firstLine)?.[1];
  if (!url) throw new Error(`unexpected first line: ${firstLine}`);
  return { child, url, firstLine, stdout, stderr };
}

/** What a child writes to a stream, collected as it arrives (so the pipe never fills), and waited on. */
export class StreamedText {
  text = "";
  private ended = false;
  private readonly collected: Promise<void>;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.collected = this.collect(stream);
  }

  private async collect(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) this.text += decoder.decode(chunk, { stream: true });
    this.ended = true;
  }

  /** Resolves once the text holds `wanted`; fails if the stream ends without it, or after `timeoutMs`. */
  async waitFor(wanted: string, timeoutMs = 15_000): Promise<void> {
    await until(
      async () => this.text,
      (text) => text.includes(wanted) || this.ended,
      timeoutMs,
    );
    if (!this.text.includes(wanted)) throw new Error(`the stream ended without ${JSON.stringify(wanted)}: ${this.text.slice(-2000)}`);
  }

  /** All of it, once the stream has ended (the child closed it, or exited): what it never printed is not there. */
  async whole(): Promise<string> {
    await this.collected;
    return this.text;
  }
}
