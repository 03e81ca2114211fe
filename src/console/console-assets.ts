import { basename } from "node:path";
import consolePage from "./ui/index.html";
import { pwaFiles } from "./pwa-files.ts";

/** One file of the console as it is served. */
export interface ConsoleFile {
  body: Blob;
  contentType: string;
  etag: string;
  /** The page itself is asked for again each time; its scripts and styles have hashed names. */
  immutable: boolean;
}

type ConsoleFiles = Map<string, ConsoleFile>;

/** In the compiled binary the page was bundled with it: its files are in the binary's own file system. */
function builtFiles(): ConsoleFiles | undefined {
  if (!consolePage.files) return undefined;
  const files: ConsoleFiles = new Map();
  for (const file of consolePage.files) {
    const isPage = file.loader === "html";
    files.set(isPage ? "/" : `/${basename(file.path)}`, {
      body: Bun.file(file.path),
      contentType: file.headers["content-type"],
      etag: `"${file.headers.etag}"`,
      immutable: !isPage,
    });
  }
  return files;
}

/** Run from source (tests, `npm start`), the page is bundled once, on the first request for it. */
async function bundleFromSource(): Promise<ConsoleFiles> {
  const built = await Bun.build({ entrypoints: [consolePage.index], target: "browser", minify: true, publicPath: "/" });
  if (!built.success) throw new AggregateError(built.logs, "the console could not be bundled");
  const files: ConsoleFiles = new Map();
  for (const output of built.outputs) {
    const isPage = output.path.endsWith(".html");
    files.set(isPage ? "/" : `/${basename(output.path)}`, {
      body: output,
      contentType: output.type,
      etag: `"${output.hash ?? Bun.hash(await output.arrayBuffer()).toString(36)}"`,
      immutable: !isPage,
    });
  }
  return files;
}

/**
 * The console's files: the web client Bun's HTML bundler makes of `ui/index.html` (its TypeScript,
 * Preact and CSS), served at `/` by the server itself.
 */
export class ConsoleAssets {
  private files: Promise<ConsoleFiles> | undefined;

  async get(path: string): Promise<ConsoleFile | undefined> {
    this.files ??= Promise.all([builtFiles() ?? bundleFromSource(), pwaFiles()])
      .then(([page, pwa]) => new Map([...page, ...pwa]))
      .catch((error: unknown) => {
        this.files = undefined;
        throw error;
      });
    return (await this.files).get(path);
  }
}
