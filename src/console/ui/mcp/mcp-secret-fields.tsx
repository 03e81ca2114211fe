import { LITERAL_INPUT } from "../shared/fields.tsx";

/** One name and its value; `stored` names a value the server keeps and never shows. */
export interface SecretRow {
  key: number;
  name: string;
  value: string;
  stored: boolean;
}

let nextKey = 0;
const row = (name: string, stored: boolean): SecretRow => ({ key: nextKey++, name, value: "", stored });

/** The rows for the names a server has values for: each shown as set, its value never read back. */
export const storedSecretRows = (names: string[]): SecretRow[] => names.map((name) => row(name, true));

/**
 * The whole set of names for the server: a typed value sets one, a stored one left empty is kept
 * (null), a row without a name is skipped and a removed row's name goes.
 */
export function secretValues(rows: SecretRow[]): Record<string, string | null> {
  const named = rows.filter((secret) => secret.name.trim() !== "");
  return Object.fromEntries(named.map((secret) => [secret.name.trim(), secret.stored && secret.value === "" ? null : secret.value]));
}

interface SecretFieldsProps {
  legend: string;
  /** What one entry is called: "variable", "header". */
  noun: string;
  rows: SecretRow[];
  onChange: (rows: SecretRow[]) => void;
}

/** Names with write-only values: the environment of a stdio server, the headers of an HTTP one. */
export function SecretFields({ legend, noun, rows, onChange }: SecretFieldsProps) {
  const title = noun[0]?.toUpperCase() + noun.slice(1);
  const change = (key: number, fields: Partial<SecretRow>) => onChange(rows.map((secret) => (secret.key === key ? { ...secret, ...fields } : secret)));
  return (
    <fieldset class="mcp-secrets">
      <legend>{legend}</legend>
      {rows.map((secret, index) => (
        <div class="mcp-secret-row" key={secret.key}>
          {secret.stored ? (
            <p class="mcp-secret-name">
              <code>{secret.name}</code> <span class="badge">set</span>
            </p>
          ) : (
            <label>
              {title} name
              <input value={secret.name} onInput={(event) => change(secret.key, { name: event.currentTarget.value })} {...LITERAL_INPUT} />
            </label>
          )}
          <label>
            {secret.stored ? `New value for ${secret.name}` : `${title} value`}
            <input
              type="password"
              value={secret.value}
              placeholder={secret.stored ? "Leave empty to keep" : undefined}
              onInput={(event) => change(secret.key, { value: event.currentTarget.value })}
              autocomplete="off"
            />
          </label>
          <button type="button" class="quiet-button small" onClick={() => onChange(rows.filter((listed) => listed.key !== secret.key))}>
            Remove<span class="visually-hidden"> {secret.name || `${noun} ${index + 1}`}</span>
          </button>
        </div>
      ))}
      <button type="button" class="quiet-button small" onClick={() => onChange([...rows, row("", false)])}>
        Add a {noun}
      </button>
    </fieldset>
  );
}
