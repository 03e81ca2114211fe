import type { ComponentChildren } from "preact";
import type { McpServer } from "../../../schemas/mcps.ts";
import { clockTime, KIND_LABEL } from "./mcp-labels.ts";

/** Names whose values the server keeps and never returns: each is shown as set, never as a value. */
function SecretNames({ names }: { names: string[] }) {
  return (
    <ul class="mcp-names">
      {names.map((name) => (
        <li key={name}>
          <code>{name}</code> set
        </li>
      ))}
    </ul>
  );
}

function toolsText(server: McpServer): string {
  if (!server.probedAt) return "not probed yet";
  const tools = `${server.toolCount} ${server.toolCount === 1 ? "tool" : "tools"}`;
  return `${tools}, last probed at ${clockTime(server.probedAt)}`;
}

function Fact({ term, children }: { term: string; children: ComponentChildren }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </>
  );
}

/** What a server is: how it is reached, the values it is given (by name), its tools, where it is configured. */
export function McpServerFacts({ server }: { server: McpServer }) {
  return (
    <dl class="facts mcp-facts">
      <Fact term="From">{server.kind === "managed" ? "Atrium: given to every session" : `${KIND_LABEL[server.kind]}'s own config`}</Fact>
      {server.transport === "stdio" ? (
        <Fact term="Command">
          <code class="mcp-command">{[server.command, ...server.args].join(" ")}</code>
        </Fact>
      ) : (
        <Fact term="URL">
          <code class="mcp-command">{server.url}</code>
        </Fact>
      )}
      {server.environmentNames.length > 0 && (
        <Fact term="Environment">
          <SecretNames names={server.environmentNames} />
        </Fact>
      )}
      {server.headerNames.length > 0 && (
        <Fact term="Headers">
          <SecretNames names={server.headerNames} />
        </Fact>
      )}
      {server.authType === "oauth" && <Fact term="Sign-in">OAuth{server.oauthScope && `, scope ${server.oauthScope}`}</Fact>}
      <Fact term="Tools">{toolsText(server)}</Fact>
      {server.configPath && (
        <Fact term="Config">
          <code class="mcp-command">{server.configPath}</code>
        </Fact>
      )}
    </dl>
  );
}
