import { type ComponentChildren, render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, forgetToken, keepToken, storedToken, whenSignedOut } from "./shared/api.ts";
import { failureText } from "./shared/failure-text.ts";
import { HarnessesPage } from "./harnesses/harnesses-page.tsx";
import { ProjectsPage } from "./projects/projects-page.tsx";
import { type Route, useRoute } from "./shell/router.ts";
import { PageMenu } from "./shell/page-menu.tsx";
import { SessionPage } from "./sessions/session-page.tsx";
import { SessionsPage } from "./sessions/sessions-page.tsx";
import { SettingsProvider } from "./settings/console-settings.tsx";
import { SettingsPage } from "./settings/settings-page.tsx";
import { SkillsPage } from "./skills/skills-page.tsx";
import { McpPage } from "./mcp/mcp-page.tsx";
import { PluginsPage } from "./plugins/plugins-page.tsx";
import { MachinesPage } from "./machines/machines-page.tsx";
import { AgentTerminalPage } from "./terminals/agent-terminal-page.tsx";
import { TerminalPage } from "./terminals/terminal-page.tsx";
import { FilesPage } from "./files/files-page.tsx";
import { SignIn } from "./shell/sign-in.tsx";
import { OfflineNotice } from "./shell/offline-notice.tsx";
import { holdPageFocus } from "./shell/page-heading.tsx";
import { useHeightProperty } from "./shell/use-height-property.ts";
import { startOutbox } from "./composer/outbox.ts";

/** A link from `atrium console` carries a one-time code in its fragment, which the browser never sends. */
async function exchangeLinkCode(): Promise<string | null> {
  const code = new URLSearchParams(location.hash.slice(1)).get("code");
  if (!code) return null;
  history.replaceState(null, "", location.pathname);
  try {
    const { token } = await api<{ token: string }>("POST", "/v1/console/sign-in", { code });
    keepToken(token);
    return null;
  } catch (failure) {
    return failureText(failure);
  }
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case "sessions":
      return <SessionsPage />;
    case "session":
      return <SessionPage key={route.sessionId} sessionId={route.sessionId} openAt={route.itemId} />;
    case "projects":
      return <ProjectsPage />;
    case "harnesses":
      return <HarnessesPage />;
    case "skills":
      return <SkillsPage />;
    case "mcps":
      return <McpPage />;
    case "plugins":
      return <PluginsPage />;
    case "machines":
      return <MachinesPage />;
    case "settings":
      return <SettingsPage />;
    case "terminal":
      return <TerminalPage key={`${route.owner.kind}/${route.owner.id}`} owner={route.owner} />;
    case "files":
      return <FilesPage key={`${route.owner.kind}/${route.owner.id}`} owner={route.owner} open={route.open} />;
    case "agent-terminal":
      return <AgentTerminalPage key={`${route.sessionId}/${route.terminalKey}`} sessionId={route.sessionId} terminalKey={route.terminalKey} />;
  }
}

/** The top bar and the offline notice, sticky together; what sticks below them reads their height from `--page-top-height`. */
function PageTop({ children }: { children: ComponentChildren }) {
  const top = useRef<HTMLDivElement>(null);
  useHeightProperty(top, "--page-top-height");
  return (
    <div class="page-top" ref={top}>
      {children}
    </div>
  );
}

function Console() {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState<boolean | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const main = useRef<HTMLElement>(null);

  useEffect(() => {
    whenSignedOut(() => {
      setProblem("The server refused the token; sign in again.");
      setSignedIn(false);
    });
    void exchangeLinkCode().then((refusal) => {
      setProblem(refusal);
      setSignedIn(storedToken() !== null && refusal === null);
    });
  }, []);

  // Prompts a closed page left in the outbox go once signed in.
  useEffect(() => {
    if (signedIn) startOutbox();
  }, [signedIn]);

  // After the page's own effects: one that drew its heading has given it the focus already.
  useEffect(() => holdPageFocus(main.current), [route]);

  if (signedIn === null) return null;
  if (!signedIn) return <SignIn problem={problem} signedIn={() => setSignedIn(true)} />;
  return (
    <SettingsProvider>
      <div class="shell">
        <PageTop>
          <nav class="top-bar">
            <h1>Atrium</h1>
            <PageMenu
              route={route}
              signOut={() => {
                forgetToken();
                setSignedIn(false);
              }}
            />
          </nav>
          <OfflineNotice />
        </PageTop>
        {/* The session page is wider from its first frame: widened once drawn, it shifted the whole layout. */}
        <main tabIndex={-1} ref={main} class={route.page === "session" ? "wide" : undefined}>
          <Page route={route} />
        </main>
      </div>
    </SettingsProvider>
  );
}

// Named here, not in index.html: the bundler would take them for files of its own to bundle.
const headLinks: Array<[rel: string, href: string]> = [
  ["manifest", "/manifest.webmanifest"],
  ["apple-touch-icon", "/icon-192.png"],
];
for (const [rel, href] of headLinks) {
  const link = document.createElement("link");
  link.rel = rel;
  link.href = href;
  document.head.append(link);
}

/** How long after the page's load the service worker is registered. */
const SERVICE_WORKER_DELAY_MS = 3_000;

const root = document.getElementById("app");
if (root) render(<Console />, root);
// Installable, and opening at once from the kept shell; only where the browser allows workers (https,
// localhost). Registered once the page has loaded and gone quiet: the worker fetches the shell again to
// keep it, which must not compete with the page's own first paint.
addEventListener("load", () => {
  setTimeout(() => void navigator.serviceWorker?.register("/sw.js").catch(() => undefined), SERVICE_WORKER_DELAY_MS);
});
