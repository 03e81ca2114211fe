import { useState } from "preact/hooks";
import type { McpServer } from "../../../schemas/mcps.ts";
import { api } from "../shared/api.ts";
import { McpServerCard } from "./mcp-server-card.tsx";
import { McpServerForm } from "./mcp-server-form.tsx";
import { Alert } from "../shared/use-action.tsx";
import { type ApplyMcp, useMcpServers } from "./use-mcp-servers.ts";
import { PageHeading } from "../shell/page-heading.tsx";

interface GroupProps {
  title: string;
  note: string;
  servers: McpServer[];
  apply: ApplyMcp;
  remove: (id: string) => Promise<void>;
}

function ServerGroup({ title, note, servers, apply, remove }: GroupProps) {
  return (
    <section class="mcp-group" aria-label={title}>
      <h3>{title}</h3>
      <p class="quiet">{note}</p>
      {servers.length > 0 && (
        <ul class="cards mcp-cards">
          {servers.map((server) => (
            <McpServerCard key={server.id} server={server} apply={apply} remove={remove} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** Every MCP server an agent here sees, followed live: Atrium's own (added, changed, probed, removed here) and each harness's. */
export function McpPage() {
  const { servers, error, apply, remove } = useMcpServers();
  const [adding, setAdding] = useState(false);
  const managed = servers?.filter((server) => server.kind === "managed") ?? [];
  const harnesses = servers?.filter((server) => server.kind !== "managed") ?? [];

  return (
    <section class="mcp-page">
      <header class="page-header">
        <PageHeading text="MCP servers" />
        <button type="button" class="quiet-button" aria-expanded={adding} aria-controls="add-mcp-server" onClick={() => setAdding(!adding)}>
          Add a server
        </button>
      </header>
      {adding && (
        <McpServerForm
          id="add-mcp-server"
          label="Add an MCP server"
          submitLabel="Add server"
          save={async (body) => {
            await apply(() => api<McpServer>("POST", "/v1/mcps", body));
            setAdding(false);
          }}
          onCancel={() => setAdding(false)}
        />
      )}
      <Alert error={error} />
      {servers === null ? (
        !error && <p class="quiet">Loading…</p>
      ) : (
        <>
          <ServerGroup
            title="Made in Atrium"
            note={
              managed.length > 0
                ? "Given to every session Atrium starts where they are on."
                : "None yet: a server added here is given to every session Atrium starts."
            }
            servers={managed}
            apply={apply}
            remove={remove}
          />
          {harnesses.length > 0 && (
            <ServerGroup
              title="The harnesses' own"
              note="Read from each harness's config, which that harness starts by itself; change them there."
              servers={harnesses}
              apply={apply}
              remove={remove}
            />
          )}
        </>
      )}
    </section>
  );
}
