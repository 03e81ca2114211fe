// @ts-expect-error -- imported as a file (Bun gives its path, also inside the compiled binary), which TypeScript cannot type
import serviceWorkerFile from "./ui/shell/service-worker.ts" with { type: "file" };
import icon192 from "./ui/shell/icon-192.png" with { type: "file" };
import icon512 from "./ui/shell/icon-512.png" with { type: "file" };
import iconMaskable from "./ui/shell/icon-maskable-512.png" with { type: "file" };
import type { ConsoleFile } from "./console-assets.ts";
import { bundledFile } from "../system/bundled-file.ts";

const serviceWorkerSource: string = serviceWorkerFile;

/** The console as an installable web app: what a phone's "Add to home screen" reads. */
const MANIFEST = {
  name: "Atrium",
  short_name: "Atrium",
  description: "Your coding agents, on this machine.",
  id: "/",
  start_url: "/",
  scope: "/",
  display: "standalone",
  background_color: "#161615",
  theme_color: "#3b5bdb",
  icons: [
    { src: "/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
    { src: "/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
    { src: "/icon-maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
  ],
};

async function file(body: Blob, contentType: string): Promise<ConsoleFile> {
  return { body, contentType, etag: `"${Bun.hash(await body.arrayBuffer()).toString(36)}"`, immutable: false };
}

/**
 * The files an installed console needs at fixed names (a service worker's scope is its path): the
 * manifest, the icons, and the service worker, written in TypeScript and turned into JavaScript here.
 */
export async function pwaFiles(): Promise<Map<string, ConsoleFile>> {
  // A module for TypeScript (its declarations stay its own), a classic script for browsers: every one
  // of them runs that as a service worker, not all of them a module.
  const serviceWorker = new Bun.Transpiler({ loader: "ts" }).transformSync(await bundledFile(serviceWorkerSource).text()).replace(/^export \{\};?\s*$/m, "");
  return new Map([
    ["/manifest.webmanifest", await file(new Blob([JSON.stringify(MANIFEST)]), "application/manifest+json")],
    ["/sw.js", await file(new Blob([serviceWorker]), "text/javascript; charset=utf-8")],
    ["/icon-192.png", await file(bundledFile(icon192), "image/png")],
    ["/icon-512.png", await file(bundledFile(icon512), "image/png")],
    ["/icon-maskable-512.png", await file(bundledFile(iconMaskable), "image/png")],
  ]);
}
