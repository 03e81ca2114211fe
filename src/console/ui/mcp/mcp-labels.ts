import type { McpConnectionState, McpServer, McpServerKind, McpTransport } from "../../../schemas/mcps.ts";

export const STATE_LABEL: Record<McpConnectionState, string> = {
  disconnected: "Not connected",
  connecting: "Connecting…",
  connected: "Connected",
  failed: "Failed",
  "needs-authorization": "Needs sign-in",
};

/** The badge's colour class: good when it answered, bad when it did not or wants a sign-in. */
export const STATE_CLASS: Record<McpConnectionState, string> = {
  disconnected: "",
  connecting: "",
  connected: "ready",
  failed: "error",
  "needs-authorization": "error",
};

export const TRANSPORT_LABEL: Record<McpTransport, string> = { stdio: "stdio", http: "HTTP", sse: "SSE" };

/** Who holds the server, in the order the page lists them: Atrium's own first, then each harness's. */
export const KIND_LABEL: Record<McpServerKind, string> = {
  managed: "Atrium",
  claude: "Claude Code",
  codex: "Codex",
  gemini: "Gemini CLI",
  opencode: "OpenCode",
  qwen: "Qwen Code",
  copilot: "Copilot CLI",
};

const KIND_ORDER = Object.keys(KIND_LABEL);

/** Atrium's own by name, then each harness's by name, as `GET /v1/mcps` lists them. */
export const listOrder = (a: McpServer, b: McpServer) =>
  KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id);

export const mcpPath = (id: string) => `/v1/mcps/${encodeURIComponent(id)}`;

export const clockTime = (timestamp: string) => new Date(timestamp).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
