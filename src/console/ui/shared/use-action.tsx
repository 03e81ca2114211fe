import { useState } from "preact/hooks";
import { failureText } from "./failure-text.ts";

export interface Action {
  busy: boolean;
  error: string | null;
  /** Runs a call, busy meanwhile; a failure's sentence is kept in `error`. Tells whether it succeeded. */
  run(call: () => Promise<unknown>): Promise<boolean>;
}

/** The state of a button's call: busy while it runs, the server's sentence when it fails. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (call: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await call();
      setError(null);
      return true;
    } catch (failure) {
      setError(failureText(failure));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}

/** A failure's sentence, announced to screen readers. */
export function Alert({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}
