import { useState } from "preact/hooks";
import { SelectField } from "../shared/fields.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";

export interface PickAndActProps {
  /** The form's accessible name. */
  name: string;
  label: string;
  choices: { value: string; label: string }[];
  text: string;
  busyText: string;
  act(value: string): Promise<unknown>;
}

/** A picker and a button that acts on what it picked (continue with an agent, move to a machine); the first choice until another is picked. */
export function PickAndAct({ name, label, choices, text, busyText, act }: PickAndActProps) {
  const [picked, setPicked] = useState("");
  const action = useAction();
  const chosen = choices.find((choice) => choice.value === picked) ?? choices[0];
  if (!chosen) return null;
  return (
    <form
      class="pick-and-act"
      aria-label={name}
      onSubmit={(event) => {
        event.preventDefault();
        void action.run(() => act(chosen.value));
      }}
    >
      <SelectField label={label} value={chosen.value} choices={choices} onValue={setPicked} />
      <button type="submit" class="quiet-button small" disabled={action.busy}>
        {action.busy ? busyText : text}
      </button>
      <Alert error={action.error} />
    </form>
  );
}
