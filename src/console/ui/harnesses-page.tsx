import { useEffect, useState } from "preact/hooks";
import type { Harness } from "../../schemas/harnesses.ts";
import { api } from "./api.ts";
import { followEvents } from "./event-stream.ts";

const READINESS: Record<Harness["readiness"]["state"], string> = { ready: "Ready", missing: "Not installed", error: "Error" };
const AUTH: Record<Harness["auth"]["state"], string> = {
  authenticated: "Signed in",
  unauthenticated: "Signed out",
  checking: "Checking…",
  unknown: "Sign-in unknown",
};

/** The coding-agent CLIs on this machine: readiness, version, sign-in and accounts, followed live. */
export function HarnessesPage() {
  const [harnesses, setHarnesses] = useState<Harness[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api<Harness[]>("GET", "/v1/harnesses").then(setHarnesses, (failure: Error) => setError(failure.message));
    return followEvents("kind=harness.updated", (event) => {
      const { harness } = event.payload as { harness: Harness };
      setHarnesses((current) => current?.map((listed) => (listed.id === harness.id ? harness : listed)) ?? current);
    });
  }, []);

  const rescan = async () => {
    setBusy(true);
    try {
      setHarnesses(await api<Harness[]>("POST", "/v1/harnesses/rescan"));
      setError(null);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <header class="page-header">
        <h2>Harnesses</h2>
        <button type="button" onClick={rescan} disabled={busy}>
          {busy ? "Scanning…" : "Rescan"}
        </button>
      </header>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {harnesses === null ? (
        <p class="quiet">Loading…</p>
      ) : (
        <ul class="cards">
          {harnesses.map((harness) => (
            <li class="card" key={harness.id} data-harness={harness.id}>
              <div class="card-title">
                <strong>{harness.name}</strong>
                <span class={`badge ${harness.readiness.state}`}>{READINESS[harness.readiness.state]}</span>
              </div>
              <p class="quiet">
                {harness.readiness.version ?? "no version"} · {AUTH[harness.auth.state]}
                {harness.updateInfo.updateAvailable && ` · ${harness.updateInfo.latestVersion} available`}
              </p>
              {harness.readiness.detail && <p class="detail">{harness.readiness.detail}</p>}
              {harness.auth.accounts.length > 0 && (
                <ul class="accounts">
                  {harness.auth.accounts.map((account) => (
                    <li key={account.id}>
                      {account.label}
                      {account.id === harness.auth.activeAccountId && " (active)"}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
