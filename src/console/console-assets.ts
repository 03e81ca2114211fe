import { basename } from "node:path";
import consolePage from "./ui/index.html";
import highlighterPage from "./ui/highlighter/highlighter.html";
import terminalEmulatorPage from "./ui/terminals/emulator/emulator.html";
import codeEditorPage from "./ui/files/code-editor/code-editor.html";
import { pwaFiles } from "./pwa-files.ts";
import { COMPRESS_FROM_BYTES, compressFile, type ContentEncoding } from "../system/compression.ts";

/** One file of the console as it is served. */
export interface ConsoleFile {
  body: Blob;
  contentType: string;
  etag: string;
  /** The page itself is asked for again each time; its scripts and styles have hashed names. */
  immutable: boolean;
  /** How `body` is encoded, when it is a compressed copy. */
  encoding?: ContentEncoding;
}

/** Already compressed in their own format. */
const INCOMPRESSIBLE = /^image\/(png|jpeg|webp)/;

type ConsoleFiles = Map<string, ConsoleFile>;

/**
 * Where a bundled page's files are served. The console's page is `/`, its scripts and styles under
 * their hashed names. The highlighter's page is never served: its one script is `/highlighter.js`, a
 * fixed name the console asks for when it first shows code (so it is revalidated, not immutable). The
 * terminal emulator's likewise: `/terminal-emulator.js`, asked for when a terminal is first opened, and the
 * code editor's: `/code-editor.js`, asked for when a file is first edited.
 */
interface PageRoutes {
  page: string | null;
  script?: string;
}

const CONSOLE_ROUTES: PageRoutes = { page: "/" };
const HIGHLIGHTER_ROUTES: PageRoutes = { page: null, script: "/highlighter.js" };
const TERMINAL_EMULATOR_ROUTES: PageRoutes = { page: null, script: "/terminal-emulator.js" };
const CODE_EDITOR_ROUTES: PageRoutes = { page: null, script: "/code-editor.js" };

/**
 * Where one file of a bundled page is served: the page, its entry script at the fixed name when it has
 * one, and every other file (a chunk the entry shares with another page, a style, an icon) at its own
 * hashed name, which is what the entry imports.
 */
function route(routes: PageRoutes, path: string, isPage: boolean, isEntry: boolean): { at: string; immutable: boolean } | null {
  if (isPage) return routes.page ? { at: routes.page, immutable: false } : null;
  if (routes.script && isEntry && path.endsWith(".js")) return { at: routes.script, immutable: false };
  return { at: `/${basename(path)}`, immutable: true };
}

/** In the compiled binary the pages were bundled with it: their files are in the binary's own file system. */
function builtFiles(page: typeof consolePage, routes: PageRoutes): ConsoleFiles | undefined {
  if (!page.files) return undefined;
  const files: ConsoleFiles = new Map();
  for (const file of page.files) {
    const served = route(routes, file.path, file.loader === "html", file.isEntry);
    if (!served) continue;
    files.set(served.at, { body: Bun.file(file.path), contentType: file.headers["content-type"], etag: `"${file.headers.etag}"`, immutable: served.immutable });
  }
  return files;
}

/** Run from source (tests, `npm start`), a page is bundled once, on the first request for the console. */
async function bundleFromSource(page: typeof consolePage, routes: PageRoutes): Promise<ConsoleFiles> {
  const built = await Bun.build({ entrypoints: [page.index], target: "browser", minify: true, publicPath: "/" });
  if (!built.success) throw new AggregateError(built.logs, "the console could not be bundled");
  const files: ConsoleFiles = new Map();
  for (const output of built.outputs) {
    const served = route(routes, output.path, output.path.endsWith(".html"), output.kind === "entry-point");
    if (!served) continue;
    const etag = `"${output.hash ?? Bun.hash(await output.arrayBuffer()).toString(36)}"`;
    files.set(served.at, { body: output, contentType: output.type, etag, immutable: served.immutable });
  }
  return files;
}

const pageFiles = (page: typeof consolePage, routes: PageRoutes) => builtFiles(page, routes) ?? bundleFromSource(page, routes);

/**
 * The console's files: the web client Bun's HTML bundler makes of `ui/index.html` (its TypeScript,
 * Preact and CSS), served at `/` by the server itself, and the highlighter, terminal emulator and code
 * editor it loads lazily.
 */
export class ConsoleAssets {
  private files: Promise<ConsoleFiles> | undefined;
  /** Compressed copies, made on first request (once per server: the files never change under a build). */
  private readonly compressed = new Map<string, Promise<ConsoleFile>>();

  /**
   * The file at `path`, in `encoding` when given and worth it (its own bytes otherwise): a compressed
   * copy has an ETag of its own, as a different representation must (RFC 9110 §8.8.3).
   */
  async get(path: string, encoding?: ContentEncoding): Promise<ConsoleFile | undefined> {
    const file = await this.original(path);
    if (!file || !encoding || file.body.size < COMPRESS_FROM_BYTES || INCOMPRESSIBLE.test(file.contentType)) return file;
    const key = `${encoding} ${path}`;
    let copy = this.compressed.get(key);
    if (!copy) {
      // A bundled file run from source is a build artifact, which has arrayBuffer() but not bytes().
      copy = file.body.arrayBuffer().then((buffer) => ({
        ...file,
        body: new Blob([compressFile(new Uint8Array(buffer), encoding)]),
        etag: `${file.etag.slice(0, -1)}-${encoding}"`,
        encoding,
      }));
      // A copy that failed is made again on the next request, not kept failed.
      copy.catch(() => this.compressed.delete(key));
      this.compressed.set(key, copy);
    }
    return copy;
  }

  private async original(path: string): Promise<ConsoleFile | undefined> {
    this.files ??= Promise.all([
      pageFiles(consolePage, CONSOLE_ROUTES),
      pageFiles(highlighterPage, HIGHLIGHTER_ROUTES),
      pageFiles(terminalEmulatorPage, TERMINAL_EMULATOR_ROUTES),
      pageFiles(codeEditorPage, CODE_EDITOR_ROUTES),
      pwaFiles(),
    ])
      .then((pages) => new Map(pages.flatMap((files) => [...files])))
      .catch((error: unknown) => {
        this.files = undefined;
        throw error;
      });
    return (await this.files).get(path);
  }
}
