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
