import { useState } from "preact/hooks";
import type { McpAuthorization, McpServer } from "../../../schemas/mcps.ts";
import { api } from "../shared/api.ts";
import { clockTime, mcpPath } from "./mcp-labels.ts";
import { Alert, useAction } from "../shared/use-action.tsx";

/** A started sign-in, with the probe time it started from: a newer probe means the browser came back. */
interface Flow {
  authorization: McpAuthorization;
  probedBefore: string | null;
}

/**
 * OAuth sign-in by the MCP authorization spec: the server makes the authorization URL, the person opens
 * it in a new tab, and their browser comes back to the server's own callback, which probes the server.
 */
export function McpSignIn({ server }: { server: McpServer }) {
  const [flow, setFlow] = useState<Flow | null>(null);
  const { busy, error, run } = useAction();
  const start = () =>
    run(async () => {
      const authorization = await api<McpAuthorization>("POST", `${mcpPath(server.id)}/authorize`, {});
      setFlow({ authorization, probedBefore: server.probedAt });
    });
  const cameBack = flow !== null && server.probedAt !== flow.probedBefore && server.connectionState !== "connecting";
  const needed = server.connectionState === "needs-authorization";

  return (
    <div class="mcp-sign-in">
      <button type="button" class={needed ? "small" : "quiet-button small"} disabled={busy} onClick={start}>
        {needed ? "Sign in" : "Sign in again"}
      </button>
      {flow && !cameBack && (
        <p role="status">
          <a href={flow.authorization.authorizationUrl} target="_blank" rel="noopener">
            Open the sign-in page
          </a>{" "}
          in a new tab; it works until {clockTime(flow.authorization.expiresAt)}. Waiting for the sign-in…
        </p>
      )}
      {cameBack && <p role="status">{server.connectionState === "connected" ? "Signed in." : "The sign-in ended; see the state above."}</p>}
      <Alert error={error} />
    </div>
  );
}
