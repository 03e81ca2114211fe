import { useState } from "preact/hooks";
import type { McpServer, McpTransport, UpdateMcpServerBody } from "../../../schemas/mcps.ts";
import { SecretFields, type SecretRow, secretValues, storedSecretRows } from "./mcp-secret-fields.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";
import { LITERAL_INPUT, SelectField, TextField } from "../shared/fields.tsx";

type AuthType = "none" | "oauth";

interface FormState {
  name: string;
  transport: McpTransport;
  command: string;
  /** One argument a line: arguments are passed as they are, spaces and all. */
  args: string;
  environment: SecretRow[];
  url: string;
  headers: SecretRow[];
  authType: AuthType;
  oauthScope: string;
}

const TRANSPORTS: { value: McpTransport; label: string }[] = [
  { value: "stdio", label: "stdio (a program run here)" },
  { value: "http", label: "Streamable HTTP" },
  { value: "sse", label: "HTTP+SSE (older)" },
];

const AUTH_TYPES: { value: AuthType; label: string }[] = [
  { value: "none", label: "None, or a header" },
  { value: "oauth", label: "OAuth" },
];

const initialForm = (server?: McpServer): FormState => ({
  name: server?.name ?? "",
  transport: server?.transport ?? "stdio",
  command: server?.command ?? "",
  args: server?.args.join("\n") ?? "",
  environment: storedSecretRows(server?.environmentNames ?? []),
  url: server?.url ?? "",
  headers: storedSecretRows(server?.headerNames ?? []),
  authType: server?.authType ?? "none",
  oauthScope: server?.oauthScope ?? "",
});

/**
 * What the server is told, for a POST or a PATCH (a new server has no stored value, so no null): the
 * chosen transport's fields only (the other side's are refused). An empty command or URL is left out,
 * so the server's own sentence says what is missing.
 */
function requestBody(form: FormState, editing?: McpServer): UpdateMcpServerBody {
  const common = { name: form.name.trim(), transport: form.transport };
  if (form.transport === "stdio") {
    const args = form.args.split("\n").filter((line) => line.trim() !== "");
    return { ...common, command: form.command.trim() || undefined, args, environment: secretValues(form.environment) };
  }
  // The scope shown may be the one the server's 401 asked for: sent back only when changed, so it is not pinned.
  const scope = form.authType === "oauth" && form.oauthScope.trim() !== (editing?.oauthScope ?? "") ? form.oauthScope.trim() : undefined;
  return { ...common, url: form.url.trim() || undefined, headers: secretValues(form.headers), authType: form.authType, oauthScope: scope };
}

type FieldsProps = { form: FormState; set: (fields: Partial<FormState>) => void };

function StdioFields({ form, set }: FieldsProps) {
  return (
    <>
      <TextField label="Command" value={form.command} placeholder="npx" onValue={(command) => set({ command })} />
      <label>
        Arguments, one per line
        <textarea rows={3} value={form.args} onInput={(event) => set({ args: event.currentTarget.value })} {...LITERAL_INPUT} />
      </label>
      <SecretFields legend="Environment" noun="variable" rows={form.environment} onChange={(environment) => set({ environment })} />
    </>
  );
}

function RemoteFields({ form, set }: FieldsProps) {
  return (
    <>
      <TextField label="URL" value={form.url} placeholder="https://mcp.example.com/mcp" onValue={(url) => set({ url })} />
      <SecretFields legend="Headers" noun="header" rows={form.headers} onChange={(headers) => set({ headers })} />
      <SelectField label="Sign-in" value={form.authType} choices={AUTH_TYPES} onValue={(authType) => set({ authType })} />
      {form.authType === "oauth" && <TextField label="OAuth scope (optional)" value={form.oauthScope} onValue={(oauthScope) => set({ oauthScope })} />}
    </>
  );
}

interface McpServerFormProps {
  id?: string;
  label: string;
  submitLabel: string;
  /** The server being changed; none for a new one. */
  server?: McpServer;
  save: (body: UpdateMcpServerBody) => Promise<void>;
  onCancel: () => void;
}

/** A server's definition: how it is reached, and the values it needs, which are written and never read back. */
export function McpServerForm({ id, label, submitLabel, server, save, onCancel }: McpServerFormProps) {
  const [form, setForm] = useState(() => initialForm(server));
  const { busy, error, run } = useAction();
  const set = (fields: Partial<FormState>) => setForm((current) => ({ ...current, ...fields }));
  return (
    <form
      id={id}
      // Adding stands on the page as a card of its own; editing is inside the server's card.
      class={server ? "mcp-form" : "card mcp-form"}
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault();
        void run(() => save(requestBody(form, server)));
      }}
    >
      <TextField label="Name" value={form.name} placeholder="files" required onValue={(name) => set({ name })} />
      <SelectField label="Transport" value={form.transport} choices={TRANSPORTS} onValue={(transport) => set({ transport })} />
      {form.transport === "stdio" ? <StdioFields form={form} set={set} /> : <RemoteFields form={form} set={set} />}
      <div class="row-actions">
        <button type="submit" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </button>
        <button type="button" class="quiet-button" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
      <Alert error={error} />
    </form>
  );
}
