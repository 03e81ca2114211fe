import { useEffect, useState } from "preact/hooks";
import type { PairingCode } from "../../../schemas/machines.ts";
import { api } from "../shared/api.ts";
import { CopyButton } from "../shared/copy-button.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";

/** Seconds left as `m:ss`. */
const minutesAndSeconds = (seconds: number) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;

/** The seconds until `expiresAt`, counted down once a second (0 once it has passed). */
function useSecondsLeft(expiresAt: string): number {
  const left = () => Math.max(0, Math.ceil((Date.parse(expiresAt) - Date.now()) / 1000));
  const [seconds, setSeconds] = useState(left);
  useEffect(() => {
    setSeconds(left());
    const timer = setInterval(() => setSeconds(left()), 1000);
    return () => clearInterval(timer);
  }, [expiresAt]);
  return seconds;
}

/** A code just made, large, with the time it has left. */
function ShownCode({ made }: { made: PairingCode }) {
  const seconds = useSecondsLeft(made.expiresAt);
  return (
    <div class="pairing-code">
      <output class="pairing-code-text" aria-label="This machine's pairing code">
        {made.code}
      </output>
      <CopyButton key={made.code} text={made.code} label="Copy code" />
      {/* A timer is not announced each second; its text is read when a screen reader reaches it. */}
      <p class={seconds === 0 ? "error" : "quiet"} role="timer">
        {seconds === 0 ? "Expired: make a new one." : <>Expires in {minutesAndSeconds(seconds)} (used once).</>}
      </p>
    </div>
  );
}

/** Makes a one-use code here that another machine pairs with this one by. */
export function PairingCodePanel() {
  const [made, setMade] = useState<PairingCode | null>(null);
  const { busy, error, run } = useAction();
  return (
    <section class="panel" aria-label="Pair from another machine">
      <h3>Pair from another machine</h3>
      <p class="quiet">
        Make a code here, then on the other machine pair with this machine's address and the code. This browser reaches it at{" "}
        <span class="machine-url">{location.origin}</span>; the other machine may need another address.
      </p>
      {made && <ShownCode made={made} />}
      <div class="row-actions">
        <button type="button" disabled={busy} onClick={() => run(async () => setMade(await api<PairingCode>("POST", "/v1/machines/pairing-codes")))}>
          {made ? "Make a new code" : "Make a pairing code"}
        </button>
      </div>
      <Alert error={error} />
    </section>
  );
}
