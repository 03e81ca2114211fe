import { useState } from "preact/hooks";
import { failureText } from "./failure-text.ts";
import { Alert } from "./use-action.tsx";

/** Copies a text where the browser allows it (a secure context); keep the text selectable beside it. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!navigator.clipboard) return null;
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setCopied(true),
      (failure: unknown) => setError(failureText(failure)),
    );
  return (
    <>
      <button type="button" class="quiet-button small" onClick={copy}>
        {copied ? "Copied" : label}
      </button>
      <Alert error={error} />
    </>
  );
}
