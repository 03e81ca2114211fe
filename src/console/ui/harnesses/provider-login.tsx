import { useEffect, useId, useState } from "preact/hooks";
import type { ProviderLoginAttempt } from "../../../schemas/harnesses.ts";
import { Alert, useAction } from "../shared/use-action.tsx";
import { api } from "../shared/api.ts";
import { failureText } from "../shared/failure-text.ts";

const LOGIN = "/v1/harnesses/opencode/providers";
/** OpenCode's common providers; any other id can be typed. */
const SUGGESTED_PROVIDERS = ["anthropic", "openai", "openrouter", "google", "github-copilot", "groq", "deepseek", "xai", "mistral"];
/** How often a device sign-in is read again while the user enters the code elsewhere. */
const POLL_MS = 2_000;

const attemptPath = (attempt: ProviderLoginAttempt) => `${LOGIN}/${encodeURIComponent(attempt.providerId)}/login/${encodeURIComponent(attempt.id)}`;

/** How an ended attempt reads, and its look. */
const ENDED: Record<Exclude<ProviderLoginAttempt["state"], "running">, { text: string; class: string }> = {
  succeeded: { text: "Signed in", class: "good" },
  failed: { text: "Sign-in failed", class: "error" },
  cancelled: { text: "Sign-in cancelled", class: "quiet" },
};

/** A text answer; a secret one (an API key) is masked. */
function TypedInput({
  masked,
  onInput,
  ...field
}: {
  masked: boolean;
  id: string;
  placeholder: string | undefined;
  value: string;
  onInput: (value: string) => void;
}) {
  const read = (event: { currentTarget: HTMLInputElement }) => onInput(event.currentTarget.value);
  return masked ? <input type="password" autocomplete="off" onInput={read} {...field} /> : <input type="text" onInput={read} {...field} />;
}

/** The attempt's question (an API key is a `secret`, masked), answered with `…/respond`. */
function PromptForm({ prompt, busy, answer }: { prompt: NonNullable<ProviderLoginAttempt["prompt"]>; busy: boolean; answer: (value: string) => void }) {
  const [value, setValue] = useState(prompt.options[0]?.id ?? "");
  const id = useId();
  const submit = (event: Event) => {
    event.preventDefault();
    answer(value);
  };
  return (
    <form class="inline-form" onSubmit={submit}>
      <label for={id}>{prompt.message}</label>
      {prompt.type === "select" ? (
        <select id={id} value={value} onChange={(event) => setValue(event.currentTarget.value)}>
          {prompt.options.map((option) => (
            <option key={option.id} value={option.id}>
              {option.label}
            </option>
          ))}
        </select>
      ) : (
        <TypedInput masked={prompt.type === "secret"} id={id} placeholder={prompt.placeholder ?? undefined} value={value} onInput={setValue} />
      )}
      <button type="submit" disabled={busy || value.trim().length === 0}>
        Submit
      </button>
    </form>
  );
}

/** The code to enter and where: the server polls GitHub meanwhile. */
function DeviceCode({ event }: { event: NonNullable<ProviderLoginAttempt["event"]> }) {
  const url = event.verificationUrl ?? event.url;
  return (
    <div class="device-code">
      <p>{event.message}</p>
      {event.userCode && <code class="user-code">{event.userCode}</code>}
      {url && (
        <a href={url} target="_blank" rel="noopener noreferrer">
          {url}
        </a>
      )}
    </div>
  );
}

/** A running attempt: answered, followed until it ends, or cancelled. */
function RunningAttempt({ attempt, update }: { attempt: ProviderLoginAttempt; update: (attempt: ProviderLoginAttempt) => void }) {
  const action = useAction();
  const [pollError, setPollError] = useState<string | null>(null);
  // With nothing to answer here (a device code), the attempt ends when the user signs in elsewhere.
  const signingInElsewhere = attempt.prompt === null;

  useEffect(() => {
    if (!signingInElsewhere) return;
    const timer = setInterval(() => {
      api<ProviderLoginAttempt>("GET", attemptPath(attempt)).then(update, (failure: unknown) => setPollError(failureText(failure)));
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [attempt.id, signingInElsewhere]);

  const answer = (value: string) => action.run(async () => update(await api<ProviderLoginAttempt>("POST", `${attemptPath(attempt)}/respond`, { value })));
  const cancel = () => action.run(async () => update(await api<ProviderLoginAttempt>("POST", `${attemptPath(attempt)}/cancel`)));
  return (
    <div class="login-attempt">
      {attempt.prompt && <PromptForm key={attempt.prompt.id} prompt={attempt.prompt} busy={action.busy} answer={answer} />}
      {attempt.event && <DeviceCode event={attempt.event} />}
      <div class="harness-actions">
        <button type="button" class="quiet-button" disabled={action.busy} onClick={cancel}>
          Cancel sign-in
        </button>
      </div>
      <Alert error={action.error ?? pollError} />
    </div>
  );
}

/** Signs OpenCode in to a model provider: an API key it stores in its auth.json, or GitHub Copilot's device sign-in. */
export function ProviderLogin() {
  const [providerId, setProviderId] = useState("");
  const [method, setMethod] = useState<ProviderLoginAttempt["method"]>("api_key");
  const [attempt, setAttempt] = useState<ProviderLoginAttempt | null>(null);
  const action = useAction();
  const ids = { provider: useId(), suggestions: useId(), method: useId() };
  const start = (event: Event) => {
    event.preventDefault();
    void action.run(async () => setAttempt(await api<ProviderLoginAttempt>("POST", `${LOGIN}/${encodeURIComponent(providerId.trim())}/login`, { method })));
  };

  return (
    <section class="provider-login" aria-label="Provider sign-in">
      <h3>Provider sign-in</h3>
      {attempt?.state === "running" ? (
        <RunningAttempt attempt={attempt} update={setAttempt} />
      ) : (
        <form class="provider-form" onSubmit={start}>
          <label for={ids.provider}>Provider</label>
          <input
            id={ids.provider}
            list={ids.suggestions}
            placeholder="anthropic"
            value={providerId}
            onInput={(event) => setProviderId(event.currentTarget.value)}
          />
          <datalist id={ids.suggestions}>
            {SUGGESTED_PROVIDERS.map((id) => (
              <option key={id} value={id} />
            ))}
          </datalist>
          <label for={ids.method}>Method</label>
          <select id={ids.method} value={method} onChange={(event) => setMethod(event.currentTarget.value as ProviderLoginAttempt["method"])}>
            <option value="api_key">API key</option>
            <option value="oauth">Device code (github-copilot)</option>
          </select>
          <div class="harness-actions">
            <button type="submit" disabled={action.busy || providerId.trim().length === 0}>
              Start sign-in
            </button>
          </div>
        </form>
      )}
      {attempt && attempt.state !== "running" && (
        <p class={ENDED[attempt.state].class} role={attempt.state === "failed" ? "alert" : "status"}>
          {ENDED[attempt.state].text} ({attempt.providerId}){attempt.error && `: ${attempt.error}`}
        </p>
      )}
      <Alert error={action.error} />
    </section>
  );
}
