import type { ClientAction, ClientWindowState } from "../../src/schemas/clients.ts";
import { SseClient } from "./sse-client.ts";

/** How the reference client answers the actions it is sent. */
export type Answering = "answer" | "ignore" | "disconnect";

/** A desktop client's layout to start from: one workspace with one session pane; every action offered. */
export function desktopState(overrides: Partial<ClientWindowState> = {}): ClientWindowState {
  return {
    isActive: false,
    workspaceId: "ws_1",
    workspaces: [
      {
        id: "ws_1",
        projectId: "prj_1",
        name: "atrium",
        tabId: "tab_1",
        paneId: "pane_1",
        sessionId: "ses_1",
        tabs: [
          {
            id: "tab_1",
            title: "Main",
            activeLeafId: "leaf_1",
            panes: [{ id: "pane_1", kind: "session", title: "Session 1", sessionId: "ses_1", leafId: "leaf_1" }],
            splits: [{ branchPath: [], orientation: "horizontal", fractions: [1], children: [["leaf_1"]] }],
          },
        ],
      },
    ],
    page: { page: "sessions", settingsSection: "", presentation: "window" },
    capabilities: {
      pages: ["sessions", "settings"],
      settingsSections: ["general", "harnesses"],
      layoutActions: ["openSession"],
      windowActions: ["focus", "minimize", "restore"],
    },
    window: { x: 10, y: 20, width: 1280, height: 800, isMinimized: false, isFullscreen: false, sidebarVisible: true },
    ...overrides,
  };
}

/** What an action does to the layout, as a desktop client would apply it. */
export function applyAction(state: ClientWindowState, action: ClientAction): ClientWindowState {
  const next: ClientWindowState = structuredClone(state);
  if (action.kind === "window") {
    next.window.isMinimized = action.action === "minimize";
    next.isActive = action.action === "focus" || (action.action === "restore" && next.isActive);
  } else if (action.kind === "navigate") {
    next.page = { ...next.page, page: action.page ?? next.page.page, settingsSection: action.settingsSection ?? "" };
  } else if (action.action === "openSession" && action.sessionId) {
    const tab = next.workspaces[0]!.tabs[0]!;
    const leafId = `leaf_${tab.panes.length + 1}`;
    tab.panes.push({ id: `pane_${tab.panes.length + 1}`, kind: "session", title: action.sessionId, sessionId: action.sessionId, leafId });
    tab.activeLeafId = leafId;
  }
  return next;
}

/**
 * A reference desktop client over the real interface: it reports its window state, holds its event
 * stream open (so it is connected), and answers each `client.action` sent to it with its new state
 * (`ackActionId`), or ignores it, or drops its stream, as told. docs/api.md shows the same protocol.
 */
export class ReferenceClient {
  state: ClientWindowState;
  readonly actions: ClientAction[] = [];
  private stream: SseClient | undefined;

  constructor(
    private readonly server: { url: string; token: string },
    readonly clientId: string,
    public answering: Answering = "answer",
    initial: ClientWindowState = desktopState(),
  ) {
    this.state = initial;
  }

  /** Reports its state, then opens its stream; resolves once the server has it connected. */
  async connect(): Promise<void> {
    await this.report();
    const stream = new SseClient(`${this.server.url}/v1/events/stream?clientId=${this.clientId}`, { authorization: `Bearer ${this.server.token}` });
    stream.onFrame = (frame) => {
      if (frame.event === "client.action") void this.handle((JSON.parse(frame.data) as { payload: ClientAction }).payload);
    };
    this.stream = stream;
    await stream.ready;
    await stream.waitForComments(1);
  }

  disconnect(): void {
    this.stream?.close();
    this.stream = undefined;
  }

  async report(ackActionId?: string): Promise<Response> {
    return fetch(`${this.server.url}/v1/clients/${this.clientId}/window-state`, {
      method: "PUT",
      headers: { authorization: `Bearer ${this.server.token}`, "content-type": "application/json" },
      body: JSON.stringify({ ...this.state, ...(ackActionId ? { ackActionId } : {}) }),
    });
  }

  private async handle(action: ClientAction): Promise<void> {
    this.actions.push(action);
    if (this.answering === "ignore") return;
    if (this.answering === "disconnect") return this.disconnect();
    this.state = applyAction(this.state, action);
    await this.report(action.actionId);
  }
}
