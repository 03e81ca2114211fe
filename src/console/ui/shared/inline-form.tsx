import { useState } from "preact/hooks";
import { TextField } from "./fields.tsx";

interface InlineFormProps {
  label: string;
  initial?: string;
  submitLabel: string;
  busy: boolean;
  onSubmit: (value: string) => void;
  onCancel: () => void;
}

/** One labelled field with its submit and cancel buttons, opened in place for a small change. */
export function InlineForm({ label, initial = "", submitLabel, busy, onSubmit, onCancel }: InlineFormProps) {
  const [value, setValue] = useState(initial);
  return (
    <form
      class="inline-form"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(value.trim());
      }}
    >
      <TextField label={label} value={value} required onValue={setValue} />
      <div class="project-form-buttons">
        <button type="submit" disabled={busy}>
          {submitLabel}
        </button>
        <button type="button" class="quiet-button" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
