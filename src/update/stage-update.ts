import { createHash } from "node:crypto";
import { chmodSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { verifySignedManifest } from "./manifest.ts";
import { openByteStream } from "./manifest-source.ts";
import { stagingPathFor } from "./executable-swap.ts";
import type { UpdateTarget } from "./update-checker.ts";
import type { ApplyState } from "../schemas/update.ts";

export interface StageProgress {
  /** A new state (with its message); progress is the fraction downloaded. */
  state(state: Extract<ApplyState, "downloading" | "verifying">, message: string): void;
  downloaded(fraction: number): void;
}

export interface StageOptions {
  executable: string;
  publicKey: string;
  progress: StageProgress;
  /** A download that delivers nothing for this long is given up. */
  stallTimeoutMs?: number;
  selfCheckTimeoutMs?: number;
}

const DEFAULT_STALL_TIMEOUT_MS = 60_000;
const DEFAULT_SELF_CHECK_TIMEOUT_MS = 30_000;
const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/**
 * Downloads the target next to the executable and checks it: size, sha256, the manifest's signature,
 * and the new executable's own `--version`. Returns the path of the checked file, ready to swap in;
 * on any failure nothing is left behind and the installed executable was never touched.
 */
export async function stageUpdate(target: UpdateTarget, options: StageOptions): Promise<string> {
  const staged = stagingPathFor(options.executable);
  try {
    options.progress.state("downloading", `downloading ${target.file.name} (${megabytes(target.file.size)}) from ${target.fileUrl.href}`);
    const received = await download(target, staged, options);
    options.progress.state("verifying", "checking the size, sha256 and signature, then the new executable's --version");
    verifyDownload(target, received, options.publicKey);
    chmodSync(staged, 0o755);
    await selfCheck(staged, target.release.version, options.selfCheckTimeoutMs ?? DEFAULT_SELF_CHECK_TIMEOUT_MS);
    return staged;
  } catch (error) {
    rmSync(staged, { force: true });
    throw error;
  }
}

interface Received {
  bytes: number;
  sha256: string;
}

async function download(target: UpdateTarget, destination: string, options: StageOptions): Promise<Received> {
  const expected = target.file.size;
  const stallMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
  const stream = await openByteStream(target.fileUrl, stallMs);
  const reader = stream.getReader();
  const file = await open(destination, "wx", 0o700);
  const hash = createHash("sha256");
  let bytes = 0;
  try {
    for (;;) {
      let stall: ReturnType<typeof setTimeout> | undefined;
      const stalled = new Promise<never>((_, reject) => {
        stall = setTimeout(() => reject(new Error(`the download of ${target.fileUrl.href} stalled for ${stallMs / 1000} s`)), stallMs);
      });
      const next = await Promise.race([reader.read(), stalled]).finally(() => clearTimeout(stall));
      if (next.done) break;
      bytes += next.value.byteLength;
      // More than the manifest says is wrong however it ends; stop before filling the disk.
      if (bytes > expected) throw new Error(`the download is larger than the ${expected} bytes the manifest says; the installed executable is unchanged`);
      hash.update(next.value);
      for (let offset = 0; offset < next.value.byteLength; ) offset += (await file.write(next.value, offset)).bytesWritten;
      options.progress.downloaded(bytes / expected);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    await file.close();
  }
  return { bytes, sha256: hash.digest("hex") };
}

function verifyDownload(target: UpdateTarget, received: Received, publicKey: string): void {
  const { file } = target;
  if (received.bytes !== file.size) {
    throw new Error(`the download is ${received.bytes} bytes, the manifest says ${file.size}; the installed executable is unchanged`);
  }
  if (received.sha256 !== file.sha256) {
    throw new Error(`sha256 mismatch for ${file.name} (got ${received.sha256}, the manifest says ${file.sha256}); the installed executable is unchanged`);
  }
  // The manifest these figures come from is checked again right before the file they describe is used.
  try {
    verifySignedManifest(target.release.signed, publicKey);
  } catch (error) {
    throw new Error(`${(error as Error).message}; the installed executable is unchanged`);
  }
}

/** The new executable must run here and name the version the manifest promised. */
async function selfCheck(executable: string, expectedVersion: string, timeoutMs: number): Promise<void> {
  let child: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    child = Bun.spawn([executable, "--version"], { stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: timeoutMs, killSignal: "SIGKILL" });
  } catch (error) {
    throw new Error(`the new executable does not start on this machine (${(error as Error).message}); the installed executable is unchanged`);
  }
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  const reported = stdout.trim();
  if (code !== 0) {
    const why = child.signalCode ? `was stopped by ${child.signalCode}` : `exited with ${code}`;
    throw new Error(`the new executable's --version ${why}${stderr.trim() ? `: ${stderr.trim().slice(0, 300)}` : ""}; the installed executable is unchanged`);
  }
  if (reported !== expectedVersion) {
    throw new Error(
      `the new executable says it is ${JSON.stringify(reported.slice(0, 100))}, the manifest says ${expectedVersion}; the installed executable is unchanged`,
    );
  }
}
