import { useMemo } from "preact/hooks";
import { AnsiText } from "./ansi-text.ts";

/** A command's whole output, in its colours (a background task's, read on demand). */
export function AnsiOutput({ text }: { text: string }) {
  const runs = useMemo(() => new AnsiText().write(text), [text]);
  return (
    <>
      {runs.map((run, index) =>
        run.classes ? (
          <span key={index} class={run.classes}>
            {run.text}
          </span>
        ) : (
          run.text
        ),
      )}
    </>
  );
}
