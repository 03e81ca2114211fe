/** Text taken as typed (a path, a URL, a name): no autocompletion, capitals or spelling fixes. */
export const LITERAL_INPUT = { autocomplete: "off", autocapitalize: "off", spellcheck: false } as const;

interface TextFieldProps {
  label: string;
  value: string;
  placeholder?: string;
  required?: boolean;
  onValue: (value: string) => void;
}

/** A labelled one-line field for text taken as typed. */
export function TextField({ label, value, placeholder, required, onValue }: TextFieldProps) {
  return (
    <label>
      {label}
      <input value={value} onInput={(event) => onValue(event.currentTarget.value)} placeholder={placeholder} required={required} {...LITERAL_INPUT} />
    </label>
  );
}

interface SelectFieldProps<V extends string> {
  label: string;
  value: V | undefined;
  choices: readonly { value: V; label: string }[];
  disabled?: boolean;
  onValue: (value: V) => void;
}

/** A labelled choice of one of `choices`. */
export function SelectField<V extends string>({ label, value, choices, disabled, onValue }: SelectFieldProps<V>) {
  return (
    <label>
      {label}
      <select value={value} disabled={disabled} onChange={(event) => onValue(event.currentTarget.value as V)}>
        {choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
    </label>
  );
}
