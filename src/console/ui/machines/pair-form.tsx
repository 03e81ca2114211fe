import { useState } from "preact/hooks";
import type { Machine, PairBody } from "../../../schemas/machines.ts";
import { api } from "../shared/api.ts";
import { Alert, useAction } from "../shared/use-action.tsx";

/** Pairs this machine with another by that machine's address and the code it showed. */
export function PairForm({ onPaired }: { onPaired: (machine: Machine) => void }) {
  const [url, setUrl] = useState("");
  const [code, setCode] = useState("");
  const [paired, setPaired] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    setPaired(null);
    void run(async () => {
      const machine = await api<Machine>("POST", "/v1/machines/pair", { url: url.trim(), code: code.trim() } satisfies PairBody);
      onPaired(machine);
      setPaired(machine.name);
      setCode("");
    });
  };
  return (
    <section class="panel" aria-label="Pair with another machine">
      <h3>Pair with another machine</h3>
      <p class="quiet">Make a code on the other machine, then type its address (as this machine reaches it) and the code here.</p>
      <form class="machine-form" onSubmit={submit}>
        <label>
          Other machine's URL
          <input
            type="url"
            value={url}
            placeholder="http://studio.local:7433"
            required
            autocomplete="off"
            spellcheck={false}
            onInput={(event) => setUrl(event.currentTarget.value)}
          />
        </label>
        <label>
          Pairing code
          <input
            value={code}
            placeholder="KX7PM-4HQ2D"
            required
            autocomplete="one-time-code"
            autocapitalize="characters"
            spellcheck={false}
            onInput={(event) => setCode(event.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? "Pairing…" : "Pair"}
        </button>
      </form>
      <Alert error={error} />
      {paired && (
        <p class="quiet" role="status">
          Paired with {paired}.
        </p>
      )}
    </section>
  );
}
