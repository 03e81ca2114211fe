/**
 * The console's service worker (served at /sw.js): keeps the shell (the page, its scripts, styles and
 * icons) so the console opens at once, also when the server cannot be reached, and then says it is
 * offline. The interface (/v1/…) is never cached: its answers carry a user's data and change.
 */

/**
 * What this file uses of a service worker's global scope, declared here: it is checked both with the
 * console's tsconfig (the DOM's library) and with the server's (which embeds it), and neither declares it.
 */
interface Answer {
  ok: boolean;
  clone(): Answer;
  text(): Promise<string>;
}
interface ExtendableEvent extends Event {
  waitUntil(work: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(response: Promise<Answer>): void;
}
interface KeptResponses {
  put(request: Request | string, response: Answer): Promise<void>;
  addAll(requests: string[]): Promise<void>;
}
interface PushEvent extends ExtendableEvent {
  data: { json(): unknown } | null;
}
interface ShownNotification {
  data: unknown;
  close(): void;
}
interface NotificationEvent extends ExtendableEvent {
  notification: ShownNotification;
}
interface WindowClient {
  url: string;
  focus(): Promise<WindowClient>;
  navigate(url: string): Promise<WindowClient | null>;
}
interface WorkerScope {
  location: { origin: string };
  fetch(request: Request | string, init?: { cache?: "no-cache" }): Promise<Answer>;
  caches: { open(name: string): Promise<KeptResponses>; match(request: Request | string): Promise<Answer | undefined> };
  skipWaiting(): Promise<void>;
  clients: {
    claim(): Promise<void>;
    matchAll(options: { type: "window"; includeUncontrolled: boolean }): Promise<WindowClient[]>;
    openWindow(url: string): Promise<WindowClient | null>;
  };
  registration: { showNotification(title: string, options: { body: string; tag: string; data: unknown; icon: string; renotify: boolean }): Promise<void> };
  addEventListener(type: "install" | "activate", listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: "fetch", listener: (event: FetchEvent) => void): void;
  addEventListener(type: "push", listener: (event: PushEvent) => void): void;
  addEventListener(type: "notificationclick", listener: (event: NotificationEvent) => void): void;
}

/** What the server pushes (src/schemas/push.ts PushPayload), as far as the notification needs it. */
interface Pushed {
  title: string;
  body: string;
  tag: string;
  url: string;
}

const scope = globalThis as unknown as WorkerScope;
const { caches } = scope;
const fetchFromServer = scope.fetch.bind(scope);
const SHELL_CACHE = "atrium-shell-v1";
/** Served under the same name by every build (the lazily loaded scripts are asked for by name: src/console/console-assets.ts). */
const UNVERSIONED = new Set(["/", "/highlighter.js", "/terminal-emulator.js", "/code-editor.js"]);

/** The page's own files, as its HTML names them (scripts and styles have hashed names). */
function assetsOf(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((match) => match[1] ?? "").filter((path) => path !== "" && !path.startsWith("/v1/"));
}

async function cacheShell(): Promise<void> {
  const cache = await caches.open(SHELL_CACHE);
  const page = await fetchFromServer("/", { cache: "no-cache" });
  if (!page.ok) return;
  await cache.put("/", page.clone());
  await cache.addAll([...assetsOf(await page.text()), "/manifest.webmanifest", "/icon-192.png"]);
}

scope.addEventListener("install", (event) => {
  event.waitUntil(cacheShell().then(() => scope.skipWaiting()));
});

scope.addEventListener("activate", (event) => {
  event.waitUntil(scope.clients.claim());
});

scope.addEventListener("fetch", (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== scope.location.origin || url.pathname.startsWith("/v1/")) return;
  if (request.mode === "navigate" || UNVERSIONED.has(url.pathname)) {
    // The page, and files whose name stays across builds: the server's newest when it answers (a new
    // build), the kept one when it does not.
    const key = request.mode === "navigate" ? "/" : url.pathname;
    event.respondWith(
      fetchFromServer(request)
        .then(async (response) => {
          if (response.ok) await (await caches.open(SHELL_CACHE)).put(key, response.clone());
          return response;
        })
        .catch(async () => (await caches.match(key)) ?? Response.error()),
    );
    return;
  }
  // Scripts, styles and icons never change under a name: the kept copy, else the server's, kept.
  event.respondWith(
    caches.match(request).then(
      (kept) =>
        kept ??
        fetchFromServer(request).then(async (response) => {
          if (response.ok) await (await caches.open(SHELL_CACHE)).put(request, response.clone());
          return response;
        }),
    ),
  );
});
// A push from the server (src/push/): a session asks, a plan waits, a long turn ended or one failed.
// One notification per session (its tag), the newest replacing the last, and it rings again.
scope.addEventListener("push", (event) => {
  let pushed: Partial<Pushed> = {};
  try {
    pushed = (event.data?.json() ?? {}) as Partial<Pushed>;
  } catch {
    // Not ours or not JSON: still shown (a push the user is never shown can cost the subscription).
  }
  const { title = "Atrium", body = "", tag = "atrium", url = "/" } = pushed;
  event.waitUntil(scope.registration.showNotification(title, { body, tag, data: { url }, icon: "/icon-192.png", renotify: true }));
});

// Tapping it opens that session: in a console window already open (brought forward), else a new one.
scope.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const { url } = (event.notification.data ?? {}) as { url?: string };
  const target = new URL(url ?? "/", scope.location.origin).href;
  event.waitUntil(
    scope.clients.matchAll({ type: "window", includeUncontrolled: true }).then(async (windows) => {
      const open = windows.find((window) => new URL(window.url).origin === scope.location.origin);
      // The session first: bringing the window forward is what a browser may refuse. A window this
      // worker does not control refuses navigate(); a new window is opened then.
      const navigated = await open?.navigate(target).catch(() => null);
      if (!open || !navigated) return void (await scope.clients.openWindow(target));
      await navigated.focus().catch(() => undefined);
    }),
  );
});
export {};
