import { useEffect, useState } from "preact/hooks";
import { api, keepToken } from "../shared/api.ts";
import { failureText } from "../shared/failure-text.ts";
import { pageTitle } from "./page-heading.tsx";

/** Paste a token once; it is checked against the server before it is kept. */
export function SignIn({ signedIn, problem }: { signedIn: () => void; problem: string | null }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(problem);
  useEffect(() => {
    document.title = pageTitle("Sign in");
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    keepToken(token.trim());
    try {
      await api("GET", "/v1/info");
      signedIn();
    } catch (failure) {
      setError(failureText(failure));
    }
  };
  return (
    <main class="sign-in">
      <h1>Atrium</h1>
      <p>
        Paste an access token, or open the link <code>atrium console</code> prints on the machine.
      </p>
      <form onSubmit={submit}>
        <label for="token">Token</label>
        <input id="token" type="password" autocomplete="off" value={token} onInput={(event) => setToken(event.currentTarget.value)} />
        <button type="submit" disabled={token.trim().length === 0}>
          Sign in
        </button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </main>
  );
}
